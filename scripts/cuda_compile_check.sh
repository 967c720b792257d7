#!/usr/bin/env bash
# The CUDA backend's compile-and-link check, part of `make test`: builds the
# CUDA kernels (PAGODA_CUDA=ON, sm_90 and sm_80), their tests and their
# benchmarks in build-cuda, then runs the tests, whose GPU cases skip on a
# machine without one and whose argument and planning cases run anywhere.
# Needs nvcc (on PATH, or the toolkit in /usr/local/cuda); on a machine
# without it, says so and checks nothing.
#
#   scripts/cuda_compile_check.sh        (JOBS=2 by default)
set -euo pipefail
cd "$(dirname "$0")/.."

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [[ ! -x $nvcc ]]; then
  echo "cuda_compile_check.sh: no nvcc on this machine: the CUDA backend was not compiled" >&2
  exit 0
fi
build=${CUDA_BUILD_DIR:-build-cuda}
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" -G Ninja -DPAGODA_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" \
  "${launcher[@]}" >/dev/null
cmake --build "$build" --target kernels_cuda_test runner_cuda_test pagoda_bench_cuda_paged_attention \
  pagoda_bench_cuda_gemm pagoda_bench_cuda_llama -j"${JOBS:-2}"
"$build/tests/kernels/cuda/kernels_cuda_test" --gtest_brief=1
"$build/tests/runner/runner_cuda_test" --gtest_brief=1
echo "cuda_compile_check.sh: the CUDA kernels, their tests and their benchmarks compiled and linked ($(
  "$nvcc" --version | tail -1))"
