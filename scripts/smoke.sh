#!/usr/bin/env bash
# A smoke test of a deployed stack (or the local one), run after `sam deploy`:
#
#   TOKEN=$(scripts/id-token.py --pool-id … --client-id … --username …) scripts/smoke.sh API_URL [--generate]
#
# API_URL is template.yaml's output ApiUrl (with the stage). It checks, in this order, and stops
# at the first step that fails, naming it (exit 1):
#   1. no token: 401 with the error code `unauthorized` (the authorizer and the gateway responses),
#   2. GET /usage with the token: 200 with the month's `used` and `limit`,
#   3. with --generate only (it costs the user one unit and one model call):
#      POST /questions with a fresh Idempotency-Key: 200 with questions; the same request again:
#      200 replayed (Idempotent-Replayed: true), and GET /usage shows exactly one unit more.
# Nothing it prints carries the token. Needs curl and python3.
set -euo pipefail

if [ $# -lt 1 ] || [ -z "${TOKEN:-}" ]; then
    echo "usage: TOKEN=<id token> scripts/smoke.sh API_URL [--generate]" >&2
    exit 2
fi
api=${1%/}
generate=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "smoke: FAILED: $*" >&2; exit 1; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$@"; }
call() { # METHOD PATH [BODY] [HEADER…]: status to stdout, body in $work/body, headers in $work/headers
    local method=$1 path=$2 body=${3:-}
    shift 3 || shift $#
    local args=(-s -X "$method" -o "$work/body" -D "$work/headers" -w '%{http_code}')
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data "$body")
    for header in "$@"; do args+=(-H "$header"); done
    curl "${args[@]}" "$api$path"
}

status=$(call GET /usage "")
[ "$status" = 401 ] || fail "GET /usage without a token answered $status, not 401"
[ "$(field "$work/body" 'd.get("code")')" = unauthorized ] || fail "the 401's code is not unauthorized: $(cat "$work/body")"
echo "smoke: no token -> 401 unauthorized"

status=$(call GET /usage "" "Authorization: Bearer $TOKEN")
[ "$status" = 200 ] || fail "GET /usage answered $status: $(cat "$work/body")"
before=$(field "$work/body" 'd["used"]')
echo "smoke: GET /usage -> 200, used $before of $(field "$work/body" 'd["limit"]') this month ($(field "$work/body" 'd["tier"]'))"

if [ "$generate" = --generate ]; then
    key="smoke-$(date +%s)-$$"
    body='{"topic":"a smoke test of the deployed stack","count":1}'
    status=$(call POST /questions "$body" "Authorization: Bearer $TOKEN" "Idempotency-Key: $key")
    [ "$status" = 200 ] || fail "POST /questions answered $status: $(cat "$work/body")"
    count=$(field "$work/body" 'len(d["questions"])')
    echo "smoke: POST /questions -> 200, $count question(s)"
    status=$(call POST /questions "$body" "Authorization: Bearer $TOKEN" "Idempotency-Key: $key")
    [ "$status" = 200 ] || fail "the same POST /questions again answered $status: $(cat "$work/body")"
    grep -qi '^idempotent-replayed: *true' "$work/headers" || fail "the same request again was not a replay"
    echo "smoke: the same request again -> 200, replayed"
    status=$(call GET /usage "" "Authorization: Bearer $TOKEN")
    after=$(field "$work/body" 'd["used"]')
    [ "$after" = $((before + 1)) ] || fail "used went from $before to $after, not up by exactly one"
    echo "smoke: GET /usage -> used $after: one unit for the one call"
fi
echo "smoke: passed"
