#!/usr/bin/env bash
# Builds Examples/ClientApp (an app at iOS 15 / macOS 11 that depends on FlintAuth by path) and checks that
# resolving it pins no package: FlintAuth brings nothing else into an app's Package.resolved.
set -euo pipefail
cd "$(dirname "$0")/../Examples/ClientApp"
rm -f Package.resolved
swift build
if [ -f Package.resolved ] && python3 -c 'import json,sys; sys.exit(0 if json.load(open("Package.resolved")).get("pins") else 1)'; then
    echo "FlintAuth pins packages in an app:" >&2
    cat Package.resolved >&2
    exit 1
fi
echo "Examples/ClientApp builds and pins no package."
