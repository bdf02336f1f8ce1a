#!/usr/bin/env bash
# Installs genesis on the GPU machine, sourced by gpu_first.sh and gpu_check.sh (OUT set):
# the wheel tools/build_gpu_wheel.sh left in .whl (carried; built on the VM, so the call spends
# no device time building, 110-190 s a cold machine) when it imports with this checkout's
# Python files, else a build here. Either way against the cuDNN frontend's headers in .deps
# (tools/fetch_cuda_headers.sh; carry it), without which cuDNN's attention and graph
# convolutions are not built and their tests skip. BUILD=1 always builds.
if [ -d .deps/cudnn_frontend/include ]; then
  export GENESIS_CUDNN_FRONTEND_INCLUDE=$PWD/.deps/cudnn_frontend/include
  export GENESIS_CUDNN_INCLUDE=$PWD/.deps/cudnn/include GENESIS_NVRTC_INCLUDE=$PWD/.deps/nvrtc/include
fi
install_start=$(date +%s)
wheel=$(ls .whl/genesis_tensor-*-cp3*.whl 2>/dev/null | head -1)
installed=
if [ -n "$wheel" ] && [ -z "${BUILD:-}" ]; then
  # The wheel's core refuses to load beside other Python files than it was built with.
  if python3 -m pip install --no-deps --force-reinstall "$wheel" > "$OUT/build.log" 2>&1 &&
    python3 -c "import genesis" >> "$OUT/build.log" 2>&1; then
    installed="wheel $wheel"
  else
    echo "the carried wheel does not fit this checkout (see build.log): building"
  fi
fi
if [ -z "$installed" ]; then
  python3 -m pip install --no-build-isolation --no-deps . >> "$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
  installed="build"
fi
echo "installed ($installed) in $(( $(date +%s) - install_start )) s"
python3 -c "from genesis import _C; print('cuDNN frontend paths built:', _C._nn._cudnn_attention_built())" \
  2>&1 | tee "$OUT/cudnn_built.txt"
