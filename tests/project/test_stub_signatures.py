"""tools/stubgen reads only pybind11's signature lines, so docstrings can grow prose freely."""

import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"
if not (TOOLS / "stubgen").is_dir():
    pytest.skip("tools/ is not next to this tests/ directory", allow_module_level=True)
sys.path.insert(0, str(TOOLS))

from stubgen.signatures import Param, parse, signatures  # noqa: E402


def test_one_signature_with_and_without_prose():
    line = "add(self: genesis._C.Tensor, other: object, *, alpha: object = None) -> Tensor"
    bare = signatures("add", line + "\n")
    prose = signatures("add", line + "\n\nAdds other (times alpha).\n\nadd(x) -> y is not one.\n")
    assert bare == prose
    (sig,) = bare
    assert [p.name for p in sig.params] == ["self", "other", "*", "alpha"]
    assert sig.params[3] == Param("alpha", "object", "None")
    assert sig.returns == "Tensor"


def test_overloads_with_prose():
    doc = (
        "size(*args, **kwargs)\nOverloaded function.\n\n"
        "1. size(self: genesis._C.Tensor) -> tuple\n\nThe shape.\n\n"
        "2. size(self: genesis._C.Tensor, dim: typing.SupportsInt) -> int\n\n"
        "The size of dimension dim:\n\n    size(1) -> 3 for a (2, 3) tensor\n"
    )
    one, two = signatures("size", doc)
    assert one.returns == "tuple" and two.returns == "int"
    assert two.params[1] == Param("dim", "typing.SupportsInt")


def test_brackets_quotes_and_defaults_do_not_split_parameters():
    sig = parse("(a: dict[str, tuple[int, int]], b: str = 'x, y=(z', *args, **kwargs) -> None")
    assert sig.params == (
        Param("a", "dict[str, tuple[int, int]]"),
        Param("b", "str", "'x, y=(z'"),
        Param("*args"),
        Param("**kwargs"),
    )


def test_a_docstring_without_a_signature_is_an_error():
    with pytest.raises(ValueError, match="no pybind11 signature"):
        signatures("f", "Just prose.")
    with pytest.raises(ValueError, match="no pybind11 signature"):
        signatures("f", None)


# ---- The overrides (tools/stubgen/overrides.py) against the run time ----------------------------
# overrides.py says what pybind11's signature lines can't: results the C++ returns as objects,
# parameters it converts itself, keywords the call habits add. These tests hold it to the run time.

import ast  # noqa: E402
import importlib  # noqa: E402
import re  # noqa: E402

import numpy as np  # noqa: E402
from conftest import HAS_CUDA  # noqa: E402
from stubgen import overrides  # noqa: E402
from stubgen.emit import _with_keywords  # noqa: E402

import genesis  # noqa: E402

ROOT = TOOLS.parent
STUBS = ROOT / "genesis" / "_C"


def resolve(key):
    """The object `key` ("genesis._C.name" or "genesis._C.Class.name") names, or a KeyError."""
    parts = key.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attr in parts[split:]:
            if attr not in vars(obj):
                raise KeyError(key)
            obj = vars(obj)[attr]
        return obj
    raise KeyError(key)


def test_overrides_name_bound_members():
    keys = {*overrides.RETURNS, *overrides.SIGNATURES, *overrides.PARAMETER_TYPES}
    keys |= {*overrides.ANY, *overrides.IGNORES, *overrides.REQUIRES_GRAD}
    stale = []
    for key in sorted(keys):
        try:
            resolve(key)
        except KeyError:
            stale.append(key)
    assert stale == []
    # The names only the stubs have must not hide (or pretend to be) bound ones.
    for key in [*overrides.ALIASES, *overrides.NAMED_TUPLES]:
        module, _, name = key.rpartition(".")
        assert name not in vars(importlib.import_module(module)), key


def stub_defs():
    """{"genesis._C.name" or "genesis._C.Class.name": [ast.FunctionDef, ...]} of the stubs."""
    defs = {}
    for path in sorted(STUBS.glob("*.pyi")):
        module = "genesis._C" if path.stem == "__init__" else f"genesis._C.{path.stem}"

        def walk(body, prefix):
            for node in body:
                if isinstance(node, ast.FunctionDef):
                    defs.setdefault(f"{prefix}.{node.name}", []).append(node)
                elif isinstance(node, ast.ClassDef):
                    walk(node.body, f"{prefix}.{node.name}")

        walk(ast.parse(path.read_text(encoding="utf-8")).body, module)
    return defs


