#!/usr/bin/env bash
# Points Schemathesis (pinned in .ci/requirements.txt) at a real `inkra-emulator serve` (REST
# flavour, request validation on) with openapi.yaml and a development token: a bounded number of
# generated requests per route, valid and hostile. It fails on
#   - a server error (not_a_server_error),
#   - a route answering without the token, or with a broken one (ignored_auth),
#   - an answer the document does not describe: status, body schema, Content-Type, headers,
#   - a body the document calls invalid that is not refused with a 4xx (negative_data_rejection),
#   - a unit charged by anything but a 200 from generateQuestions: the user's `used`, read back at
#     the end, must equal the 200 answers it got that were not replays (Idempotent-Replayed).
# DELETE /account runs on its own, with another user, so it cannot erase the usage being counted.
# Usage: scripts/ci-schemathesis.sh [EXAMPLES_PER_ROUTE]   (default 100; the seed is printed)
set -euo pipefail
cd "$(dirname "$0")/.."
examples=${1:-100}
seed=${INKRA_SCHEMATHESIS_SEED:-$RANDOM}
swift build --product inkra-emulator > /dev/null
emulator=$(swift build --show-bin-path)/inkra-emulator
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

echo "== schemathesis against inkra-emulator serve (seed $seed, $examples examples per route;" \
    "INKRA_SCHEMATHESIS_SEED=$seed replays it)"
# Premium with 60 an hour: the run gets many answers (the generator's paths) and meets the hourly
# 429 as well.
echo '{"premium": {"daily": 100000, "hourly": 60}}' > "$work/limits.json"
"$emulator" serve --limits "$work/limits.json" --no-throttle --no-console --no-cognito \
    --port 0 --lambda-port 0 --runtime-api-port 0 --dynamodb-port 0 > "$work/serve.out" 2> "$work/serve.err" &
pid=$!
for _ in $(seq 1 100); do grep -q "Press Ctrl-C" "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
grep -q "Press Ctrl-C" "$work/serve.out" || { echo "serve did not start"; cat "$work/serve.out" "$work/serve.err"; exit 1; }
api=$(awk '/API Gateway/ {print $3}' "$work/serve.out")

token=$("$emulator" token --sub schemathesis-user --tier premium)
other=$("$emulator" token --sub schemathesis-deleter --tier premium)
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance
checks=$checks,response_schema_conformance,negative_data_rejection,ignored_auth
common=(--url "$api" --checks "$checks" --max-examples "$examples" --seed "$seed" --workers 1
    --phases examples,coverage,fuzzing --request-timeout 30 --no-color)

# Its whole output when it fails (every failure with a curl line to reproduce it), the summary when not.
run() {
    local log=$1
    shift
    # `python3 -m schemathesis.cli` is `st`, found without a pyenv rehash after pip installed it.
    if python3 -m schemathesis.cli run openapi.yaml "${common[@]}" "$@" > "$log" 2>&1; then
        sed -n '/SUMMARY/,$p' "$log"
    else
        cat "$log"
        echo "schemathesis failed (seed $seed; INKRA_SCHEMATHESIS_SEED=$seed bash scripts/ci-schemathesis.sh replays it)"
        exit 1
    fi
}
run "$work/questions.log" --exclude-path /account -H "Authorization: Bearer $token" \
    --report har --report-har-path "$work/run.har"
run "$work/account.log" --include-path /account -H "Authorization: Bearer $other"

echo "== nothing charged by a refused request"
curl -s -H "Authorization: Bearer $token" "$api/usage" > "$work/usage.json"
python3 - "$work/run.har" "$work/usage.json" <<'PY'
import json, sys
har, usage = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
answered = replayed = refused = 0
for entry in har["log"]["entries"]:
    request, response = entry["request"], entry["response"]
    if request["method"] != "POST" or not request["url"].split("?")[0].endswith("/questions"):
        continue
    headers = {h["name"].lower(): h["value"] for h in response["headers"]}
    if response["status"] != 200:
        refused += 1
    elif headers.get("idempotent-replayed") == "true":
        replayed += 1
    else:
        answered += 1
print(f"POST /questions: {answered} answered 200, {replayed} replayed, {refused} refused; usage says used {usage['used']}")
assert usage["used"] == answered, f"charged {usage['used']} units for {answered} answers"
PY
kill -TERM "$pid"
wait "$pid" || true
pid=
echo "bodies refused by the request model, no function invoked: $(grep -c "validation=refused" "$work/serve.out" || true)"
