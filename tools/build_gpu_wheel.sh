#!/usr/bin/env bash
# Builds genesis's CUDA wheel for the GPU machine here on the VM, so that a GPU call installs it
# in seconds (tools/gpu_install.sh) instead of building there: the machine's Python (3.12), its
# GPUs' architecture (sm_90: H100 and H200) and the cuDNN frontend's headers (.deps, fetched
# when missing). The build folder persists, so a rebuild after small changes takes minutes
# (about 20 from nothing on 2 cores). The wheel carries the package's Python files as they
# are now: build after the last change under genesis/, and carry .whl (and .deps) to the call.
#   bash tools/build_gpu_wheel.sh      # then: run(command=..., carry=[".whl", ".deps"])
set -euo pipefail
py=${PY312:-/root/.pyenv/versions/3.12.1/bin/python}
venv=${VENV:-/tmp/genesis-py312}
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q scikit-build-core "pybind11==3.1.0" numpy cmake ninja
fi
[ -d .deps/cudnn_frontend/include ] || bash tools/fetch_cuda_headers.sh > /dev/null
export GENESIS_CUDNN_FRONTEND_INCLUDE=$PWD/.deps/cudnn_frontend/include
export GENESIS_CUDNN_INCLUDE=$PWD/.deps/cudnn/include GENESIS_NVRTC_INCLUDE=$PWD/.deps/nvrtc/include
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
mkdir -p .whl
rm -f .whl/genesis_tensor-*.whl
"$venv/bin/python" -m pip wheel --no-build-isolation --no-deps -w .whl \
  -C build-dir="${BUILD_DIR:-/tmp/genesis-gpu-wheel-build}" \
  -C cmake.define.GENESIS_CUDA_ARCHITECTURES="${ARCHS:-90}" .
ls -la .whl/genesis_tensor-*.whl
