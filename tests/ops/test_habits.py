"""PyTorch's keyword habits (axis=, keepdims=, size=, out=), clean errors when no signature
matches (Note [Call habits]), format() of tensors, and Tensor.resize_ (Note [Resizing]).

Each call runs on genesis and on PyTorch (CPU) with the same code: `call(lib, x)` gets the
module (genesis or torch) and a tensor of that library.
"""

import inspect
import re
import warnings

import numpy as np
import pytest
import torch
from conftest import DEVICES, check_message, to_numpy

import genesis

DATA = np.arange(1.0, 25.0).reshape(2, 3, 4) % 7 - 2.5


def tensors(lib, device="cpu", data=DATA):
    if lib is torch:
        return torch.tensor(data)
    return genesis.tensor(data, device=device)


def as_numpy(r):
    if isinstance(r, torch.Tensor):
        return r.numpy()
    if isinstance(r, genesis.Tensor):
        return to_numpy(r)
    if isinstance(r, (tuple, list)):
        return [as_numpy(v) for v in r]
    return r


def same(got, want):
    got, want = as_numpy(got), as_numpy(want)
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if isinstance(want, np.ndarray):
        assert got.shape == want.shape, (got.shape, want.shape)
        assert str(got.dtype) == str(want.dtype), (got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    else:
        assert got == want


# (id, call): each must work on both libraries and give the same result.
ALIASES = [
    ("sum axis", lambda m, x: m.sum(x, axis=1)),
    ("sum axis keepdims", lambda m, x: m.sum(x, axis=(0, 2), keepdims=True)),
    ("Tensor.sum axis", lambda m, x: x.sum(axis=0)),
    ("sum dim keepdims", lambda m, x: x.sum(1, keepdims=True)),
    ("mean", lambda m, x: x.mean(axis=-1, keepdims=True)),
    ("prod", lambda m, x: m.prod(x, axis=2)),
    ("std", lambda m, x: x.std(axis=1, keepdims=True)),
    ("var", lambda m, x: m.var(x, axis=0)),
    ("amax", lambda m, x: x.amax(axis=1, keepdims=True)),
    ("amin", lambda m, x: m.amin(x, axis=(1, 2))),
    ("max", lambda m, x: tuple(m.max(x, axis=1, keepdims=True))),
    ("min", lambda m, x: tuple(x.min(axis=2))),
    ("argmax", lambda m, x: x.argmax(axis=1)),
    ("argmin", lambda m, x: m.argmin(x, axis=2, keepdims=True)),
    ("any", lambda m, x: (x > 3).any(axis=1)),
    ("all", lambda m, x: m.all(x > -3, axis=0, keepdims=True)),
    ("logsumexp", lambda m, x: m.logsumexp(x, axis=1, keepdims=True)),
    ("nansum", lambda m, x: x.nansum(axis=1)),
    ("nanmean", lambda m, x: m.nanmean(x, axis=0, keepdims=True)),
    ("count_nonzero", lambda m, x: m.count_nonzero(x, axis=1)),
    ("median", lambda m, x: tuple(x.median(axis=1, keepdims=True))),
    ("mode", lambda m, x: tuple(m.mode(x, axis=0))),
    ("aminmax", lambda m, x: tuple(x.aminmax(axis=1, keepdims=True))),
    ("var_mean", lambda m, x: m.var_mean(x, axis=1, keepdims=True)),
    ("std_mean", lambda m, x: m.std_mean(x, axis=2)),
    ("cumsum", lambda m, x: x.cumsum(axis=1)),
    ("cumprod", lambda m, x: m.cumprod(x, axis=2)),
    ("cummax", lambda m, x: tuple(m.cummax(x, axis=1))),
    ("logcumsumexp", lambda m, x: x.logcumsumexp(axis=0)),
    ("softmax", lambda m, x: m.softmax(x, axis=1)),
    ("log_softmax", lambda m, x: x.log_softmax(axis=-1)),
    ("sort", lambda m, x: tuple(x.sort(axis=1))),
    ("argsort", lambda m, x: m.argsort(x, axis=0, stable=True)),
    ("topk", lambda m, x: tuple(x.topk(2, axis=1))),
    ("kthvalue", lambda m, x: tuple(m.kthvalue(x, 2, axis=2, keepdims=True))),
    ("squeeze", lambda m, x: x[:1].squeeze(axis=0)),
    ("unsqueeze", lambda m, x: m.unsqueeze(x, axis=1)),
    ("cat", lambda m, x: m.cat([x, x], axis=1)),
    ("stack", lambda m, x: m.stack([x, x], axis=2)),
    ("unbind", lambda m, x: m.unbind(x, axis=1)),
    ("diff", lambda m, x: x.diff(axis=2)),
    ("gather", lambda m, x: m.gather(x, index=x.abs().long() % 2, axis=1)),
    ("index_select", lambda m, x: x.index_select(axis=2, index=m.tensor([0, 3]))),
    ("chunk", lambda m, x: x.chunk(2, axis=2)),
    ("narrow", lambda m, x: m.narrow(x, axis=2, start=1, length=2)),
    ("select", lambda m, x: x.select(axis=1, index=2)),
    ("size", lambda m, x: x.size(axis=2)),
    ("linalg.vector_norm", lambda m, x: m.linalg.vector_norm(x, axis=1, keepdims=True)),
    ("linalg.cross", lambda m, x: m.linalg.cross(x[..., :3], x[..., 1:], axis=2)),
    ("sum x", lambda m, x: m.sum(x=x)),
    ("sum a axis", lambda m, x: m.sum(a=x, axis=1)),
    ("exp x", lambda m, x: m.exp(x=x)),
    ("add x1 x2", lambda m, x: m.add(x1=x, x2=x)),
    ("mul x1 other", lambda m, x: m.mul(x1=x, other=2.0)),
    ("Tensor.add x2", lambda m, x: x.add(x2=x)),
    ("maximum x1 x2", lambda m, x: m.maximum(x1=x, x2=-x)),
    ("where x other", lambda m, x: m.where(x > 0, x=x, other=-x)),
    ("clamp a", lambda m, x: m.clamp(a=x, min=-1.0)),
    ("zeros size", lambda m, x: m.zeros(size=(2, 3))),
    ("zeros size dtype", lambda m, x: m.zeros(size=[2], dtype=m.int32)),
    ("ones size", lambda m, x: m.ones(size=(2, 1))),
    ("empty size", lambda m, x: m.empty(size=(0, 3))),
    ("full size fill_value", lambda m, x: m.full(size=(2, 3), fill_value=1.5)),
    ("rand size", lambda m, x: m.rand(size=(2, 3)).shape),
    ("randn size", lambda m, x: m.randn(size=(4,)).shape),
    ("randint size", lambda m, x: m.randint(0, 5, size=(2, 3)).shape),
    ("randint high size", lambda m, x: m.randint(5, size=(3,)).shape),
    ("new_zeros size", lambda m, x: x.new_zeros(size=(2,))),
    ("new_ones size", lambda m, x: x.new_ones(size=(1, 2))),
    ("new_empty size", lambda m, x: x.new_empty(size=(3,)).shape),
    ("new_full size", lambda m, x: x.new_full(size=(2,), fill_value=3)),
    ("view size", lambda m, x: x.view(size=(6, 4))),
    ("reshape shape", lambda m, x: x.reshape(shape=(4, 6))),
    ("expand size", lambda m, x: x[:1].expand(size=(3, 3, 4))),
    ("permute dims", lambda m, x: x.permute(dims=(2, 0, 1))),
    ("repeat repeats", lambda m, x: x.repeat(repeats=(1, 2, 1))),
    ("tile dims", lambda m, x: x.tile(dims=(2,))),
    ("flip dims", lambda m, x: x.flip(dims=(0, 2))),
    ("resize_ size", lambda m, x: x.clone().resize_(size=(4, 6))),
]


@pytest.mark.parametrize("call", [c for _, c in ALIASES], ids=[i for i, _ in ALIASES])
def test_alias_matches_torch(call):
    same(call(genesis, tensors(genesis)), call(torch, tensors(torch)))


@pytest.mark.parametrize("device", DEVICES)
def test_alias_on_device(device):
    x = tensors(genesis, device)
    same(x.sum(axis=1, keepdims=True).cpu(), tensors(torch).sum(1, keepdim=True))
    z = genesis.zeros(size=(2, 3), device=device)
    assert z.device.type == device and z.shape == (2, 3)


# PyTorch refuses these (its Python-level functions take no aliases, and a name can't be
# given twice): genesis refuses them too, with an "[op]" TypeError.
REFUSED = [
    ("norm axis", lambda m, x: m.norm(x, axis=1)),
    ("Tensor.norm keepdims", lambda m, x: x.norm(dim=1, keepdims=True)),
    ("split axis", lambda m, x: m.split(x, 1, axis=0)),
    ("Tensor.split axis", lambda m, x: x.split(1, axis=0)),
    ("unique axis", lambda m, x: m.unique(x, axis=0)),
    ("unique_consecutive axis", lambda m, x: x.unique_consecutive(axis=0)),
    ("Tensor.unflatten axis", lambda m, x: x.unflatten(axis=2, sizes=(2, 2))),
    ("dim and axis", lambda m, x: x.sum(dim=0, axis=0)),
    ("positional dim and axis", lambda m, x: m.sum(x, 0, axis=0)),
    ("flip axis", lambda m, x: x.flip(axis=(0,))),
    ("view shape", lambda m, x: x.view(shape=(24,))),
    ("zeros positional and size", lambda m, x: m.zeros(2, size=(2,))),
    ("zeros_like size", lambda m, x: m.zeros_like(x, size=(2,))),
    ("transpose axis0", lambda m, x: x.transpose(axis0=0, axis1=1)),
]


@pytest.mark.parametrize("call", [c for _, c in REFUSED], ids=[i for i, _ in REFUSED])
def test_refused_as_torch(call):
    with pytest.raises(TypeError):
        call(torch, tensors(torch))
    with pytest.raises(TypeError) as e:
        call(genesis, tensors(genesis))
    check_message(e)
    assert "Invoked with" not in str(e.value)


def test_error_message_says_what_and_how():
    with pytest.raises(TypeError) as e:
        genesis.arange(6.0).sum(bogus_kw=1)
    msg = str(e.value)
    assert msg.startswith("[sum] unexpected keyword argument 'bogus_kw'"), msg
    assert "accepted: sum(" in msg and "keepdim" in msg, msg
    with pytest.raises(TypeError) as e:
        genesis.zeros((2, 3), dtype=genesis.float32, device="cpu", size=4)
    check_message(e, "zeros")
    with pytest.raises(TypeError) as e:
        genesis.add(genesis.ones(2), "a")
    check_message(e, "add")


def _public_callables():
    seen = set()
    for mod, names in (
        (genesis, genesis.__all__),
        (genesis.linalg, genesis.linalg.__all__),
        (genesis.nn.functional, dir(genesis.nn.functional)),
        (genesis.cuda, dir(genesis.cuda)),
    ):
        for name in names:
            f = getattr(mod, name, None)
            if name.startswith("_") or not callable(f) or inspect.isclass(f) or id(f) in seen:
                continue
            seen.add(id(f))
            yield f"{mod.__name__}.{name}", f


def _bound(f):
    """Bound by pybind11 (not written in Python)."""
    return type(f).__name__ == "builtin_function_or_method"


FUNCTIONS = list(_public_callables())
METHODS = sorted(
    n for n in dir(genesis.Tensor) if not n.startswith("_") and callable(getattr(genesis.Tensor, n))
)


def _check_clean(call, bound=True):
    try:
        call()
    except TypeError as e:
        msg = str(e)
        assert "Invoked with" not in msg and "incompatible function arguments" not in msg, msg
        return msg
    except Exception as e:  # a value or runtime error of the op: not the dump either
        assert "Invoked with" not in str(e), str(e)
        return None
    if bound:  # some Python functions take **kwargs (printoptions): not ours to judge
        pytest.fail("a bogus keyword was accepted")
    return None


@pytest.mark.parametrize("name,f", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_bogus_keyword_functions(name, f):
    x = genesis.arange(6.0).reshape(2, 3)
    for args in ((), (x,), (x, x)):
        msg = _check_clean(lambda a=args: f(*a, bogus_kw=1), _bound(f))
        if _bound(f) and msg is not None:
            assert msg.startswith("["), msg


@pytest.mark.parametrize("name", METHODS)
def test_bogus_keyword_methods(name):
    x = genesis.arange(6.0).reshape(2, 3)
    for args in ((), (0,), (x,)):
        msg = _check_clean(lambda a=args: getattr(x, name)(*a, bogus_kw=1))
        if _bound(getattr(genesis.Tensor, name)) and msg is not None:
            assert msg.startswith("["), msg


@pytest.mark.parametrize("name,f", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_wrong_argument_types_never_dump(name, f):
    if not _bound(f):
        pytest.skip("written in Python (set_printoptions would take these)")
    for args in ((object(),), (object(), object(), object())):
        try:
            f(*args)
        except Exception as e:
            assert "Invoked with" not in str(e) and "incompatible function" not in str(e), str(e)


def test_other_classes_and_properties():
    g = genesis.Generator()
    for call in [
        lambda: g.manual_seed(1, bogus_kw=1),
        lambda: g.manual_seed("a"),
        lambda: genesis.device("cpu", bogus_kw=1),
        lambda: genesis.float32.to_real(bogus_kw=1),
        lambda: genesis.Generator(bogus_kw=1),
    ]:
        try:
            call()
        except Exception as e:
            assert "Invoked with" not in str(e) and "incompatible" not in str(e), str(e)
    with pytest.raises(TypeError) as e:
        genesis.Generator(bogus_kw=1)  # constructors are named after their class
    check_message(e, "Generator")


def test_bound_functions_keep_their_docs():
    # The habits wrap pybind11's entry point; docstrings and signatures don't change.
    assert genesis.sum.__doc__.startswith("sum(input: genesis._C.Tensor"), genesis.sum.__doc__
    assert "Overloaded function" not in genesis.zeros.__doc__
    assert "(*args, **kwargs)" not in genesis.Tensor.sum.__doc__.splitlines()[0]


# format() and f-strings ------------------------------------------------------------------


@pytest.mark.parametrize("lib", [genesis, torch], ids=["genesis", "torch"])
def test_format(lib):
    assert format(lib.tensor(2.0 / 3), ".3f") == "0.667"
    assert f"{lib.tensor(7):>4}" == "   7"
    t = lib.tensor([1.0, 2.0])
    assert format(t) == format(t, "") == str(t)
    with pytest.raises(TypeError):
        format(t, ".3f")  # PyTorch: "unsupported format string passed to Tensor.__format__"
    with pytest.raises(TypeError):
        f"{lib.tensor([[1]]):d}"


def test_format_error_names_op():
    with pytest.raises(TypeError) as e:
        format(genesis.tensor([1.0]), ".2f")
    check_message(e, "format")


# out= --------------------------------------------------------------------------------------

UNARY_OUT = (
    "abs absolute acos arccos asin arcsin atan arctan asinh arcsinh atanh arctanh ceil cos cosh "
    "digamma "
    "erf erfc erfinv exp exp2 expm1 fix floor frac lgamma log log10 log1p log2 neg negative "
    "reciprocal round rsqrt sgn sigmoid sign sin sinh sqrt square tanh trunc isneginf isposinf "
    "logical_not nan_to_num msort"
).split()
BINARY_OUT = (
    "add sub subtract mul multiply div divide true_divide pow atan2 arctan2 maximum minimum "
    "remainder fmod copysign hypot heaviside eq ne lt le gt ge logical_and logical_or "
    "greater greater_equal less less_equal not_equal "
    "logical_xor floor_divide"
).split()
INT_BINARY_OUT = "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift".split()
DIM_OUT = (
    "sum mean prod std var amax amin max min argmax argmin all any logsumexp nansum nanmean "
    "median nanmedian mode cumsum cumprod logcumsumexp cummax cummin softmax log_softmax sort "
    "diff"
).split()


def _u(m):  # values in (0.1, 0.9): every unary function is defined there
    return m.tensor(np.linspace(0.1, 0.9, 12).reshape(3, 4))


def _v(m):
    return m.tensor(np.linspace(-2.0, 3.0, 12).reshape(3, 4))


def _i(m):
    return m.tensor(np.arange(12).reshape(3, 4) % 5)


def _spd(m):  # symmetric positive definite, 3 x 3
    a = np.linspace(-1.0, 1.0, 9).reshape(3, 3)
    return m.tensor(a @ a.T + 3.0 * np.eye(3))


OUT_CALLS = (
    [(n, lambda m, n=n, **o: getattr(m, n)(_u(m), **o)) for n in UNARY_OUT]
    + [(n, lambda m, n=n, **o: getattr(m, n)(_v(m), _u(m) + 1, **o)) for n in BINARY_OUT]
    + [(n, lambda m, n=n, **o: getattr(m, n)(_i(m), _i(m) % 3, **o)) for n in INT_BINARY_OUT]
    + [(n, lambda m, n=n, **o: getattr(m, n)(_v(m), 1, **o)) for n in DIM_OUT]
    + [
        ("bitwise_not", lambda m, **o: m.bitwise_not(_i(m), **o)),
        ("acosh", lambda m, **o: m.acosh(_u(m) + 1, **o)),
        ("arccosh", lambda m, **o: m.arccosh(_u(m) + 1, **o)),
        ("div floor", lambda m, **o: m.div(_v(m), 0.7, rounding_mode="floor", **o)),
        ("round decimals", lambda m, **o: m.round(_v(m) / 3, decimals=2, **o)),
        ("add alpha", lambda m, **o: m.add(_v(m), _u(m), alpha=2, **o)),
        ("max full", lambda m, **o: m.max(_v(m), **o)),
        ("amax dims keepdim", lambda m, **o: m.amax(_v(m), (0, 1), keepdim=True, **o)),
        ("sum axis", lambda m, **o: m.sum(_v(m), axis=0, **o)),
        ("mean full", lambda m, **o: m.mean(_v(m), **o)),
        ("std full", lambda m, **o: m.std(_v(m), **o)),
        ("all full", lambda m, **o: m.all(_v(m), **o)),
        ("kthvalue", lambda m, **o: m.kthvalue(_v(m), 2, 1, **o)),
        ("topk", lambda m, **o: m.topk(_v(m), 2, **o)),
        ("aminmax", lambda m, **o: m.aminmax(_v(m), dim=0, **o)),
        ("polygamma", lambda m, **o: m.polygamma(2, _u(m) + 0.5, **o)),
        ("norm", lambda m, **o: m.norm(_v(m), dim=1, **o)),
        ("linalg.vector_norm", lambda m, **o: m.linalg.vector_norm(_v(m), dim=1, **o)),
        ("linalg.matrix_norm", lambda m, **o: m.linalg.matrix_norm(_v(m), **o)),
        ("linalg.cross", lambda m, **o: m.linalg.cross(_v(m)[:, :3], _u(m)[:, :3], **o)),
        ("cross", lambda m, **o: m.cross(_v(m)[:, :3], _u(m)[:, :3], dim=1, **o)),
        ("matmul", lambda m, **o: m.matmul(_v(m), _u(m).T, **o)),
        ("mm", lambda m, **o: m.mm(_v(m), _u(m).T, **o)),
        ("bmm", lambda m, **o: m.bmm(_v(m)[None], _u(m).T[None], **o)),
        ("mv", lambda m, **o: m.mv(_v(m), _u(m)[0], **o)),
        ("dot", lambda m, **o: m.dot(_v(m)[0], _u(m)[0], **o)),
        ("vdot", lambda m, **o: m.vdot(_v(m)[0], _u(m)[0], **o)),
        ("inner", lambda m, **o: m.inner(_v(m), _u(m), **o)),
        ("outer", lambda m, **o: m.outer(_v(m)[0], _u(m)[1], **o)),
        ("kron", lambda m, **o: m.kron(_v(m), _u(m), **o)),
        ("tensordot", lambda m, **o: m.tensordot(_v(m), _u(m).T, dims=1, **o)),
        ("addmm", lambda m, **o: m.addmm(_u(m)[:, :3], _v(m), _u(m).T[:, :3], **o)),
        ("addmv", lambda m, **o: m.addmv(_u(m)[0, :3], _v(m), _u(m)[0], **o)),
        ("addbmm", lambda m, **o: m.addbmm(_u(m)[:3, :3], _v(m)[None], _u(m).T[None], **o)),
        ("baddbmm", lambda m, **o: m.baddbmm(_u(m)[None, :, :3], _v(m)[None], _u(m).T[None], **o)),
        ("addcmul", lambda m, **o: m.addcmul(_v(m), _u(m), _v(m), value=0.5, **o)),
        ("addcdiv", lambda m, **o: m.addcdiv(_v(m), _u(m), _u(m) + 1, **o)),
        ("lerp", lambda m, **o: m.lerp(_v(m), _u(m), 0.25, **o)),
        ("cat", lambda m, **o: m.cat([_v(m), _u(m)], 1, **o)),
        ("concat", lambda m, **o: m.concat([_v(m), _u(m)], **o)),
        ("concatenate", lambda m, **o: m.concatenate([_v(m), _u(m)], axis=1, **o)),
        ("stack", lambda m, **o: m.stack([_v(m), _u(m)], **o)),
        ("hstack", lambda m, **o: m.hstack([_v(m), _u(m)], **o)),
        ("vstack", lambda m, **o: m.vstack([_v(m), _u(m)], **o)),
        ("dstack", lambda m, **o: m.dstack([_v(m), _u(m)], **o)),
        ("column_stack", lambda m, **o: m.column_stack([_v(m), _u(m)], **o)),
        ("where", lambda m, **o: m.where(_v(m) > 0, _v(m), _u(m), **o)),
        ("clamp", lambda m, **o: m.clamp(_v(m), -1, 1, **o)),
        ("clip", lambda m, **o: m.clip(_v(m), max=1, **o)),
        ("clamp_min", lambda m, **o: m.clamp_min(_v(m), 0.5, **o)),
        ("clamp_max", lambda m, **o: m.clamp_max(_v(m), 0.5, **o)),
        ("tril", lambda m, **o: m.tril(_v(m), **o)),
        ("triu", lambda m, **o: m.triu(_v(m), 1, **o)),
        ("diag", lambda m, **o: m.diag(_v(m), **o)),
        ("gather", lambda m, **o: m.gather(_v(m), 1, _i(m) % 4, **o)),
        ("index_select", lambda m, **o: m.index_select(_v(m), 1, m.tensor([3, 0]), **o)),
        ("masked_select", lambda m, **o: m.masked_select(_v(m), _v(m) > 0, **o)),
        ("take", lambda m, **o: m.take(_v(m), m.tensor([0, 5, 11]), **o)),
        ("take_along_dim", lambda m, **o: m.take_along_dim(_v(m), _i(m) % 3, 0, **o)),
        ("searchsorted", lambda m, **o: m.searchsorted(m.tensor([0.0, 1.0]), _v(m), **o)),
        ("bucketize", lambda m, **o: m.bucketize(_v(m), m.tensor([0.0, 1.0]), **o)),
        ("nonzero", lambda m, **o: m.nonzero(_i(m), **o)),
        ("quantile", lambda m, **o: m.quantile(_v(m), 0.3, dim=1, **o)),
        ("nanquantile", lambda m, **o: m.nanquantile(_v(m), 0.3, **o)),
        ("scatter", lambda m, **o: m.scatter(_v(m), 1, _i(m) % 4, _u(m), **o)),
        ("scatter_add", lambda m, **o: m.scatter_add(_v(m), 0, _i(m) % 3, _u(m), **o)),
        ("zeros", lambda m, **o: m.zeros(2, 3, **o)),
        ("ones", lambda m, **o: m.ones((2, 3), **o)),
        ("full", lambda m, **o: m.full((2, 3), 7, **o)),
        ("arange", lambda m, **o: m.arange(1, 7, 2, **o)),
        ("linspace", lambda m, **o: m.linspace(0, 1, 5, **o)),
        ("eye", lambda m, **o: m.eye(3, **o)),
        ("empty", lambda m, **o: m.empty(2, 3, **o)),
        ("rand", lambda m, **o: m.rand(2, 3, **o)),
        ("randn", lambda m, **o: m.randn(4, **o)),
        ("randint", lambda m, **o: m.randint(0, 5, (4,), **o)),
        ("randperm", lambda m, **o: m.randperm(5, **o)),
        ("normal", lambda m, **o: m.normal(_u(m), 1.0, **o)),
        ("multinomial", lambda m, **o: m.multinomial(_u(m), 2, **o)),
        ("linalg.cholesky", lambda m, **o: m.linalg.cholesky(_spd(m), **o)),
        ("linalg.det", lambda m, **o: m.linalg.det(_spd(m), **o)),
        ("linalg.inv", lambda m, **o: m.linalg.inv(_spd(m), **o)),
        ("linalg.solve", lambda m, **o: m.linalg.solve(_spd(m), _v(m), **o)),
        ("linalg.slogdet", lambda m, **o: m.linalg.slogdet(_spd(m), **o)),
        ("linalg.eigh", lambda m, **o: m.linalg.eigh(_spd(m), **o)),
        ("linalg.eigvalsh", lambda m, **o: m.linalg.eigvalsh(_spd(m), **o)),
        ("linalg.qr", lambda m, **o: m.linalg.qr(_v(m).T, **o)),
        ("linalg.svd", lambda m, **o: m.linalg.svd(_v(m), full_matrices=False, **o)),
        ("linalg.svdvals", lambda m, **o: m.linalg.svdvals(_v(m), **o)),
        ("histc", lambda m, **o: m.histc(_v(m), bins=4, **o)),
        ("index_add", lambda m, **o: m.index_add(_v(m), 1, m.tensor([0, 2]), _u(m)[:, :2], **o)),
        (
            "index_reduce",
            lambda m, **o: m.index_reduce(_v(m), 1, m.tensor([0, 2]), _u(m)[:, :2], "prod", **o),
        ),
        (
            "scatter_reduce",
            lambda m, **o: m.scatter_reduce(_v(m), 1, _i(m) % 4, _u(m), "sum", **o),
        ),
    ]
)


def _empty_like_result(lib, r):
    if isinstance(r, tuple):
        return tuple(_empty_like_result(lib, v) for v in r)
    dtype = getattr(lib, str(r.dtype).split(".")[1])
    return lib.empty(0, dtype=dtype)


RANDOM = {"empty", "rand", "randn", "randint", "randperm", "normal", "multinomial"}
# Decompositions whose vectors are unique only up to sign: shape and dtype, as for RANDOM.
SIGN_FREE = {"linalg.eigh", "linalg.qr", "linalg.svd"}


def same_or_alike(got, want, random):
    if random and isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same_or_alike(g, w, random)
        return
    if random:  # values differ from PyTorch's: shape and dtype only
        assert tuple(got.shape) == tuple(want.shape)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    else:
        same(got, want)


@pytest.mark.parametrize("name,call", OUT_CALLS, ids=[n for n, _ in OUT_CALLS])
def test_out_matches_torch(name, call):
    random = name in RANDOM or name in SIGN_FREE
    want = call(torch)
    got = call(genesis)
    same_or_alike(got, want, random)
    if not isinstance(want, (torch.Tensor, tuple)):
        return
    t_out = _empty_like_result(torch, want)
    g_out = _empty_like_result(genesis, got)
    if name == "normal":  # PyTorch's normal does not resize an empty out
        t_out = torch.empty(want.shape, dtype=want.dtype)
    same_or_alike(call(torch, out=t_out), want, random)
    r = call(genesis, out=g_out)
    same_or_alike(r, want, random)
    same_or_alike(g_out, want, random)
    if isinstance(g_out, tuple):
        assert all(a is b for a, b in zip(r, g_out))
    else:
        assert r is g_out


def test_out_list_is_checked_against_torch():
    # The op table's out= forms (genesis/_op_table.py) are the functions that take out=; each
    # has a row in OUT_CALLS, which runs it on PyTorch with out= too.
    from genesis._op_table import OPS

    listed = {r.name for r in OPS if "out" in r.forms}
    tested = {n.split()[0].split(".")[-1] for n, _ in OUT_CALLS}
    assert listed <= tested, sorted(listed - tested)
    for n in ["add", "exp", "sum", "matmul", "cat", "where", "clamp", "max", "argmax", "norm"]:
        assert n in listed


# Functions PyTorch gives no out= refuse it.
NO_OUT = [
    ("flatten", lambda m, **o: m.flatten(_v(m), **o)),
    ("sum full", lambda m, **o: m.sum(_v(m), **o)),
    ("prod full", lambda m, **o: m.prod(_v(m), **o)),
    ("median full", lambda m, **o: m.median(_v(m), **o)),
    ("argsort", lambda m, **o: m.argsort(_v(m), **o)),
    ("isnan", lambda m, **o: m.isnan(_v(m), **o)),
    ("repeat_interleave", lambda m, **o: m.repeat_interleave(_v(m), 2, **o)),
    ("zeros_like", lambda m, **o: m.zeros_like(_v(m), **o)),
    ("unsqueeze", lambda m, **o: m.unsqueeze(_v(m), 0, **o)),
    ("count_nonzero", lambda m, **o: m.count_nonzero(_v(m), **o)),
]


@pytest.mark.parametrize("call", [c for _, c in NO_OUT], ids=[n for n, _ in NO_OUT])
def test_no_out_where_torch_has_none(call):
    with pytest.raises(TypeError):
        call(torch, out=torch.empty(0))
    with pytest.raises(TypeError) as e:
        call(genesis, out=genesis.empty(0))
    check_message(e)
    assert "out" in str(e.value)


def test_habits_format_no_argument(monkeypatch):
    """A keyword that no overload takes (out= of mm, axis=) goes to the habits at once: no
    failed call first, whose message would hold every argument's repr (a pass over each
    tensor's values, a copy to the host for a CUDA tensor)."""

    def no_repr(self):
        raise AssertionError("repr was called")

    monkeypatch.setattr(genesis.Tensor, "__repr__", no_repr)
    a, out = genesis.randn(3, 3), genesis.empty(3, 3)
    assert genesis.mm(a, a, out=out) is out
    assert genesis.equal(out, a @ a)
    assert genesis.equal(genesis.sum(a, axis=0), a.sum(0))
    with pytest.raises(TypeError, match=r"^\[mm\] unexpected keyword argument 'bogus'"):
        genesis.mm(a, a, bogus=1)


def test_out_rules():
    x = genesis.tensor([[1.5, -2.0], [3.0, 4.0]])
    # dtype: castable under the in-place rule, as PyTorch
    o = genesis.empty(0, dtype=genesis.float64)
    assert genesis.exp(x, out=o) is o and o.dtype is genesis.float64
    with pytest.raises(RuntimeError) as e:
        genesis.exp(x, out=genesis.empty(0, dtype=genesis.int64))
    check_message(e, "exp")
    with pytest.raises(TypeError) as e:
        genesis.sum(x, 0, out=[1, 2])
    check_message(e, "sum")
    with pytest.raises(TypeError) as e:
        genesis.max(x, 0, out=genesis.empty(0))
    check_message(e, "max")
    # a factory takes out's dtype, as PyTorch
    o = genesis.empty(0, dtype=genesis.int16)
    assert genesis.arange(3, out=o).dtype is genesis.int16
    assert genesis.zeros(2, out=genesis.empty(0, dtype=genesis.int32)).dtype is genesis.int32
    # overlapping out is safe: the inputs are read first
    y = x.clone()
    genesis.matmul(y, y, out=y)
    same(y, torch.tensor([[1.5, -2.0], [3.0, 4.0]]) @ torch.tensor([[1.5, -2.0], [3.0, 4.0]]))


@pytest.mark.parametrize("device", DEVICES)
def test_out_resizes_as_torch(device):
    x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    o = genesis.empty(0, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out resizes silently
        genesis.add(x, 1, out=o)
    assert o.shape == (2, 2)
    o = genesis.zeros(3, device=device)
    with pytest.warns(UserWarning, match=re.escape("was resized since it had shape (3,)")):
        genesis.exp(x, out=o)
    assert o.shape == (2, 2) and o.is_contiguous()
    same(o.cpu(), torch.exp(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
    # the older issue-15 out= functions resize too
    o = genesis.empty(0, dtype=genesis.bool, device=device)
    genesis.logical_not(x, out=o)
    assert o.shape == (2, 2)
    # a refused out is left as it was
    o = genesis.zeros(3, dtype=genesis.int64, device=device)
    with pytest.raises(RuntimeError):
        genesis.exp(x, out=o)
    assert o.shape == (3,)


def test_out_on_another_device():
    if not genesis.cuda.is_available():
        pytest.skip("no CUDA device available")
    with pytest.raises(RuntimeError) as e:
        genesis.add(genesis.ones(2), 1, out=genesis.empty(0, device="cuda"))
    check_message(e, "add")


# resize_ ------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_resize_keeps_data_prefix(device):
    g = genesis.arange(6.0, device=device)
    t = torch.arange(6.0)
    for sizes in [(2, 3), (3,), (0,), (2, 2), (4, 2), (1, 1, 7), ()]:
        assert g.resize_(*sizes) is g
        t.resize_(sizes)  # (t.numpy() would make PyTorch refuse to grow it: copies below)
        assert g.shape == tuple(t.shape) and g.stride() == t.stride()
        n = min(t.numel(), 6)  # the prefix both kept (the rest is uninitialized)
        got = to_numpy(g.clone())  # a copy: g's own storage is not shared with NumPy
        np.testing.assert_array_equal(got.reshape(-1)[:n], t.clone().numpy().reshape(-1)[:n])


def test_resize_forms_and_layouts():
    x = genesis.arange(12).reshape(3, 4).T  # non-contiguous: restrided at its offset
    x.resize_((2, 3))
    assert x.is_contiguous() and x.tolist() == [[0, 1, 2], [3, 4, 5]]
    y = genesis.arange(10)[2:6]  # a view resized within its storage keeps its offset
    y.resize_([2, 2])
    assert y.storage_offset() == 2 and y.tolist() == [[2, 3], [4, 5]]
    z = genesis.zeros(2)
    z.resize_(size=(3, 1))
    assert z.shape == (3, 1)


def test_resize_refusals():
    base = genesis.arange(4.0)
    view = base[1:]
    with pytest.raises(RuntimeError) as e:
        view.resize_(10)  # PyTorch moves the shared storage; genesis never moves memory
    check_message(e, "resize_")
    assert view.shape == (3,)
    with pytest.raises(RuntimeError) as e:
        genesis.from_numpy(np.zeros(3)).resize_(10)  # PyTorch: "not resizable"
    check_message(e, "resize_")
    with pytest.raises(ValueError) as e:
        genesis.zeros(2).resize_(-1)
    check_message(e, "resize_")
    with pytest.raises(TypeError) as e:
        genesis.zeros(2).resize_(2.5)
    check_message(e, "resize_")
    # shrinking and regrowing within the storage is fine even while views exist
    view.resize_(2)
    view.resize_(3)
    assert view.tolist() == [1.0, 2.0, 3.0]
