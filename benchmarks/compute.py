"""Compute: element-wise arithmetic, reductions, matmul, einsum, activations, randn, cat, linalg.

Element-wise cases use 2^24 elements on the CPU and 2^28 on CUDA, matrices 4096x4096 on the CPU
and 16384x16384 on CUDA (1 GiB in float32). matmul: float32 1024^3 on the CPU; on CUDA issue 19's
grid, 1024^3, 4096^3 and 8192^3 in bfloat16, float16 and float32 and bmm of 64 x 512^3 in each
(torch with ``allow_tf32 = False``: both do full float32), genesis and torch taking turns five
times; reported in TFLOP/s. One host-time case, ``a + b`` on 1-element tensors, timed in bursts
of 100 calls with the device synchronised between bursts, outside the timed region.

Goals (full size only): >= 0.97x torch on CUDA, >= 1x NumPy on the CPU, for add, mul, exp, the
broadcast add and the reductions; >= 1x torch for every matmul and bmm row on CUDA; the
1-element add's host time <= 0.6x torch's on CUDA (also with --quick). relu, sigmoid, softmax,
cumsum, randn, cat, linalg.solve, linalg.cholesky and linalg.eigvalsh (batches of 64 x 64
float32 matrices) are informational, as are the fused epilogue rows: ``_addmm_activation`` relu
and gelu (bias + activation in one cuBLASLt call on CUDA) against torch._addmm_activation, and
genesis's unfused ``addmm`` + activation, 4096^3 in bfloat16, float16 and float32 on CUDA
(float32 512^3 on the CPU).

Results are checked once against NumPy: exactly where the result is exactly defined (add, mul
by 2, max, relu, cat), within a tolerance (check column ``close``) against a float64 reference
for exp, the reductions, sigmoid and softmax, against an emulated bfloat16 / float16 / float32
matmul for matmul; randn's moments (``stats``).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

import genesis
from benchmarks.casts import bfloat16_reference
from benchmarks.common import Case, Context, Goal, Registry, size_str

register = Registry()
cases = register.cases

BURST = 100  # calls per burst of the host-time case: far fewer than the launch queue holds
HOST_GOAL = 0.6  # the 1-element add's host time: at most this fraction of torch's


def _goal(ctx: Context) -> Goal | None:
    """>= 0.97x torch on CUDA, >= 1x NumPy on the CPU; at full size only (not --quick)."""
    if ctx.quick:
        return None
    if ctx.on_cuda:
        return Goal(">= 0.97x torch", min_speedup=0.97, versus="torch")
    return Goal(">= 1x numpy", min_speedup=1.0, versus="numpy")


def _n(ctx: Context) -> int:
    """Elements of the element-wise cases."""
    return ctx.pick(1 << 24, 1 << 16, cuda=1 << 28)


def _side(ctx: Context) -> int:
    """Rows and columns of the matrix cases."""
    return ctx.pick(4096, 256, cuda=16384)


def _normal(ctx: Context, shape: int | tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    a = ctx.rng.standard_normal(shape, dtype=np.float32)
    return a if np.dtype(dtype) == np.float32 else a.astype(dtype)


def _torch(ctx: Context, a: np.ndarray) -> Any:
    return ctx.to_torch(a) if ctx.torch is not None else None


def _genesis_op(x: genesis.Tensor, name: str, **kwargs: Any) -> Callable[[], Any]:
    """``x.name(**kwargs)`` when genesis.Tensor has the method, else ``genesis.name(x,
    **kwargs)``; when neither exists, a function that raises (an ERROR row; NumPy and torch
    are still timed)."""
    method = getattr(x, name, None)
    if method is not None:
        return (lambda: method(**kwargs)) if kwargs else method
    fn = getattr(genesis, name, None)
    if fn is not None:
        return lambda: fn(x, **kwargs)

    def missing() -> Any:
        raise AttributeError(f"genesis has neither Tensor.{name} nor genesis.{name}")

    return missing


# --- element-wise ---------------------------------------------------------------------------


def _add(ctx: Context, dtype: Any) -> Case:
    a, b = _normal(ctx, _n(ctx), dtype), _normal(ctx, _n(ctx), dtype)
    x, y = ctx.to_genesis(a), ctx.to_genesis(b)
    t, u = _torch(ctx, a), _torch(ctx, b)
    return Case(
        "a + b",
        size_str(a.size, a.dtype.name),
        ctx.fns(genesis=lambda: x + y, numpy=lambda: a + b, torch=lambda: t + u),
        nbytes=3 * a.nbytes,
        goal=_goal(ctx),
    )


@register(name="a + b")
def add_f32(ctx: Context) -> Case:
    return _add(ctx, np.float32)


@register(name="a + b")
def add_f16(ctx: Context) -> Case:
    return _add(ctx, np.float16)


def _mul(ctx: Context, dtype: Any) -> Case:
    a = _normal(ctx, _n(ctx), dtype)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "a * 2.0",
        size_str(a.size, a.dtype.name),
        ctx.fns(genesis=lambda: x * 2.0, numpy=lambda: a * 2.0, torch=lambda: t * 2.0),
        nbytes=2 * a.nbytes,
        goal=_goal(ctx),
    )


@register(name="a * 2.0")
def mul_f32(ctx: Context) -> Case:
    return _mul(ctx, np.float32)


@register(name="a * 2.0")
def mul_f16(ctx: Context) -> Case:
    return _mul(ctx, np.float16)


def _exp(ctx: Context, dtype: Any, rtol: float) -> Case:
    a = _normal(ctx, _n(ctx), dtype)  # |a| < 7: no overflow, not even in float16
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "exp()",
        size_str(a.size, a.dtype.name),
        ctx.fns(genesis=_genesis_op(x, "exp"), numpy=lambda: np.exp(a), torch=lambda: t.exp()),
        nbytes=2 * a.nbytes,
        reference=lambda: np.exp(a.astype(np.float64)).astype(a.dtype),
        rtol=rtol,
        goal=_goal(ctx),
    )


@register(name="exp()")
def exp_f32(ctx: Context) -> Case:
    return _exp(ctx, np.float32, rtol=1e-6)  # about 8 ulp


@register(name="exp()")
def exp_f16(ctx: Context) -> Case:
    return _exp(ctx, np.float16, rtol=1e-3)  # 1 ulp (computing in float32 rounds twice)


@register(name="a + row broadcast")
def add_row(ctx: Context) -> Case:
    n = _side(ctx)
    a, b = _normal(ctx, (n, n)), _normal(ctx, n)
    x, y = ctx.to_genesis(a), ctx.to_genesis(b)
    t, u = _torch(ctx, a), _torch(ctx, b)
    return Case(
        "a + row broadcast",
        f"{size_str(a.shape, 'float32')} + {n}",
        ctx.fns(genesis=lambda: x + y, numpy=lambda: a + b, torch=lambda: t + u),
        nbytes=2 * a.nbytes + b.nbytes,
        goal=_goal(ctx),
    )


# --- reductions -----------------------------------------------------------------------------


def _sum(ctx: Context, dim: int | None) -> Case:
    """Sums of uniform [0, 1) values (no cancellation: a relative tolerance means something),
    checked against NumPy's float64 sum rounded to float32."""
    n = _side(ctx)
    a = ctx.rng.random((n, n), dtype=np.float32)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    if dim is None:
        name, out = "sum()", 1
        fns = ctx.fns(genesis=lambda: x.sum(), numpy=lambda: a.sum(), torch=lambda: t.sum())
    else:
        name, out = f"sum(dim={dim})", n
        fns = ctx.fns(
            genesis=lambda: x.sum(dim=dim),
            numpy=lambda: a.sum(axis=dim),
            torch=lambda: t.sum(dim=dim),
        )
    return Case(
        name,
        size_str(a.shape, "float32"),
        fns,
        nbytes=a.nbytes + 4 * out,
        reference=lambda: np.asarray(a.sum(axis=dim, dtype=np.float64), dtype=np.float32),
        rtol=1e-4,
        goal=_goal(ctx),
    )


