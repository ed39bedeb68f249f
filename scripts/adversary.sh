#!/usr/bin/env bash
# The adversary (issue #47, point 6): a seeded, stateful, model-based test that drives the built
# `inkra-emulator serve --clock virtual` (its user pool, API and DynamoDB endpoint, and optionally
# the built bootstrap serving generateQuestions) over real sockets on 127.0.0.1, with the ordinary
# moves of users and administrators, and checks after every step that nobody gets more than their
# limit, that charges match answers, that a deleted account's token buys nothing, and that nothing
# sent or received is kept in logs, recordings or the table. See scripts/adversary/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    cat <<'HELP'
Usage: scripts/adversary.sh [--long] [--seed N] [--emulator PATH] [--bootstrap PATH|--no-bootstrap]

Starts one `inkra-emulator serve --clock virtual` per phase (small limits; with --long also the
default limits), and runs Hypothesis' RuleBasedStateMachine (scripts/adversary/machine.py)
against it: sequences of sign-ups, confirmations, sign-ins, refreshes, account deletions, sign-ups
again with the same email, POST /questions with fresh keys, retries, keys reused with another body,
bursts of parallel calls, tier changes by an administrator, limits changes by an owner, clock
moves and GET /usage. Invariants,
after every step:
  1-limits   per person (email) and UTC month/day/hour of the stack's clock, calls answered 200
             (distinct keys) stay within the limit of the token's tier, across all the accounts
             the email ever had
  2-charged  units charged (the table, GET /usage, a 200's usage) = calls answered 200
  3-deleted  no 200 from any function, and no token from the pool, for a deleted account
  4-leak     no log line, --record file, table item or console entry holds a topic, a question,
             an email, a password, an Idempotency-Key or a token sent or received
and, judged at each answer: replay (an answered key sent again gets its first answer; with
another body, 422) and model (no expired token let through, no refusal within the limits, no 5xx).
A failing sequence is shrunk by Hypothesis and printed with every exchange of its last run.

  --seed N            the seed (default: a random one, printed); the same seed replays the run
  --long              more, longer sequences, a second phase on the default limits, more shrinking
  --emulator PATH     the inkra-emulator to serve (default: build it, debug)
  --bootstrap PATH    serve generateQuestions with this bootstrap (default: build it, debug)
  --no-bootstrap      run generateQuestions in serve instead
  --keep              keep the work folder (serve's logs, the recording) after a passing run
  --json FILE         also write the figures as JSON
  --verbose           print every sequence's exchanges

Exit status: 0 with no violation, 1 with any (the seed and the command to replay it are printed),
2 for a usage error or a harness error (serve would not start, a check could not run).
Examples:
  scripts/adversary.sh
  scripts/adversary.sh --seed 42 --emulator .build/debug/inkra-emulator --bootstrap .build/debug/bootstrap
  scripts/adversary.sh --long
HELP
}

args=()
emulator=
bootstrap=
no_bootstrap=
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --emulator) emulator=$2; shift 2 ;;
        --bootstrap) bootstrap=$2; shift 2 ;;
        --no-bootstrap) no_bootstrap=1; shift ;;
        --seed|--json|--examples|--steps) args+=("$1" "$2"); shift 2 ;;
        --long|--keep|--verbose) args+=("$1"); shift ;;
        *) echo "adversary.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

export PYTHONDONTWRITEBYTECODE=1
# boto3 signs its requests to the local pool and table; nothing leaves 127.0.0.1.
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-local} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-local}
export AWS_REGION=${AWS_REGION:-us-east-1} AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}

if [ -z "$emulator" ] || { [ -z "$bootstrap" ] && [ -z "$no_bootstrap" ]; }; then
    echo "== building inkra-emulator and bootstrap (debug)"
    swift build --product inkra-emulator > /dev/null
    [ -n "$no_bootstrap" ] || swift build --product bootstrap > /dev/null
    bin=$(swift build --show-bin-path)
    emulator=${emulator:-$bin/inkra-emulator}
    [ -n "$no_bootstrap" ] || bootstrap=${bootstrap:-$bin/bootstrap}
fi
[ -x "$emulator" ] || { echo "adversary.sh: --emulator $emulator is not an executable file" >&2; exit 2; }
if [ -n "$no_bootstrap" ]; then
    bootstrap=
elif [ ! -x "$bootstrap" ]; then
    echo "adversary.sh: --bootstrap $bootstrap is not an executable file" >&2; exit 2
fi

python3 scripts/adversary/selftest.py
python3 -u scripts/adversary/run.py --emulator "$emulator" ${bootstrap:+--bootstrap "$bootstrap"} \
    ${args[@]+"${args[@]}"}
