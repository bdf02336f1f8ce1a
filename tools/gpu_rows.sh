#!/usr/bin/env bash
# One GPU call for the fused row programs' layout (Note [Rows over several warps]): install,
# tools/softmax_probe.py and (BENCH=1) the compiling/ benchmark at the default budget of kept item
# values a lane and at those in ROW_BUDGETS (GENESIS_ROW_LANE_VALUES), the fused-program tests
# with CUDA fusion (TESTS: the paths), and with NCU=1 the masked softmax's two row programs under
# ncu; last, what still runs.
set -uo pipefail
OUT="${OUT:-/tmp/genesis-gpu-out}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name --format=csv,noheader
source tools/gpu_install.sh > /dev/null
for budget in "" ${ROW_BUDGETS:-}; do
  echo "== GENESIS_ROW_LANE_VALUES=${budget:-default}: probe $(GENESIS_ROW_LANE_VALUES=$budget \
    python3 tools/softmax_probe.py 8 2>&1 | tail -2 | tr '\n' ' ')"
  [ -n "${BENCH:-}" ] && GENESIS_ROW_LANE_VALUES=$budget python3 -m benchmarks --device cuda \
    --filter compiling/ 2>&1 | tee -a "$OUT/bench.txt" | grep -E "compiled \[[0-9]\]" | cut -c1-150
done
timeout 300 python3 -m pytest -q -p no:cacheprovider -n 8 ${TESTS:-tests/compile/test_fused_programs.py \
  tests/compile/test_row_groups.py tests/compile/test_recompute.py} > "$OUT/rows_tests.txt" 2>&1
grep -h "^FAILED\|^ERROR" "$OUT/rows_tests.txt" | head; tail -1 "$OUT/rows_tests.txt"
if [ -n "${NCU:-}" ]; then
  timeout 200 ncu --kernel-name regex:genesis_fused --launch-skip 6 \
    --launch-count 2 --section SpeedOfLight --section Occupancy --section ComputeWorkloadAnalysis \
    --section InstructionStats --section LaunchStats --section WarpStateStats \
    python3 tools/softmax_probe.py 5 > "$OUT/ncu.txt" 2>&1
  grep -E "genesis_fused|Duration|Throughput|Registers|Achieved Occupancy|Executed Ipc|Issue Slots|Stall|Pipe|Theoretical Occ" \
    "$OUT/ncu.txt" | head -60
fi
ps -eo pid,pcpu,etime,args --sort=-pcpu | head -6 | cut -c1-150
