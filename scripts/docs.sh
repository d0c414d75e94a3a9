#!/usr/bin/env bash
# Builds the DocC archive of the FlintAuth SDK (Sources/FlintAuth/FlintAuth.docc) with the toolchain's own
# `docc`, without the SwiftPM documentation plugin:
#   1. `swift build --target FlintAuth` at the repository root, with the compiler writing symbol graphs;
#   2. FlintAuth's symbol graphs only (FlintAuth.symbols.json, FlintAuth@*.symbols.json) copied to their
#      own directory;
#   3. `docc convert` of the catalog with those graphs, every warning an error.
# Everything it writes is under .build/flintauth-docs/. Exits non-zero on a build failure or any docc warning.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

catalog=Sources/FlintAuth/FlintAuth.docc
work="$PWD/.build/flintauth-docs"
raw="$work/symbol-graphs-raw"   # what the compiler writes: every module it compiles (FlintWire too)
graphs="$work/symbol-graphs"    # FlintAuth's graphs only: docc documents one module
archive="$work/FlintAuth.doccarchive"

if command -v docc >/dev/null 2>&1; then
    docc=$(command -v docc)
elif command -v xcrun >/dev/null 2>&1; then
    docc=$(xcrun --find docc)
else
    echo "docs.sh: docc not found (it ships with the Swift toolchain, next to swift)" >&2
    exit 1
fi

rm -rf "$raw" "$graphs" "$archive"
mkdir -p "$raw" "$graphs"

# The compiler writes symbol graphs only when it emits the module. When FlintAuth is up to date the build
# would emit nothing, so remove FlintAuth's module first: the build then emits it again (only FlintAuth, and
# without recompiling its sources if they did not change).
bin=$(swift build --show-bin-path)
[[ -n "$bin" ]] || { echo "docs.sh: swift build --show-bin-path printed nothing" >&2; exit 1; }
rm -rf "$bin/Modules/FlintAuth.swiftmodule" "$bin/FlintAuth.swiftmodule"

echo "==> swift build --target FlintAuth (emitting symbol graphs)"
swift build --target FlintAuth \
    -Xswiftc -emit-symbol-graph \
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$raw"
if [[ ! -f "$raw/FlintAuth.symbols.json" ]]; then
    echo "docs.sh: the build wrote no FlintAuth.symbols.json to $raw" >&2
    exit 1
fi

shopt -s nullglob
for file in "$raw"/FlintAuth.symbols.json "$raw"/FlintAuth@*.symbols.json; do
    cp "$file" "$graphs/"
done
shopt -u nullglob
echo "==> symbol graphs: $(cd "$graphs" && echo *)"

echo "==> docc convert $catalog"
"$docc" convert "$catalog" \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name FlintAuth \
    --fallback-bundle-identifier dev.flint.FlintAuth \
    --output-dir "$archive" \
    --warnings-as-errors

echo "==> DocC archive: $archive"
