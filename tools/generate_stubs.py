"""Writes the type stubs of the compiled core (genesis/_C/*.pyi) from the built module.

    python tools/generate_stubs.py            rewrite the checked-in stubs from the build
    python tools/generate_stubs.py --check    exit 1, printing a diff, when they differ
    python tools/generate_stubs.py --out DIR  write them under DIR instead (DIR/genesis/_C/...)

The stubs hold every name genesis._C and its submodules bind, with the types of pybind11's
signature lines; docstrings stay out of them, so editing a binding's prose changes nothing.
A CPU-only and a CUDA build bind the same names and signatures, so they give the same stubs.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
MODULE = "genesis._C"
# pybind11 prints a C++ type's name where it knows no Python one: for a class that the module
# binds only later (Tensor.untyped_storage is bound before UntypedStorage), and for pybind11's
# attribute accessor (dtype.__reduce__ returns `m.attr(...)`, any object). The generator fails
# on any other C++ name, so a new one is noticed.
CPP_NAMES = {
    "genesis::Storage": "genesis._C.UntypedStorage",
    "detail::accessor<detail::accessor_policies::str_attr>": "typing.Any",
}
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))  # for `stubgen` when this file is imported, not run


def stub_path(module_name):
    """genesis._C -> genesis/_C/__init__.pyi (a stub package), genesis._C._cuda -> .../_cuda.pyi"""
    parts = module_name.split(".")
    if module_name == MODULE:
        return Path(*parts, "__init__.pyi")
    return Path(*parts[:-1], parts[-1] + ".pyi")


def expected_stubs():
    """{path relative to the repository: text} for the stubs of the built module."""
    import importlib

    from stubgen.emit import module_stubs

    module = importlib.import_module(MODULE)
    return {stub_path(name): text for name, text in module_stubs(module, CPP_NAMES).items()}


def diff(root=ROOT):
    """A unified diff from the stubs under `root` to the expected ones; empty when they match."""
    want = expected_stubs()
    # Stubs of submodules that the build no longer has are stale too.
    have = {p.relative_to(root) for p in (root / stub_path(MODULE).parent).glob("*.pyi")}
    chunks = []
    for path in sorted(set(want) | have):
        old = (root / path).read_text(encoding="utf-8") if path in have else ""
        new = want.get(path, "")
        chunks += difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"{path.as_posix()} (checked in)",
            tofile=f"{path.as_posix()} (from the build)",
        )
    return "".join(chunks)


def write(root=ROOT):
    want = expected_stubs()
    folder = root / stub_path(MODULE).parent
    for stale in folder.glob("*.pyi"):
        if stale.relative_to(root) not in want:
            stale.unlink()
    for path, text in want.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return sorted(want)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--out", type=Path, default=ROOT, help="root to write the stubs under")
    args = parser.parse_args(argv)
    if args.check:
        text = diff(args.out)
        if text:
            sys.stdout.write(text)
            print("\nThe stubs differ from the build; run: python tools/generate_stubs.py")
            return 1
        print("The stubs match the build.")
        return 0
    for path in write(args.out):
        print(f"wrote {(args.out / path).as_posix()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
