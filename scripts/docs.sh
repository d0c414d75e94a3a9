#!/usr/bin/env bash
# Builds the DocC archive of the FlintAuth SDK (Sources/FlintAuth/FlintAuth.docc) with the toolchain's own
# `docc`, without the SwiftPM documentation plugin:
#   1. `swift package dump-symbol-graph` at the repository root, which builds the package first. Unlike the
#      compiler's `-emit-symbol-graph`, it leaves out the modules FlintAuth re-exports (Foundation);
#   2. FlintAuth's symbol graphs only (FlintAuth.symbols.json, FlintAuth@*.symbols.json) copied to their
#      own directory;
#   3. `docc convert` of the catalog with those graphs, every warning an error.
# Everything it writes is under .build/flintauth-docs/. Exits non-zero on a build failure or any docc warning.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

catalog=Sources/FlintAuth/FlintAuth.docc
work="$PWD/.build/flintauth-docs"
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

rm -rf "$graphs" "$archive"
mkdir -p "$graphs"

bin=$(swift build --show-bin-path)
[[ -n "$bin" ]] || { echo "docs.sh: swift build --show-bin-path printed nothing" >&2; exit 1; }
raw="$(dirname "$bin")/symbolgraph"   # where the dump writes every module's graphs (FlintWire's, the tests' too)
rm -rf "$raw"

echo "==> swift package dump-symbol-graph"
swift package dump-symbol-graph --minimum-access-level public
if [[ ! -f "$raw/FlintAuth.symbols.json" ]]; then
    echo "docs.sh: the dump wrote no FlintAuth.symbols.json to $raw" >&2
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
