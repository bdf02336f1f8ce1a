"""The checked-in stubs (genesis/_C/*.pyi) are what tools/generate_stubs.py makes from this build.

The generator needs nothing beyond the standard library and the built module, so this runs on
every build, CPU-only or CUDA. A failure prints the diff and the command that fixes it.
"""

import ast
import difflib
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "generate_stubs.py"
FIX = "python tools/generate_stubs.py"

if not TOOL.is_file():
    pytest.skip("tools/ is not next to this tests/ directory", allow_module_level=True)


def other_pybind11():
    """The pybind11 this environment has when it is not the version pyproject.toml pins.

    The stubs are pybind11's signature lines, so a module built with another release (say, by
    `pip install --no-build-isolation` where another pybind11 is installed) may spell the same
    types differently. An isolated build (CI's) uses the pin and leaves no pybind11 behind.
    """
    pin = re.search(r'"pybind11==([^"]+)"', (ROOT / "pyproject.toml").read_text())
    try:
        installed = importlib.metadata.version("pybind11")
    except importlib.metadata.PackageNotFoundError:
        return None
    return installed if pin and installed != pin.group(1) else None


def test_checked_in_stubs_match_the_build(tmp_path):
    if other_pybind11():
        pytest.skip(f"built with pybind11 {other_pybind11()}, not the version pyproject pins")
    # Regenerated in a fresh interpreter, as a developer runs it, into a temporary root.
    run = subprocess.run(
        [sys.executable, str(TOOL), "--out", str(tmp_path)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    generated = {p.relative_to(tmp_path) for p in tmp_path.rglob("*.pyi")}
    checked_in = {p.relative_to(ROOT) for p in (ROOT / "genesis" / "_C").glob("*.pyi")}
    diff = []
    for path in sorted(generated | checked_in):
        old, new = (root / path for root in (ROOT, tmp_path))
        diff += difflib.unified_diff(
            old.read_text().splitlines(keepends=True) if old.exists() else [],
            new.read_text().splitlines(keepends=True) if new.exists() else [],
            f"{path.as_posix()} (checked in)",
            f"{path.as_posix()} (from this build)",
        )
    if diff:
        pytest.fail(f"the stubs differ from the build; run: {FIX}\n\n{''.join(diff)}", False)


def stub_names(body):
    """Names a stub's statements define: functions, classes, annotated names, imports."""
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def test_the_stubs_cover_every_name_the_module_binds():
    import genesis._C as C

    tree = ast.parse((ROOT / "genesis" / "_C" / "__init__.pyi").read_text())
    bound = {name for name in vars(C) if not name.startswith("__")} | {"__version__"}
    assert sorted(bound - stub_names(tree.body)) == []
    # Every method of Tensor that C++ binds: the operators, DLPack, the compute ops.
    (tensor,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor"]
    methods = {n for n, v in vars(C.Tensor).items() if type(v).__name__ == "instancemethod"}
    methods -= {n for n in methods if n.startswith("_pybind11_")}
    assert sorted(methods - stub_names(tensor.body)) == []
    assert {"__add__", "__dlpack__", "sum", "where"} <= methods
