#!/usr/bin/env bash
# SCALING.md's "The operator's month" table is the bill command's output on the repository's
# recording (pricing/free-month.jsonl, written by scripts/cost-recording.py --users 5): this runs
# the command and fails when SCALING.md's block differs; --update writes the block instead.
#   scripts/check-scaling-bill.sh [--update]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product inkra-emulator > /dev/null
emulator=$(swift build --show-bin-path)/inkra-emulator
"$emulator" replay bill pricing/free-month.jsonl --lambda-ms 30 --model-price 0.0006/1k \
    --users 1000,10000,100000 > /tmp/inkra-scaling-bill.txt
python3 - "${1:-}" <<'PY'
import sys
output = open("/tmp/inkra-scaling-bill.txt").read()
table = output[output.index("The operator's month:"):].rstrip("\n")
begin, end = "<!-- bill: scripts/check-scaling-bill.sh -->\n", "\n<!-- /bill -->"
scaling = open("SCALING.md").read()
start, stop = scaling.index(begin) + len(begin), scaling.index(end)
if sys.argv[1] == "--update":
    open("SCALING.md", "w").write(scaling[:start] + table + scaling[stop:])
    print("SCALING.md: the operator's month written")
elif scaling[start:stop] != table:
    import difflib
    sys.stdout.writelines(difflib.unified_diff(
        scaling[start:stop].splitlines(True), table.splitlines(True), "SCALING.md", "the bill command"))
    sys.exit("SCALING.md's operator's month is not the bill command's: run scripts/check-scaling-bill.sh --update")
else:
    print("SCALING.md's operator's month is the bill command's output")
PY
