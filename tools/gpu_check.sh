#!/usr/bin/env bash
# One call on the GPU machine: build with CUDA for the visible GPU, run the whole suite (from the
# repository root, as CI and the README do) and the benchmarks, and leave logs in $OUT.
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
python3 -m genesis > "$OUT/selfcheck.txt" 2>&1 && tail -1 "$OUT/selfcheck.txt"
python3 -m pytest -q --maxfail=60 -p no:cacheprovider ${PYTEST_ARGS:-} 2>&1 | tee "$OUT/pytest.txt" | tail -${PYTEST_TAIL:-15}
if [ -n "${BENCH:-}" ]; then
  python3 -m benchmarks --device cuda ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.txt" | tail -${BENCH_TAIL:-60}
fi
