#!/usr/bin/env bash
# Builds the Lambda custom runtime and packages it for provided.al2023:
#
#   scripts/package-bootstrap.sh [OUTPUT.zip]      (default: .build/lambda/bootstrap.zip)
#
# The executable is built in release mode with the Swift standard library linked statically, so
# it needs nothing on the Lambda image beyond glibc, and is stored as `bootstrap` (mode 755) at
# the root of the zip, which is what a custom runtime's deployment package must hold.
#
# The packaged executable carries no symbols. A statically linked Swift program on Lambda prints
# a crash's message but no stack trace (there is no swift-backtrace beside it), so names in the
# file would only cost size: the symbol tables and the dynamic exports the static standard
# library asks for (`-export-dynamic`, which also keeps every public function of every package
# from being dropped as unused) were a third of the zip. The debug information is kept beside
# the zip as `bootstrap.debug` (linked by `.gnu_debuglink`), for gdb, perf or addr2line on a
# core dump.
#
# Every function and datum of the Swift and C code goes in a section of its own, so the linker
# drops what nothing calls (SwiftPM's release build only drops whole object files), folds
# functions whose code is identical and whose address is never taken (`--icf=safe`), and the
# executable is not position-independent: Swift's metadata is full of pointers, and a PIE
# carries a relocation for each (1.9 MB) that the loader applies at every cold start. The build
# has its own scratch directory, `.build-lambda`, so these flags never rebuild `.build`.
#
# The executable must load on provided.al2023, whose glibc is 2.34, wherever it is built: linked
# against a newer glibc (Debian 12 has 2.36) it asked for hypotf@GLIBC_2.35, and the loader
# refused it at every cold start. The link sends hypot and hypotf (the only functions glibc 2.35
# and 2.36 gave a new version) to the wrappers in Sources/GlibcCompat, which call their oldest
# version, the one glibc 2.34 has (same results; it cost 0.6 KB of zip). A musl (static Linux SDK)
# build has no glibc and no wrappers. scripts/check-lambda-elf.sh then holds the result to
# AL2023: glibc ≤ 2.34, gcc 11's libstdc++ and libgcc_s, nothing else; no zip is written if not.
# Set SWIFT_BUILD_FLAGS to pass more flags to `swift build` (for example `--swift-sdk NAME`, a
# Swift SDK for aarch64 Linux: `--arch aarch64` alone finds no aarch64 C library or Swift runtime).
set -euo pipefail
cd "$(dirname "$0")/.."

output=${1:-.build/lambda/bootstrap.zip}
mkdir -p "$(dirname "$output")"

flags=(
    -c release --product bootstrap --scratch-path .build-lambda --static-swift-stdlib
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections
    -Xlinker --no-export-dynamic -Xlinker -no-pie -Xlinker --icf=safe
)
case " ${SWIFT_BUILD_FLAGS:-} " in
    *musl*) ;;
    *) flags+=(-Xlinker --wrap=hypot -Xlinker --wrap=hypotf) ;;
esac
echo "== swift build ${flags[*]}" >&2
# shellcheck disable=SC2086
swift build "${flags[@]}" ${SWIFT_BUILD_FLAGS:-}
# shellcheck disable=SC2086
binary="$(swift build "${flags[@]}" ${SWIFT_BUILD_FLAGS:-} --show-bin-path)/bootstrap"
[ -x "$binary" ] || { echo "error: $binary was not built" >&2; exit 1; }

staged="$(dirname "$output")/bootstrap"
symbols="$(dirname "$output")/bootstrap.debug"
if command -v strip >/dev/null 2>&1 && command -v objcopy >/dev/null 2>&1; then
    objcopy --only-keep-debug "$binary" "$symbols"
    strip --strip-all -o "$staged" "$binary"
    objcopy --add-gnu-debuglink="$symbols" "$staged"
else
    echo "warning: strip or objcopy not found (binutils); packaging the unstripped binary" >&2
    cp "$binary" "$staged"
fi

if command -v readelf >/dev/null 2>&1 && command -v objdump >/dev/null 2>&1; then
    if ! bash scripts/check-lambda-elf.sh "$staged" >&2; then
        rm -f "$output" # an older zip must not be deployed in its place
        echo "error: $staged would not start on provided.al2023; no zip written" >&2
        exit 1
    fi
else
    echo "warning: readelf or objdump not found (binutils); not checked against provided.al2023" >&2
fi

python3 - "$staged" "$output" <<'PYTHON'
import os, stat, sys, zipfile

binary, output = sys.argv[1], sys.argv[2]
temporary = output + ".partial"
with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
    entry = zipfile.ZipInfo("bootstrap", date_time=(2020, 1, 1, 0, 0, 0))
    entry.external_attr = (stat.S_IFREG | 0o755) << 16
    entry.compress_type = zipfile.ZIP_DEFLATED
    with open(binary, "rb") as source:
        archive.writestr(entry, source.read())
os.replace(temporary, output)
PYTHON
# The same deflate, compressed harder: advzip (Debian's advancecomp) recompresses the entry with
# 7-Zip's deflate encoder, which any unzip, and Lambda, reads as before. 8,688,128 bytes for zlib's
# 9,032,065 on 2026-11-28 (-3.8%), in about 30 s; its zopfli level (-4) saved 5 KB more in twice
# the time. Without advzip the zip stays zlib's, which CI's budget may refuse.
if command -v advzip >/dev/null 2>&1; then
    advzip --recompress -3 --quiet "$output"
else
    echo "warning: advzip not found (apt-get install advancecomp); the zip is zlib's level 9, larger" >&2
fi

binary_size=$(stat -c %s "$staged")
zip_size=$(stat -c %s "$output")
awk -v out="$output" -v b="$binary_size" -v z="$zip_size" \
    'BEGIN { printf "wrote %s: bootstrap %.1f MB, zip %.1f MB\n", out, b / 1e6, z / 1e6 }' >&2
# What identifies this zip once deployed: Lambda's CodeSha256 (the SHA-256 of the zip, base64), and
# the versions of every package it was built from (Package.resolved is not kept in git).
code_sha256=$(python3 -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha256(open(sys.argv[1], "rb").read()).digest()).decode())' "$output")
echo "$code_sha256" > "$output.sha256"
if [ -f Package.resolved ]; then cp Package.resolved "$(dirname "$output")/bootstrap.resolved"; fi
echo "CodeSha256 $code_sha256 (in $output.sha256; Lambda's get-function shows the deployed one)" >&2
echo "$output"
