#!/usr/bin/env bash
# The first GPU call after CUDA changes that no GPU has run yet, sized for a short device budget:
# build, then (in parallel) the CUDA-fusion tests in four groups and the fused norm tests, each
# log in $OUT; then, with LIMIT seconds not yet spent, the compiling benchmarks with CUDA fusion
# on, the GPT-2 step with both libraries compiled, and the transformer-block profile (compiled,
# eager, torch.compile) with its fusion log.
#   T=200 LIMIT=540 [PROBE=1] [GNPROBE=1] [NORMS=1] [LCE=1] [AREAS="block gpt2c"] bash tools/gpu_first.sh
# With a wheel from tools/build_gpu_wheel.sh carried in .whl (and .deps), nothing builds here.
OUT="${OUT:-/tmp/genesis-gpu-out}"; mkdir -p "$OUT"; export PYTHONUNBUFFERED=1 PYTHONPATH=.
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
source tools/gpu_install.sh
T=${T:-200}
g() {  # g NAME PYTEST-ARGS...
  local n=$1; shift
  timeout "$T" python3 -m pytest -q -p no:cacheprovider "$@" > "$OUT/$n.txt" 2>&1
  echo "$n: $(tail -1 "$OUT/$n.txt")"
}
export GENESIS_COMPILE_CUDA=1  # the default since session 39; kept explicit
g fusion tests/compile/test_fusion.py &
g programs tests/compile/test_fused_programs.py &
g groups tests/compile/test_column_groups.py tests/compile/test_row_groups.py \
  tests/compile/test_fused_dropout.py &
g rest tests/compile/test_background_builds.py tests/compile/test_recompute.py \
  tests/compile/test_reduce_overhead.py &
GENESIS_COMPILE_CUDA=0 g norms -k cuda tests/nn/test_fused_norm.py tests/nn/test_normalization.py &
# other areas' tests inside compiled regions, and the files that call genesis.compile
g region -n 8 tests/compile/test_suite_in_a_region.py &
g autograd -n 4 tests/autograd &
# the classifier's chunks and the cuDNN paths (built only with .deps's headers)
g heads -n 4 tests/nn/test_linear_cross_entropy.py tests/nn/test_attention_fused.py \
  tests/nn/test_conv_cudnn.py tests/nn/test_rnn_cudnn.py &
g usage tests/ops/test_op_dtypes.py tests/project/test_docs.py tests/project/test_layers.py \
  tests/project/test_docstrings.py &
wait
grep -h "^FAILED\|^ERROR" "$OUT"/*.txt | head -30
left() { echo $(( ${LIMIT:-540} - ($(date +%s) - t0) )); }
if [ -n "${PROBE:-}" ]; then  # PROBE=1: the row-norm kernel variants (tools/norm_probe.cu)
  nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I. tools/norm_probe.cu \
    -o /tmp/norm_probe && timeout 90 /tmp/norm_probe 2>&1 | tee "$OUT/norm_probe.txt" | grep -v diff
fi
if [ -n "${GNPROBE:-}" ]; then  # GNPROBE=1: group and batch norm's kernel variants and steps
  for p in group_norm batch_norm; do
    nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I. tools/${p}_probe.cu \
      -o /tmp/${p}_probe && timeout 60 /tmp/${p}_probe 2>&1 | tee "$OUT/${p}_probe.txt"
  done
  for a in groupnorm batchnorm; do
    timeout 60 python3 tools/norm_step_profile.py $a 2>&1 | tee "$OUT/norm_step_$a.txt" | head -12
  done
fi
if [ -n "${NORMS:-}" ] && [ "$(left)" -gt 90 ]; then  # NORMS=1: the norm layers' rows
  for f in "layers/LayerNorm" "layers/RMSNorm" "layers/GroupNorm" "layers/BatchNorm2d"; do
    timeout 60 python3 -m benchmarks --device cuda --filter "$f" 2>&1 | tee -a "$OUT/bench_norms.txt" |
      grep "fwd+bwd"
  done
fi
if [ -n "${LCE:-}" ] && [ "$(left)" -gt 60 ]; then  # LCE=1: the GPT-2 head at several chunk sizes
  timeout 60 python3 tools/lce_chunk_probe.py 2>&1 | tee "$OUT/lce_probe.txt" | grep "  "
fi
if [ "$(left)" -gt 60 ]; then
  timeout $(( $(left) - 40 )) python3 -m benchmarks --device cuda --filter "compiling/" 2>&1 |
    tee "$OUT/bench_compile.txt" | grep -v '^\s*$' | tail -20
fi
if [ "$(left)" -gt 150 ]; then
  timeout $(( $(left) - 100 )) python3 -m benchmarks --device cuda --filter "both compiled" 2>&1 |
    tee "$OUT/bench_gpt2_compiled.txt" | grep -v '^\s*$' | tail -8
fi
if [ "$(left)" -gt 30 ]; then
  GENESIS_LOGS=compile timeout $(( $(left) - 3 )) python3 tools/step_profile.py ${AREAS:-block} --top 20 \
    > "$OUT/block_profile.txt" 2> "$OUT/block_log.txt"
  grep -v "^ .* x[0-9]" "$OUT/block_profile.txt" | tail -40
fi
echo "total $(( $(date +%s) - t0 )) s"
# At most 8 files come back from a call (the device tool's limits): the logs travel as one archive.
(cd "$OUT" && tar czf first_logs.tgz ./*.txt && rm -f ./*.txt)
