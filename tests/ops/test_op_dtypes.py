"""Every op-table row's dtypes= and devices= (genesis/_op_table.py) are what the op does: each
dtype of the row's class (of cuda_dtypes= on CUDA) runs, and each other dtype raises a clean
TypeError or RuntimeError whose message starts with a bracketed tag ("[op] ..."). A row on a
device outside its devices= raises the same way for every dtype.

SAMPLES holds one small call for each row (function form, or the method for method-only rows),
keyed by Op.qualified_name: a new op adds one, or test_every_row_has_a_sample fails. A sample
takes `make`, which makes tensors of the dtype and on the device under test.
"""

import math
import re

import pytest

import genesis
from genesis._op_table import DTYPE_CLASSES, OPS, op

_linalg = genesis.linalg
_nn = genesis._C._nn
ALL = DTYPE_CLASSES["all"]


class Make:
    """make(shape, values): a tensor of the dtype and device under test holding `values` cycled
    (default 1, 0, 2: a zero for bool, nothing negative); index(...) and mask(...) make the
    int64 indices and bool masks an op takes beside its data, on the same device."""

    def __init__(self, dtype, device):
        self.dtype, self.device = dtype, device

    def __call__(self, shape=(2, 3), values=(1, 0, 2)):
        n = math.prod(shape)
        flat = [values[i % len(values)] for i in range(n)]
        return genesis.tensor(flat, dtype=self.dtype, device=self.device).reshape(shape)

    def index(self, values, shape=None):
        t = genesis.tensor(values, dtype=genesis.int64, device=self.device)
        return t if shape is None else t.reshape(shape)

    def mask(self, values=(True, False, True, False, True, False), shape=(2, 3)):
        return genesis.tensor(list(values), device=self.device).reshape(shape)


def _unary(name):
    return lambda m: getattr(genesis, name)(m())


def _binary(name):
    return lambda m: getattr(genesis, name)(m(), m())


def _divide(name):  # a divisor without zeros: integer division by zero is another matter
    return lambda m: getattr(genesis, name)(m(), m(values=(1, 2, 3)))


# backward, register_hook and retain_grad need a tensor that requires grad: floats only (the
# refusal of the others is requires_grad_'s).
def _needs_grad(m, shape=(2, 3)):
    return m(shape).requires_grad_()


def _to_cuda(m):
    if not genesis.cuda.is_available():
        pytest.skip("Tensor.cuda needs a CUDA device")
    return m().cuda()


def _pin_memory(m):
    if not genesis.cuda.is_available():
        pytest.skip("Tensor.pin_memory needs a CUDA device")
    return m().pin_memory()


def _record_stream(m):
    x = m()
    stream = genesis.cuda.current_stream() if x.is_cuda else None
    return x.record_stream(stream)


_PD = (2, 1, 1, 2)  # a positive definite 2 x 2 matrix
_ELEMENTWISE_UNARY = (
    "abs absolute acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh "
    "bitwise_not ceil cos cosh digamma erf erfc erfinv exp exp2 expm1 fix floor frac lgamma log "
    "log10 log1p log2 neg negative reciprocal relu rsqrt sgn sigmoid sign sin sinh sqrt square "
    "tanh trunc"
).split()
_ELEMENTWISE_BINARY = (
    "add arctan2 atan2 bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor "
    "copysign eq ge greater greater_equal gt heaviside hypot le less less_equal logical_and "
    "logical_or logical_xor lt maximum minimum mul multiply ne not_equal pow sub subtract"
).split()
_DIVISIONS = "div divide floor_divide fmod remainder true_divide".split()

