#!/usr/bin/env bash
# Checks kernels/transpose_tiles.cuh without a GPU (sim.cpp says what): builds the host
# simulation with AddressSanitizer and UndefinedBehaviorSanitizer and runs it.
#   bash tools/transpose_sim/run.sh          every item size (a few minutes on 2 cores)
#   bash tools/transpose_sim/run.sh 2 8      only 2- and 8-byte items
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
out="$root/build/transpose_sim"
mkdir -p "$out"
# -I"$here" first: its cuda_runtime.h stands in for the real one.
"${CXX:-g++}" -std=c++20 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  -I"$here" -I"$root" -o "$out/sim" "$here/sim.cpp" -pthread
"$out/sim" "$@"
