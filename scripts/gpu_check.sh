#!/usr/bin/env bash
# The GPU check of the CUDA kernels, for a machine with an NVIDIA GPU and its
# driver, in about five minutes: nvidia-smi; the CUDA kernel tests against the
# CPU reference; compute-sanitizer's memcheck, racecheck and initcheck on a
# small case; the decode-attention, GEMM and Llama forward benchmarks. It
# runs the binaries that scripts/build_cuda.sh staged in build-cuda/gpu
# (carried there); if they are missing or cannot start, it rebuilds the
# kernels, the test and the benchmarks with that machine's nvcc (gtest from
# the system, else the staged copy).
# Writes a short report to $OUT/gpu_report.txt, with the full logs beside it,
# when OUT is set; else prints the report and keeps the logs in a temporary
# folder. Exits non-zero when a test or sanitizer fails.
#
#   bash scripts/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."

logs=${OUT:-$(mktemp -d)}
mkdir -p "$logs"
report=$logs/gpu_report.txt
stage=build-cuda/gpu
test_bin=$stage/kernels_cuda_test
bench_bin=$stage/pagoda_bench_cuda_paged_attention
gemm_bin=$stage/pagoda_bench_cuda_gemm
llama_bin=$stage/pagoda_bench_cuda_llama
runner_bin=$stage/runner_cuda_test
status=0
: >"$report"
note() { echo "$*" | tee -a "$report"; }

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# cuBLAS is linked dynamically (the toolkit ships no static copy here): the
# toolkit's libraries, wherever the loader does not already look.
cuda_lib=$(dirname "$nvcc")/../lib64
# The staged fmt for runner_cuda_test (scripts/build_cuda.sh).
export LD_LIBRARY_PATH=$cuda_lib:$(dirname "$nvcc")/../lib:$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Compiles the kernels, the test and the benchmark into build-cuda/rebuilt
# for this GPU's architecture, every source at once.
rebuild() {
  local out=build-cuda/rebuilt arch gtest_include gtest_lib
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.[:space:]')
  arch=${arch:-90}
  if [[ -f /usr/include/gtest/gtest.h ]] && ls /usr/lib/*/libgtest.a >/dev/null 2>&1; then
    gtest_include=/usr/include
    gtest_lib=$(dirname "$(ls /usr/lib/*/libgtest.a | head -1)")
  else
    gtest_include=$stage/gtest/include
    gtest_lib=$stage/gtest/lib
  fi
  local flags=(-std=c++20 -O3 "-arch=sm_$arch" -Isrc -Itests/kernels/cuda "-I$gtest_include" -Xcompiler=-ffp-contract=off)
  local kernels=(src/pagoda/kernels/cuda/*.cu src/pagoda/kernels/cuda/*.cc)
  local reference=(src/pagoda/base/*.cc src/pagoda/tensor/*.cc src/pagoda/threading/*.cc
                   src/pagoda/kernels/compute_context.cc src/pagoda/kernels/cpu/attention_plan.cc
                   src/pagoda/kernels/cpu/reference/*.cc)
  local tests=(tests/kernels/cuda/*.cc)
  rm -rf "$out" && mkdir -p "$out"
  local pids=() src
  for src in "${kernels[@]}" "${reference[@]}" "${tests[@]}" bench/cuda_paged_attention_bench.cu bench/cuda_gemm_bench.cu \
    bench/cuda_llama_bench.cu; do
    "$nvcc" "${flags[@]}" -c "$src" -o "$out/$(echo "$src" | tr / _).o" &
    pids+=($!)
  done
  local pid failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  ((failed == 0)) || return 1
  local kernel_objs=() ref_objs=() test_objs=()
  for src in "${kernels[@]}"; do kernel_objs+=("$out/$(echo "$src" | tr / _).o"); done
  for src in "${reference[@]}"; do ref_objs+=("$out/$(echo "$src" | tr / _).o"); done
  for src in "${tests[@]}"; do test_objs+=("$out/$(echo "$src" | tr / _).o"); done
  "$nvcc" "-arch=sm_$arch" "${test_objs[@]}" "${kernel_objs[@]}" "${ref_objs[@]}" \
    "$gtest_lib/libgtest.a" "$gtest_lib/libgtest_main.a" "-L$cuda_lib" -lcublas -lpthread -o "$out/kernels_cuda_test" ||
    return 1
  "$nvcc" "-arch=sm_$arch" "$out/bench_cuda_paged_attention_bench.cu.o" "${kernel_objs[@]}" \
    "$out/src_pagoda_base_status.cc.o" "$out/src_pagoda_tensor_dtype.cc.o" "-L$cuda_lib" -lcublas \
    -o "$out/pagoda_bench_cuda_paged_attention" ||
    return 1
  "$nvcc" "-arch=sm_$arch" "$out/bench_cuda_gemm_bench.cu.o" "${kernel_objs[@]}" \
    "$out/src_pagoda_base_status.cc.o" "$out/src_pagoda_tensor_dtype.cc.o" "-L$cuda_lib" -lcublas \
    -o "$out/pagoda_bench_cuda_gemm" ||
    return 1
  "$nvcc" "-arch=sm_$arch" "$out/bench_cuda_llama_bench.cu.o" "${kernel_objs[@]}" \
    "$out/src_pagoda_base_status.cc.o" "$out/src_pagoda_tensor_dtype.cc.o" "-L$cuda_lib" -lcublas -lpthread \
    -o "$out/pagoda_bench_cuda_llama" ||
    return 1
  test_bin=$out/kernels_cuda_test
  bench_bin=$out/pagoda_bench_cuda_paged_attention
  gemm_bin=$out/pagoda_bench_cuda_gemm
  llama_bin=$out/pagoda_bench_cuda_llama
}

note "Pagoda CUDA kernels: GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
nvidia-smi >"$logs/nvidia_smi.txt" 2>&1
note "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader 2>&1 | head -1)"

if [[ -x $test_bin ]] && "$test_bin" --gtest_list_tests >/dev/null 2>&1 && [[ -x $bench_bin ]] && [[ -x $gemm_bin ]] &&
  [[ -x $llama_bin ]]; then
  note "binaries: prebuilt, from $stage"
else
  note "binaries: the prebuilt ones are missing or do not start; rebuilding with $("$nvcc" --version | tail -1)"
  if ! rebuild >"$logs/rebuild.log" 2>&1; then
    note "REBUILD FAILED (rebuild.log):"
    tail -20 "$logs/rebuild.log" | tee -a "$report"
    exit 1
  fi
  note "binaries: rebuilt in build-cuda/rebuilt"
fi

# The tests: every case against the CPU reference. A skip here means the test
# found no GPU, which on this machine is a failure too.
note ""
started=$SECONDS
timeout 180 "$test_bin" >"$logs/kernels_cuda_test.log" 2>&1
test_rc=$?
note "kernels_cuda_test: exit $test_rc, $((SECONDS - started)) s"
grep -E '^\[==========\] [0-9]+ tests|^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]+ tests?|^\[  FAILED  \] [^ ]+$' \
  "$logs/kernels_cuda_test.log" | tee -a "$report"
grep -A6 -E 'Failure$' "$logs/kernels_cuda_test.log" | head -40 | tee -a "$report"
# The worst error of each dtype over all cases, against its tolerance.
awk '/^worst relative error/ { if (!($4 in worst) || $5 + 0 > worst[$4] + 0) worst[$4] = $5; tolerance[$4] = substr($7, 1, length($7) - 2) }
     END { for (d in worst) printf "worst relative error %s: %s (tolerance %s)\n", d, worst[d], tolerance[d] }' \
  "$logs/kernels_cuda_test.log" |
  sort | tee -a "$report"
if ((test_rc != 0)) || grep -q '^\[  SKIPPED \]' "$logs/kernels_cuda_test.log"; then status=1; fi

# The CPU model against the GPU forward, greedy, on a dummy Llama: staged
# only (it links the model, which this machine's nvcc alone cannot rebuild).
note ""
if [[ -x $runner_bin ]] && "$runner_bin" --gtest_list_tests >/dev/null 2>&1; then
  started=$SECONDS
  timeout 120 "$runner_bin" >"$logs/runner_cuda_test.log" 2>&1
  runner_rc=$?
  note "runner_cuda_test: exit $runner_rc, $((SECONDS - started)) s"
  grep -E '^\[  (PASSED|SKIPPED|FAILED) +\]|^GPU greedy' "$logs/runner_cuda_test.log" | tee -a "$report"
  grep -A6 -E 'Failure$' "$logs/runner_cuda_test.log" | head -20 | tee -a "$report"
  if ((runner_rc != 0)) || grep -q '^\[  SKIPPED \]' "$logs/runner_cuda_test.log"; then status=1; fi
else
  note "runner_cuda_test: missing or cannot start (it is staged by scripts/build_cuda.sh only)"
  status=1
fi

# The sanitizers on small cases: bad addresses, shared-memory races, reads
# of uninitialised device memory (the split-K workspace is never cleared).
note ""
small='PagedDecodeAttentionTest.PaddingRowsAreZeroAndOthersUnaffected:*ReshapeAndCacheTest*:*FusedAddRmsNormTest*'
small+=':*RopeTest*:*GatedActivationTest*:*EmbeddingGatherTest*:SampleTokensTest.*:LlamaGpuModelTest.*'
if [[ -x $sanitizer ]]; then
  for tool in memcheck racecheck initcheck; do
    started=$SECONDS
    timeout 60 "$sanitizer" --tool "$tool" --error-exitcode 99 "$test_bin" --gtest_filter="$small" \
      >"$logs/sanitizer_$tool.log" 2>&1
    rc=$?
    if ((rc == 124)); then
      note "compute-sanitizer $tool: stopped after 60 s, unfinished (what it found so far: sanitizer_$tool.log)"
      continue
    fi
    note "compute-sanitizer $tool: exit $rc, $((SECONDS - started)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitizer_$tool.log" | tail -1)"
    ((rc == 0)) || status=1
  done
else
  note "compute-sanitizer: not found"
fi

note ""
note "benchmark:"
timeout 90 "$bench_bin" >"$logs/bench.log" 2>&1 || status=1
tee -a "$report" <"$logs/bench.log"
note ""
note "GEMM benchmark:"
timeout 60 "$gemm_bin" >"$logs/gemm_bench.log" 2>&1 || status=1
tee -a "$report" <"$logs/gemm_bench.log"
note ""
note "Llama 3 8B forward benchmark:"
timeout 150 "$llama_bin" >"$logs/llama_bench.log" 2>&1 || status=1
tee -a "$report" <"$logs/llama_bench.log"

note ""
note "overall: $( ((status == 0)) && echo PASS || echo FAIL ) in $SECONDS s (logs in $logs)"
exit $status