@register(name="sum()")
def sum_all(ctx: Context) -> Case:
    return _sum(ctx, None)


@register(name="sum(dim=0)")
def sum_dim0(ctx: Context) -> Case:
    return _sum(ctx, 0)


@register(name="sum(dim=1)")
def sum_dim1(ctx: Context) -> Case:
    return _sum(ctx, 1)


def _small(ctx: Context, name: str, dim: int | None) -> Case | None:
    """A 64x64 float32 reduction on the CPU: work too small for a second thread
    (Note [Serial small work] in csrc/cpu/parallel.h); the row shows host cost, not bandwidth.
    Informational, no goal."""
    if ctx.on_cuda:
        return None
    a = ctx.rng.random((64, 64), dtype=np.float32)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    kw = {} if dim is None else {"dim": dim}
    return Case(
        name,
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: x.sum(**kw),
            numpy=lambda: a.sum(axis=dim),
            torch=lambda: t.sum(**kw),
        ),
        nbytes=a.nbytes,
        reference=lambda: np.asarray(a.sum(axis=dim, dtype=np.float64), dtype=np.float32),
        rtol=1e-5,
    )


@register(name="small sum(dim=0)")
def small_sum_dim0(ctx: Context) -> Case | None:
    return _small(ctx, "small sum(dim=0)", 0)


