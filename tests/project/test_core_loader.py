"""Note [Build identifier]: genesis imports only the compiled core built with its own Python files.

The scenarios run in fresh interpreters started with ``-S`` (no site-packages, so no installed
or editable genesis interferes), over copies of the package in temporary directories.
"""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

import genesis
from genesis import _core_loader

PACKAGE = Path(genesis.__file__).resolve().parent
CORE = Path(genesis._C.__file__).resolve()


def copy_package(dest, with_core):
    """A copy of the genesis package's .py files (and, if asked, its compiled core) in dest."""
    pkg = dest / "genesis"
    shutil.copytree(PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    if with_core:
        shutil.copy2(CORE, pkg / CORE.name)
    return pkg


def run_python(code, path_entries, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, path_entries), numpy_only(Path(cwd))])
    return subprocess.run(
        [sys.executable, "-S", "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def numpy_only(where):
    """A directory holding only NumPy (links), so that the installed genesis stays out of view."""
    import numpy

    deps = where / "numpy-only"
    if not deps.exists():
        deps.mkdir()
        site = Path(numpy.__file__).resolve().parent.parent
        for name in ("numpy", "numpy.libs"):
            if (site / name).exists():
                (deps / name).symlink_to(site / name)
    return str(deps)


def test_source_id_depends_on_names_and_contents(tmp_path):
    a = copy_package(tmp_path / "a", with_core=False)
    b = copy_package(tmp_path / "b", with_core=False)
    assert _core_loader.source_id(a) == _core_loader.source_id(b)
    (b / "__pycache__").mkdir(exist_ok=True)
    (b / "__pycache__" / "x.py").write_text("ignored")  # caches are not sources
    assert _core_loader.source_id(a) == _core_loader.source_id(b)
    (b / "_tensor_str.py").write_text((b / "_tensor_str.py").read_text() + "\n# edited\n")
    assert _core_loader.source_id(a) != _core_loader.source_id(b)
    (a / "extra.py").write_text("")
    assert _core_loader.source_id(a) != _core_loader.source_id(copy_package(tmp_path / "c", False))


def test_check_core_rules(tmp_path):
    pkg = copy_package(tmp_path, with_core=False)
    right = _core_loader.source_id(pkg)
    core = SimpleNamespace(__file__="x/_C.so", _build_id=right, _source_dir="/elsewhere/genesis")
    _core_loader.check_core(core, str(pkg))  # the same files, built elsewhere
    core._build_id = "0" * 64
    with pytest.raises(ImportError, match="built from other Python sources"):
        _core_loader.check_core(core, str(pkg))
    core._source_dir = str(pkg)  # built from this very directory (editable): live edits allowed
    _core_loader.check_core(core, str(pkg))
    with pytest.raises(ImportError, match="no build identifier"):
        _core_loader.check_core(SimpleNamespace(__file__="x/_C.so"), str(pkg))


def test_the_core_knows_its_build():
    assert len(genesis._C._build_id) == 64
    assert Path(genesis._C._source_dir).name == "genesis"
    if Path(genesis._C._source_dir).resolve() != PACKAGE:
        # Installed (not editable): these files are the ones it was built with.
        assert _core_loader.source_id(PACKAGE) == genesis._C._build_id


def test_source_tree_without_a_core_says_what_to_run(tmp_path):
    copy_package(tmp_path, with_core=False)
    r = run_python("import genesis", [tmp_path], cwd=tmp_path)
    assert r.returncode != 0
    assert "ImportError: genesis: " in r.stderr
    assert "source checkout without its compiled core" in r.stderr
    assert "pip install ." in r.stderr


# Runs before `import genesis`: the checkout's loader, with source_id answering `ident`, so a
# checkout can stand for "the files the core was built with" whatever the build's files were.
PRETEND_SAME = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("genesis._core_loader", {loader!r})
loader = importlib.util.module_from_spec(spec)
sys.modules["genesis._core_loader"] = loader
spec.loader.exec_module(loader)
loader.source_id = lambda package_dir: {ident!r}
"""


def test_source_tree_borrows_the_installed_core_built_from_its_files(tmp_path):
    # The repository root on sys.path before site-packages (python -m pytest): the checkout's
    # genesis/ (with its folder of stubs, genesis/_C/) and the installed core of the same files.
    installed = tmp_path / "site"
    copy_package(installed, with_core=True)
    src = copy_package(tmp_path / "checkout", with_core=False)
    assert (src / "_C").is_dir()  # the stubs, which must not pass for the core
    prelude = PRETEND_SAME.format(loader=str(src / "_core_loader.py"), ident=genesis._C._build_id)
    code = prelude + "import genesis; print(genesis.zeros(2).tolist(), genesis._C.__file__)"
    r = run_python(code, [tmp_path / "checkout", installed], cwd=tmp_path / "checkout")
    assert r.returncode == 0, r.stderr
    assert "[0.0, 0.0]" in r.stdout and str(installed) in r.stdout


def test_source_tree_refuses_a_core_built_from_other_sources(tmp_path):
    installed = tmp_path / "site"
    copy_package(installed, with_core=True)
    src = copy_package(tmp_path / "checkout", with_core=False)
    (src / "_tensor_str.py").write_text((src / "_tensor_str.py").read_text() + "\n# edited\n")
    code = "import genesis"
    r = run_python(code, [tmp_path / "checkout", installed], cwd=tmp_path / "checkout")
    assert r.returncode != 0
    assert "built from other Python sources than those in" in r.stderr
    assert "pip install ." in r.stderr


def test_a_core_next_to_edited_files_refuses_to_load(tmp_path):
    # A copied installation whose Python files were changed after the build.
    pkg = copy_package(tmp_path, with_core=True)
    if _core_loader.source_id(pkg) == genesis._C._build_id:
        r = run_python("import genesis; print(genesis.ones(1).item())", [tmp_path], tmp_path)
        assert r.returncode == 0 and "1.0" in r.stdout, r.stderr
    (pkg / "__main__.py").write_text((pkg / "__main__.py").read_text() + "\n# edited\n")
    r = run_python("import genesis", [tmp_path], tmp_path)
    assert r.returncode != 0 and "built from other Python sources" in r.stderr
