#!/usr/bin/env bash
# The recorded-traffic loop with real peers: the packaged bootstrap (what
# scripts/ci-package.sh left in .build/lambda/bootstrap.zip) run by `inkra-emulator run-runtime`
# over events/ with INKRA_RECORD_EVENTS=1, once per function on its own in-memory table, in
# Lambda's text and JSON log formats; its output lines put into moto's CloudWatch Logs with
# PutLogEvents (batches within the API's limits); `aws logs filter-log-events` into a file;
# `inkra-emulator import` of that file; `replay` of each function's folder with zero mismatches.
# Then `import --with-tokens --pseudonymize` of the same file, and `replay` of its authorizer
# events with tokens signed from the recorded claims (the blocked user denied, the expired token
# refused, as recorded), zero mismatches. Then every recorded line, and the claims file, is
# searched for each token, topic, question, email, source IP and user agent of the events: none
# may appear.
# Usage: scripts/ci-record.sh MOTO_ENDPOINT_URL [BOOTSTRAP_ZIP]
set -euo pipefail
cd "$(dirname "$0")/.."
endpoint=$1
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-testing} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-testing}
export AWS_REGION=${AWS_REGION:-us-east-1} AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}
zip=${2:-.build/lambda/bootstrap.zip}
[ -f "$zip" ] || { echo "error: $zip is missing; run scripts/ci-package.sh first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$zip" "$work" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    archive.extract("bootstrap", sys.argv[2])
os.chmod(os.path.join(sys.argv[2], "bootstrap"), 0o755)
PY
emulator=$(swift build --show-bin-path)/inkra-emulator
swift build --product inkra-emulator > /dev/null

for format in Text JSON; do
    echo "== recording: the packaged bootstrap over events/ with INKRA_RECORD_EVENTS=1 ($format log format)"
    capture="$work/capture-$format.log"
    : > "$capture"
    for function in authorizer checkUsage generateQuestions deleteAccount; do
        # run-runtime compares against events/' own expectations, some of which need the other
        # functions' writes; what matters here is what the runtime recorded, checked below.
        INKRA_RECORD_EVENTS=1 AWS_LAMBDA_LOG_FORMAT=$format "$emulator" run-runtime "$work/bootstrap" \
            --function "$function" --timeout 60 events 2>> "$capture" > /dev/null || true
    done
    lines=$(grep -c INKRA_RECORDING "$capture" || true)
    echo "$lines recording lines"
    [ "$lines" -gt 20 ] || { echo "error: too few recordings in $capture" >&2; tail -20 "$capture" >&2; exit 1; }

    echo "== the lines into moto's CloudWatch Logs ($endpoint), and back with filter-log-events"
    group="/aws/lambda/inkra-record-$format-$$"
    python3 - "$endpoint" "$group" "$capture" <<'PY'
import sys, time, boto3
endpoint, group, capture = sys.argv[1:4]
logs = boto3.client("logs", endpoint_url=endpoint)
logs.create_log_group(logGroupName=group)
logs.create_log_stream(logGroupName=group, logStreamName="2026/11/16/[$LATEST]ci")
messages = [line.rstrip("\n") for line in open(capture, encoding="utf-8") if line.strip()]
# PutLogEvents: at most 10,000 events and 1,048,576 bytes a batch, each event's UTF-8 message plus
# 26 bytes (docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutLogEvents.html).
batch, size, now = [], 0, int(time.time() * 1000)
def flush():
    global batch, size
    if batch:
        logs.put_log_events(logGroupName=group, logStreamName="2026/11/16/[$LATEST]ci", logEvents=batch)
    batch, size = [], 0
for index, message in enumerate(messages):
    cost = len(message.encode("utf-8")) + 26
    if len(batch) == 10_000 or size + cost > 1_048_576:
        flush()
    batch.append({"timestamp": now + index, "message": message})
    size += cost
flush()
print(f"{len(messages)} log events put")
PY
    exported="$work/filtered-$format.json"
    aws logs filter-log-events --endpoint-url "$endpoint" --log-group-name "$group" --output json > "$exported"

    echo "== import, then replay each function's folder"
    out="$work/recorded-$format"
    "$emulator" import "$exported" --out "$out"
    for function in checkUsage generateQuestions deleteAccount; do
        "$emulator" replay "$out/$function" | tail -1
    done

    echo "== import --with-tokens, then replay the authorizer's recordings with tokens signed by replay"
    tokens_out="$work/recorded-tokens-$format"
    "$emulator" import "$exported" --out "$tokens_out" --with-tokens --pseudonymize ci-record-key > /dev/null
    replayed="$work/replayed-tokens-$format.txt"
    "$emulator" replay "$tokens_out/authorizer" --jobs 1 > "$replayed" || { cat "$replayed" >&2; exit 1; }
    tail -1 "$replayed"
    for wanted in "(expired) (token signed by replay)" "Deny (blocked) (token signed by replay)"; do
        grep -qF "$wanted" "$replayed" || { echo "error: no \"$wanted\" line" >&2; cat "$replayed" >&2; exit 1; }
    done
    "$emulator" replay "$tokens_out/checkUsage" | tail -1

    echo "== no token, topic, question, email, source IP or user agent in any recorded line or claims file"
    python3 - "$capture" "$tokens_out/.inkra-tokens.json" <<'PY'
import base64, glob, json, sys
capture, claims = sys.argv[1:3]
recorded = "\n".join(line for line in open(capture, encoding="utf-8") if "INKRA_RECORDING" in line)
recorded += "\n" + open(claims, encoding="utf-8").read()
secrets = set()
def headers(event):
    for source in (event.get("headers") or {}, event.get("multiValueHeaders") or {}):
        for name, value in source.items():
            for item in value if isinstance(value, list) else [value]:
                yield name.lower(), item
for path in glob.glob("events/**/*.json", recursive=True):
    document = json.load(open(path, encoding="utf-8"))
    if path.endswith(".expected.json"):
        for question in (document.get("body") or {}).get("questions") or []:
            secrets.add(question)
        continue
    for name, value in headers(document):
        if not isinstance(value, str):
            continue
        if name == "authorization":
            secrets.add(value.split(" ")[-1])
        if name in ("user-agent", "x-forwarded-for"):
            secrets.add(value)
    context = document.get("requestContext") or {}
    def emails(value):
        if isinstance(value, dict):
            for key, member in value.items():
                if key == "email" and isinstance(member, str):
                    secrets.add(member)
                emails(member)
    emails(context.get("authorizer"))
    for section in (context.get("identity") or {}, context.get("http") or {}):
        for key in ("sourceIp", "userAgent"):
            if isinstance(section.get(key), str):
                secrets.add(section[key])
    for token in [v for n, v in headers(document) if n == "authorization" and isinstance(v, str)]:
        parts = token.split(" ")[-1].split(".")
        if len(parts) == 3:
            try:
                claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
                if "email" in claims:
                    secrets.add(claims["email"])
            except ValueError:
                pass
    body = document.get("body")
    if isinstance(body, str):
        if document.get("isBase64Encoded"):
            body = base64.b64decode(body).decode("utf-8", "replace")
        try:
            topic = json.loads(body).get("topic")
        except (ValueError, AttributeError):
            topic = None
        if isinstance(topic, str):
            secrets.add(topic)
secrets = {s for s in secrets if len(s.strip()) >= 4}
found = sorted(s for s in secrets if s in recorded)
print(f"{len(secrets)} private values searched for in {recorded.count('INKRA_RECORDING')} recorded lines")
if found:
    print("error: recorded lines hold private values:", *[repr(s[:60]) for s in found], sep="\n  ", file=sys.stderr)
    sys.exit(1)
PY
done