@register(name="small sum(dim=1)")
def small_sum_dim1(ctx: Context) -> Case | None:
    return _small(ctx, "small sum(dim=1)", 1)


@register(name="max(dim=1)")
def max_dim1(ctx: Context) -> Case:
    """Values and indices, as torch returns them (NumPy: max and argmax, two passes). Normal
    values: ties at a row's maximum are vanishingly rare, so the indices compare exactly."""
    n = _side(ctx)
    a = _normal(ctx, (n, n))
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "max(dim=1)",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: x.max(dim=1),
            numpy=lambda: (a.max(axis=1), a.argmax(axis=1)),
            torch=lambda: t.max(dim=1),
        ),
        nbytes=a.nbytes + n * (4 + 8),  # read, values + int64 indices written
        goal=_goal(ctx),
        info="returns (values, indices); numpy: a.max(axis=1) and a.argmax(axis=1)",
    )


def _aminmax(ctx: Context, dim: int | None) -> Case:
    """min and max together (NumPy: a.min() and a.max(), two passes). genesis reads the input
    once: rows on the CPU (Note [Min and max in one pass] in csrc/cpu/min_max.cpp), every layout
    on CUDA (MinMaxReducer in csrc/vocab/reducers.h). Goal >= 1x torch."""
    n = _side(ctx)
    a = _normal(ctx, (n, n))
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    kw = {} if dim is None else {"dim": dim}
    axis = None if dim is None else dim
    goal = None if ctx.quick else Goal(">= 1x torch", min_speedup=1.0)
    return Case(
        "aminmax()" if dim is None else f"aminmax(dim={dim})",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: tuple(genesis.aminmax(x, **kw)),
            numpy=lambda: (a.min(axis=axis), a.max(axis=axis)),
            torch=lambda: tuple(ctx.torch.aminmax(t, **kw)),
        ),
        nbytes=a.nbytes,
        goal=goal,
    )


@register(name="aminmax()")
def aminmax_all(ctx: Context) -> Case:
    return _aminmax(ctx, None)


@register(name="aminmax(dim=1)")
def aminmax_dim1(ctx: Context) -> Case:
    return _aminmax(ctx, 1)


def _cumsum(ctx: Context, dim: int) -> Case:
    """A float32 cumsum of uniform [0, 1) values (no cancellation), checked against NumPy's
    float64 cumsum rounded to float32. Informational, no goal."""
    n = _side(ctx)
    a = ctx.rng.random((n, n), dtype=np.float32)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        f"cumsum(dim={dim})",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=_genesis_op(x, "cumsum", dim=dim),
            numpy=lambda: np.cumsum(a, axis=dim),
            torch=lambda: t.cumsum(dim=dim),
        ),
        nbytes=2 * a.nbytes,
        reference=lambda: np.cumsum(a, axis=dim, dtype=np.float64).astype(np.float32),
        rtol=1e-3,
    )


@register(name="cumsum(dim=1)")
def cumsum_dim1(ctx: Context) -> Case:
    return _cumsum(ctx, 1)


@register(name="cumsum(dim=0)")
def cumsum_dim0(ctx: Context) -> Case:
    return _cumsum(ctx, 0)


# --- linalg ---------------------------------------------------------------------------------


