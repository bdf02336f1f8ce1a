#!/usr/bin/env bash
# One GPU call sized for a short or uncertain device budget (session 42 got one machine in twelve
# tries): install the carried wheel, run the tests of what changed (TESTS, with -n 12), the
# kernel probes (PROBES: names of tools/<name>_probe.cu), the benchmark rows (BENCH: filters split
# by ';'), then, with the seconds of LIMIT not yet spent, the whole suite with -n 12. Logs in $OUT
# (at most 8 files come back from a call: one each for tests, probes, benchmarks and suite).
#   LIMIT=400 TESTS="tests/nn/test_fused_norm.py ..." PROBES="group_norm batch_norm" \
#     BENCH="layers/GroupNorm;both compiled" bash tools/gpu_verify.sh   # carry .whl and .deps
export PYTHONUNBUFFERED=1 PYTHONPATH=.
OUT="${OUT:-/tmp/genesis-gpu-out}"; mkdir -p "$OUT"
source tools/gpu_install.sh; echo "$installed"
for p in ${PROBES:-}; do
  nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I. tools/${p}_probe.cu -o /tmp/${p}_probe &
done
if [ -n "${TESTS:-}" ]; then
  GENESIS_COMPILE_CUDA=0 timeout "${TEST_TIMEOUT:-150}" python3 -m pytest -q -p no:cacheprovider -n 12 \
    ${TEST_K:+-k "$TEST_K"} $TESTS > "$OUT/tests.txt" 2>&1
  echo "tests rc=$?: $(tail -1 "$OUT/tests.txt")"; grep -E "^FAILED|^ERROR" "$OUT/tests.txt" | head
fi
wait
for p in ${PROBES:-}; do timeout 60 /tmp/${p}_probe 2>&1 | tee -a "$OUT/probes.txt" | grep -v "max diff 0"; done
IFS=';' read -ra rows <<< "${BENCH:-}"
for f in "${rows[@]}"; do
  timeout 150 python3 -m benchmarks --device cuda --filter "$f" 2>&1 | tee -a "$OUT/bench.txt" |
    grep -E "fwd\+bwd|GPT-2|compiled|peak"
done
left=$(( ${LIMIT:-540} - SECONDS ))
echo "suite with $left s left"
if [ "$left" -gt 90 ]; then
  timeout $(( left - 15 )) python3 -m pytest -q -p no:cacheprovider -n 12 tests > "$OUT/suite.txt" 2>&1
  echo "suite rc=$?: $(tail -1 "$OUT/suite.txt")"; grep -E "^FAILED|^ERROR" "$OUT/suite.txt" | head -20
fi
echo "total $SECONDS s"
