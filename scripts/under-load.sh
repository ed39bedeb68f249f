#!/usr/bin/env bash
# Runs a command beside a CPU load of twice the cores, as a shared CI runner or a busy laptop gives
# it: `sh` busy loops started before the command and killed after it, however it ends. The
# command's exit status is the script's.
#
#   scripts/under-load.sh swift test --skip-build
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/under-load.sh COMMAND [ARGUMENT…]" >&2; exit 2; }

loops=$((2 * $(nproc)))
pids=()
stop() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop EXIT
for _ in $(seq "$loops"); do
    sh -c 'while :; do :; done' &
    pids+=($!)
done
echo "under-load: $loops busy loops on $(nproc) cores beside: $*" >&2
# The command runs in the background and is waited for, so a signal to this script is handled at
# once (passed on to the command, the loops stopped), not only once the command ends.
"$@" &
command=$!
trap 'kill -INT "$command" 2>/dev/null; exit 130' INT
trap 'kill -TERM "$command" 2>/dev/null; exit 143' TERM
wait "$command"
