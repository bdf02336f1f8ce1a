#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (README: "Sanitizers").
#   bash tools/sanitize.sh [pytest arguments]
# Builds a CPU-only editable install in build/sanitize (GENESIS_SANITIZE=ON: both sanitizers,
# stopping at the first error), then runs pytest with the sanitizer runtime preloaded, since the
# Python interpreter itself is not instrumented. The normal editable install comes back with the
# README's `pip install --no-build-isolation -v -e ".[test]"`, which rebuilds only what changed
# in its own build directory. Exits with pytest's status.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

"$PY" -m pip install -q scikit-build-core "pybind11==3.1.0"
GENESIS_CUDA=OFF GENESIS_SANITIZE=ON "$PY" -m pip install -q --no-build-isolation \
  --config-settings=build-dir=build/sanitize -e ".[test]"

# The runtime is preloaded with libstdc++: ASan wraps __cxa_throw only if libstdc++ is loaded
# when it starts, and the interpreter does not link it (without it, the first C++ exception
# stops the process). Leak detection stays off: the interpreter's own allocations at exit would
# drown genesis's (the pool's statistics and the tests' leak checks watch genesis's memory).
# Huge requests fail as genesis's OutOfMemory errors instead of ASan aborting, as they do
# without it. Reports go to files, since pytest captures a test's stderr and a sanitizer stops
# the process before pytest prints it; they are printed at the end.
cxx="${CXX:-g++}"
reports="build/sanitize/reports"
rm -rf "$reports" && mkdir -p "$reports"
export LD_PRELOAD="$("$cxx" -print-file-name=libasan.so):$("$cxx" -print-file-name=libstdc++.so)${LD_PRELOAD:+:$LD_PRELOAD}"
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:halt_on_error=1:log_path=$PWD/$reports/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$PWD/$reports/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
set +e
"$PY" -m pytest -q -p no:cacheprovider "$@"
status=$?
set -e
unset LD_PRELOAD
if compgen -G "$reports/*" > /dev/null; then
  echo "sanitizer reports:" >&2
  for f in "$reports"/*; do
    echo "== $f" >&2
    head -80 "$f" >&2
  done
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