def test_every_any_result_is_listed_with_its_reason():
    # A binding that returns py::object is stubbed `typing.Any` until overrides.py says what it
    # returns; the few that stay Any on purpose are in overrides.ANY.
    anys = sorted(
        key
        for key, nodes in stub_defs().items()
        for node in nodes
        if node.returns is not None and ast.unparse(node.returns) == "typing.Any"
    )
    assert anys == sorted(overrides.ANY)


def test_keywords_are_added_keyword_only():
    sig = parse("(input: genesis._C.Tensor, dim: int = 0) -> genesis._C.Tensor")
    got = _with_keywords("genesis._C.exp", "exp", sig, True)  # exp is in OUT
    assert [p.name for p in got.params] == ["input", "dim", "*", "out"]
    assert got.params[-1] == Param("out", "genesis._C.Tensor | None", "None")
    got = _with_keywords("genesis._C.exp", "exp", parse("(*args, **kwargs) -> object"), True)
    assert [p.name for p in got.params] == ["*args", "out", "**kwargs"]
    assert got.params[1].annotation == "collections.abc.Sequence[genesis._C.Tensor] | None"
    got = _with_keywords("genesis._C.tensor", "tensor", sig, True)  # in REQUIRES_GRAD
    assert got.params[2:] == (Param("*"), Param("requires_grad", "bool", "False"))
    assert _with_keywords("genesis._C.exp", "exp", sig, False) == sig  # a method: no out=


def test_habit_keywords_follow_the_op_table():
    # The habits' lists are generated from the op table (csrc/python/op_table.h).
    from genesis._op_table import OPS

    assert overrides.OUT == {r.name for r in OPS if "out" in r.forms}
    assert overrides.OUT_NEEDS_DIM == {r.name for r in OPS if "out_needs_dim" in r.habits}
    habit = {r.name for r in OPS if r.habits & {"requires_grad", "method_requires_grad"}}
    bound = {n for n in habit if n in vars(genesis._C) or n in vars(genesis.Tensor)}
    declared = {k.rpartition(".")[2] for k in overrides.REQUIRES_GRAD}
    declared |= {
        k.rpartition(".")[2]
        for k, sigs in overrides.SIGNATURES.items()
        if any("requires_grad" in s for s in sigs)
    }
    # randint and randint_like parse their own keywords (py::kwargs) and refuse requires_grad=.
    assert declared == bound - {"randint", "randint_like"}


