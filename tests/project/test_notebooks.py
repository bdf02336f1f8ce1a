"""Runs the notebooks of docs/notebooks/ headless, so they cannot go stale.

Each notebook is executed once, top to bottom, by nbclient in a fresh IPython kernel, and the
tests read its outputs: no cell failed, the memory notebook's timeline cell drew a picture, the
leak that check_memory_leaks() reports is on the line where the notebook plants it, and the
training loop's autocast region gives bfloat16 outputs and float32 losses. The notebooks are
stored without outputs, which is checked too.

Note [The notebook kernel]: the kernel must be this interpreter, with this genesis. A kernel
named "python3" is whatever kernelspec Jupyter finds first (one in ~/.local/share/jupyter may
belong to another Python), so the tests write a kernelspec of their own into a temporary
directory, whose command is sys.executable, and hand nbclient a KernelManager that reads only
that directory. The kernel's PYTHONPATH starts with the directory the tests' genesis was
imported from (the repository root under `python -m pytest`, as for the other tests), and a
cell appended to the in-memory notebook prints sys.executable and genesis.__file__, which the
tests compare with their own. The kernel runs in a temporary directory, so nothing a notebook
writes lands in the checkout, and IPYTHONDIR is one too, so a user's IPython profile (startup
files, configuration) does not run in it.

Note [Pictures without a display]: the kernel draws with matplotlib's inline backend, which
renders with Agg and sends each figure as an image/png output at the end of its cell; nothing
opens a window. MPLBACKEND is set to it, since a plain "Agg" backend would draw into no output
at all, and a user's interactive backend in the environment would need a display.

These tests need the `notebooks` extra (pip install ".[notebooks]": nbclient, nbformat,
ipykernel, matplotlib) and skip, saying which is missing, without it.
"""

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import pytest

import genesis

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "docs" / "notebooks"
CELL_TIMEOUT_S = 300  # one cell; the slowest (importing torch, recording) takes a few seconds

_NEEDED = ("nbclient", "nbformat", "ipykernel", "matplotlib")
_MISSING = [name for name in _NEEDED if importlib.util.find_spec(name) is None]
if _MISSING:
    pytest.skip(
        f"the notebook tests need the `notebooks` extra (pip install '.[notebooks]'); "
        f"missing: {', '.join(_MISSING)}",
        allow_module_level=True,
    )
if not NOTEBOOKS.is_dir():
    pytest.skip("docs/notebooks is not next to this tests/ directory", allow_module_level=True)

import nbformat  # noqa: E402
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellExecutionError  # noqa: E402

KERNEL_NAME = "genesis-notebook-tests"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Appended to each notebook in memory: which interpreter and which genesis the kernel runs.
_WHOAMI = (
    "import sys, genesis\nprint('kernel:', sys.executable)\nprint('genesis:', genesis.__file__)\n"
)


def _kernel_manager(tmp):
    """A KernelManager that starts `sys.executable -m ipykernel_launcher` (Note [The notebook
    kernel]), with this genesis first on the path and the inline matplotlib backend."""
    spec_dir = tmp / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    genesis_parent = str(Path(genesis.__file__).resolve().parent.parent)
    pythonpath = os.pathsep.join(p for p in (genesis_parent, os.environ.get("PYTHONPATH")) if p)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "genesis tests",
        "language": "python",
        "env": {
            "PYTHONPATH": pythonpath,
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
            "IPYTHONDIR": str(tmp / "ipython"),  # no user profile, startup files or history
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",  # debugpy's warning about frozen modules
        },
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    specs = KernelSpecManager(kernel_dirs=[str(tmp / "kernels")], ensure_native_kernel=False)
    return KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)


def _execute(name, tmp):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(_WHOAMI))
    workdir = tmp / "cwd"
    workdir.mkdir()
    client = NotebookClient(
        nb,
        km=_kernel_manager(tmp),
        timeout=CELL_TIMEOUT_S,
        resources={"metadata": {"path": str(workdir)}},
    )
    try:
        client.execute()
    except CellExecutionError as e:  # the failing cell and its traceback, without colour codes
        raise AssertionError(f"{name}: {_ANSI.sub('', str(e))}") from None
    return nb


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """name -> the executed notebook; each runs once, the first time a test asks for it (a
    failure too: the tests after the first get the same error without running it again)."""
    done = {}

    def get(name):
        if name not in done:
            try:
                done[name] = _execute(name, tmp_path_factory.mktemp(name.replace(".", "_")))
            except Exception as e:
                done[name] = e
        if isinstance(done[name], Exception):
            raise done[name]
        return done[name]

    return get


