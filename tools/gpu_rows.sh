#!/usr/bin/env bash
# One GPU call for the fused row programs' layout (Note [Rows over several warps]): install, the
# compile tests' row programs, tools/softmax_probe.py and the compiling/ benchmark at the default
# budget of kept item values a lane and at those in ROW_BUDGETS (GENESIS_ROW_LANE_VALUES).
set -uo pipefail
OUT="${OUT:-/tmp/genesis-gpu-out}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name --format=csv,noheader
source tools/gpu_install.sh
timeout 240 python3 -m pytest -q -p no:cacheprovider -n 8 tests/compile/test_fused_programs.py \
  tests/compile/test_row_groups.py tests/compile/test_recompute.py > "$OUT/rows_tests.txt" 2>&1
grep -h "^FAILED" "$OUT/rows_tests.txt" | head; tail -1 "$OUT/rows_tests.txt"
for budget in "" ${ROW_BUDGETS:-}; do
  echo "== GENESIS_ROW_LANE_VALUES=${budget:-default}"
  GENESIS_ROW_LANE_VALUES=$budget python3 tools/softmax_probe.py 8 | tail -3 | tr '\n' ' '; echo
  GENESIS_ROW_LANE_VALUES=$budget python3 -m benchmarks --device cuda --filter compiling/ 2>&1 |
    tee -a "$OUT/bench.txt" | grep -E "x |compiled" | grep -v "^\s*$" | tail -8
done
if [ -n "${NCU:-}" ]; then  # NCU=1: the masked softmax's two row programs under ncu
  GENESIS_COMPILE_SYNC=1 timeout 200 ncu --kernel-name regex:genesis_fused --launch-skip 6 \
    --launch-count 2 --section SpeedOfLight --section Occupancy --section ComputeWorkloadAnalysis \
    --section InstructionStats --section LaunchStats --section WarpStateStats \
    python3 tools/softmax_probe.py 5 > "$OUT/ncu.txt" 2>&1
  grep -E "genesis_fused|Duration|Throughput|Registers|Achieved Occupancy|Executed Ipc|Issue Slots|Stall|Pipe|Theoretical Occ" \
    "$OUT/ncu.txt" | head -60
fi
