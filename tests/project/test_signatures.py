"""Docstrings live in genesis/_docs (Python), and every public callable has a signature
(Note [Docstrings in Python] in csrc/python/docstrings.cpp)."""

import inspect
import pathlib
import pydoc
import types

import pytest

import genesis
from genesis import _docs

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Classes without a signature, as in CPython and PyTorch: exception classes (inspect finds none
# for ValueError either) and classes that cannot be constructed (their pybind11 constructor
# raises "No constructor defined"; tensors, storages and dtypes come from factories).
NOT_CONSTRUCTIBLE = {"IndexPlan", "UntypedStorage", "dtype"}
SUBMODULES = ("linalg", "cuda", "autograd", "testing", "cpu", "memory_manager", "serialization")


def public_callables():
    for name in genesis.__all__:
        yield f"genesis.{name}", getattr(genesis, name)
    for name, raw in vars(genesis.Tensor).items():
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        if isinstance(raw, property) or not callable(getattr(genesis.Tensor, name)):
            continue
        yield f"Tensor.{name}", getattr(genesis.Tensor, name)
    for module_name in SUBMODULES:
        module = getattr(genesis, module_name)
        names = getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")])
        for name in names:
            value = getattr(module, name, None)
            if value is not None and not isinstance(value, types.ModuleType):
                yield f"genesis.{module_name}.{name}", value


def has_signature_by_rule(name, obj):
    if isinstance(obj, type) and issubclass(obj, BaseException):
        return False
    return not (isinstance(obj, type) and obj.__name__ in NOT_CONSTRUCTIBLE)


CALLABLES = [(n, o) for n, o in public_callables() if callable(o) and has_signature_by_rule(n, o)]


def test_there_are_many_callables():
    assert len(CALLABLES) > 800


@pytest.mark.parametrize("name,obj", CALLABLES, ids=[n for n, _ in CALLABLES])
def test_inspect_signature_works(name, obj):
    inspect.signature(obj)


def test_signatures_carry_names_kinds_and_defaults():
    add = inspect.signature(genesis.add).parameters
    assert list(add) == ["input", "other", "alpha", "out"]
    assert add["alpha"].kind is inspect.Parameter.KEYWORD_ONLY and add["alpha"].default is None
    assert list(inspect.signature(genesis.Tensor.add).parameters) == ["self", "other", "alpha"]
    # A bound method drops self, as for Python methods.
    assert list(inspect.signature(genesis.ones(1).add).parameters) == ["other", "alpha"]
    assert str(inspect.signature(genesis.max)) == "(input, dim=None, keepdim=False)"
    sum_params = inspect.signature(genesis.zeros).parameters
    assert sum_params["device"].default is None
    assert inspect.signature(genesis.zeros).bind(2, 3, dtype=genesis.int64)
    # Overloads take anything; the class's signature is its constructor's, less self.
    assert str(inspect.signature(genesis.Tensor.size)) == "(self, *args, **kwargs)"
    assert list(inspect.signature(genesis.Generator).parameters) == ["device"]


def test_docstrings_come_from_python():
    # The texts are in genesis/_docs, not in the C++ bindings (an edit recompiles nothing).
    for path in (ROOT / "csrc" / "python").glob("*.cpp"):
        assert 'R"doc(' not in path.read_text(), f"{path.name} compiles a docstring in"
    docs = _docs.all_docs()
    assert docs["add"] is docs["Tensor.add"]
    assert genesis.add.__doc__.startswith("add(input: object, other: object, *, alpha")
    assert docs["add"] in genesis.add.__doc__
    assert docs["Tensor.shape"] == genesis.Tensor.shape.__doc__
    assert genesis.Tensor.__doc__ == docs["Tensor"]
    # help() shows the text signature and the text.
    rendered = pydoc.render_doc(genesis.add, renderer=pydoc.plaintext)
    assert "add(input, other, *, alpha=None, out=None)" in rendered
    assert "Adds ``other``, scaled by ``alpha``" in rendered


def test_shared_fragments_are_used():
    from genesis._docs import _fragments

    assert _fragments.OUT_CAST in genesis.log1p.__doc__
    assert _fragments.RETURNS_SELF in genesis.Tensor.add_.__doc__


def test_overload_texts_follow_their_signatures():
    doc = genesis.device.__init__.__doc__
    text_first = doc.index("1. __init__(self: genesis._C.device, type: str) -> None\n\nMakes a")
    assert text_first < doc.index("2. __init__") < doc.index("Makes a copy of another device.")
    size_doc = genesis.Tensor.size.__doc__
    assert size_doc.index("2. size(") < size_doc.index("Returns the shape of the tensor")


def test_plain_c_methods_are_documented_too():
    replay = genesis._C._cuda._CUDAGraph.replay
    assert replay.__doc__.startswith("replay(self: genesis._C._cuda._CUDAGraph) -> None\n\nRuns")
    assert list(inspect.signature(replay).parameters) == ["self"]


def test_enum_texts_list_their_members():
    doc = genesis.IndexKind.__doc__
    assert doc.startswith("How an indexing operation runs")
    assert "  VIEW : x[basic key]: a view, no copy." in doc


def test_install_again_changes_nothing_and_an_edit_shows(monkeypatch):
    before = genesis.add.__doc__, genesis.Tensor.__doc__, genesis.IndexKind.__doc__
    _docs.install(genesis._C)
    assert (genesis.add.__doc__, genesis.Tensor.__doc__, genesis.IndexKind.__doc__) == before
    edited = dict(_docs.math.DOCS)
    key = next(k for k in edited if "add" in k.split())
    edited[key] = "Edited text."
    monkeypatch.setattr(_docs.math, "DOCS", edited)
    try:
        _docs.install(genesis._C)
        assert genesis.add.__doc__.endswith("\n\nEdited text.\n")
        assert inspect.signature(genesis.add)  # still parsed
    finally:
        monkeypatch.undo()
        _docs.install(genesis._C)
    assert genesis.add.__doc__ == before[0]


def test_a_wrong_path_or_a_twice_documented_object_fails(monkeypatch):
    monkeypatch.setattr(_docs.resize, "DOCS", {"Tensor.no_such_method": "text"})
    with pytest.raises(RuntimeError, match="no object for Tensor.no_such_method"):
        _docs.install(genesis._C)
    monkeypatch.setattr(_docs.resize, "DOCS", {"add": "text"})
    with pytest.raises(RuntimeError, match="add is documented twice"):
        _docs.install(genesis._C)