def _spd_batch(ctx: Context, batch: int, n: int) -> np.ndarray:
    """Symmetric positive-definite float32 matrices, well conditioned."""
    a = ctx.rng.standard_normal((batch, n, n))
    return (a @ a.transpose(0, 2, 1) / n + np.eye(n)).astype(np.float32)


@register(name="linalg.solve")
def linalg_solve(ctx: Context) -> Case:
    """A batch of small float32 systems (LAPACK per matrix on the CPU, cuBLAS's batched LU on
    CUDA: Note [Batched small matrices]), checked against NumPy's float64 solve. Informational,
    no goal."""
    batch, n = ctx.pick(512, 16, cuda=1024), 64
    a, b = _spd_batch(ctx, batch, n), _normal(ctx, (batch, n, 4))
    x, y = ctx.to_genesis(a), ctx.to_genesis(b)
    t, u = _torch(ctx, a), _torch(ctx, b)
    tl = ctx.torch.linalg if ctx.torch is not None else None
    return Case(
        "linalg.solve",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: genesis.linalg.solve(x, y),
            numpy=lambda: np.linalg.solve(a, b),
            torch=lambda: tl.solve(t, u),
        ),
        nbytes=a.nbytes + 2 * b.nbytes,
        reference=lambda: np.linalg.solve(a.astype(np.float64), b).astype(np.float32),
        rtol=1e-3,
        atol=1e-5,  # float32 rounding of the near-zero entries of X
    )


@register(name="linalg.cholesky")
def linalg_cholesky(ctx: Context) -> Case:
    """Cholesky factors of a batch of small float32 SPD matrices (LAPACK per matrix on the CPU;
    on CUDA one block per matrix in shared memory, Note [Small Cholesky in shared memory] in
    kernels/cholesky_small.cu), checked against NumPy's float64 cholesky. Informational,
    no goal."""
    batch, n = ctx.pick(512, 16, cuda=1024), 64
    a = _spd_batch(ctx, batch, n)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    tl = ctx.torch.linalg if ctx.torch is not None else None
    return Case(
        "linalg.cholesky",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: genesis.linalg.cholesky(x),
            numpy=lambda: np.linalg.cholesky(a),
            torch=lambda: tl.cholesky(t),
        ),
        nbytes=2 * a.nbytes,
        reference=lambda: np.linalg.cholesky(a.astype(np.float64)).astype(np.float32),
        rtol=1e-3,
        atol=1e-5,
    )


@register(name="linalg.eigvalsh")
def linalg_eigvalsh(ctx: Context) -> Case:
    """Eigenvalues of a batch of float32 symmetric matrices, checked against NumPy's float64
    eigvalsh. Informational, no goal."""
    batch, n = ctx.pick(256, 16, cuda=512), 64
    a = _spd_batch(ctx, batch, n)
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    tl = ctx.torch.linalg if ctx.torch is not None else None
    return Case(
        "linalg.eigvalsh",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=lambda: genesis.linalg.eigvalsh(x),
            numpy=lambda: np.linalg.eigvalsh(a),
            torch=lambda: tl.eigvalsh(t),
        ),
        nbytes=a.nbytes + batch * n * 4,
        reference=lambda: np.linalg.eigvalsh(a.astype(np.float64)).astype(np.float32),
        rtol=1e-3,
    )


# --- matmul ---------------------------------------------------------------------------------

# Issue 19's grid on CUDA: these sizes (n^3) in these dtypes, and bmm of 64 x 512^3; each row
# alternates genesis and torch MATMUL_ROUNDS times, so clock drift over the run hits both.
MATMUL_SIZES = (1024, 4096, 8192)
MATMUL_DTYPES = ("bfloat16", "float16", "float32")
MATMUL_ROUNDS = 5


def _round_to(a: np.ndarray, dtype: str) -> np.ndarray:
    """float32 values rounded to dtype's precision, kept in float32."""
    if dtype == "bfloat16":
        return bfloat16_reference(a)
    if dtype == "float16":
        return a.astype(np.float16).astype(np.float32)
    return a


