#!/usr/bin/env bash
# Packages bootstrap.zip as a deployment would (scripts/package-bootstrap.sh), holds it to its
# size budget, and drives the packaged executable, unzipped, with `inkra-emulator run-runtime`
# over events/: the authorizer and generateQuestions on the runtime's own in-memory table (the
# checkUsage events expect usage that the other functions wrote, which the runtime's table does
# not see), then each function on a fresh DynamoDB table shared with the emulator, where its
# calls go through the release build's HTTP client and SigV4.
# Usage: scripts/ci-package.sh DYNAMODB_ENDPOINT_URL
set -euo pipefail
cd "$(dirname "$0")/.."
endpoint=$1
budget=9000000 # bytes: the zip must stay under 9 MB
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-testing} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-testing}
export AWS_REGION=${AWS_REGION:-us-east-1} AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}

echo "== packaging bootstrap.zip (release, static)"
zip=.build/lambda/bootstrap.zip
bash scripts/package-bootstrap.sh "$zip" > /dev/null 2> /tmp/inkra-ci-package.log ||
    { cat /tmp/inkra-ci-package.log >&2; exit 1; }
size=$(stat -c %s "$zip")
echo "bootstrap.zip: $size bytes (budget: under $budget)"
if [ "$size" -ge "$budget" ]; then
    echo "error: bootstrap.zip is $size bytes, over the budget of $budget; see BENCHMARKS.md for what it holds" >&2
    exit 1
fi

unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
python3 - "$zip" "$unpacked" <<'PY'
import os, stat, sys, zipfile
archive, target = zipfile.ZipFile(sys.argv[1]), sys.argv[2]
names = archive.namelist()
assert names == ["bootstrap"], f"the zip must hold only bootstrap at its root, holds {names}"
info = archive.getinfo("bootstrap")
mode = info.external_attr >> 16
assert stat.S_ISREG(mode) and mode & 0o111, f"bootstrap is not stored as an executable file (mode {oct(mode)})"
path = archive.extract(info, target)
os.chmod(path, stat.S_IMODE(mode))
PY

emulator=$(swift build --show-bin-path)/inkra-emulator
swift build --product inkra-emulator > /dev/null
for function in authorizer generateQuestions; do
    echo "== the packaged bootstrap as $function, in memory"
    "$emulator" run-runtime "$unpacked/bootstrap" --function "$function" --timeout 60 events 2>/dev/null | tail -1
done
for function in authorizer checkUsage generateQuestions; do
    table="inkra-ci-package-$RANDOM$RANDOM"
    echo "== the packaged bootstrap as $function, on DynamoDB ($endpoint, table $table)"
    "$emulator" create-table --dynamodb-endpoint "$endpoint" --table "$table" > /dev/null
    "$emulator" run-runtime "$unpacked/bootstrap" --function "$function" --timeout 60 \
        --dynamodb-endpoint "$endpoint" --table "$table" events 2>/dev/null | tail -1
done
