#!/usr/bin/env bash
# One call on the GPU machine: build with CUDA for the visible GPU, run the whole suite and the
# benchmarks, and leave logs in $OUT (the device tool brings them back).
set -uo pipefail
OUT="${OUT:-/tmp/genesis-gpu-out}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
start=$(date +%s)
python3 -m pip install --no-build-isolation --no-deps . > "$OUT/build.log" 2>&1
rc=$?
echo "build rc=$rc in $(( $(date +%s) - start )) s"
[ $rc -eq 0 ] || { tail -40 "$OUT/build.log"; exit 1; }
cd /tmp  # import the installed package, not the checkout
rm -rf /tmp/gtests && cp -r "$OLDPWD/tests" /tmp/gtests
python3 -m genesis 2>&1 | tee "$OUT/selfcheck.txt" | tail -25
python3 -m pytest -q --maxfail=60 -p no:cacheprovider /tmp/gtests ${PYTEST_ARGS:-} 2>&1 | tee "$OUT/pytest.txt" | tail -30
if [ -n "${BENCH:-}" ]; then
  cd "$OLDPWD" && python3 -m benchmarks --device cuda ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.txt" | tail -60
fi
