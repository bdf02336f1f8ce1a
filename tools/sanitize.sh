#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (README: "Sanitizers").
#   bash tools/sanitize.sh [pytest arguments]      build, then run the tests
#   bash tools/sanitize.sh --build                 only build (CI starts this in the background)
#   bash tools/sanitize.sh --test [pytest args]    only run the tests of an earlier build
# Note [A sanitizer build of its own]: the instrumented copy lives in a virtual environment of
# its own, build/sanitize-venv (made from $PYTHON, with the test extra and PyTorch for the
# interop tests), as a CPU-only editable install (GENESIS_SANITIZE=ON: both sanitizers, stopping
# at the first error) built in build/sanitize. The environment genesis is normally installed in
# is never touched, so CI builds this copy while it runs the README's tests, and a developer's
# editable install stays as it is. The tests run with the sanitizer runtime preloaded, since the
# Python interpreter itself is not instrumented. Exits with pytest's status.
# Note [No notebooks under the sanitizers]: this environment gets the test extra only, not
# `notebooks`, so tests/project/test_notebooks.py skips here (saying which packages are missing). Its
# kernels would be subprocesses inheriting the preloaded runtime, running ZeroMQ and matplotlib
# uninstrumented, and the notebooks call nothing that the rest of the suite does not test under
# the sanitizers already; the README's test run executes them.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
VENV="build/sanitize-venv"
SPY="$VENV/bin/python"

phase="all"
case "${1:-}" in
  --build) phase="build"; shift ;;
  --test) phase="test"; shift ;;
esac

if [ "$phase" != "test" ]; then
  [ -x "$SPY" ] || "$PY" -m venv "$VENV"
  "$SPY" -m pip install -q --upgrade pip
  # PyTorch's CPU build (README: the interop tests) and the build requirements, then genesis.
  "$SPY" -m pip install -q scikit-build-core "pybind11==3.1.0" "torch==2.13.0"
  GENESIS_CUDA=OFF GENESIS_SANITIZE=ON "$SPY" -m pip install -q --no-build-isolation \
    --config-settings=build-dir=build/sanitize -e ".[test]"
  echo "sanitize.sh: the build took ${SECONDS} s"
  [ "$phase" = "all" ] || exit 0
fi
[ -x "$SPY" ] || { echo "sanitize.sh: no sanitizer build yet; run it with --build first" >&2; exit 1; }

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
"$SPY" -m pytest -q -p no:cacheprovider "$@"
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
