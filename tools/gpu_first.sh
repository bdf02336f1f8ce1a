#!/usr/bin/env bash
# The first GPU call after CUDA changes that no GPU has run yet, sized for a short device budget:
# build, then (in parallel) the CUDA-fusion tests in three groups and the fused norm tests, each
# log in $OUT; then, with LIMIT seconds not yet spent, the norm probe and the LayerNorm profile.
#   T=165 LIMIT=500 bash tools/gpu_first.sh
OUT="${OUT:-/tmp/genesis-gpu-out}"; mkdir -p "$OUT"; export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
python3 -m pip install --no-build-isolation --no-deps . > "$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
T=${T:-165}
g() {  # g NAME PYTEST-ARGS...
  local n=$1; shift
  timeout "$T" python3 -m pytest -q -p no:cacheprovider "$@" > "$OUT/$n.txt" 2>&1
  echo "$n: $(tail -1 "$OUT/$n.txt")"
}
GENESIS_COMPILE_CUDA=1 g compile_a tests/compile/test_fusion.py tests/compile/test_fused_programs.py &
GENESIS_COMPILE_CUDA=1 g compile_b tests/compile/test_column_groups.py \
  tests/compile/test_row_groups.py tests/compile/test_fused_dropout.py &
GENESIS_COMPILE_CUDA=1 g compile_c tests/compile/test_background_builds.py \
  tests/compile/test_recompute.py tests/compile/test_reduce_overhead.py &
g norms -k cuda tests/nn/test_fused_norm.py tests/nn/test_normalization.py &
wait
grep -h "^FAILED\|^ERROR" "$OUT"/*.txt | head -30
left() { echo $(( ${LIMIT:-500} - ($(date +%s) - t0) )); }
if [ "$(left)" -gt 60 ]; then
  nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I. tools/norm_probe.cu -o /tmp/norm_probe &&
    timeout $(( $(left) - 5 )) /tmp/norm_probe 2>&1 | tee "$OUT/norm_probe.txt"
fi
if [ "$(left)" -gt 30 ]; then
  timeout $(( $(left) - 3 )) python3 tools/norm_step_profile.py 2>&1 | tee "$OUT/ln_profile.txt" |
    grep -v "^ .* x[0-9]" | tail -30
fi
echo "total $(( $(date +%s) - t0 )) s"
