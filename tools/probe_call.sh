# One GPU call (session 46): the row layout's measurements (tools/softmax_probe.py and, with
# BENCH=1, compiling/), then the fused-program tests with CUDA fusion (TESTS: the paths), then
# what still runs.
source tools/gpu_install.sh > /dev/null
nvidia-smi --query-gpu=name --format=csv,noheader
for budget in "" ${ALT:-}; do
  echo "== budget ${budget:-default}: probe $(GENESIS_ROW_LANE_VALUES=$budget python3 tools/softmax_probe.py 8 2>&1 | tail -2 | tr '\n' ' ')"
  [ -n "${BENCH:-}" ] && GENESIS_ROW_LANE_VALUES=$budget python3 -m benchmarks --device cuda --filter compiling/ 2>&1 |
    tee -a "$OUT/bench.txt" | grep -E "compiled \[[0-9]\]" | cut -c1-150
done
timeout 300 python3 -m pytest -q -p no:cacheprovider -n 8 ${TESTS:-tests/compile} > "$OUT/compile_tests.txt" 2>&1
grep -h "^FAILED\|^ERROR" "$OUT/compile_tests.txt" | head; tail -1 "$OUT/compile_tests.txt"
ps -eo pid,pcpu,etime,args --sort=-pcpu | head -6 | cut -c1-150
