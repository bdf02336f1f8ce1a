"""Other areas' tests run with every test inside a compiled region (Note [Fusing by deferring
elementwise ops]): whatever a test does with the tensors it makes (views, in-place writes,
exports, autograd, optimizers, NumPy round trips), deferral must not change what it sees. The
whole suite passed this way when the regions were written; these files keep checking it."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = [
    "tests/ops/test_elementwise.py",
    "tests/ops/test_views.py",
    "tests/ops/test_reductions.py",
    "tests/ops/test_reduce_composite.py",
    "tests/autograd/test_autograd_inplace_views.py",
    "tests/amp/test_grad_scaler.py",
    "tests/autograd/test_autograd_function.py",
    "tests/optim/test_optim.py",
]

# Run again with every result only autograd holds left to recompute (Note [Recomputed values]),
# which the CPU does not do by default.
RECOMPUTE_FILES = [
    "tests/autograd/test_autograd.py",
    "tests/autograd/test_autograd_inplace_views.py",
    "tests/nn/test_nn_activation.py",
]

PLUGIN = textwrap.dedent(
    """
    import os
    import pytest
    import genesis

    genesis._compile._find_nvrtc()  # as genesis.compile does, for CUDA groups
    genesis._C._fusion.set_cpu_min_items(0)  # small tensors are deferred too
    if os.environ.get("GENESIS_TEST_RECOMPUTE") == "1":
        genesis._C._fusion.set_recompute(True)

    @pytest.fixture(autouse=True)
    def _in_a_compiled_region():
        genesis._C._fusion.enter_region()
        try:
            yield
        finally:
            genesis._C._fusion.exit_region()
    """
)


CASES = [(f, False) for f in FILES] + [(f, True) for f in RECOMPUTE_FILES]


@pytest.mark.parametrize(
    "path,recompute",
    [c for c in CASES if (ROOT / c[0]).is_file()],
    ids=[f"{c[0]}{'-recompute' if c[1] else ''}" for c in CASES if (ROOT / c[0]).is_file()],
)
def test_file_passes_inside_a_compiled_region(tmp_path, path, recompute):
    (tmp_path / "region_plugin.py").write_text(PLUGIN)
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
        GENESIS_TEST_RECOMPUTE="1" if recompute else "0",
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "-p",
            "region_plugin",
            str(ROOT / path),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode in (0, 5), out.stdout[-3000:] + out.stderr[-2000:]
