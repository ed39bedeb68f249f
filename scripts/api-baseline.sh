#!/usr/bin/env bash
# The public API's baseline: every public declaration of the library modules that are the
# package's API (README.md, "The supported API"), one file per module in api/<Module>.txt.
#
#   scripts/api-baseline.sh --update   write api/<Module>.txt from the current sources
#   scripts/api-baseline.sh --check    fail, naming each declaration added or removed, when the
#                                      sources' API differs from api/ (CI runs this)
#
# Each line is a symbol's kind, its full name and its declaration, as the compiler's symbol graph
# gives them, or a conformance (`conformance Type: Protocol`); lines are sorted, so a change shows
# as lines added and removed. Synthesized members (protocols' default implementations) and the
# implicit Copyable, Escapable and SendableMetatype conformances are left out. `swift package dump-symbol-graph` builds the package in .build (debug, so it reuses what
# `swift build` and `swift test` built) and writes the graphs; a small Python script lists them.
# Made on Linux, as CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(InkraHandlers InkraRuntime InkraJSON InkraUsage InkraAuth SingleTable InkraTime InkraTracing AWSServices DynamoDBTable InkraTesting InkraClient)

mode=${1:-}
case "$mode" in
--update | --check) ;;
*)
    echo "usage: scripts/api-baseline.sh --update | --check" >&2
    exit 2
    ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== swift package dump-symbol-graph" >&2
if ! swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members \
    > "$work/dump.log" 2>&1; then
    cat "$work/dump.log" >&2
    exit 1
fi
graphs=$(sed -n 's/^Files written to //p' "$work/dump.log" | tail -n 1)
[ -d "$graphs" ] || { cat "$work/dump.log" >&2; echo "error: no symbol graphs were written" >&2; exit 1; }

mkdir -p "$work/api"
python3 - "$graphs" "$work/api" "${modules[@]}" <<'EOF'
"""Lists each module's public declarations from its symbol graphs (its own and those of its
extensions to other modules' types), one sorted line each."""
import glob
import json
import os
import re
import sys

graphs, output, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
# Conformances every type has, or that another implies (Sendable implies SendableMetatype), and
# that some toolchains list and others do not.
IMPLIED = {"Swift.Copyable", "Swift.Escapable", "Swift.SendableMetatype"}


def listing(module):
    paths = [os.path.join(graphs, f"{module}.symbols.json")]
    paths += sorted(glob.glob(os.path.join(graphs, f"{module}@*.symbols.json")))
    if not os.path.exists(paths[0]):
        sys.exit(f"error: no symbol graph for {module} in {graphs}")
    lines = set()
    for path in paths:
        with open(path) as file:
            graph = json.load(file)
        names = {}
        for symbol in graph["symbols"]:
            identifier = symbol["identifier"]["precise"]
            name = ".".join(symbol["pathComponents"])
            names[identifier] = name
            if "::SYNTHESIZED::" in identifier or symbol.get("accessLevel") not in ("public", "open"):
                continue
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            declaration = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
            declaration = re.sub(r"\s+", " ", declaration).strip()
            lines.add(f"{kind} {name}: {declaration}")
        for relationship in graph.get("relationships", []):
            if relationship["kind"] not in ("conformsTo", "inheritsFrom"):
                continue
            source = names.get(relationship["source"])
            if source is None or "::SYNTHESIZED::" in relationship["source"]:
                continue
            target = names.get(relationship["target"]) or relationship.get("targetFallback") or relationship["target"]
            if target in IMPLIED:
                continue
            word = "conformance" if relationship["kind"] == "conformsTo" else "inheritance"
            lines.add(f"{word} {source}: {target}")
    return sorted(lines)


for module in modules:
    with open(os.path.join(output, f"{module}.txt"), "w") as file:
        file.write(f"# The public API of {module}: made by scripts/api-baseline.sh --update; do not edit.\n")
        file.writelines(line + "\n" for line in listing(module))
EOF

if [ "$mode" = --update ]; then
    mkdir -p api
    for module in "${modules[@]}"; do cp "$work/api/$module.txt" "api/$module.txt"; done
    echo "api/: the public API of ${modules[*]} written" >&2
    exit 0
fi

changed=0
for module in "${modules[@]}"; do
    if [ ! -f "api/$module.txt" ]; then
        echo "error: api/$module.txt is missing: run scripts/api-baseline.sh --update" >&2
        changed=1
        continue
    fi
    if ! cmp -s "api/$module.txt" "$work/api/$module.txt"; then
        changed=1
        echo "error: the public API of $module differs from api/$module.txt:" >&2
        diff "api/$module.txt" "$work/api/$module.txt" | sed -n 's/^< /  removed: /p; s/^> /  added:   /p' >&2 || true
    fi
done
if [ "$changed" -ne 0 ]; then
    echo "If the change is meant, run scripts/api-baseline.sh --update and commit api/ with it." >&2
    exit 1
fi
echo "the public API of ${modules[*]} matches api/" >&2
