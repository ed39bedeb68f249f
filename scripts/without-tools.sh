#!/usr/bin/env bash
# Runs a command as on a machine without the tools .ci/run installs, so the tests that need them
# must skip, naming what is missing, rather than fail:
# - Python: boto3, pycognito and schemathesis fail to import (a PYTHONPATH of stubs that raise
#   ImportError, ahead of site-packages), as the tests detect them (`python3 -c "import …"`);
# - commands: moto_server, gdb, gdbserver, chromium, sam, schemathesis, aws and cfn-lint are not on
#   PATH (a folder of links to every other command on PATH takes its place), and
#   INKRA_TEST_DYNAMODB_ENDPOINT is unset, so no moto is found or started.
#
#   scripts/without-tools.sh swift test --skip-build
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/without-tools.sh COMMAND [ARGUMENT…]" >&2; exit 2; }

modules=(boto3 pycognito schemathesis)
commands=(moto_server gdb gdbserver chromium sam schemathesis aws cfn-lint)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/python" "$work/bin"
for module in "${modules[@]}"; do
    echo "raise ImportError('$module is hidden by scripts/without-tools.sh')" > "$work/python/$module.py"
done
hidden=" ${commands[*]} "
IFS=: read -r -a folders <<< "$PATH"
for folder in "${folders[@]}"; do
    [ -d "$folder" ] || continue
    for path in "$folder"/*; do
        name=$(basename "$path")
        [ -x "$path" ] && [ ! -d "$path" ] || continue
        [[ "$hidden" == *" $name "* ]] && continue
        [ -e "$work/bin/$name" ] || ln -s "$path" "$work/bin/$name"
    done
done
for module in "${modules[@]}"; do
    if PATH="$work/bin" PYTHONPATH="$work/python" python3 -c "import $module" 2>/dev/null; then
        echo "without-tools: $module still imports" >&2
        exit 1
    fi
done
for name in "${commands[@]}"; do
    if PATH="$work/bin" command -v "$name" >/dev/null; then
        echo "without-tools: $name is still on PATH" >&2
        exit 1
    fi
done
echo "without-tools: hidden ${modules[*]} (Python) and ${commands[*]} beside: $*" >&2
env -u INKRA_TEST_DYNAMODB_ENDPOINT PATH="$work/bin" PYTHONPATH="$work/python${PYTHONPATH:+:$PYTHONPATH}" "$@"