# fmt: off
SAMPLES = {
    **{name: _unary(name) for name in _ELEMENTWISE_UNARY},
    **{name: _binary(name) for name in _ELEMENTWISE_BINARY},
    **{name: _divide(name) for name in _DIVISIONS},
    "addbmm": lambda m: genesis.addbmm(m((2, 2)), m((3, 2, 2)), m((3, 2, 2))),
    "addcdiv": lambda m: genesis.addcdiv(m(), m(), m()),
    # deviation: bool is taken (add and mul of bools: or, and); PyTorch has no bool kernel
    "addcmul": lambda m: genesis.addcmul(m(), m(), m()),
    "addmm": lambda m: genesis.addmm(m((2, 2)), m((2, 2)), m((2, 2))),
    "addmv": lambda m: genesis.addmv(m((2,)), m((2, 2)), m((2,))),
    "all": lambda m: genesis.all(m()),
    "allclose": lambda m: genesis.allclose(m(), m()),
    "amax": lambda m: genesis.amax(m(), 0),
    "amin": lambda m: genesis.amin(m(), 0),
    "aminmax": lambda m: genesis.aminmax(m()),
    "any": lambda m: genesis.any(m()),
    # deviation: argmax and argmin take bool; PyTorch raises "does not support bool input"
    "argmax": lambda m: genesis.argmax(m()),
    "argmin": lambda m: genesis.argmin(m()),
    "argsort": lambda m: genesis.argsort(m()),
    "argwhere": lambda m: genesis.argwhere(m()),
    "as_tensor": lambda m: genesis.as_tensor(m()),
    "asarray": lambda m: genesis.asarray(m()),
    "atleast_1d": lambda m: genesis.atleast_1d(m(())),
    "atleast_2d": lambda m: genesis.atleast_2d(m(())),
    "atleast_3d": lambda m: genesis.atleast_3d(m(())),
    "backward": lambda m: _needs_grad(m, ()).backward(),
    "baddbmm": lambda m: genesis.baddbmm(m((3, 2, 2)), m((3, 2, 2)), m((3, 2, 2))),
    "bernoulli": lambda m: genesis.bernoulli(m(values=(1, 0))),
    "bfloat16": lambda m: m().bfloat16(),
    "bincount": lambda m: genesis.bincount(m((4,))),
    "bmm": lambda m: genesis.bmm(m((2, 2, 2)), m((2, 2, 2))),
    "bool": lambda m: m().bool(),
    "broadcast_tensors": lambda m: genesis.broadcast_tensors(m(), m((1, 3))),
    "broadcast_to": lambda m: genesis.broadcast_to(m((1, 3)), (2, 3)),
    # deviation: bucketize and searchsorted take bool; PyTorch has no bool kernel
    "bucketize": lambda m: genesis.bucketize(m(), m((3,), values=(0, 1, 2))),
    "byte": lambda m: m().byte(),
    "cat": lambda m: genesis.cat([m(), m()]),
    "cauchy_": lambda m: m().cauchy_(),
    # float16 and bfloat16 run, as on PyTorch's CUDA (its CPU cdist refuses them)
    "cdist": lambda m: genesis.cdist(m(), m()),
    "char": lambda m: m().char(),
    "chunk": lambda m: genesis.chunk(m(), 2),
    "clamp": lambda m: genesis.clamp(m(), 0, 1),
    "clamp_max": lambda m: genesis.clamp_max(m(), 1),
    "clamp_min": lambda m: genesis.clamp_min(m(), 1),
    "clip": lambda m: genesis.clip(m(), 0, 1),
    "clone": lambda m: m().clone(),
    "column_stack": lambda m: genesis.column_stack([m((2,)), m((2,))]),
    "concat": lambda m: genesis.concat([m(), m()]),
    "concatenate": lambda m: genesis.concatenate([m(), m()]),
    "contiguous": lambda m: m().t().contiguous(),
    "copy_": lambda m: m().copy_(m()),
    "count_nonzero": lambda m: genesis.count_nonzero(m()),
    "cpu": lambda m: m().cpu(),
    "cross": lambda m: genesis.cross(m(), m(), dim=1),
    "cuda": _to_cuda,
    "cummax": lambda m: genesis.cummax(m(), 0),
    "cummin": lambda m: genesis.cummin(m(), 0),
    "cumprod": lambda m: genesis.cumprod(m(), 0),
    "cumsum": lambda m: genesis.cumsum(m(), 0),
    "data_ptr": lambda m: m().data_ptr(),
    "detach": lambda m: m().detach(),
    "diag": lambda m: genesis.diag(m((3,))),
    "diag_embed": lambda m: genesis.diag_embed(m()),
    "diagonal": lambda m: genesis.diagonal(m((2, 2))),
    "diff": lambda m: genesis.diff(m()),
    "dim": lambda m: m().dim(),
    "dot": lambda m: genesis.dot(m((3,)), m((3,))),
    "double": lambda m: m().double(),
    "dstack": lambda m: genesis.dstack([m(), m()]),
    "einsum": lambda m: genesis.einsum("ij,jk->ik", m((2, 2)), m((2, 2))),
    "element_size": lambda m: m().element_size(),
    "empty_like": lambda m: genesis.empty_like(m()),
    "equal": lambda m: genesis.equal(m(), m()),
    "expand": lambda m: m((1, 3)).expand(2, 3),
    "expand_as": lambda m: m((1, 3)).expand_as(m()),
    "expand_copy": lambda m: genesis.expand_copy(m((1, 3)), (2, 3)),
    "exponential_": lambda m: m().exponential_(),
    "fill_": lambda m: m().fill_(1),
    "flatten": lambda m: genesis.flatten(m()),
    "flip": lambda m: genesis.flip(m(), [0]),
    "fliplr": lambda m: genesis.fliplr(m()),
    "flipud": lambda m: genesis.flipud(m()),
    "float": lambda m: m().float(),
    "from_dlpack": lambda m: genesis.from_dlpack(m()),
    "full_like": lambda m: genesis.full_like(m(), 1),
    "gather": lambda m: genesis.gather(m(), 1, m.index([0, 2, 1, 0], (2, 2))),
    # deviation: bool is taken and always filled with True (every draw is >= 1);
    # PyTorch raises for bool
    "geometric_": lambda m: m().geometric_(0.5),
    "half": lambda m: m().half(),
    "histc": lambda m: genesis.histc(m(), bins=3),
    "histogram": lambda m: genesis.histogram(m(), bins=3),
    "hstack": lambda m: genesis.hstack([m(), m()]),
    "index_add": lambda m: genesis.index_add(m(), 0, m.index([1]), m((1, 3))),
    "index_copy": lambda m: genesis.index_copy(m(), 0, m.index([1]), m((1, 3))),
    "index_fill": lambda m: genesis.index_fill(m(), 0, m.index([1]), 1),
    "index_put": lambda m: genesis.index_put(m(), (m.index([1]),), m((3,))),
    "index_reduce": lambda m: genesis.index_reduce(m(), 0, m.index([1]), m((1, 3)), "prod"),
    "index_select": lambda m: genesis.index_select(m(), 0, m.index([1])),
    "inner": lambda m: genesis.inner(m(), m()),
    "int": lambda m: m().int(),
    "is_contiguous": lambda m: m().is_contiguous(),
    "is_floating_point": lambda m: genesis.is_floating_point(m()),
    "is_nonzero": lambda m: genesis.is_nonzero(m((1,))),
    "is_pinned": lambda m: m().is_pinned(),
    "is_shared": lambda m: m().is_shared(),
    "isclose": lambda m: genesis.isclose(m(), m()),
    "isfinite": lambda m: genesis.isfinite(m()),
    "isinf": lambda m: genesis.isinf(m()),
    "isnan": lambda m: genesis.isnan(m()),
    "isneginf": lambda m: genesis.isneginf(m()),
    "isposinf": lambda m: genesis.isposinf(m()),
    "item": lambda m: m((1,)).item(),
    "kron": lambda m: genesis.kron(m((2, 2)), m((2, 2))),
    # deviation: kthvalue, median, nanmedian and topk take bool; PyTorch's CPU kernels
    # raise for it
    "kthvalue": lambda m: genesis.kthvalue(m(), 1),
    "lerp": lambda m: genesis.lerp(m(), m(), 0.5),
    "log_normal_": lambda m: m().log_normal_(),
    "log_softmax": lambda m: genesis.log_softmax(m(), 0),
    "logcumsumexp": lambda m: genesis.logcumsumexp(m(), 0),
    "logical_not": lambda m: genesis.logical_not(m()),
    "logsumexp": lambda m: genesis.logsumexp(m(), 0),
    "long": lambda m: m().long(),
    "masked_fill": lambda m: genesis.masked_fill(m(), m.mask(), 1),
    "masked_scatter": lambda m: genesis.masked_scatter(m(), m.mask(), m()),
    "masked_select": lambda m: genesis.masked_select(m(), m.mask()),
    "matmul": lambda m: genesis.matmul(m((2, 2)), m((2, 2))),
    "max": lambda m: genesis.max(m()),
    "mean": lambda m: genesis.mean(m()),
    "median": lambda m: genesis.median(m()),
    "meshgrid": lambda m: genesis.meshgrid(m((2,)), m((3,)), indexing="ij"),
    "min": lambda m: genesis.min(m()),
    "mm": lambda m: genesis.mm(m((2, 2)), m((2, 2))),
    "mode": lambda m: genesis.mode(m()),
    "moveaxis": lambda m: genesis.moveaxis(m(), 0, 1),
    "movedim": lambda m: genesis.movedim(m(), 0, 1),
    "msort": lambda m: genesis.msort(m()),
    "multinomial": lambda m: genesis.multinomial(m((3,)), 1),
    "mv": lambda m: genesis.mv(m((2, 2)), m((2,))),
    "nan_to_num": lambda m: genesis.nan_to_num(m()),
    "nanmean": lambda m: genesis.nanmean(m()),
    "nanmedian": lambda m: genesis.nanmedian(m()),
    "nanquantile": lambda m: genesis.nanquantile(m(), 0.5),
    "nansum": lambda m: genesis.nansum(m()),
    "narrow": lambda m: genesis.narrow(m(), 0, 0, 1),
    "new_empty": lambda m: m().new_empty((2,)),
    "new_full": lambda m: m().new_full((2,), 1),
    "new_ones": lambda m: m().new_ones((2,)),
    "new_tensor": lambda m: m().new_tensor([1, 0]),
    "new_zeros": lambda m: m().new_zeros((2,)),
    "nonzero": lambda m: genesis.nonzero(m()),
    "norm": lambda m: genesis.norm(m()),
    # deviation: integer and bool means and stds are taken and give float32 draws;
    # PyTorch raises ("normal_kernel_cpu" not implemented)
    "normal": lambda m: genesis.normal(m(), m()),
    "numel": lambda m: genesis.numel(m()),
    "numpy": lambda m: m().numpy(),
    "ones_like": lambda m: genesis.ones_like(m()),
    "outer": lambda m: genesis.outer(m((2,)), m((3,))),
    "permute": lambda m: genesis.permute(m(), (1, 0)),
    "pin_memory": _pin_memory,
    "poisson": lambda m: genesis.poisson(m()),
    "polygamma": lambda m: genesis.polygamma(1, m()),
    "prod": lambda m: genesis.prod(m()),
    "put": lambda m: genesis.put(m(), m.index([1]), m((1,))),
    "quantile": lambda m: genesis.quantile(m(), 0.5),
    "rand_like": lambda m: genesis.rand_like(m()),
    # deviation: bool is refused; PyTorch fills a bool tensor with 0 and 1
    "randint_like": lambda m: genesis.randint_like(m(), 2),
    "randn_like": lambda m: genesis.randn_like(m()),
    "random_": lambda m: m().random_(),
    "record_stream": _record_stream,
    "register_hook": lambda m: _needs_grad(m).register_hook(lambda g: g),
    "register_post_accumulate_grad_hook": lambda m: (
        _needs_grad(m).register_post_accumulate_grad_hook(lambda t: None)
    ),
    "repeat": lambda m: m().repeat(2, 1),
    "repeat_interleave": lambda m: genesis.repeat_interleave(m(), 2),
    "requires_grad_": lambda m: m().requires_grad_(),
    "reshape": lambda m: genesis.reshape(m(), (3, 2)),
    "reshape_as": lambda m: m().reshape_as(m((3, 2))),
    "resize_": lambda m: m().resize_(3, 2),
    "result_type": lambda m: genesis.result_type(m(), m()),
    "retain_grad": lambda m: (_needs_grad(m) * 1).retain_grad(),
    "roll": lambda m: genesis.roll(m(), 1),
    "rot90": lambda m: genesis.rot90(m()),
    "round": lambda m: genesis.round(m()),
    "scatter": lambda m: genesis.scatter(m(), 1, m.index([0, 2, 1, 0], (2, 2)), m((2, 2))),
    "scatter_add": lambda m: genesis.scatter_add(m(), 1, m.index([0, 2, 1, 0], (2, 2)), m((2, 2))),
    "scatter_reduce": lambda m: genesis.scatter_reduce(
        m(), 1, m.index([0, 2, 1, 0], (2, 2)), m((2, 2)), "sum"
    ),
    "searchsorted": lambda m: genesis.searchsorted(m((3,), values=(0, 1, 2)), m()),
    "select": lambda m: genesis.select(m(), 0, 0),
    "set_rng_state": lambda m: genesis.set_rng_state(
        genesis.get_rng_state().to(device=m.device, dtype=m.dtype)
    ),
    "share_memory_": lambda m: m().share_memory_(),
    "short": lambda m: m().short(),
    "size": lambda m: m().size(),
    "softmax": lambda m: genesis.softmax(m(), 0),
    "sort": lambda m: genesis.sort(m()),
    "split": lambda m: genesis.split(m(), 1),
    "squeeze": lambda m: genesis.squeeze(m((1, 3))),
    "stack": lambda m: genesis.stack([m(), m()]),
    "std": lambda m: genesis.std(m()),
    "std_mean": lambda m: genesis.std_mean(m()),
    "storage_offset": lambda m: m().storage_offset(),
    "stride": lambda m: m().stride(),
    "sum": lambda m: genesis.sum(m()),
    "swapaxes": lambda m: genesis.swapaxes(m(), 0, 1),
    "swapdims": lambda m: genesis.swapdims(m(), 0, 1),
    "t": lambda m: genesis.t(m()),
    "take": lambda m: genesis.take(m(), m.index([1])),
    "take_along_dim": lambda m: genesis.take_along_dim(m(), m.index([0, 2, 1, 0], (2, 2)), 1),
    "tensor": lambda m: genesis.tensor(m()),
    "tensor_split": lambda m: genesis.tensor_split(m(), 2),
    "tensordot": lambda m: genesis.tensordot(m(), m((3, 2)), 1),
    "tile": lambda m: genesis.tile(m(), (2,)),
    "to": lambda m: m().to(genesis.float64),
    "tolist": lambda m: m().tolist(),
    "topk": lambda m: genesis.topk(m(), 1),
    "transpose": lambda m: genesis.transpose(m(), 0, 1),
    "tril": lambda m: genesis.tril(m()),
    "triu": lambda m: genesis.triu(m()),
    "type": lambda m: m().type(genesis.float64),
    "type_as": lambda m: m().type_as(m()),
    "unbind": lambda m: genesis.unbind(m()),
    "unflatten": lambda m: genesis.unflatten(m((6,)), 0, (2, 3)),
    "unfold": lambda m: m((6,)).unfold(0, 2, 1),
    "uniform_": lambda m: m().uniform_(),
    "unique": lambda m: genesis.unique(m()),
    "unique_consecutive": lambda m: genesis.unique_consecutive(m()),
    "unsqueeze": lambda m: genesis.unsqueeze(m(), 0),
    "untyped_storage": lambda m: m().untyped_storage(),
    "var": lambda m: genesis.var(m()),
    "var_mean": lambda m: genesis.var_mean(m()),
    "vdot": lambda m: genesis.vdot(m((3,)), m((3,))),
    "view": lambda m: m().view(3, 2),
    "view_as": lambda m: m().view_as(m((3, 2))),
    "vstack": lambda m: genesis.vstack([m(), m()]),
    "where": lambda m: genesis.where(m.mask(), m(), m()),
    "zero_": lambda m: m().zero_(),
    "zeros_like": lambda m: genesis.zeros_like(m()),
    "linalg.cholesky": lambda m: _linalg.cholesky(m((2, 2), _PD)),
    "linalg.cross": lambda m: _linalg.cross(m(), m()),
    "linalg.det": lambda m: _linalg.det(m((2, 2), _PD)),
    "linalg.eigh": lambda m: _linalg.eigh(m((2, 2), _PD)),
    "linalg.eigvalsh": lambda m: _linalg.eigvalsh(m((2, 2), _PD)),
    "linalg.inv": lambda m: _linalg.inv(m((2, 2), _PD)),
    "linalg.matrix_norm": lambda m: _linalg.matrix_norm(m()),
    "linalg.norm": lambda m: _linalg.norm(m()),
    "linalg.qr": lambda m: _linalg.qr(m((2, 2), _PD)),
    "linalg.slogdet": lambda m: _linalg.slogdet(m((2, 2), _PD)),
    "linalg.solve": lambda m: _linalg.solve(m((2, 2), _PD), m((2,))),
    "linalg.svd": lambda m: _linalg.svd(m((2, 2), _PD)),
    "linalg.svdvals": lambda m: _linalg.svdvals(m((2, 2), _PD)),
    "linalg.vector_norm": lambda m: _linalg.vector_norm(m()),
    "nn.functional.elu": lambda m: _nn.elu(m()),
    "nn.functional.gelu": lambda m: _nn.gelu(m()),
    # uint8 needs bounds of its range (the default min_val=-1 is refused for it, as PyTorch's)
    "nn.functional.hardtanh": lambda m: _nn.hardtanh(m(), 0.0, 1.0),
    "nn.functional.leaky_relu": lambda m: _nn.leaky_relu(m()),
    "nn.functional.mish": lambda m: _nn.mish(m()),
    "nn.functional.relu": lambda m: _nn.relu(m()),
    "nn.functional.silu": lambda m: _nn.silu(m()),
    "nn.functional.softplus": lambda m: _nn.softplus(m()),
}
# fmt: on
# "[op] message" (Note [Error messages]); the tag may name the op's building block ("[matmul]").
_CLEAN_MESSAGE = re.compile(r"^\[[\w.]+\] ")


