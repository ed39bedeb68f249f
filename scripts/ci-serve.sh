#!/usr/bin/env bash
# Drives a real `inkra-emulator serve` as a developer would, with curl and the AWS CLI:
#   - POST /questions through the local API Gateway (a dev token; the authorizer in front),
#   - `aws lambda invoke --endpoint-url … --function-name checkUsage` returns the function's payload,
#   - `aws dynamodb scan --endpoint-url …` lists the items that request just wrote,
#   - SIGTERM stops it with status 0 and --state holds the same items,
#   - a port in use is refused with a message naming the flag.
# Usage: scripts/ci-serve.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-testing} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-testing}
export AWS_REGION=${AWS_REGION:-us-east-1} AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}
swift build --product inkra-emulator > /dev/null
emulator=$(swift build --show-bin-path)/inkra-emulator
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

echo "== inkra-emulator serve"
"$emulator" serve --port 0 --lambda-port 0 --runtime-api-port 0 --dynamodb-port 0 --no-console \
    --state "$work/state.json" \
    > "$work/serve.out" 2> "$work/serve.err" &
pid=$!
for _ in $(seq 1 100); do grep -q "Press Ctrl-C" "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
grep -q "Press Ctrl-C" "$work/serve.out" || { echo "serve did not start"; cat "$work/serve.out" "$work/serve.err"; exit 1; }
cat "$work/serve.out"
api=$(awk '/API Gateway/ {print $3}' "$work/serve.out")
lambda=$(awk '$1 == "Lambda" {print $2}' "$work/serve.out")
dynamodb=$(awk '$1 == "DynamoDB" {print $2}' "$work/serve.out")

token=$("$emulator" token --sub ci-serve-user)
status=$(curl -s -o "$work/questions.json" -w '%{http_code}' -X POST "$api/questions" \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d '{"topic":"the river in spring"}')
[ "$status" = 200 ] || { echo "POST /questions answered $status: $(cat "$work/questions.json")"; exit 1; }
echo "POST /questions: 200"

echo "== aws lambda invoke --function-name checkUsage"
python3 - "$work/event.json" <<'PY'
import json, sys, time
event = {
    "resource": "/usage", "path": "/usage", "httpMethod": "GET", "headers": {}, "body": None,
    "requestContext": {"requestTimeEpoch": int(time.time() * 1000), "requestId": "ci-invoke",
                       "authorizer": {"principalId": "ci-serve-user", "sub": "ci-serve-user", "tier": "free"}},
}
json.dump(event, open(sys.argv[1], "w"))
PY
aws lambda invoke --endpoint-url "$lambda" --function-name checkUsage --payload "file://$work/event.json" \
    --log-type Tail "$work/usage.json" > "$work/invoke.json"
python3 - "$work/invoke.json" "$work/usage.json" <<'PY'
import base64, json, sys
meta, payload = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert meta["StatusCode"] == 200 and "FunctionError" not in meta, meta
assert payload["statusCode"] == 200, payload
body = json.loads(payload["body"])
assert body["used"] == 1 and body["tier"] == "free", body
log = base64.b64decode(meta["LogResult"]).decode()
assert log.startswith("START RequestId:") and "REPORT RequestId:" in log, log
print(f"checkUsage payload: used {body['used']} of {body['limit']}; log tail {len(log)} bytes")
PY

echo "== aws dynamodb scan"
aws dynamodb scan --endpoint-url "$dynamodb" --table-name inkra-usage --output json > "$work/scan.json"
python3 - "$work/scan.json" "$(python3 scripts/partition.py ci-serve-user)" <<'PY'
import json, sys
scan = json.load(open(sys.argv[1]))
keys = sorted(item["SK"]["S"] for item in scan["Items"] if item["PK"]["S"] == sys.argv[2])
assert scan["Count"] == len(scan["Items"]) and any(k.startswith("USAGE#") for k in keys), scan
print(f"scan: {scan['Count']} items; ci-serve-user has {keys}")
PY

echo "== SIGTERM"
kill -TERM "$pid"
set +e
wait "$pid"
code=$?
set -e
pid=
[ "$code" = 0 ] || { echo "serve exited $code"; cat "$work/serve.err"; exit 1; }
python3 - "$work/state.json" "$(python3 scripts/partition.py ci-serve-user)" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
assert any(item["PK"]["S"] == sys.argv[2] for item in items), items
print(f"exit 0; --state holds {len(items)} items")
PY

echo "== a port in use"
python3 - "$emulator" <<'PY'
import socket, subprocess, sys
taken = socket.socket()
taken.bind(("127.0.0.1", 0))
taken.listen()
port = taken.getsockname()[1]
run = subprocess.run([sys.argv[1], "serve", "--port", str(port), "--lambda-port", "0", "--runtime-api-port", "0",
                      "--dynamodb-port", "0", "--no-console"], capture_output=True, text=True, timeout=30)
assert run.returncode == 2 and f"127.0.0.1:{port} (--port): the port is in use" in run.stderr, (run.returncode, run.stderr)
print(f"refused: {run.stderr.strip()}")
PY
