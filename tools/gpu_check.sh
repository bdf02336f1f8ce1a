#!/usr/bin/env bash
# One call on the GPU machine: build with CUDA for the visible GPU, run the whole suite (from the
# repository root, as CI and the README do) and the benchmarks, and leave logs in $OUT.
set -uo pipefail
OUT="${OUT:-/tmp/genesis-gpu-out}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
source tools/gpu_install.sh
python3 -m genesis > "$OUT/selfcheck.txt" 2>&1 && tail -1 "$OUT/selfcheck.txt"
if [ -n "${PARALLEL:-}" ]; then
  # PARALLEL=1: the suite in nine groups at once (about 5.5 minutes on an H200 host, 6 to 7 on
  # an H100 one, instead of about 22 one after another), each group's log in
  # $OUT/suite_<group>.txt. The last two groups run tests/compile again with CUDA fusion switched
  # off (GENESIS_COMPILE_CUDA=0), so that compiled functions' eager path is tested too.
  # SUITE_GROUPS="nn|compile": only the groups whose names match (a bash regex).
  group() {  # group NAME PATHS...
    local name=$1; shift
    [[ -z "${SUITE_GROUPS:-}" || "$name" =~ ${SUITE_GROUPS} ]] || return 0
    timeout "${GROUP_TIMEOUT:-460}" python3 -m pytest -q -p no:cacheprovider ${PYTEST_ARGS:-} "$@" \
      > "$OUT/suite_$name.txt" 2>&1
    echo "$name rc=$?: $(tail -1 "$OUT/suite_$name.txt")"
  }
  group ops tests/ops &
  group nn_a_f tests/nn/test_[a-f]*.py &
  group nn_g_z tests/nn/test_[g-z]*.py &
  group project tests/project &
  group cuda tests/cuda tests/memory tests/distributed &
  group autograd tests/autograd tests/io tests/utils tests/optim tests/compile &
  group amp tests/amp &
  # NVRTC builds each new program as a test first runs it (50-170 ms each): two groups.
  GENESIS_COMPILE_CUDA=0 group compile_cuda_a tests/compile/test_fusion.py \
    tests/compile/test_fused_programs.py &
  GENESIS_COMPILE_CUDA=0 group compile_cuda_b tests/compile/test_[!f]*.py \
    tests/compile/test_fused_dropout.py &
  wait
  grep -h "^FAILED\|^ERROR" "$OUT"/suite_*.txt | head -30
  # The run tool returns at most 8 files: the groups' logs travel as one archive.
  tar czf "$OUT/suite_logs.tgz" -C "$OUT" $(cd "$OUT" && ls suite_*.txt) && rm -f "$OUT"/suite_*.txt
else
  python3 -m pytest -q --maxfail=60 -p no:cacheprovider ${PYTEST_ARGS:-} 2>&1 | tee "$OUT/pytest.txt" | tail -${PYTEST_TAIL:-15}
fi
if [ -n "${BENCH:-}" ]; then
  # BENCH_FILTERS="compiling/;GPT-2 train step;Norm": one run per ';'-separated filter.
  if [ -n "${BENCH_FILTERS:-}" ]; then
    IFS=';' read -ra filters <<< "$BENCH_FILTERS"
    for f in "${filters[@]}"; do
      python3 -m benchmarks --device cuda --filter "$f" ${BENCH_ARGS:-} 2>&1 | tee -a "$OUT/bench.txt" \
        | grep -v '^\s*$' | tail -${BENCH_TAIL:-30}
    done
  else
    python3 -m benchmarks --device cuda ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.txt" | tail -${BENCH_TAIL:-60}
  fi
fi
# compute-sanitizer (SANITIZE=1): memcheck over the CUDA tests, racecheck over the kernels that use
# shared memory (transposing copies, reductions, softmax, mask compaction, the block and radix-select
# sorts, the CUB scans). Each log ends with the
# tool's summary line (ERROR SUMMARY, RACECHECK SUMMARY); the exit status is non-zero when either
# found an error.
# SANITIZE_K narrows memcheck's selection (a pytest -k expression; default: every CUDA test).
# memcheck sees accesses outside the memory genesis holds; an overrun from one block of the
# caching pool into its neighbour in the same segment stays inside it and is not seen.
if [ -n "${SANITIZE:-}" ]; then
  sanitize_rc=0
  cs() {  # cs TOOL LOG PYTEST-ARGS...
    local tool=$1 log=$2; shift 2
    local t0=$(date +%s)
    compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 50 \
      python3 -m pytest -q -p no:cacheprovider "$@" > "$OUT/$log" 2>&1
    local rc=$?
    echo "$tool rc=$rc in $(( $(date +%s) - t0 )) s: $(grep -E '^[0-9]+ (passed|failed)' "$OUT/$log" | tail -1)"
    grep -E "(ERROR|RACECHECK) SUMMARY" "$OUT/$log" | tail -1
    [ $rc -eq 0 ] || sanitize_rc=1
  }
  # The out-of-memory tests are left out: their failing cudaMalloc is intended, and memcheck
  # counts it as an error (genesis checks every CUDA call itself).
  cs memcheck memcheck.txt -k "${SANITIZE_K:-cuda and not out_of_memory}" tests
  cs racecheck racecheck.txt -k "cuda and (contiguous or transpose or permute or sum or mean or max or min or prod or softmax or mask or nonzero or sort or topk or unique or cumsum)" \
    tests/ops/test_copy_layouts.py tests/ops/test_reductions.py tests/ops/test_indexing.py tests/ops/test_sort.py \
    tests/ops/test_scan.py
  [ $sanitize_rc -eq 0 ] || exit 1
fi