def run_dtypes(row, device):
    """(dtype names that ran, {dtype name: the error} for the others)."""
    sample = SAMPLES[row.qualified_name]
    ran, errors = [], {}
    for name in ALL:
        try:
            sample(Make(getattr(genesis, name), device))
        except (TypeError, RuntimeError, ValueError) as e:
            errors[name] = e
            continue
        ran.append(name)
    return tuple(ran), errors


ROWS = {r.qualified_name: r for r in OPS}
CHECKED = [r for r in OPS if r.dtypes != "none"]
# Ops whose refusal of a device is a ValueError, as their docstrings say: set_rng_state takes "a
# uint8 CPU tensor", so a CUDA state is a wrong value (its dtype is checked first: TypeError).
VALUE_ERRORS = {"set_rng_state"}


def test_every_row_states_dtypes_and_devices():
    for r in OPS:
        assert r.dtypes in DTYPE_CLASSES and r.cuda_dtypes in DTYPE_CLASSES, r.qualified_name
        assert set(DTYPE_CLASSES[r.cuda_dtypes]) <= set(DTYPE_CLASSES[r.dtypes]), r.qualified_name
        assert r.devices and r.devices <= {"cpu", "cuda"}, r.qualified_name
    with pytest.raises(ValueError, match="states no dtypes"):
        op("x", "math", "function")
    with pytest.raises(ValueError, match="states no dtypes"):
        op("x", "math", "function", dtypes="floats")
    with pytest.raises(ValueError, match="unknown word"):
        op("x", "math", "function", dtypes="all", devices="cpu tpu")
    with pytest.raises(ValueError, match="within its dtypes"):
        op("x", "math", "function", dtypes="float", cuda_dtypes="all")
    assert op("x", "math", "function", dtypes="numeric").cuda_dtypes == "numeric"


def test_every_row_has_a_sample():
    assert [r.qualified_name for r in CHECKED if r.qualified_name not in SAMPLES] == []
    stale = sorted(set(SAMPLES) - {r.qualified_name for r in CHECKED})
    assert stale == [], "samples of no row, or of a row whose dtypes are 'none'"


@pytest.mark.parametrize("row", CHECKED, ids=lambda r: r.qualified_name)
def test_the_stated_dtypes_run_and_the_others_are_refused(row, device):
    if row.qualified_name not in SAMPLES:
        pytest.fail(f"{row.qualified_name}: no sample; add one to SAMPLES")
    ran, errors = run_dtypes(row, device)
    if device not in row.devices:
        stated = ()
    else:
        stated = DTYPE_CLASSES[row.cuda_dtypes if device == "cuda" else row.dtypes]
    assert ran == stated, f"ran: {ran}, stated: {stated}; errors: {errors}"
    for name, e in errors.items():
        assert _CLEAN_MESSAGE.match(str(e)), f"{name}: {type(e).__name__}: {e}"
        if isinstance(e, ValueError):
            assert row.name in VALUE_ERRORS, f"{name}: a ValueError: {e}"
