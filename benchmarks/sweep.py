"""Issue 15's speed grid: each everyday operation it names, at both ends of its size range
(2^24 and 2^28 elements on CUDA; 2^24 on the CPU; 2^16 with --quick), in float32 and float16.

Rows: sort, argsort, topk (k = 1, 16, 1024), unique, cumsum, scatter_add_, index_add_, gather
and scatter_ along a dim, index_select, masked_fill, nonzero (bool), einsum of a batched matmul,
norm, logsumexp, and clone() as the copy bandwidth the elementwise and reducing rows are held to.

Note [The sweep's inputs]: at 2^28 elements, NumPy would spend seconds making each input and
tens of seconds computing each reference (a sort of 2^28). So when torch is there, the inputs
are torch's random numbers made on the device, genesis gets a copy of them through DLPack, and
on CUDA torch's result is the reference (each result is still checked, exactly or within the
row's tolerance). NumPy makes the inputs and references only on the CPU or without torch.

Note [NumPy's float16 sort]: NumPy 2.4.6's default np.sort of float16 on the 2-core VM (an
AVX-512 machine) returns values out of order (about 0.07% of 2^24 normals), and np.unique, which
sorts the same way, finds too many values; kind="stable" sorts them right. The CPU references of
sort and unique are therefore the stable sort and unique in float32 (the timed NumPy call stays
NumPy's default).

Goals (full size only): >= 1x torch on CUDA, and for the elementwise and reducing rows (cumsum,
masked_fill, norm, logsumexp) also >= 90% of the bandwidth of clone() at the same size and dtype
in the same run; on the CPU >= 1x NumPy (torch for topk, which NumPy lacks).
"""

from __future__ import annotations

import zlib
from typing import Any, Callable

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry, size_str
from benchmarks.sorting import _goal  # >= 1x torch on CUDA, NumPy (or torch) on the CPU
from benchmarks.timing import FULL, measure

register = Registry()
cases = register.cases

COLS = 1024
COPY_SHARE = 0.9  # the elementwise and reducing rows: >= 90% of clone()'s bandwidth
DTYPES = (np.float32, np.float16)


def _sizes(ctx: Context) -> tuple[int, ...]:
    return ctx.pick((1 << 24,), (1 << 16,), cuda=(1 << 24, 1 << 28))


class _Inputs:
    """Random inputs as a genesis tensor, a torch tensor (None without torch) and a NumPy
    array (None on CUDA when torch is there): the same numbers in each (Note [The sweep's
    inputs])."""

    def __init__(self, ctx: Context, seed: int) -> None:
        self.ctx = ctx
        self.torch = ctx.torch
        self.numpy_side = not ctx.on_cuda or self.torch is None
        if self.torch is not None:
            self.gen = self.torch.Generator(device=ctx.device).manual_seed(seed)
        self.rng = np.random.default_rng(seed)

    def _from_torch(self, t: Any) -> tuple[genesis.Tensor, Any, np.ndarray | None]:
        x = genesis.from_dlpack(t).clone()
        return x, t, (t.numpy() if self.numpy_side else None)

    def _from_numpy(self, a: np.ndarray) -> tuple[genesis.Tensor, Any, np.ndarray]:
        return self.ctx.to_genesis(a), None, a

    def normal(self, shape: tuple[int, ...], dtype: Any):
        if self.torch is not None:
            tdt = getattr(self.torch, np.dtype(dtype).name)
            t = self.torch.randn(shape, generator=self.gen, device=self.ctx.device).to(tdt)
            return self._from_torch(t)
        return self._from_numpy(self.rng.standard_normal(shape, dtype=np.float32).astype(dtype))

    def integers(self, high: int, shape: tuple[int, ...]):
        if self.torch is not None:
            t = self.torch.randint(0, high, shape, generator=self.gen, device=self.ctx.device)
            return self._from_torch(t)
        return self._from_numpy(self.rng.integers(0, high, shape, dtype=np.int64))

    def half_true(self, n: int):
        if self.torch is not None:
            t = self.torch.rand(n, generator=self.gen, device=self.ctx.device) < 0.5
            return self._from_torch(t)
        return self._from_numpy(self.rng.random(n) < 0.5)

    def row_permutations(self, shape: tuple[int, ...]):
        """Each row a permutation of 0..cols-1 (scatter_'s duplicate writes are unspecified)."""
        if self.torch is not None:
            r = self.torch.rand(shape, generator=self.gen, device=self.ctx.device)
            return self._from_torch(r.argsort(dim=1))
        return self._from_numpy(np.argsort(self.rng.random(shape), axis=1))


