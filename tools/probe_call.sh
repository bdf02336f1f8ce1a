# One GPU call of measurements for the row programs' layout (session 46): compiling/ at the
# default and at GENESIS_ROW_LANE_VALUES=32, and ncu of the masked softmax at 16.
source tools/gpu_install.sh > /dev/null
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
for budget in 32 ""; do
  echo "== budget ${budget:-default}: probe $(GENESIS_ROW_LANE_VALUES=$budget python3 tools/softmax_probe.py 8 2>&1 | tail -2 | tr '\n' ' ')"
  GENESIS_ROW_LANE_VALUES=$budget python3 -m benchmarks --device cuda --filter compiling/ 2>&1 |
    tee -a "$OUT/bench.txt" | grep -E "compiled \[[0-9]\]" | cut -c1-150
done
GENESIS_ROW_LANE_VALUES=16 GENESIS_COMPILE_SYNC=1 timeout 120 ncu --launch-skip 12 --launch-count 2 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  python3 tools/softmax_probe.py 6 > $OUT/ncu16.txt 2>&1
grep -E "^  [a-zA-Z_].*Context|Duration|Registers Per|Achieved Occ|Theoretical Occ|Compute \(SM\)|DRAM Through|Shared Memory Config|Stall|Block Limit" $OUT/ncu16.txt | cut -c1-150 | head -40
