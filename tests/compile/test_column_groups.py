"""Reductions of leading dims in fused groups (Note [Column groups] in csrc/fusion/group.h): a
bias gradient, a norm weight's gradient, a mean over the batch, each joining the pass that
computes what it reduces, with eager's bits (Note [Column reductions in pieces]; on CUDA Note
[Fused column groups on CUDA])."""

import numpy as np
import pytest
from conftest import requires_cuda
from test_fused_programs import cuda_fusion, requires_nvrtc  # noqa: F401
from test_fusion import fuse_small_cpu_tensors, same  # noqa: F401

import genesis

fusion = genesis._C._fusion

DTYPES = ["float32", "float64", "bfloat16", "float16"]
SHAPES = [(300, 768), (7, 5000), (1000, 33), (2, 3, 4096), (65, 100), (129, 17)]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return genesis.tensor(rng.standard_normal(shape).astype(np.float32)).to(getattr(genesis, dtype))


def bias_and_weight_grads(g, x):
    h = g * genesis.tanh(x)
    return h, h.sum(0), (g * x).sum(0), (g * x).mean(0), g.amax(0), x.amin(0), (x * 0.5).prod(0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_leading_reductions_join_and_match_eager(shape, dtype):
    g, x = _data(shape, dtype, 1), _data(shape, dtype, 2)
    fusion.reset_stats()
    got = genesis.compile(bias_and_weight_grads)(g, x)
    stats = dict(fusion.stats())
    want = bias_and_weight_grads(g, x)
    for a, b in zip(got, want):
        same(a, b)
    assert stats["groups"] == 1  # the products, the tanh and every reduction: one pass
    assert stats["results_written"] == 7


@pytest.mark.parametrize("dtype", ["int32", "int64", "int16", "uint8"])
def test_integer_columns(dtype):
    rng = np.random.default_rng(3)
    a = genesis.tensor(rng.integers(0, 5, (40, 130)).astype(dtype))
    b = genesis.tensor(rng.integers(0, 5, (40, 130)).astype(dtype))

    def f(a, b):
        return (a * b).sum(0), (a + b).amax(0), (a - b).amin(0, keepdim=True)

    for x, y in zip(genesis.compile(f)(a, b), f(a, b)):
        same(x, y)


def test_several_leading_dims_and_keepdim():
    x = _data((4, 6, 300), "float32")

    def f(x):
        y = x * x
        return y.sum((0, 1)), y.mean((0, 1), keepdim=True), y.sum(0, keepdim=True), y.amax((0, 1))

    fusion.reset_stats()
    got = genesis.compile(f)(x)
    # (0, 1) and 0 make different column counts: each change of count starts a group
    assert dict(fusion.stats())["groups"] == 3
    for a, b in zip(got, f(x)):
        same(a, b)


def test_a_column_value_read_inside_runs_the_group_first(capfd):
    x = _data((64, 200), "float32")

    def f(x):
        h = genesis.exp(x)
        s = h.sum(0)
        return h / s, s  # reads the column value: a second group after the first ran

    fusion.set_logging(True)
    try:
        got = genesis.compile(f)(x)
    finally:
        fusion.set_logging(False)
    for a, b in zip(got, f(x)):
        same(a, b)
    log = capfd.readouterr().err
    assert "(64 rows of 200 columns)" in log and "per column" in log


def test_a_row_reduction_after_a_column_reduction():
    x = _data((50, 300), "float64")

    def f(x):
        h = x * 2.0
        return h.sum(0), h.sum(-1), (h - 1.0).amax(-1)

    for a, b in zip(genesis.compile(f)(x), f(x)):
        same(a, b)


def test_bias_gradients_of_a_compiled_layer_match_eager():
    """autograd reduces a broadcast bias's gradient over the leading dims: in the compiled
    backward that reduction joins the group of the activation's gradient."""
    genesis.manual_seed(0)
    _check_layer_gradients(genesis.randn(256, 384), genesis.randn(384), genesis.randn(384))


def _check_layer_gradients(x, b, w):
    """x * w + b through SiLU, summed: the compiled gradients of x, b and w are eager's."""

    def layer(x, b, w):
        h = x * w + b
        return (h * genesis.sigmoid(h)).float().sum()

    grads = []
    for fn in (layer, genesis.compile(layer)):
        leaves = [t.detach().clone().requires_grad_() for t in (x, b, w)]
        fn(*leaves).backward()
        grads.append([t.grad for t in leaves])
    for got, want in zip(grads[1], grads[0]):
        same(got, want)


@requires_nvrtc
def test_an_input_the_same_in_every_row_is_read_once_a_column():
    """Note [Inputs the same in every row of a column group]: a bias broadcast over the rows of
    a column program is read once a thread, at its column's offset, not walked row by row."""
    g, h = _data((40, 3, 96), "float32", 1), _data((40, 3, 96), "float32", 2)
    bias = _data((96,), "float32", 3)
    x = _data((96, 120), "float32", 4).t().reshape(40, 3, 96)  # differs from row to row: strided

    def f(g, h, b, x):
        y = (h + b) * g + x
        return y, y.sum((0, 1))

    fusion._capture_sources(True)
    try:
        got = genesis.compile(f)(g, h, bias, x)
        programs = [t for _, t in fusion._captured_sources() if "rows_each" in t]
    finally:
        fusion._capture_sources(False)
    for a, b in zip(got, f(g, h, bias, x)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)
    (text,) = programs
    main = text[: text.index("_partials(")]
    # inputs: h, the bias, g, x
    assert main.index("const float x1 = in1[b1];") < main.index("for (int r = begin")
    assert "in1[o1]" not in main and "o1 +=" not in main
    assert "in3[o3]" in main  # the transposed input still walks its rows
    assert fusion._nvrtc_compile(text, "column.cu", 90)[:4] == b"\x7fELF"


def test_through_the_eager_executor():
    fusion._set_eager_executor(True)
    try:
        g, x = _data((130, 70), "float32", 4), _data((130, 70), "float32", 5)
        for a, b in zip(genesis.compile(bias_and_weight_grads)(g, x), bias_and_weight_grads(g, x)):
            same(a, b)
    finally:
        fusion._set_eager_executor(False)


def test_nan_and_inf_columns():
    x = _data((100, 64), "float32")
    x[3, 5], x[7, 6], x[9, 7] = float("nan"), float("inf"), float("-inf")

    def f(x):
        return (x * 1.0).sum(0), (x + 0.0).amax(0), (x - 0.0).amin(0)

    for a, b in zip(genesis.compile(f)(x), f(x)):
        same(a, b)


# ---- CUDA: a generated program of two kernels (Note [Fused column groups on CUDA]) -------------

# (rows, columns): one chunk; chunks added by a thread a column; by a block a column (at most
# 1024 columns, at least 64 chunks); several leading dims
CUDA_SHAPES = [(300, 768), (5000, 2000), (8192, 768), (2, 3, 4096), (129, 17), (4096, 1024)]


@requires_cuda
@requires_nvrtc
@pytest.mark.usefixtures("cuda_fusion")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", CUDA_SHAPES, ids=str)
def test_cuda_leading_reductions_match_eager(shape, dtype):
    g, x = _data(shape, dtype, 1).cuda(), _data(shape, dtype, 2).cuda()
    fusion.reset_stats()
    got = genesis.compile(bias_and_weight_grads)(g, x)
    stats = dict(fusion.stats())
    want = bias_and_weight_grads(g, x)
    for a, b in zip(got, want):
        # eager's bits: the same loop, chunks and final kernel (max/min may differ in a zero's sign)
        same(a, b, zero_signs=False)
    assert stats["groups"] == 1
    assert stats["results_written"] == 7


@requires_cuda
@requires_nvrtc
@pytest.mark.usefixtures("cuda_fusion")
def test_cuda_integer_columns_nan_and_strided_inputs():
    rng = np.random.default_rng(3)
    a = genesis.tensor(rng.integers(-5, 5, (4100, 130)).astype("int64")).cuda()
    x = _data((130, 4100), "float32").cuda().t()  # strided: read through the transpose
    x[3, 5], x[7, 6], x[9, 7] = float("nan"), float("inf"), float("-inf")
    bias = _data((130,), "float32").cuda()

    def f(a, x, bias):
        y = x + bias
        return (a * a).sum(0), (a - 1).amax(0), y.sum(0), y.amax(0), (y * 0.5).amin(0), y.mean(0)

    fusion.reset_stats()
    got = genesis.compile(f)(a, x, bias)
    assert dict(fusion.stats())["groups"] >= 1
    for g, w in zip(got, f(a, x, bias)):
        same(g, w, zero_signs=False)


@requires_cuda
@requires_nvrtc
@pytest.mark.usefixtures("cuda_fusion")
def test_cuda_bias_gradients_of_a_compiled_layer():
    genesis.manual_seed(0)
    x, b, w = (genesis.randn(*s, device="cuda").bfloat16() for s in ((4096, 384), (384,), (384,)))
    _check_layer_gradients(x, b, w)
