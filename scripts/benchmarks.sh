#!/usr/bin/env bash
# Runs the benchmarks in release mode and prints the Markdown report (BENCHMARKS.md holds the
# figures of the last run, with their reading):
#
#   scripts/benchmarks.sh [--quick] [--events N] [--only handlers,replay,runtime,serve] [--output FILE]
#
# It packages bootstrap first (the zip size and the cold start are of the deployable binary),
# then builds the emulator and the benchmarks in release mode beside it (linked dynamically: the
# emulator uses FoundationNetworking, whose static form needs libcurl's static library).
# The benchmarks are in the package only with INKRA_DEVELOPMENT=1 (Package.swift), set here.
set -euo pipefail
cd "$(dirname "$0")/.."
export INKRA_DEVELOPMENT=1

bash scripts/package-bootstrap.sh > /dev/null
swift build -c release --product inkra-emulator
swift build -c release --product inkra-benchmarks
exec "$(swift build -c release --show-bin-path)/inkra-benchmarks" "$@"
