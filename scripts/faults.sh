#!/usr/bin/env bash
# The fault harness (RELIABILITY.md): the built bootstrap, driven through `inkra-emulator serve`, on
# moto or on serve's own table, behind a seeded fault proxy and a model stub; clients retry lost
# answers with their Idempotency-Key; afterwards the table is read back and the invariants checked.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    cat <<'HELP'
Usage: scripts/faults.sh [--seed N] [--scenario NAME]... [--quick] [--moto URL] [--clients N] [--json FILE] [--keep]

Runs each scenario against the built `bootstrap` (debug) behind `inkra-emulator serve`, with every
DynamoDB request of the runtimes going through a seeded fault proxy (scripts/faults/proxy.py) and
the model through a stub that hangs, is slow or fails (scripts/faults/model.py). Then it runs
`inkra-emulator admin repair`, reads the table back directly and checks the invariants:
  charged      units charged per user (month, day, hour) = distinct keys answered 200
  replay       an acknowledged key sent again answers 200, Idempotent-Replayed, same questions
  in-progress  no idempotency record still INPROGRESS after the repair
  answered     every call ends 200 or 429 within its retries (no 5xx where there was room to retry)
  refusal-503  no 503 once the user's limit is used up (a refusal is a 429)
  usage        GET /usage answers 200, right, within INKRA_GATEWAY_TIMEOUT (checkUsage scenario)
  kept         users signed up before serve's SIGKILL are there after its restart
  repair       the repair command itself ran

  --seed N         the seed every fault decision comes from (default: a random one, printed)
  --scenario NAME  run only this scenario (repeatable): model-hang, getitem-500,
                   refusal-updateitem, transactions, crash-bootstrap, crash-serve, unprocessed-keys
  --quick          fewer calls per client (CI: a few minutes in all)
  --moto URL       use this moto_server (default: $INKRA_TEST_DYNAMODB_ENDPOINT, else start one)
  --clients N      client threads (default 8)
  --json FILE      also write the figures as JSON
  --keep           keep the work folder with serve's and the runtimes' logs

Exit status: 0 with no violation, 1 with any (the seed and the command to replay it are printed),
2 for a usage error. The same seed gives every operation's n-th call the same fault.
Examples:
  scripts/faults.sh --quick
  scripts/faults.sh --seed 42 --scenario transactions
HELP
}

args=()
moto=${INKRA_TEST_DYNAMODB_ENDPOINT:-}
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --moto) moto=$2; shift 2 ;;
        --seed|--scenario|--clients|--json) args+=("$1" "$2"); shift 2 ;;
        --quick|--keep) args+=("$1"); shift ;;
        *) echo "faults.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

export PYTHONDONTWRITEBYTECODE=1
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-testing} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-testing}
export AWS_REGION=${AWS_REGION:-us-east-1} AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}

moto_pid=
cleanup() { if [ -n "$moto_pid" ]; then kill "$moto_pid" 2>/dev/null || true; wait "$moto_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "$moto" ]; then
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    moto_server -H 127.0.0.1 -p "$port" > /tmp/inkra-faults-moto.log 2>&1 &
    moto_pid=$!
    moto="http://127.0.0.1:$port"
    for _ in $(seq 1 100); do curl -s -o /dev/null "$moto/" && break; sleep 0.2; done
    curl -s -o /dev/null "$moto/" || { echo "moto_server did not start"; cat /tmp/inkra-faults-moto.log; exit 1; }
fi

echo "== building bootstrap and inkra-emulator (debug)"
swift build --product bootstrap > /dev/null
swift build --product inkra-emulator > /dev/null
bin=$(swift build --show-bin-path)

python3 scripts/faults/selftest.py
python3 -u scripts/faults/run.py --moto "$moto" --emulator "$bin/inkra-emulator" --bootstrap "$bin/bootstrap" ${args[@]+"${args[@]}"}
