"""Run a snippet of Python in a process of its own, with a time limit.

A case that could crash (a stack overflow, a fault) or hang must not end the pytest run or
hold it forever: each runs in a child interpreter, and a crash or a timeout is a test failure
that says which. The child inherits the environment, so under tools/sanitize.sh it runs with
the sanitizers preloaded too.
"""

import os
import signal
import subprocess
import sys
import textwrap

# Under the sanitizers (an -O0 build, every access checked) a case runs many times slower.
SANITIZED = "asan" in os.environ.get("LD_PRELOAD", "")
SLOWDOWN = 8 if SANITIZED else 1


def run_isolated(code: str, timeout: float = 60.0) -> str:
    """Runs `code` in a fresh interpreter; returns its stdout, or fails the calling test with
    what went wrong (the signal that killed it, the timeout, its stderr)."""
    limit = timeout * SLOWDOWN
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=limit,
            cwd=os.path.dirname(os.path.abspath(__file__)),
        )
    except subprocess.TimeoutExpired as e:
        raise AssertionError(
            f"the case hung: no exit within {limit:.0f} s\n{e.stderr or ''}"
        ) from None
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        raise AssertionError(f"the case crashed ({name})\nstderr:\n{done.stderr[-4000:]}")
    assert done.returncode == 0, (
        f"the case failed (exit code {done.returncode})\nstderr:\n{done.stderr[-4000:]}"
    )
    return done.stdout