_copy_seconds_per_byte: dict[tuple[int, str], float] = {}


def _copy_goal(ctx: Context, x: genesis.Tensor, nbytes: int) -> Goal | None:
    """>= 1x torch and >= 90% of clone()'s bandwidth on a tensor like ``x`` (CUDA, full size)."""
    goal = _goal(ctx)
    if goal is None or not ctx.on_cuda:
        return goal
    key = (x.numel(), str(x.dtype))
    if key not in _copy_seconds_per_byte:
        timing = measure(x.clone, genesis.cuda.synchronize, FULL)
        _copy_seconds_per_byte[key] = timing.median / (2 * x.numel() * x.element_size())
    limit = nbytes * _copy_seconds_per_byte[key] / COPY_SHARE
    return Goal(">= 1x torch, 90% copy", max_seconds=limit, min_speedup=1.0, versus="torch")


def _case(
    ctx: Context,
    inputs: _Inputs,
    name: str,
    size: str,
    genesis_fn: Callable[[], Any],
    torch_fn: Callable[[], Any] | None,
    numpy_fn: Callable[[], Any] | None,
    **kwargs: Any,
) -> Case:
    cuda_reference = kwargs.pop("cuda_reference", torch_fn)
    cpu_reference = kwargs.pop("cpu_reference", None)
    fns: dict[str, Callable[[], Any]] = {"genesis": genesis_fn}
    if inputs.numpy_side and numpy_fn is not None:
        fns["numpy"] = numpy_fn
    if inputs.torch is not None and torch_fn is not None:
        fns["torch"] = torch_fn
    # On CUDA the reference is torch's result when torch is there (Note [The sweep's inputs]).
    reference = cuda_reference if ctx.on_cuda and inputs.torch is not None else cpu_reference
    return Case(name, size, fns, reference=reference, **kwargs)


def _tol(dtype: Any, f32: tuple[float, float], f16: tuple[float, float]) -> dict[str, float]:
    rtol, atol = f16 if dtype == np.float16 else f32
    return {"rtol": rtol, "atol": atol}


def _sort(ctx, inp, n, dtype):
    x, t, a = inp.normal((n,), dtype)
    es = x.element_size()
    return _case(
        ctx, inp, "sort", size_str(n, np.dtype(dtype).name),
        lambda: x.sort().values, lambda: t.sort().values, lambda: np.sort(a),
        nbytes=n * (2 * es + 8), goal=_goal(ctx), cpu_reference=lambda: np.sort(a, kind="stable"),
    )  # fmt: skip


def _argsort(ctx, inp, n, dtype):
    x, t, a = inp.normal((n,), dtype)
    return _case(
        ctx, inp, "argsort(stable=True)", size_str(n, np.dtype(dtype).name),
        lambda: x.argsort(stable=True), lambda: t.argsort(stable=True),
        lambda: np.argsort(a, kind="stable"),
        nbytes=n * (x.element_size() + 8), goal=_goal(ctx),
    )  # fmt: skip


def _topk(k: int):
    def build(ctx, inp, n, dtype):
        x, t, a = inp.normal((n,), dtype)
        return _case(
            ctx, inp, f"topk({k})", size_str(n, np.dtype(dtype).name),
            lambda: x.topk(k).values, lambda: t.topk(k).values,
            lambda: np.sort(np.partition(a, a.size - k)[a.size - k :])[::-1],
            nbytes=n * x.element_size(), goal=_goal(ctx, versus="torch"),
            info="NumPy: partition, then sort the k largest",
        )  # fmt: skip

    return build


def _unique(ctx, inp, n, dtype):
    x, t, a = inp.normal((n,), dtype)
    return _case(
        ctx, inp, "unique", size_str(n, np.dtype(dtype).name),
        lambda: x.unique(), lambda: t.unique(), lambda: np.unique(a),
        nbytes=2 * n * x.element_size(), goal=_goal(ctx),
        info="normals: float16 has many repeats, float32 few",
        cpu_reference=lambda: np.unique(a.astype(np.float32)).astype(a.dtype),
    )  # fmt: skip


