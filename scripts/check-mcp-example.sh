#!/usr/bin/env bash
# Tests Integrations/FlintAdminHummingbird (its middleware in Hummingbird's router client, no server), then builds
# Examples/MCPServer (an MCP-style resource server on it) and runs it against a live production `flint serve`
# (scripts/check_mcp_example.py): discovery through the 401's challenge, a tool per scope, 403 insufficient_scope,
# refused tokens. Needs the server package built (Server/.build/debug/flint).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --package-path Integrations/FlintAdminHummingbird --build-tests
swift test --package-path Integrations/FlintAdminHummingbird --skip-build
swift build --package-path Examples/MCPServer
python3 scripts/check_mcp_example.py Server/.build/debug/flint \
    "$(swift build --package-path Examples/MCPServer --show-bin-path)/MCPServer"
