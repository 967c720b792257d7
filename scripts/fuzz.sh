#!/usr/bin/env bash
# Builds the GGUF loader fuzzer with clang (libFuzzer + ASan + UBSan) in
# build-fuzz and runs it for SECONDS (default 60), seeded with the test
# fixtures. Exits non-zero when the fuzzer finds a crash; the crashing input
# is left in build-fuzz/ as crash-<hash>.
#
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-60}
build=build-fuzz
jobs=${JOBS:-2}

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPAGODA_FUZZ=ON -DPAGODA_BUILD_TESTS=OFF >/dev/null
# Only the fuzzer and what it links: other modules need not build under clang.
cmake --build "$build" --target gguf_fuzz -j"$jobs"

corpus=$build/corpus
mkdir -p "$corpus"
cp tests/fixtures/gguf/*.gguf "$corpus/"

"$build/fuzz/gguf_fuzz" -max_total_time="$duration" -max_len=16384 -print_final_stats=1 \
  -artifact_prefix="$build/" "$corpus"
