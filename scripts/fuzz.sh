#!/usr/bin/env bash
# Fuzzes what reads untrusted bytes — the JSON parser, the token verifier, condition and update
# expressions, API Gateway events — with libFuzzer, each for SECONDS (default 30), starting from
# the seed corpus in Fuzz/corpus/<target>/ (and events/ for the JSON and event targets).
# An input that crashes or breaks a target's invariant is kept under .build-fuzz/artifacts/ and
# the script fails, printing how to replay it.
#   scripts/fuzz.sh [SECONDS] [TARGET…]          targets: json token expression event
# The fuzzing targets are in the package only with INKRA_DEVELOPMENT=1 (Package.swift), set here.
set -euo pipefail
cd "$(dirname "$0")/.."
export INKRA_DEVELOPMENT=1
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json token expression event)

echo "== building inkra-fuzz with -sanitize=fuzzer (release, .build-fuzz)"
swift build -c release --product inkra-fuzz --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xswiftc -use-ld=lld
fuzzer=$(swift build -c release --scratch-path .build-fuzz --show-bin-path)/inkra-fuzz
artifacts=.build-fuzz/artifacts
mkdir -p "$artifacts"

for target in "${targets[@]}"; do
    corpus=$(mktemp -d)
    seeds=("Fuzz/corpus/$target")
    case $target in json | event) seeds+=(events) ;; esac
    echo "== fuzzing $target for ${seconds}s (seeds: ${seeds[*]})"
    # Swift's backtracer would take the abort before libFuzzer could write the failing input.
    if ! SWIFT_BACKTRACE=enable=no INKRA_FUZZ_TARGET=$target "$fuzzer" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=4096 -max_len=65536 -artifact_prefix="$artifacts/$target-" -print_final_stats=1 \
        > "$artifacts/$target.log" 2>&1; then
        tail -40 "$artifacts/$target.log"
        echo "fuzzing $target found an input that fails; replay it with:"
        echo "  swift run inkra-fuzz $target $artifacts/$target-*"
        rm -rf "$corpus"
        exit 1
    fi
    grep -E "^stat::number_of_executed_units|^stat::new_units_added|Done [0-9]+ runs" "$artifacts/$target.log" || true
    rm -rf "$corpus"
done
