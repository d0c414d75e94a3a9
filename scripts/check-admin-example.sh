#!/usr/bin/env bash
# Builds Examples/AdminServer (a Hummingbird API that adds FlintAdmin by path) and runs it against a live production
# `flint serve` (scripts/check_admin_example.py): tokens verified with checkRevoked, users managed. Needs the server
# package built (Server/.build/debug/flint).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --package-path Examples/AdminServer
python3 scripts/check_admin_example.py Server/.build/debug/flint \
    "$(swift build --package-path Examples/AdminServer --show-bin-path)/AdminServer"
