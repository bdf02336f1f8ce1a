#!/usr/bin/env bash
# One GPU call for the attention paths written without a GPU (session 51): installs the carried
# wheel, runs the fused-attention tests (the float32 kernels' and cuDNN's dropout test files
# switch their paths on themselves), then the attention benchmark rows as shipped, the dropout
# and float32 rows again with _kernel_float32 and _cudnn_dropout on, and the dropout probe.
# Logs in $OUT.
#   bash tools/gpu_attention_check.sh      # run(command=..., carry=[".whl", ".deps"])
OUT="${OUT:-/tmp/genesis-gpu-out}"; mkdir -p "$OUT"; export PYTHONUNBUFFERED=1 PYTHONPATH=.
nvidia-smi --query-gpu=name --format=csv,noheader
source tools/gpu_install.sh
timeout 240 python3 -m pytest -q -rs -n 8 -p no:cacheprovider tests/nn/test_attention_float32.py \
  tests/nn/test_attention_cudnn_dropout.py tests/nn/test_attention_dropout.py \
  tests/nn/test_attention_fused.py tests/nn/test_attention.py > "$OUT/attention_tests.txt" 2>&1
grep -h "^FAILED\|^ERROR\|^SKIPPED.*cuDNN" "$OUT/attention_tests.txt" | head -30
echo "attention tests: $(tail -1 "$OUT/attention_tests.txt")"
timeout 150 python3 -m benchmarks --device cuda --filter attention/ > "$OUT/attention_rows.txt" 2>&1
grep "SDPA" "$OUT/attention_rows.txt" | grep -v "^\[" | cut -c1-150
switched_on='
import runpy, sys
from genesis.nn.functional import _attention_fused as m
m._kernel_float32 = m._cudnn_dropout = True
sys.argv = ["benchmarks", *sys.argv[1:]]
runpy.run_module("benchmarks", run_name="__main__")
'
for rows in dropout f32; do  # again with _kernel_float32 and _cudnn_dropout on
  timeout 100 python3 -c "$switched_on" --device cuda --filter "$rows" \
    >> "$OUT/attention_rows_on.txt" 2>&1
done
grep "SDPA" "$OUT/attention_rows_on.txt" | grep -v "^\[" | cut -c1-150
timeout 60 python3 tools/attention_dropout_probe.py 2>&1 | tee "$OUT/dropout_probe.txt"