def _text(cell):
    """The text a code cell printed or displayed as plain text."""
    parts = []
    for out in cell.outputs:
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(out.data.get("text/plain", ""))
    return "".join(parts)


def _tagged(nb, tag):
    (cell,) = [c for c in nb.cells if tag in c.metadata.get("tags", [])]
    return cell


def _notebook_names():
    return sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


def test_the_notebooks_are_there():
    assert {
        "memory_debugging.ipynb",
        "tour.ipynb",
        "train_cnn.ipynb",
        "train_loop.ipynb",
    } <= set(_notebook_names())


@pytest.mark.parametrize("name", _notebook_names())
def test_notebook_is_stored_without_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (name, cell.source[:60])


@pytest.mark.parametrize("name", _notebook_names())
def test_notebook_runs_in_this_interpreter(name, executed):
    nb = executed(name)
    for cell in nb.cells:
        errors = [o for o in getattr(cell, "outputs", []) if o.output_type == "error"]
        assert not errors, (name, cell.source, errors)
    whoami = _text(nb.cells[-1])
    assert f"kernel: {sys.executable}\n" in whoami, whoami
    assert f"genesis: {genesis.__file__}\n" in whoami, whoami


def test_memory_timeline_plot_is_an_image(executed):
    cell = _tagged(executed("memory_debugging.ipynb"), "timeline-plot")
    images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, cell.outputs
    png = images[0].data["image/png"]  # base64
    assert len(png) > 1000 and png.startswith("iVBORw0KGgo"), png[:20]  # the PNG signature


def test_training_notebook_plots_a_falling_loss(executed):
    nb = executed("train_cnn.ipynb")  # its last code cells assert a test accuracy above 0.9
    cell = _tagged(nb, "loss-curve")
    images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, cell.outputs
    text = "".join(_text(c) for c in nb.cells if c.cell_type == "code")
    first, last = map(float, re.search(r"loss: first ([\d.]+), last ([\d.]+)", text).groups())
    assert last < 0.5 * first, text


def test_training_loop_notebook_plots_loss_and_schedule(executed):
    nb = executed("train_loop.ipynb")  # its last cell asserts that the resumed run matches
    cell = _tagged(nb, "loss-and-lr")
    images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, cell.outputs
    text = "".join(_text(c) for c in nb.cells if c.cell_type == "code")
    first, last = map(float, re.search(r"loss: first ([\d.]+), last ([\d.]+)", text).groups())
    assert last < 0.1 * first, text


def test_training_loop_notebook_trains_under_autocast(executed):
    nb = executed("train_loop.ipynb")
    # Inside the region nn.Linear's output is bfloat16 and the loss float32; the weights and
    # their gradients stay float32.
    text = _text(_tagged(nb, "autocast-dtypes"))
    found = re.findall(r"^(\w+): +genesis\.(\w+)$", text, re.MULTILINE)
    assert found == [
        ("weight", "float32"),
        ("output", "bfloat16"),
        ("loss", "float32"),
        ("grad", "float32"),
    ], text
    # The loop that draws the curves and resumes from the checkpoint is the one under autocast.
    (train,) = [c.source for c in nb.cells if "def train_epoch" in c.source]
    for step in ("with genesis.autocast(device, dtype=dtype):", "scaler.scale(loss).backward()"):
        assert step in train, train


def test_planted_leak_is_reported_on_its_line(executed):
    nb = executed("memory_debugging.ipynb")
    plant = _tagged(nb, "plant-leak").source.splitlines()
    (planted,) = [i for i, line in enumerate(plant, 1) if "history.append(" in line]
    text = _text(_tagged(nb, "leak-check"))
    # The cell's "file" is a temporary file named by ipykernel; the function, the line number
    # and the source that linecache gives for that file and line pin it to the planted cell.
    found = re.findall(r"^  leak in (\w+)\(\), line (\d+): (.*)$", text, re.MULTILINE)
    assert found == [("train", str(planted), plant[planted - 1].strip())], text
    assert re.search(r"^10 live allocations, \d+ bytes, on cpu$", text, re.MULTILINE), text


@pytest.mark.parametrize("name", ["memory_debugging.ipynb", "tour.ipynb"])
def test_cuda_cells_run_where_a_gpu_is(name, executed):
    cell = _tagged(executed(name), "cuda")
    skipped = "No CUDA device here" in _text(cell)
    assert skipped != genesis.cuda.is_available(), _text(cell)