def _matmul(ctx: Context, n: int, dtype: str, batch: int | None = None) -> Case:
    """n x n @ n x n (a batch of them with ``batch``: bmm). 16-bit dtypes: inputs rounded to the
    dtype first (the same values in every library), reference NumPy's float32 product rounded
    to the dtype."""
    T = ctx.torch
    shape = (n, n) if batch is None else (batch, n, n)
    a, b = _round_to(_normal(ctx, shape), dtype), _round_to(_normal(ctx, shape), dtype)
    x, y = ctx.to_genesis(a), ctx.to_genesis(b)
    if T is not None:
        t, u = ctx.to_torch(a), ctx.to_torch(b)
        if ctx.on_cuda:
            T.backends.cuda.matmul.allow_tf32 = False  # torch in full float32 too
    if dtype != "float32":
        x, y = x.to(getattr(genesis, dtype)), y.to(getattr(genesis, dtype))
        if T is not None:
            t, u = t.to(getattr(T, dtype)), u.to(getattr(T, dtype))

        def reference() -> np.ndarray:
            return _round_to(a @ b, dtype)

        # Both round float32 sums to the dtype: one ulp apart at most (2^-7 relative in
        # bfloat16, 2^-10 in float16; float16's split-K sums may round in float16 too), plus the
        # float32 accumulation-order difference near zero.
        rtol = 2.0**-7 if dtype == "bfloat16" else 2.0**-9
        atol = 1e-2 if dtype == "bfloat16" else 5e-2
        info = f"{dtype} in and out"
    else:

        def reference() -> np.ndarray:
            return a @ b

        # float32 accumulation differs by about K * eps (3e-4 at K = 4096); TF32 products
        # would be off by about 0.03 there, so this tolerance tells them apart.
        rtol, atol = 1e-5, 2e-6 * n
        info = "float32 (both allow_tf32 = False)" if ctx.on_cuda else "informational"
    count = 1 if batch is None else batch
    matmul = genesis.matmul if batch is None else genesis.bmm
    torch_matmul = (T.matmul if batch is None else T.bmm) if T is not None else None
    size = f"{n}^3" if batch is None else f"{batch}x{n}^3"
    return Case(
        "matmul" if batch is None else "bmm",
        f"{size} {size_str(1, dtype).split()[1]}",
        ctx.fns(
            genesis=lambda: matmul(x, y),
            numpy=lambda: a @ b,  # float32 (not timed on CUDA)
            torch=lambda: torch_matmul(t, u),
        ),
        flops=2 * count * n**3,
        reference=reference,
        dtype=dtype,
        rtol=rtol,
        atol=atol,
        rounds=MATMUL_ROUNDS if ctx.on_cuda else 1,
        goal=Goal(">= 1x torch", min_speedup=1.0) if ctx.on_cuda and not ctx.quick else None,
        info=info + f"; TFLOP/s = 2*{size} / median; checked within rtol={rtol:g} atol={atol:g}",
    )


def _matmul_row(n: int, dtype: str, batch: int | None = None) -> Callable[[Context], Case | None]:
    """The builder of one CUDA row of the grid; --quick keeps the 1024 rows, at 256^3."""

    def build(ctx: Context) -> Case | None:
        if not ctx.on_cuda or (ctx.quick and n != MATMUL_SIZES[0] and batch is None):
            return None
        side = ctx.pick(n, 256 if batch is None else 64, cuda=n)
        return _matmul(ctx, side, dtype, ctx.pick(batch, 8, cuda=batch) if batch else None)

    build.__name__ = f"matmul_{n}_{dtype}" if batch is None else f"bmm_{batch}x{n}_{dtype}"
    return build


for _dtype in MATMUL_DTYPES:
    for _size in MATMUL_SIZES:
        register(name="matmul")(_matmul_row(_size, _dtype))
    register(name="bmm")(_matmul_row(512, _dtype, batch=64))


@register(name="matmul")
def matmul_f32(ctx: Context) -> Case | None:
    """On the CPU (the grid above is CUDA's): float32 1024^3 against NumPy."""
    if ctx.on_cuda:
        return None
    return _matmul(ctx, ctx.pick(1024, 128), "float32")


# --- fused matmul epilogues (issue 19) ----------------------------------------------------------