# Factories and the keywords to try on each: every keyword the stub declares must work at run
# time, and every one it leaves out must be refused.
_G = genesis.Generator
_X = genesis.randn(2, 3)
FACTORIES = {
    "tensor": lambda **k: genesis.tensor([1.0, 2.0], **k),
    "as_tensor": lambda **k: genesis.as_tensor([1.0, 2.0], **k),
    "asarray": lambda **k: genesis.asarray([1.0, 2.0], **k),
    "zeros": lambda **k: genesis.zeros(2, 3, **k),
    "ones": lambda **k: genesis.ones((2, 3), **k),
    "empty": lambda **k: genesis.empty(2, 3, **k),
    "full": lambda **k: genesis.full((2, 3), 1.5, **k),
    "rand": lambda **k: genesis.rand(2, 3, **k),
    "randn": lambda **k: genesis.randn(2, 3, **k),
    "randint": lambda **k: genesis.randint(0, 5, (2, 3), **k),
    "randperm": lambda **k: genesis.randperm(5, **k),
    "arange": lambda **k: genesis.arange(0.0, 6.0, **k),
    "linspace": lambda **k: genesis.linspace(0, 1, 5, **k),
    "eye": lambda **k: genesis.eye(3, **k),
    "normal": lambda **k: genesis.normal(0.0, 1.0, (2,), **k),
    "zeros_like": lambda **k: genesis.zeros_like(_X, **k),
    "ones_like": lambda **k: genesis.ones_like(_X, **k),
    "empty_like": lambda **k: genesis.empty_like(_X, **k),
    "full_like": lambda **k: genesis.full_like(_X, 2.0, **k),
    "rand_like": lambda **k: genesis.rand_like(_X, **k),
    "randn_like": lambda **k: genesis.randn_like(_X, **k),
    "randint_like": lambda **k: genesis.randint_like(_X, 5, **k),
    "tril_indices": lambda **k: genesis.tril_indices(3, 3, **k),
    "triu_indices": lambda **k: genesis.triu_indices(3, 3, **k),
    "Tensor.new_zeros": lambda **k: _X.new_zeros(2, **k),
    "Tensor.new_ones": lambda **k: _X.new_ones((2,), **k),
    "Tensor.new_empty": lambda **k: _X.new_empty(2, **k),
    "Tensor.new_full": lambda **k: _X.new_full((2,), 1.0, **k),
    "Tensor.new_tensor": lambda **k: _X.new_tensor([1.0], **k),
}
INTEGER_RESULTS = {"randint", "randperm", "tril_indices", "triu_indices"}
KEYWORDS = {
    "dtype": lambda n: genesis.int32 if n in INTEGER_RESULTS else genesis.float64,
    "device": lambda n: "cpu",
    "requires_grad": lambda n: False,
    "pin_memory": lambda n: False,
    "generator": lambda n: _G(),
    "out": lambda n: genesis.empty(0, dtype=genesis.int64 if n in INTEGER_RESULTS else None),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factory_keywords_are_the_run_times(name):
    nodes = stub_defs()[f"genesis._C.{name}"]
    params = {a.arg for node in nodes for a in [*node.args.args, *node.args.kwonlyargs]}
    declared = params & set(KEYWORDS)
    for keyword, value in KEYWORDS.items():
        call = FACTORIES[name]
        if keyword in declared:
            assert isinstance(call(**{keyword: value(name)}), genesis.Tensor), keyword
        else:
            with pytest.raises(TypeError):
                call(**{keyword: value(name)})
    assert {"dtype", "device"} <= declared


def test_requires_grad_keyword_makes_a_leaf():
    for name in ["zeros", "full", "rand", "randn", "linspace", "eye", "tensor", "full_like"]:
        t = FACTORIES[name](requires_grad=True)
        assert t.requires_grad and t.is_leaf, name


# Calls of members whose stubbed result overrides.py states: the run time's result must be it.
_Y = genesis.arange(1.0, 13.0).view(3, 4)
_M = genesis.tensor([[2.0, 1.0], [1.0, 3.0]])


def _sgd_buffers():
    """_sgd_step's result: the momentum buffers with the one it made."""
    p = genesis.zeros(2)
    return genesis._C._optim._sgd_step(
        [p], [genesis.ones(2)], [None], 0.1, 0.9, 0.0, 0.0, False, False
    )


RESULTS = {
    "genesis._C.Tensor.dtype": lambda: _Y.dtype,
    "genesis._C._amp._get_dtype": lambda: genesis._C._amp._get_dtype("cpu"),
    "genesis._C.Tensor.device": lambda: _Y.device,
    "genesis._C.Tensor.shape": lambda: _Y.shape,
    "genesis._C.Tensor.size": lambda: _Y.size(),
    "genesis._C.Tensor.stride": lambda: _Y.stride(),
    "genesis._C.Tensor.strides": lambda: _Y.strides,
    "genesis._C.Tensor.grad": lambda: _Y.grad,
    "genesis._C.Tensor.grad_fn": lambda: _Y.grad_fn,
    "genesis._C.Tensor.item": lambda: _Y[0, 0].item(),
    "genesis._C.Tensor.__int__": lambda: int(_Y[0, 0]),
    "genesis._C.Tensor.__array__": lambda: _Y.__array__(),
    "genesis._C._optim._sgd_step": lambda: _sgd_buffers(),
    "genesis._C.Tensor.__iter__": lambda: iter(_Y),
    "genesis._C.Tensor.cuda": (lambda: _Y.cuda()) if HAS_CUDA else None,
    "genesis._C.Tensor.clone": lambda: _Y.clone(memory_format=genesis.preserve_format),
    "genesis._C.Tensor.is_contiguous": lambda: _Y.is_contiguous(
        memory_format=genesis.channels_last
    ),
    "genesis._C.Tensor.pin_memory": (lambda: _Y.pin_memory()) if HAS_CUDA else None,
    "genesis._C.Generator.device": lambda: _G().device,
    "genesis._C.UntypedStorage.device": lambda: _Y.untyped_storage().device,
    "genesis._C.device.index": lambda: genesis.device("cuda", 1).index,
    "genesis._C._Node.variable": lambda: (_leaf() * 2).grad_fn.next_functions[0][0].variable,
    "genesis._C._Node.next_functions": lambda: (_leaf() * 2).grad_fn.next_functions,
    "genesis._C._autograd._record_function": None,  # run by genesis.autograd.Function's tests
    "genesis._C.promote_types": lambda: genesis.promote_types(genesis.int8, genesis.float16),
    "genesis._C.result_type": lambda: genesis.result_type(_Y, 1),
    "genesis._C._dtype_from_name": lambda: genesis._C._dtype_from_name("int8"),
    "genesis._C._get_default_dtype": lambda: genesis._C._get_default_dtype(),
    "genesis._C._get_default_device": lambda: genesis._C._get_default_device(),
    "genesis._C.argwhere": lambda: genesis.argwhere(_Y),
    "genesis._C.as_tensor": lambda: genesis.as_tensor(_Y),
    "genesis._C.asarray": lambda: genesis.asarray(_Y),
    "genesis._C.aminmax": lambda: genesis.aminmax(_Y),
    "genesis._C.Tensor.aminmax": lambda: _Y.aminmax(dim=0),
    "genesis._C.histogram": lambda: genesis.histogram(_Y, 3),
    "genesis._C.Tensor.histogram": lambda: _Y.histogram(3),
    "genesis._C._linalg.eigh": lambda: genesis.linalg.eigh(_M),
    "genesis._C._linalg.qr": lambda: genesis.linalg.qr(_M),
    "genesis._C._linalg.svd": lambda: genesis.linalg.svd(_M),
    "genesis._C._linalg.slogdet": lambda: genesis.linalg.slogdet(_M),
}
for _m in "bfloat16 bool byte char double float half int long short cpu contiguous".split():
    RESULTS[f"genesis._C.Tensor.{_m}"] = lambda m=_m: getattr(_Y, m)()
_ARGS = {"argwhere": (), "histc": (), "logcumsumexp": (1,), "cumsum": (1,), "cumprod": (1,)}
_ARGS.update(quantile=(0.5,), nanquantile=(0.5,), type_as=(_Y,))
for _m, _a in _ARGS.items():
    RESULTS[f"genesis._C.Tensor.{_m}"] = lambda m=_m, a=_a: getattr(_Y, m)(*a)
for _f in "elu hardtanh leaky_relu mish relu silu elu_ hardtanh_ leaky_relu_".split():
    RESULTS[f"genesis._C._nn.{_f}"] = lambda f=_f: getattr(genesis._C._nn, f)(_Y.clone())
for _owner, _base in [("genesis._C.", genesis), ("genesis._C.Tensor.", genesis.Tensor)]:
    for _f, _a in [("split", (1,)), ("tensor_split", (2,)), ("chunk", (2,)), ("unbind", ())]:
        RESULTS[_owner + _f] = lambda f=_f, a=_a, b=_base: getattr(b, f)(_Y, *a)
    for _f, _a in [("cummax", (1,)), ("cummin", (0,)), ("kthvalue", (1, 0)), ("mode", (0,))]:
        RESULTS[_owner + _f] = lambda f=_f, a=_a, b=_base: getattr(b, f)(_Y, *a)
    for _f, _a in [("sort", ()), ("topk", (2,))]:
        RESULTS[_owner + _f] = lambda f=_f, a=_a, b=_base: getattr(b, f)(_Y, *a)


def _leaf():
    return genesis.ones(2, requires_grad=True)


def conforms(value, annotation):
    """Whether `value` is of the stub type `annotation` (the forms overrides.py writes)."""
    if "[" in annotation and annotation.endswith(" | None"):
        return value is None or conforms(value, annotation.removesuffix(" | None"))
    if annotation.startswith("list["):
        return isinstance(value, list) and all(conforms(v, annotation[5:-1]) for v in value)
    kinds = [a.strip() for a in annotation.split(" | ")] if "[" not in annotation else None
    if kinds and len(kinds) > 1:
        return any(conforms(value, k) for k in kinds)
    if annotation == "None":
        return value is None
    if annotation == overrides.TENSORS:
        return isinstance(value, tuple) and all(isinstance(v, genesis.Tensor) for v in value)
    if annotation.startswith("tuple[int, ...]"):
        return isinstance(value, tuple) and all(type(v) is int for v in value)
    if annotation.startswith("collections.abc.Iterator["):
        return all(conforms(v, annotation[len("collections.abc.Iterator[") : -1]) for v in value)
    if annotation.startswith("tuple[tuple["):  # next_functions
        return all(
            isinstance(n, (genesis._C._Node, type(None))) and type(i) is int for n, i in value
        )
    if annotation in overrides.NAMED_TUPLES:
        fields = tuple(f for f, _ in overrides.NAMED_TUPLES[annotation])
        return type(value)._fields == fields and all(isinstance(v, genesis.Tensor) for v in value)
    if annotation == "numpy.ndarray":
        return isinstance(value, np.ndarray)
    if annotation in {"int", "float", "bool", "str"}:
        return type(value).__name__ == annotation
    return isinstance(value, resolve(annotation))


@pytest.mark.parametrize("key", sorted(overrides.RETURNS))
def test_stated_results_are_the_run_times(key):
    assert key in RESULTS, f"add a call of {key} to RESULTS"
    if RESULTS[key] is None:
        return
    value = RESULTS[key]()
    stated = overrides.RETURNS[key]
    if isinstance(stated, dict):
        (stated,) = stated.values()
    assert conforms(value, stated), (key, stated, value)


def _unit():
    return genesis.linspace(0.1, 0.9, 12).view(3, 4)  # where every unary function is defined


def _required(node, method):
    """The names of a stub def's parameters that have no default (self left out)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args][1 if method else 0 :]
    positional = positional[: len(positional) - len(args.defaults)]
    keyword = [a for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    return [a.arg for a in [*positional, *keyword]]


def test_in_place_methods_return_self():
    # The rule: Tensor's in-place methods, which pybind11 types `object`, return a Tensor: self.
    checked = []
    for key, nodes in sorted(stub_defs().items()):
        owner, _, name = key.rpartition(".")
        if owner != overrides.TENSOR or not re.fullmatch(r"[a-z]\w*[a-z0-9]_", name):
            continue
        required = {tuple(_required(n, method=True)) for n in nodes}
        if required not in ({()}, {("other",)}) or name in {"share_memory_"}:
            continue
        t = _unit()
        try:
            result = getattr(t, name)(*[_unit() for _ in next(iter(required))])
        except (TypeError, RuntimeError):
            continue  # not for this dtype (bitwise_not_ of floats)
        assert result is t, name
        checked.append(name)
    assert len(checked) > 60 and {"zero_", "abs_", "add_", "requires_grad_"} <= set(checked)


def test_functions_of_one_tensor_return_tensors_and_write_out():
    # The rule: a function with out= that pybind11 types `object` returns a Tensor, or `out`.
    checked = []
    for key, nodes in sorted(stub_defs().items()):
        module, _, name = key.rpartition(".")
        if module not in overrides.HABIT_MODULES or len(nodes) > 1:
            continue
        (node,) = nodes
        if _required(node, method=False) != ["input"] or ast.unparse(node.returns) != "Tensor":
            continue
        f = vars(importlib.import_module(module))[name]
        try:
            result = f(_unit())
        except (TypeError, RuntimeError):
            continue  # not for floats (bitwise_not)
        assert isinstance(result, genesis.Tensor), key
        if "out" in {a.arg for a in node.args.kwonlyargs}:
            out = genesis.empty(0, dtype=result.dtype)
            assert f(_unit(), out=out) is out, key
        checked.append(name)
    assert len(checked) > 40 and {"exp", "acos", "log1p", "isposinf"} <= set(checked)
