#!/usr/bin/env bash
# Replays events/ on the in-memory table and on a DynamoDB-compatible endpoint, checks both give
# the same results, and reads an item back with the AWS CLI to check it is the item of docs/table.md.
# Usage: scripts/ci-replay.sh DYNAMODB_ENDPOINT_URL
set -euo pipefail
cd "$(dirname "$0")/.."
endpoint=$1
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-testing} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-testing}
export AWS_REGION=${AWS_REGION:-us-east-1} AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}
emulator=$(swift build --show-bin-path)/inkra-emulator
swift build --product inkra-emulator > /dev/null

echo "== replay events/ in memory"
"$emulator" replay events --json > /tmp/inkra-replay-memory.jsonl
"$emulator" replay events | tail -1

echo "== replay events/ on DynamoDB ($endpoint)"
table="inkra-ci-$RANDOM$RANDOM"
"$emulator" create-table --dynamodb-endpoint "$endpoint" --table "$table"
"$emulator" replay events --json --dynamodb-endpoint "$endpoint" --table "$table" > /tmp/inkra-replay-dynamodb.jsonl
python3 - <<'PY'
import json
def load(path):
    rows = []
    for line in open(path):
        row = json.loads(line)
        response = row.get("response") or {}
        rows.append((row["file"], row["ok"], row.get("statusCode"), response.get("body"), json.dumps(row.get("error"))))
    return rows
memory, dynamo = load("/tmp/inkra-replay-memory.jsonl"), load("/tmp/inkra-replay-dynamodb.jsonl")
assert len(memory) == len(dynamo) and len(memory) >= 25, (len(memory), len(dynamo))
for a, b in zip(memory, dynamo):
    assert a == b, f"replay differs between the in-memory table and DynamoDB:\n  {a}\n  {b}"
    assert a[1], f"{a[0]} failed"
print(f"{len(memory)} events: identical results in memory and on DynamoDB")
PY

echo "== the scenario's items, read back with the AWS CLI (the partition: the user id's keyed pseudonym)"
partition=$(python3 scripts/partition.py scenario-free-user)
aws dynamodb get-item --endpoint-url "$endpoint" --region us-east-1 --table-name "$table" \
    --key '{"PK":{"S":"'"$partition"'"},"SK":{"S":"USAGE#2026-11"}}' --output json > /tmp/inkra-month.json
aws dynamodb get-item --endpoint-url "$endpoint" --region us-east-1 --table-name "$table" \
    --key '{"PK":{"S":"'"$partition"'"},"SK":{"S":"RATELIMIT#2026-11-17"}}' --output json > /tmp/inkra-day.json
python3 - "$partition" <<'PY'
import json, sys
month = json.load(open("/tmp/inkra-month.json"))["Item"]
day = json.load(open("/tmp/inkra-day.json"))["Item"]
assert month["interviewCount"] == {"N": "5"}, month
assert month["quotaLimit"] == {"N": "5"}, month
assert month["resetDate"] == {"S": "2026-12-01"}, month
assert month["lastInterviewDate"] == {"S": "2026-11-18T10:00:00Z"}, month
assert "expiresAt" in month and set(month) == {"PK", "SK", "interviewCount", "lastInterviewDate", "quotaLimit", "resetDate", "expiresAt"}, month
assert day["requestCount"] == {"N": "3"}, day
assert day["GSI1PK"] == {"S": "DATE#2026-11-17"} and day["GSI1SK"] == {"S": sys.argv[1]}, day
assert day["blockedUntil"] == {"S": "2026-11-18T00:00:00Z"}, day
assert day["firstRequestTime"] == {"S": "2026-11-17T10:00:00Z"}, day
print("items match docs/table.md")
PY