# _addmm_activation(bias, a, b) against torch._addmm_activation and against genesis's own
# unfused addmm + activation (the "unfused" rows, whose torch column is torch's addmm +
# activation): on CUDA 4096^3 in each dtype, where the fused rows are one cuBLASLt call with
# RELU_BIAS / GELU_BIAS (Note [Fused matmul epilogues]). The "training forward" GELU rows time
# the forward with inputs that require grad: genesis's one GELU_AUX_BIAS call, which also keeps
# the pre-activation, against torch's addmm + gelu (torch's _addmm_activation has no gradient).
EPILOGUE_SIZE = 4096


def _gelu_tanh(z: np.ndarray) -> np.ndarray:
    return 0.5 * z * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z**3)))


def _gelu_exact(z: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return (0.5 * z * (1.0 + erf(z / math.sqrt(2.0)))).astype(z.dtype)


def _epilogue(
    ctx: Context, dtype: str, use_gelu: bool, fused: bool, grad: bool = False
) -> Case | None:
    """act(a @ b + bias), n x n x n: genesis._addmm_activation (fused) or genesis.addmm then
    relu/gelu (unfused), torch likewise. The GELU is the op's on the device: tanh on CUDA,
    exact on the CPU. 16-bit inputs are rounded to the dtype first; the reference is NumPy's
    float32 result rounded to it. grad: the fused GELU's forward with inputs that require grad,
    against torch's addmm + gelu likewise."""
    if not ctx.on_cuda and dtype != "float32":
        return None  # the CPU rows: float32 only, informational
    T = ctx.torch
    n = ctx.pick(512, 64, cuda=EPILOGUE_SIZE)
    a, b = _round_to(_normal(ctx, (n, n)), dtype), _round_to(_normal(ctx, (n, n)), dtype)
    c = _round_to(_normal(ctx, n), dtype)
    gdt = getattr(genesis, dtype)
    x, y, bias = (ctx.to_genesis(v).to(gdt) for v in (a, b, c))
    if grad:
        x, y, bias = (v.requires_grad_() for v in (x, y, bias))
    approx = "tanh" if ctx.on_cuda else "none"
    act_name = "gelu" if use_gelu else "relu"
    gelu = genesis.nn.functional.gelu
    if fused:
        run = lambda: genesis._addmm_activation(bias, x, y, use_gelu=use_gelu)  # noqa: E731
    elif use_gelu:
        run = lambda: gelu(genesis.addmm(bias, x, y), approximate=approx)  # noqa: E731
    else:
        run = lambda: genesis.relu(genesis.addmm(bias, x, y))  # noqa: E731
    torch_run: Callable[[], Any] = lambda: None  # noqa: E731
    if T is not None:
        if ctx.on_cuda:
            T.backends.cuda.matmul.allow_tf32 = False
        tdt = getattr(T, dtype)
        t, u, tb = (ctx.to_torch(v).to(tdt) for v in (a, b, c))
        if grad:
            t, u, tb = (v.requires_grad_() for v in (t, u, tb))
        tgelu = T.nn.functional.gelu
        if fused and not grad:
            torch_run = lambda: T._addmm_activation(tb, t, u, use_gelu=use_gelu)  # noqa: E731
        elif use_gelu:
            torch_run = lambda: tgelu(T.addmm(tb, t, u), approximate=approx)  # noqa: E731
        else:
            torch_run = lambda: T.relu(T.addmm(tb, t, u))  # noqa: E731

    def act(z: np.ndarray, exact: bool) -> np.ndarray:
        if not use_gelu:
            return np.maximum(z, 0)
        return _gelu_exact(z) if exact else _gelu_tanh(z)

    def reference() -> np.ndarray:
        return _round_to(act(a @ b + c, exact=not ctx.on_cuda).astype(np.float32), dtype)

    if dtype == "bfloat16":
        rtol, atol = 2.0**-7, 1e-2
    elif dtype == "float16":
        rtol, atol = 2.0**-9, 5e-2
    else:
        rtol, atol = 1e-5, 2e-6 * n
    name = f"_addmm_activation {act_name}" if fused else f"addmm + {act_name} (unfused)"
    gelu_info = f"; GELU approximate={approx!r}" if use_gelu else ""
    what = (
        "genesis._addmm_activation vs torch._addmm_activation"
        if fused
        else ("genesis.addmm then " + act_name + " vs torch likewise")
    )
    if grad:
        name += ", training forward"
        what = (
            "inputs require grad: genesis._addmm_activation (GELU_AUX_BIAS on CUDA, keeping "
            "the pre-activation) vs torch.addmm then gelu"
        )
    return Case(
        name,
        f"{n}^3 {size_str(1, dtype).split()[1]}",
        ctx.fns(genesis=run, numpy=lambda: act(a @ b + c, exact=False), torch=torch_run),
        flops=2 * n**3,
        reference=reference,
        dtype=dtype,
        rtol=rtol,
        atol=atol,
        rounds=MATMUL_ROUNDS if ctx.on_cuda else 1,
        info=f"{what}{gelu_info}; TFLOP/s = 2*{n}^3 / median; informational",
    )


def _epilogue_row(
    dtype: str, use_gelu: bool, fused: bool, grad: bool = False
) -> Callable[[Context], Case | None]:
    def build(ctx: Context) -> Case | None:
        return _epilogue(ctx, dtype, use_gelu, fused, grad)

    act_name = "gelu" if use_gelu else "relu"
    build.__name__ = (
        f"{'fused' if fused else 'unfused'}_{act_name}_{dtype}{'_grad' if grad else ''}"
    )
    return build


for _use_gelu in (False, True):
    _act = "gelu" if _use_gelu else "relu"
    for _dtype in MATMUL_DTYPES:
        register(name=f"_addmm_activation {_act}")(_epilogue_row(_dtype, _use_gelu, True))
        register(name=f"addmm + {_act} (unfused)")(_epilogue_row(_dtype, _use_gelu, False))
for _dtype in MATMUL_DTYPES:
    register(name="_addmm_activation gelu, training forward")(
        _epilogue_row(_dtype, True, True, grad=True)
    )


@register(name="einsum('bij,bjk->bik')")
def einsum_bmm(ctx: Context) -> Case:
    """A batched matmul written as einsum: the planner's permute/reshape around one bmm (float32
    32 x 256^3 on the CPU, 64 x 1024^3 on CUDA), in TFLOP/s."""
    T = ctx.torch
    b, n = ctx.pick(32, 4, cuda=64), ctx.pick(256, 64, cuda=1024)
    a, c = _normal(ctx, (b, n, n)), _normal(ctx, (b, n, n))
    x, y = ctx.to_genesis(a), ctx.to_genesis(c)
    t, u = _torch(ctx, a), _torch(ctx, c)
    if T is not None and ctx.on_cuda:
        T.backends.cuda.matmul.allow_tf32 = False
    eq = "bij,bjk->bik"
    return Case(
        f"einsum('{eq}')",
        f"{b}x{n}^3 float32",
        ctx.fns(
            genesis=lambda: genesis.einsum(eq, x, y),
            numpy=lambda: a @ c,
            torch=lambda: T.einsum(eq, t, u),
        ),
        flops=2 * b * n**3,
        reference=lambda: a @ c,
        rtol=1e-5,
        atol=2e-6 * n,
        info=f"informational; TFLOP/s = 2*{b}*{n}^3 / median",
    )


# --- host time ------------------------------------------------------------------------------


@register(name="a + b host time, 1 element")
def add_host_time(ctx: Context) -> Case:
    """The per-call host cost of a tiny add (dispatch, allocation, launch): bursts of BURST
    calls, synchronised between bursts outside the timed region, so the launch queue never
    fills and the time is the host's, not the GPU's."""
    a, b = np.array([1.5], np.float32), np.array([2.25], np.float32)
    x, y = ctx.to_genesis(a), ctx.to_genesis(b)
    t, u = _torch(ctx, a), _torch(ctx, b)
    goal = None
    if ctx.on_cuda:  # host time: the same size in every mode, a goal also with --quick
        goal = Goal(f">= {1 / HOST_GOAL:.2f}x torch", min_speedup=1 / HOST_GOAL)
    return Case(
        "a + b host time, 1 element",
        "1 f32",
        ctx.fns(genesis=lambda: x + y, numpy=lambda: a + b, torch=lambda: t + u),
        burst=BURST,
        goal=goal,
        info=(
            f"bursts of {BURST} back-to-back calls timed on the host, the device synchronised "
            "between bursts outside the timed region; median per call"
            + (f" (goal: genesis <= {HOST_GOAL}x torch's time)" if ctx.on_cuda else "")
        ),
    )


# --- informational: activations, softmax, randn, cat -----------------------------------------


@register(name="relu()")
def relu(ctx: Context) -> Case:
    a = _normal(ctx, _n(ctx))
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "relu()",
        size_str(a.size, "float32"),
        ctx.fns(
            genesis=_genesis_op(x, "relu"), numpy=lambda: np.maximum(a, 0), torch=lambda: t.relu()
        ),
        nbytes=2 * a.nbytes,
    )


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-a))


