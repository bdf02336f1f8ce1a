"""genesis.nn's namespaces: every family's ``__all__`` is exported (genesis.nn, nn.functional),
names are not exported twice, and the examples in the docstrings of genesis.nn's classes, of
nn.init and of nn.utils run and print what they show."""

import doctest
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import genesis
import genesis.nn as nn
import genesis.nn.functional as F

FUNCTIONAL_FAMILIES = [
    importlib.import_module(f"genesis.nn.functional.{info.name}")
    for info in pkgutil.iter_modules(F.__path__)
]
MODULE_FAMILIES = [
    importlib.import_module(f"genesis.nn.modules.{info.name}")
    for info in pkgutil.iter_modules(nn.modules.__path__)
    if not info.name.startswith("_")
]


def test_every_functional_family_is_exported():
    seen = {}
    for family in FUNCTIONAL_FAMILIES:
        for name in family.__all__:
            assert name not in seen, f"{name} is in {family.__name__} and {seen[name]}"
            seen[name] = family.__name__
            assert getattr(F, name) is getattr(family, name), name
    public = {n for n in dir(F) if not n.startswith("_")}
    assert public == set(seen), f"exported but in no family's __all__: {public - set(seen)}"


def test_every_layer_family_is_exported():
    seen = {}
    for family in MODULE_FAMILIES:
        for name in family.__all__:
            assert name not in seen, f"{name} is in {family.__name__} and {seen[name]}"
            seen[name] = family.__name__
            assert getattr(nn, name) is getattr(family, name), name
    assert set(nn.modules.__all__) == set(seen), (
        "genesis/nn/modules/__init__.py must import every family's __all__ by name: "
        f"missing {sorted(set(seen) - set(nn.modules.__all__))}"
    )
    assert set(nn.modules.__all__) <= set(nn.__all__)


def _documented():
    objects = []
    for family in MODULE_FAMILIES:
        objects += [(f"genesis.nn.{n}", getattr(family, n)) for n in family.__all__]
    for module in (nn.init, nn.utils):
        objects += [(f"{module.__name__}.{n}", getattr(module, n)) for n in module.__all__]
    objects += [
        ("genesis.nn.Parameter", nn.Parameter),
        ("genesis.nn", nn),
        ("genesis.nn.init", nn.init),
    ]
    return objects


DOCUMENTED = _documented()


@pytest.mark.parametrize("qualname, obj", DOCUMENTED, ids=[q for q, _ in DOCUMENTED])
def test_docstring_examples_run(qualname, obj):
    doc = inspect.getdoc(obj) or ""
    assert len(doc.split()) >= 4, f"{qualname} has no docstring"
    test = doctest.DocTestParser().get_doctest(
        doc, {"genesis": genesis, "np": np}, qualname, None, 0
    )
    runner = doctest.DocTestRunner()
    report = []
    runner.run(test, out=report.append)
    assert not runner.failures, "".join(report)
