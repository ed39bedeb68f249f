#!/usr/bin/env bash
# Builds the DocC reference of the library modules, and fails on any DocC warning: a link to a
# symbol that does not exist, a documented parameter the function does not have, a parameter left
# undocumented among documented ones, a malformed catalog page.
#
#   scripts/docs.sh [MODULE…]     every module below by default; writes .build/docs/<MODULE>.doccarchive
#
# Offline, with the toolchain alone: `swift package dump-symbol-graph` builds the package (debug,
# in .build, so it reuses what `swift build` and `swift test` built) and writes every module's
# symbol graph (public for the library products' modules, package for the rest); then
# `docc convert` compiles each module's catalog
# (Sources/<MODULE>/<MODULE>.docc) with its graphs, every warning an error. Measured here on a
# warm build (CI runs it after `swift test`): about 19 s in all, the symbol graphs about 10 s and
# each module about 1 s; swift-docc-plugin's generate-documentation took as long warm (23 s) and
# would add a package dependency, so the package does without it.
#
# A DocC link (``Name``) reaches symbols of its own module only: write a symbol of another module
# in code voice (`Table`) instead. To read an archive, serve it as static files:
#   python3 -m http.server -d .build/docs/InkraUsage.doccarchive 8080
#   then open http://localhost:8080/documentation/inkrausage
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(InkraTime SingleTable InkraUsage InkraAuth InkraHandlers InkraRuntime AWSServices DynamoDBTable InkraTesting InkraClient)
if [ $# -gt 0 ]; then modules=("$@"); fi
# The library products' modules are documented as their users see them (public declarations); the
# others, which are targets and not products, as the package's own developers use them (`package`
# declarations too).
products=(InkraHandlers InkraTesting InkraClient)

docc=$(command -v docc || true)
if [ -z "$docc" ]; then
    # docc ships beside swift in the toolchain's bin folder.
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
[ -x "$docc" ] || { echo "error: docc not found (looked for $docc beside swift)" >&2; exit 1; }

for module in "${modules[@]}"; do
    [ -d "Sources/$module/$module.docc" ] ||
        { echo "error: $module has no catalog at Sources/$module/$module.docc" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Writes the symbol graphs of every module at access level $1 into $work/graphs-$1.
dump() {
    echo "== swift package dump-symbol-graph --minimum-access-level $1" >&2
    if ! swift package dump-symbol-graph --minimum-access-level "$1" > "$work/dump-$1.log" 2>&1; then
        cat "$work/dump-$1.log" >&2
        exit 1
    fi
    local written
    written=$(sed -n 's/^Files written to //p' "$work/dump-$1.log" | tail -n 1)
    [ -d "$written" ] || { cat "$work/dump-$1.log" >&2; echo "error: no symbol graphs were written" >&2; exit 1; }
    cp -R "$written" "$work/graphs-$1"
}
dump public
dump package

mkdir -p .build/docs
failed=()
for module in "${modules[@]}"; do
    graphs="$work/graphs-package"
    for product in "${products[@]}"; do
        if [ "$module" = "$product" ]; then graphs="$work/graphs-public"; fi
    done
    [ -f "$graphs/$module.symbols.json" ] ||
        { echo "error: no symbol graph for $module in $graphs" >&2; failed+=("$module"); continue; }
    mkdir -p "$work/$module"
    # The module's own graph, and those of its extensions to other modules' types.
    cp "$graphs/$module.symbols.json" "$work/$module/"
    for extension in "$graphs/$module@"*.symbols.json; do
        if [ -f "$extension" ]; then cp "$extension" "$work/$module/"; fi
    done
    echo "== docc convert $module" >&2
    rm -rf ".build/docs/$module.doccarchive"
    if ! "$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$work/$module" \
        --output-dir ".build/docs/$module.doccarchive" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "app.inkra.$module" \
        --warnings-as-errors --ide-console-output > "$work/$module.log" 2>&1; then
        cat "$work/$module.log" >&2
        failed+=("$module")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "error: DocC found problems in ${failed[*]} (see above)" >&2
    exit 1
fi
echo "documentation of ${modules[*]} written to .build/docs/" >&2
