#!/usr/bin/env bash
# Builds the CUDA kernels' test and benchmark in build-cuda (PAGODA_CUDA=ON,
# Release, sm_90 and sm_80) and stages what a GPU machine needs in
# build-cuda/gpu: the four binaries, stripped (they link the CUDA runtime,
# gtest, libstdc++ and libgcc statically, so they need only the driver,
# glibc and the toolkit's cuBLAS), and gtest's headers and static archives for scripts/gpu_check.sh's
# fallback rebuild on a machine without gtest. Carry build-cuda/gpu (about
# 10 MB: the whole build tree would not fit beside the sources) and run
# scripts/gpu_check.sh there. Needs nvcc (on PATH, or /usr/local/cuda/bin).
#
#   scripts/build_cuda.sh        (JOBS=2 by default)
set -euo pipefail
cd "$(dirname "$0")/.."

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[[ -x $nvcc ]] || { echo "build_cuda.sh: nvcc not found" >&2; exit 1; }
build=build-cuda
stage=$build/gpu

cmake -S . -B "$build" -G Ninja -DPAGODA_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" >/dev/null
cmake --build "$build" --target kernels_cuda_test runner_cuda_test pagoda_bench_cuda_paged_attention \
  pagoda_bench_cuda_gemm pagoda_bench_cuda_llama -j"${JOBS:-2}"

rm -rf "$stage"
mkdir -p "$stage/gtest/include" "$stage/gtest/lib"
cp "$build/tests/kernels/cuda/kernels_cuda_test" "$build/bench/pagoda_bench_cuda_paged_attention" \
  "$build/bench/pagoda_bench_cuda_gemm" "$build/bench/pagoda_bench_cuda_llama" "$build/tests/runner/runner_cuda_test" \
  "$stage/"
strip "$stage/kernels_cuda_test" "$stage/pagoda_bench_cuda_paged_attention" "$stage/pagoda_bench_cuda_gemm" \
  "$stage/pagoda_bench_cuda_llama" "$stage/runner_cuda_test"
# runner_cuda_test links the model, and through it fmt's shared library:
# staged beside it, for a machine without Debian's package.
mkdir -p "$stage/lib"
cp -L "$(ldd "$stage/runner_cuda_test" | awk '/libfmt/ { print $3 }')" "$stage/lib/"
gtest_include=$(pkg-config --variable=includedir gtest)
gtest_lib=$(pkg-config --variable=libdir gtest)
cp -r "$gtest_include/gtest" "$stage/gtest/include/"
cp "$gtest_lib/libgtest.a" "$gtest_lib/libgtest_main.a" "$stage/gtest/lib/"
echo "build_cuda.sh: staged $(du -sh "$stage" | cut -f1) in $stage"
