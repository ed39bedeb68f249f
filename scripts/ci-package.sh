#!/usr/bin/env bash
# Packages bootstrap.zip as a deployment would (scripts/package-bootstrap.sh), holds it to its
# size budget, checks that the executable in it would start on provided.al2023
# (scripts/check-lambda-elf.sh, after its self-test and a test of the glibc compat wrappers it
# relies on), and drives the packaged executable, unzipped, with `inkra-emulator run-runtime`
# over events/: the authorizer and generateQuestions on the runtime's own in-memory table (the
# checkUsage events expect usage that the other functions wrote, which the runtime's table does
# not see), then each function on a fresh DynamoDB table shared with the emulator, where its
# calls go through the release build's HTTP client and SigV4.
# Usage: scripts/ci-package.sh DYNAMODB_ENDPOINT_URL
set -euo pipefail
cd "$(dirname "$0")/.."
endpoint=$1
budget=5660000 # bytes: the zip must stay under 5.66 MB (5,386,227 on 2026-11-29, plus 5%)
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-testing} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-testing}
export AWS_REGION=${AWS_REGION:-us-east-1} AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}

echo "== scripts/check-lambda-elf.sh --self-test"
bash scripts/check-lambda-elf.sh --self-test

# The wrappers that scripts/package-bootstrap.sh links in place of hypot and hypotf (the versions
# glibc 2.35 introduced) must answer as the functions they replace: same value, same errno, for
# ordinary, overflowing, subnormal, infinite and NaN arguments, linked as the package links them.
echo "== the glibc compat wrappers answer as libm does"
compat=$(mktemp -d)
cat > "$compat/probe.c" <<'C'
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        double x = strtod(argv[i], 0), y = strtod(argv[i + 1], 0);
        errno = 0;
        double d = hypot(x, y);
        int double_errno = errno;
        errno = 0;
        float f = hypotf((float)x, (float)y);
        printf("hypot(%s, %s) = %a errno %d, hypotf = %a errno %d\n", argv[i], argv[i + 1], d, double_errno,
               (double)f, errno);
    }
    return 0;
}
C
arguments=(3 4 -3 4 1.5 2.5 0 0 -0 -0 inf nan nan inf -inf 1 nan 1 1.7e308 1.7e308 3e38 3e38
    1e-310 1e-310 5e-324 5e-324 1e-45 1e-45 1e300 1e-300)
cc_flags=(-O2 -fno-builtin -ISources/GlibcCompat/include "$compat/probe.c" Sources/GlibcCompat/GlibcCompat.c -lm -ldl)
clang "${cc_flags[@]}" -o "$compat/current"
clang "${cc_flags[@]}" -Wl,--wrap=hypot -Wl,--wrap=hypotf -o "$compat/wrapped"
timeout 10 "$compat/wrapped" "${arguments[@]}" > "$compat/wrapped.txt" ||
    { echo "error: the wrapped hypot/hypotf did not answer (exit $?)" >&2; exit 1; }
"$compat/current" "${arguments[@]}" > "$compat/current.txt"
diff -u "$compat/current.txt" "$compat/wrapped.txt" ||
    { echo "error: Sources/GlibcCompat's wrappers answer differently from this libm's hypot/hypotf" >&2; exit 1; }
bash scripts/check-lambda-elf.sh "$compat/wrapped" > /dev/null ||
    { echo "error: the wrappers still bind a version of hypot/hypotf newer than provided.al2023's" >&2; exit 1; }
echo "hypot and hypotf wrapped: the same answers for $((${#arguments[@]} / 2)) argument pairs, at versions glibc 2.34 has"
rm -rf "$compat"

echo "== packaging bootstrap.zip (release, static)"
zip=.build/lambda/bootstrap.zip
bash scripts/package-bootstrap.sh "$zip" > /dev/null 2> /tmp/inkra-ci-package.log ||
    { cat /tmp/inkra-ci-package.log >&2; exit 1; }
size=$(stat -c %s "$zip")
echo "bootstrap.zip: $size bytes (budget: under $budget)"
# What the binary is made of, by module, so a change shows what it costs (the debug file has the
# symbols the packaged binary lost); and what must not ship: swift-crypto (one BoringSSL,
# swift-nio-ssl's), Foundation, Regex.
python3 scripts/size-report.py --check "$(dirname "$zip")/bootstrap.debug"
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
echo "== the packaged bootstrap against provided.al2023 (glibc, libstdc++, libraries)"
bash scripts/check-lambda-elf.sh "$unpacked/bootstrap"

emulator=$(swift build --show-bin-path)/inkra-emulator
swift build --product inkra-emulator > /dev/null
for function in authorizer generateQuestions; do
    echo "== the packaged bootstrap as $function, in memory"
    "$emulator" run-runtime "$unpacked/bootstrap" --function "$function" --timeout 60 events 2>/dev/null | grep -v "^✓"
done
for function in authorizer checkUsage generateQuestions repairCharges; do
    table="inkra-ci-package-$RANDOM$RANDOM"
    echo "== the packaged bootstrap as $function, on DynamoDB ($endpoint, table $table)"
    "$emulator" create-table --dynamodb-endpoint "$endpoint" --table "$table" > /dev/null
    "$emulator" run-runtime "$unpacked/bootstrap" --function "$function" --timeout 60 \
        --dynamodb-endpoint "$endpoint" --table "$table" events 2>/dev/null | grep -v "^✓"
done
