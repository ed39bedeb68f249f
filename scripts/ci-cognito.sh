#!/usr/bin/env bash
# Drives `inkra-emulator serve`'s local Cognito user pool with real clients: boto3 and the
# AWS CLI (sign-up, the logged code, USER_PASSWORD_AUTH through the test-only client, the API with
# the id token, premium after a refresh, 403 after a block and a refresh, global sign-out), pycognito's
# SRP (right and wrong password, its own token verification), tokens of another pool refused, and a
# differential against moto_server's cognito-idp, printing where moto departs from Cognito's docs.
# Usage: scripts/ci-cognito.sh [MOTO_URL]   (without one, a moto_server is started on a free port)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import boto3, jwt, pycognito' 2>/dev/null || python3 -m pip install --quiet -r .ci/requirements.txt
swift build --product inkra-emulator > /dev/null
emulator=$(swift build --show-bin-path)/inkra-emulator
moto=${1:-}
moto_pid=
cleanup() { [ -n "$moto_pid" ] && kill "$moto_pid" 2>/dev/null || true; }
trap cleanup EXIT
if [ -z "$moto" ]; then
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    moto_server -H 127.0.0.1 -p "$port" > /tmp/inkra-ci-cognito-moto.log 2>&1 &
    moto_pid=$!
    moto="http://127.0.0.1:$port"
    for _ in $(seq 1 60); do curl -s -o /dev/null "$moto/" && break; sleep 0.5; done
fi
echo "== Cognito user pool end to end (moto at $moto)"
python3 scripts/cognito_e2e.py "$emulator" "$moto"
