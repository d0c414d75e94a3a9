#!/usr/bin/env bash
# Builds the DocC archives of the SDKs, FlintAuth (Sources/FlintAuth/FlintAuth.docc) and FlintAdmin's
# (Sources/FlintAdminCore/FlintAdminCore.docc), with the toolchain's own `docc`, without the SwiftPM documentation
# plugin:
#   1. `swift package dump-symbol-graph` at the repository root, which builds the package first. Unlike the
#      compiler's `-emit-symbol-graph`, it leaves out the modules a module re-exports (Foundation);
#   2. each module's own symbol graphs (M.symbols.json, M@*.symbols.json) copied to a directory of their own, since
#      docc documents one module;
#   3. `docc convert` of each catalog with those graphs, every warning an error.
# Then the same for Integrations/FlintAdminHummingbird, a package of its own, whose dump also emits extension block
# symbols: docc needs them to document its extension of Hummingbird's RouterMethods.
# Everything it writes is under .build/<module>-docs/. Exits non-zero on a build failure or any docc warning.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if command -v docc >/dev/null 2>&1; then
    docc=$(command -v docc)
elif command -v xcrun >/dev/null 2>&1; then
    docc=$(xcrun --find docc)
else
    echo "docs.sh: docc not found (it ships with the Swift toolchain, next to swift)" >&2
    exit 1
fi

bin=$(swift build --show-bin-path)
[[ -n "$bin" ]] || { echo "docs.sh: swift build --show-bin-path printed nothing" >&2; exit 1; }
raw="$(dirname "$bin")/symbolgraph"   # where the dump writes every module's graphs (FlintWire's, the tests' too)
rm -rf "$raw"

echo "==> swift package dump-symbol-graph"
swift package dump-symbol-graph --minimum-access-level public

# convert MODULE CATALOG RAW: MODULE's graphs from the dump directory RAW, then its DocC archive.
convert() {
    local module=$1 catalog=$2 raw=$3
    work="$PWD/.build/$(echo "$module" | tr '[:upper:]' '[:lower:]')-docs"
    graphs="$work/symbol-graphs"
    archive="$work/$module.doccarchive"
    rm -rf "$graphs" "$archive"
    mkdir -p "$graphs"
    if [[ ! -f "$raw/$module.symbols.json" ]]; then
        echo "docs.sh: the dump wrote no $module.symbols.json to $raw" >&2
        exit 1
    fi
    shopt -s nullglob
    for file in "$raw/$module.symbols.json" "$raw/$module"@*.symbols.json; do
        cp "$file" "$graphs/"
    done
    shopt -u nullglob
    echo "==> $module's symbol graphs: $(cd "$graphs" && echo *)"

    echo "==> docc convert $catalog"
    "$docc" convert "$catalog" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "dev.flint.$module" \
        --output-dir "$archive" \
        --warnings-as-errors
    echo "==> DocC archive: $archive"
}

for module in FlintAuth FlintAdminCore; do
    convert "$module" "Sources/$module/$module.docc" "$raw"
done

integration=Integrations/FlintAdminHummingbird
# The dump emits the test modules' graphs too, and fails when they are not built: build them first (what
# scripts/check-mcp-example.sh then finds built).
swift build --package-path "$integration" --build-tests
bin=$(swift build --package-path "$integration" --show-bin-path)
[[ -n "$bin" ]] || { echo "docs.sh: swift build --show-bin-path printed nothing for $integration" >&2; exit 1; }
raw="$(dirname "$bin")/symbolgraph"
rm -rf "$raw"
echo "==> swift package dump-symbol-graph ($integration)"
swift package --package-path "$integration" dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols
convert FlintAdminHummingbird "$integration/Sources/FlintAdminHummingbird/FlintAdminHummingbird.docc" "$raw"