@register(name="sigmoid()")
def sigmoid(ctx: Context) -> Case:
    a = _normal(ctx, _n(ctx))
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "sigmoid()",
        size_str(a.size, "float32"),
        ctx.fns(
            genesis=_genesis_op(x, "sigmoid"),
            numpy=lambda: _sigmoid(a),
            torch=lambda: t.sigmoid(),
        ),
        nbytes=2 * a.nbytes,
        reference=lambda: _sigmoid(a.astype(np.float64)).astype(np.float32),
        rtol=1e-5,
    )


def _softmax(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@register(name="softmax(dim=-1)")
def softmax(ctx: Context) -> Case:
    n = ctx.pick(4096, 256)
    a = _normal(ctx, (n, n))
    x, t = ctx.to_genesis(a), _torch(ctx, a)
    return Case(
        "softmax(dim=-1)",
        size_str(a.shape, "float32"),
        ctx.fns(
            genesis=_genesis_op(x, "softmax", dim=-1),
            numpy=lambda: _softmax(a),
            torch=lambda: t.softmax(dim=-1),
        ),
        nbytes=2 * a.nbytes,
        reference=lambda: _softmax(a.astype(np.float64)).astype(np.float32),
        rtol=1e-5,
    )


def _normal_moments(x: np.ndarray) -> str | None:
    """A problem when ``x`` does not look standard normal: non-finite values, or the mean or
    standard deviation more than 6 standard errors away from 0 and 1."""
    n = x.size
    if not np.isfinite(x).all():
        return "non-finite values"
    mean, std = float(x.mean(dtype=np.float64)), float(x.std(dtype=np.float64))
    if abs(mean) > 6 / math.sqrt(n) or abs(std - 1) > 6 * math.sqrt(0.5 / n):
        return f"mean {mean:.3g}, std {std:.5g}: not standard normal"
    return None


@register(name="randn")
def randn(ctx: Context) -> Case:
    n, dev, T = _n(ctx), ctx.device, ctx.torch
    rng = np.random.default_rng(ctx.seed + 1)
    return Case(
        "randn",
        size_str(n, "float32"),
        ctx.fns(
            genesis=lambda: genesis.randn(n, dtype=genesis.float32, device=dev),
            numpy=lambda: rng.standard_normal(n, dtype=np.float32),
            torch=lambda: T.randn(n, dtype=T.float32, device=dev),
        ),
        nbytes=4 * n,  # written
        reference=lambda: np.empty(n, np.float32),  # shape and dtype
        values=False,
        validate=_normal_moments,
        info="different generators: checked for mean 0 and standard deviation 1 only",
    )


def _cat(ctx: Context, dim: int) -> Case:
    n = ctx.pick(4096, 256, cuda=8192)
    a, b = ctx.rng.random((n, n), dtype=np.float32), ctx.rng.random((n, n), dtype=np.float32)
    x, y = ctx.to_genesis(a), ctx.to_genesis(b)
    t, u = _torch(ctx, a), _torch(ctx, b)
    return Case(
        f"cat dim={dim}",
        f"2x {size_str(a.shape, 'float32')}",
        ctx.fns(
            genesis=lambda: genesis.cat([x, y], dim=dim),
            numpy=lambda: np.concatenate([a, b], axis=dim),
            torch=lambda: ctx.torch.cat([t, u], dim=dim),
        ),
        nbytes=2 * (a.nbytes + b.nbytes),
    )


@register(name="cat dim=0")
def cat_dim0(ctx: Context) -> Case:
    return _cat(ctx, 0)


@register(name="cat dim=1")
def cat_dim1(ctx: Context) -> Case:
    return _cat(ctx, 1)
