#!/usr/bin/env bash
# The headers a CUDA build of genesis compiles its cuDNN (graph API, attention, convolutions) and
# NVRTC paths against, for a machine whose Python environment lacks the nvidia-cudnn-frontend,
# nvidia-cudnn-cu13 and nvidia-cuda-nvrtc packages (the GPU machine reaches no registry): run it
# where PyPI is reachable, carry the folder along, and export what it prints before building.
#
#   bash tools/fetch_cuda_headers.sh [DIR]     # DIR defaults to .deps (ignored by git)
#
# Only the include folders are kept (about 4 MB): the libraries are loaded at run time from the
# machine's own packages (Note [cuDNN's graph API], Note [Loading cuBLAS]). Pass versions to pip
# through FRONTEND=, CUDNN=, NVRTC= (e.g. FRONTEND="==1.32.0") to pin them.
set -euo pipefail
dir=$(realpath -m "${1:-.deps}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps -d "$tmp/wheels" \
  "nvidia-cudnn-frontend${FRONTEND:-}" "nvidia-cudnn-cu13${CUDNN:-}" "nvidia-cuda-nvrtc${NVRTC:-}"
mkdir -p "$tmp/x"
for wheel in "$tmp"/wheels/*.whl; do
  (cd "$tmp/x" && python3 -m zipfile -e "$wheel" . >/dev/null)
done
mkdir -p "$dir"
rm -rf "$dir/cudnn_frontend" "$dir/cudnn" "$dir/nvrtc"
mkdir -p "$dir/cudnn_frontend" "$dir/cudnn" "$dir/nvrtc"
mv "$tmp/x/include" "$dir/cudnn_frontend/include"
mv "$tmp/x/nvidia/cudnn/include" "$dir/cudnn/include"
mv "$tmp/x/nvidia/cu13/include" "$dir/nvrtc/include"
# Paths under the current folder are printed relative to $PWD, so the lines hold on another
# machine that has the same tree (the GPU machine's copy of the repository) when run from its root.
shown=$dir
case "$dir" in "$PWD"/*) shown="\$PWD/${dir#"$PWD"/}" ;; esac
echo "export GENESIS_CUDNN_FRONTEND_INCLUDE=$shown/cudnn_frontend/include"
echo "export GENESIS_CUDNN_INCLUDE=$shown/cudnn/include"
echo "export GENESIS_NVRTC_INCLUDE=$shown/nvrtc/include"
