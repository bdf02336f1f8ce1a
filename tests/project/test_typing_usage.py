"""mypy accepts typing_usage.py, PyTorch-style code written so that it type-checks only
where the stubs are honest, and rejects a copy of it with mistakes on exactly their lines.

The first test fails when a stub types a result Any or wrongly (typing_usage.py asserts the
types with assert_type) or lacks a keyword the run time takes; the second when the stubs are so
loose that they accept a misspelled keyword, a missing method or a wrong result type. mypy comes
with the `test` extra; where it is not installed, these tests skip.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

ROOT = Path(__file__).resolve().parents[2]
USAGE = Path(__file__).resolve().parent / "typing_usage.py"

# Mistakes mypy must report, each on its own line.
MISTAKES = [
    "genesis.zeros(2).nonexistent_method()",  # no such method
    'genesis.zeros(2, dtype="float32", requres_grad=True)',  # a misspelled keyword
    "n: str = genesis.zeros(2).numel()",  # numel() is an int
    "m: Tensor = genesis.zeros(2, 3).max(1)",  # max(dim) is a (values, indices) named tuple
    "v: str = genesis.zeros(2).sum().item()",  # item() is a Python number
    "s: str = genesis.zeros(2).shape",  # shape is a genesis.Size
    "d: genesis.device = genesis.zeros(2).dtype",  # dtype is a genesis.dtype
    "g: Tensor = genesis.zeros(2).grad",  # grad may be None
    "genesis.ones(2, 3, generator=None)",  # ones takes no generator
    "genesis.randint(0, 5, (2,), requires_grad=False)",  # randint refuses requires_grad
    'genesis.zeros(2) + "a"',  # no operator for a str
    "genesis.zeros(2).view(2.5)",  # sizes are ints
]


@pytest.fixture(scope="module")
def mypy(tmp_path_factory):
    cache = tmp_path_factory.mktemp("mypy_cache")
    # MYPYPATH: the repository's genesis/ and its stubs, whichever genesis pip installed.
    env = {**os.environ, "MYPYPATH": str(ROOT)}

    def run(*args):
        cmd = [sys.executable, "-m", "mypy", "--no-color-output", "--cache-dir", str(cache)]
        done = subprocess.run([*cmd, *args], cwd=ROOT, env=env, capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr

    return run


def error_lines(output, path):
    """{line: [message]} of mypy's errors in `path` (notes left out)."""
    found = {}
    pattern = re.compile(rf"^{re.escape(str(path))}:(\d+): error: (.*)$")
    for match in map(pattern.match, output.splitlines()):
        if match:
            found.setdefault(int(match.group(1)), []).append(match.group(2))
    return found


def test_typing_usage_type_checks(mypy):
    status, output = mypy(str(USAGE))
    assert status == 0, output


def test_mistakes_are_reported_on_their_lines(mypy, tmp_path):
    source = USAGE.read_text(encoding="utf-8")
    first = source.count("\n") + 1
    wrong = tmp_path / "typing_usage_wrong.py"
    wrong.write_text(source + "".join(line + "\n" for line in MISTAKES), encoding="utf-8")
    status, output = mypy(str(wrong))
    assert status == 1, output
    errors = error_lines(output, wrong)
    expected = set(range(first, first + len(MISTAKES)))
    missed = [MISTAKES[n - first] for n in sorted(expected - set(errors))]
    assert not missed, f"mypy accepts: {missed}\n{output}"
    assert set(errors) == expected, output