def _cumsum(ctx, inp, n, dtype):
    x, t, a = inp.normal((n // COLS, COLS), dtype)
    nbytes = 2 * n * x.element_size()
    return _case(
        ctx, inp, "cumsum(dim=1)", size_str(x.shape, np.dtype(dtype).name),
        lambda: x.cumsum(1), lambda: t.cumsum(1),
        lambda: np.cumsum(a, axis=1, dtype=np.float32).astype(dtype),
        nbytes=nbytes, goal=_copy_goal(ctx, x, nbytes), **_tol(dtype, (1e-4, 1e-3), (1e-2, 5e-2)),
        # torch's float16 cumsum on CUDA rounds its running sums to float16 (errors of 0.2 on
        # rows of 1024 normals): the reference sums in float32, as NumPy's does on the CPU.
        cuda_reference=lambda: t.float().cumsum(1).to(t.dtype),
        info="the reference sums in float32",
    )  # fmt: skip


def _scatter_add(ctx, inp, n, dtype):
    x, t, a = inp.normal((n,), dtype)
    i, ti, ai = inp.integers(n, (n,))
    v, tv, av = inp.normal((n,), dtype)

    def numpy_fn():
        np.add.at(a, ai, av)
        return a

    return _case(
        ctx, inp, "scatter_add_(0, idx, v)", size_str(n, np.dtype(dtype).name),
        lambda: x.scatter_add_(0, i, v), lambda: t.scatter_add_(0, ti, tv), numpy_fn,
        nbytes=n * (3 * x.element_size() + 8), goal=_goal(ctx),
        info="random indices (duplicates)", **_tol(dtype, (1e-5, 1e-5), (1e-2, 1e-2)),
    )  # fmt: skip


def _index_add(ctx, inp, n, dtype):
    rows = n // COLS
    x, t, a = inp.normal((rows, COLS), dtype)
    r, tr, ar = inp.integers(rows, (rows,))
    s, ts, as_ = inp.normal((rows, COLS), dtype)

    def numpy_fn():
        np.add.at(a, ar, as_)
        return a

    return _case(
        ctx, inp, "index_add_(0, rows, src)", size_str(x.shape, np.dtype(dtype).name),
        lambda: x.index_add_(0, r, s), lambda: t.index_add_(0, tr, ts), numpy_fn,
        nbytes=3 * n * x.element_size() + rows * 8, goal=_goal(ctx),
        info="random rows (duplicates)", **_tol(dtype, (1e-5, 1e-5), (1e-2, 1e-2)),
    )  # fmt: skip


def _gather(ctx, inp, n, dtype):
    x, t, a = inp.normal((n // COLS, COLS), dtype)
    i, ti, ai = inp.integers(COLS, x.shape)
    return _case(
        ctx, inp, "gather(1, idx)", size_str(x.shape, np.dtype(dtype).name),
        lambda: x.gather(1, i), lambda: t.gather(1, ti),
        lambda: np.take_along_axis(a, ai, axis=1),
        nbytes=n * (2 * x.element_size() + 8), goal=_goal(ctx),
    )  # fmt: skip


def _scatter(ctx, inp, n, dtype):
    x, t, a = inp.normal((n // COLS, COLS), dtype)
    i, ti, ai = inp.row_permutations(x.shape)
    s, ts, as_ = inp.normal(x.shape, dtype)

    def numpy_fn():
        np.put_along_axis(a, ai, as_, axis=1)
        return a

    return _case(
        ctx, inp, "scatter_(1, idx, src)", size_str(x.shape, np.dtype(dtype).name),
        lambda: x.scatter_(1, i, s), lambda: t.scatter_(1, ti, ts), numpy_fn,
        nbytes=n * (2 * x.element_size() + 8), goal=_goal(ctx),
        info="each row's indices a permutation",
    )  # fmt: skip


def _index_select(ctx, inp, n, dtype):
    rows = n // COLS
    x, t, a = inp.normal((rows, COLS), dtype)
    r, tr, ar = inp.integers(rows, (rows,))
    return _case(
        ctx, inp, "index_select(0, rows)", size_str(x.shape, np.dtype(dtype).name),
        lambda: x.index_select(0, r), lambda: t.index_select(0, tr),
        lambda: np.take(a, ar, axis=0),
        nbytes=2 * n * x.element_size() + rows * 8, goal=_goal(ctx),
    )  # fmt: skip


def _masked_fill(ctx, inp, n, dtype):
    x, t, a = inp.normal((n,), dtype)
    m, tm, am = inp.half_true(n)
    nbytes = n * (2 * x.element_size() + 1)
    return _case(
        ctx, inp, "masked_fill(mask, 0.0)", size_str(n, np.dtype(dtype).name),
        lambda: x.masked_fill(m, 0.0), lambda: t.masked_fill(tm, 0.0),
        lambda: np.where(am, np.zeros((), dtype), a),
        nbytes=nbytes, goal=_copy_goal(ctx, x, nbytes),
    )  # fmt: skip


def _einsum(ctx, inp, n, dtype):
    side = 256 if ctx.quick else COLS
    batch = max(1, n // (side * side))
    x, t, a = inp.normal((batch, side, side), dtype)
    y, ty, ay = inp.normal((batch, side, side), dtype)
    eq = "bij,bjk->bik"
    return _case(
        ctx, inp, f"einsum('{eq}')", size_str(x.shape, np.dtype(dtype).name),
        lambda: genesis.einsum(eq, x, y), lambda: ctx.torch.einsum(eq, t, ty),
        # NumPy has no fast float16 product (minutes a call): torch is the comparison there.
        None if dtype == np.float16 else lambda: np.einsum(eq, a, ay, optimize=True),
        flops=2 * batch * side**3,
        goal=_goal(ctx, versus="torch" if dtype == np.float16 else "numpy"),
        **_tol(dtype, (1e-3, 1e-2), (1e-2, 1e-1)),
    )  # fmt: skip


def _norm(ctx, inp, n, dtype):
    x, t, a = inp.normal((n,), dtype)
    nbytes = n * x.element_size()
    return _case(
        ctx, inp, "norm()", size_str(n, np.dtype(dtype).name),
        lambda: x.norm(), lambda: t.norm(),
        lambda: np.linalg.norm(a.astype(np.float64)).astype(dtype),
        nbytes=nbytes, goal=_copy_goal(ctx, x, nbytes), **_tol(dtype, (1e-4, 0.0), (1e-2, 0.0)),
    )  # fmt: skip


def _logsumexp(ctx, inp, n, dtype):
    x, t, a = inp.normal((n // COLS, COLS), dtype)

    def numpy_fn():
        a32 = a.astype(np.float32)
        m = a32.max(axis=1, keepdims=True)
        return (np.log(np.exp(a32 - m).sum(axis=1)) + m[:, 0]).astype(dtype)

    nbytes = n * x.element_size()
    return _case(
        ctx, inp, "logsumexp(dim=1)", size_str(x.shape, np.dtype(dtype).name),
        lambda: x.logsumexp(1), lambda: t.logsumexp(1), numpy_fn,
        nbytes=nbytes, goal=_copy_goal(ctx, x, nbytes), **_tol(dtype, (1e-5, 1e-5), (1e-2, 1e-2)),
    )  # fmt: skip


def _clone(ctx, inp, n, dtype):
    x, t, a = inp.normal((n,), dtype)
    return _case(
        ctx, inp, "clone()", size_str(n, np.dtype(dtype).name),
        x.clone, t.clone if t is not None else None, a.copy if a is not None else None,
        nbytes=2 * n * x.element_size(), info="the copy bandwidth the 90% goals are measured by",
    )  # fmt: skip


def _nonzero(ctx, inp, n, dtype):
    if dtype != np.float32:  # one row per size: the input is bool
        return None
    m, tm, am = inp.half_true(n)
    return _case(
        ctx, inp, "nonzero()", size_str(n, "bool") + ", half true",
        lambda: m.nonzero(), lambda: tm.nonzero(), lambda: np.argwhere(am),
        nbytes=n + n // 2 * 8, goal=_goal(ctx),
    )  # fmt: skip


BUILDERS: tuple[tuple[str, Callable], ...] = (
    ("clone()", _clone),
    ("sort", _sort),
    ("argsort(stable=True)", _argsort),
    ("topk(1)", _topk(1)),
    ("topk(16)", _topk(16)),
    ("topk(1024)", _topk(1024)),
    ("unique", _unique),
    ("cumsum(dim=1)", _cumsum),
    ("scatter_add_(0, idx, v)", _scatter_add),
    ("index_add_(0, rows, src)", _index_add),
    ("gather(1, idx)", _gather),
    ("scatter_(1, idx, src)", _scatter),
    ("index_select(0, rows)", _index_select),
    ("masked_fill(mask, 0.0)", _masked_fill),
    ("nonzero()", _nonzero),
    ("einsum('bij,bjk->bik')", _einsum),
    ("norm()", _norm),
    ("logsumexp(dim=1)", _logsumexp),
)


def _register(name: str, build: Callable, size_index: int, dtype: Any) -> None:
    @register(name=name)
    def builder(ctx: Context) -> Case | None:
        sizes = _sizes(ctx)
        if size_index >= len(sizes):
            return None
        seed = zlib.crc32(name.encode()) * 4 + size_index * 2 + (dtype == np.float16)
        return build(ctx, _Inputs(ctx, seed), sizes[size_index], dtype)


for _name, _build in BUILDERS:
    for _size_index in (0, 1):
        for _dtype in DTYPES:
            _register(_name, _build, _size_index, _dtype)
