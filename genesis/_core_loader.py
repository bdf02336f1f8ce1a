"""Finds the compiled core (genesis._C) that belongs to these Python files, or says what to run.

Note [Build identifier]
The compiled core records which Python files it was built with: the directory of the package it
was built from (``_C._source_dir``) and a hash of that package's ``.py`` files
(``_C._build_id``; CMakeLists.txt computes it the same way as ``source_id`` below). The Python
files importing it must be those files:

- an editable install (``pip install -e .``) imports the very directory the core was built
  from: accepted as it is, so Python edits are live while developing;
- anywhere else (a wheel in site-packages, or a source checkout borrowing the installed core
  when run from the repository root, as ``python -m pytest`` does), the hash of the importing
  package's ``.py`` files must equal the recorded one.

A source checkout that has no core of its own looks for the installed one and uses it only on
that condition, so it is never silently paired with a core built from other sources.
"""

import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys

_REBUILD = (
    "build it from this checkout with `pip install .` (developers: "
    "`pip install --no-build-isolation -v -e .`; README.md, 'Install, check, test')"
)


def source_id(package_dir):
    """The hash of the package's .py files: relative paths and contents, in sorted order."""
    names = []
    for root, dirs, files in os.walk(package_dir):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, f), package_dir)
                names.append(rel.replace(os.sep, "/"))
    text = []
    for rel in sorted(names):
        with open(os.path.join(package_dir, rel), "rb") as fh:
            text.append(f"{rel}\n{hashlib.sha256(fh.read()).hexdigest()}\n")
    return hashlib.sha256("".join(text).encode()).hexdigest()


def _same_dir(a, b):
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def _installed_core(package, package_dir):
    """The path of another copy's compiled core on sys.path (the installed genesis), or None."""
    for entry in sys.path:
        candidate = os.path.join(entry or os.getcwd(), package)
        if not os.path.isdir(candidate) or _same_dir(candidate, package_dir):
            continue
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(candidate, "_C" + suffix)
            if os.path.isfile(path):
                return path
    return None


def _load_extension(name, path):
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    package, _, attr = name.rpartition(".")
    setattr(sys.modules[package], attr, module)
    return module


def _own_core(name):
    """The compiled core next to the package's files (or mapped there by an editable install)."""
    try:
        core = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        return None
    if getattr(core, "__file__", None) is None:
        # Only the folder of type stubs (genesis/_C/*.pyi), imported as a namespace package:
        # forget it, module and package attribute both.
        _forget(name)
        return None
    return core


def _forget(name):
    sys.modules.pop(name, None)
    package, _, attr = name.rpartition(".")
    if hasattr(sys.modules.get(package), attr):
        delattr(sys.modules[package], attr)


def check_core(core, package_dir):
    """Raises ImportError unless `core` was built with the .py files in `package_dir`."""
    built_from = getattr(core, "_source_dir", None)
    built_id = getattr(core, "_build_id", None)
    if built_id is None:
        raise ImportError(
            f"genesis: the compiled core {core.__file__} has no build identifier; "
            f"it comes from an older build: {_REBUILD}"
        )
    if built_from and _same_dir(built_from, package_dir):
        return  # built from these very files (an editable install or an in-place build)
    if source_id(package_dir) != built_id:
        raise ImportError(
            f"genesis: the compiled core {core.__file__} was built from other Python sources "
            f"than those in {package_dir} (built from {built_from}); {_REBUILD}"
        )


def load_core(package, package_dir):
    """The compiled core for the package in `package_dir` (Note [Build identifier])."""
    name = package + "._C"
    core = _own_core(name)
    if core is None:
        path = _installed_core(package, package_dir)
        if path is None:
            raise ImportError(
                f"genesis: {package_dir} is a source checkout without its compiled core "
                f"(genesis._C): {_REBUILD}"
            ) from None
        core = _load_extension(name, path)
    try:
        check_core(core, package_dir)
    except ImportError:
        _forget(name)
        raise
    return core
