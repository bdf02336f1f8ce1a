"""Row groups of genesis.compile (Note [Row groups] in csrc/fusion/group.h): reductions of the
trailing dims join the elementwise ops around them, so softmax, layer norm and RMS norm written
with plain ops, and their backward passes, run as one group with eager's bits."""

import numpy as np
import pytest
from test_fusion import fuse_small_cpu_tensors, same, stats_after  # noqa: F401

import genesis

fusion = genesis._C._fusion
DTYPES = [genesis.float32, genesis.float64, genesis.bfloat16, genesis.float16]


def softmax(x):
    e = (x - x.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)


def log_softmax(x):
    shifted = x - x.amax(-1, keepdim=True)
    return shifted - shifted.exp().sum(-1, keepdim=True).log()


def layer_norm(x, w, b):
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    var = (xc * xc).mean(-1, keepdim=True)
    return xc * (var + 1e-5).rsqrt() * w + b


def rms_norm(x, w):
    return x * (x.float().square().mean(-1, keepdim=True) + 1e-6).rsqrt().to(x.dtype) * w


def group_log(capfd, fn, *args):
    """fn(*args) compiled with the group log on: (result, the log's group lines)."""
    fusion.set_logging(True)
    try:
        out = genesis.compile(fn)(*args)
    finally:
        fusion.set_logging(False)
    return out, [line for line in capfd.readouterr().err.splitlines() if "fused group" in line]


CASES = {
    "softmax": (softmax, lambda x, c: (x,)),
    "log_softmax": (log_softmax, lambda x, c: (x,)),
    "layer_norm": (
        layer_norm,
        lambda x, c: (x, genesis.randn(c).to(x.dtype), genesis.randn(c).to(x.dtype)),
    ),
    "rms_norm": (rms_norm, lambda x, c: (x, genesis.randn(c).to(x.dtype))),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", CASES)
def test_norms_of_plain_ops_are_one_group(name, dtype):
    fn, make_args = CASES[name]
    x = (genesis.randn(37, 3, 130) * 3).to(dtype)
    args = make_args(x, 130)
    want = fn(*args)
    got, s = stats_after(genesis.compile(fn), *args)
    same(got, want)
    assert s["groups"] == 1 and s["results_written"] == 1


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.bfloat16], ids=str)
@pytest.mark.parametrize("name", CASES)
def test_gradients_match_eager(name, dtype):
    """The backward pass runs in a region too: its reductions (sum's, amax's) fuse, same bits."""
    fn, make_args = CASES[name]
    results = []
    for compiled in (False, True):
        genesis.manual_seed(3)
        x = (genesis.randn(24, 200) * 2).to(dtype)
        args = [a.detach().requires_grad_() for a in make_args(x, 200)]
        grad = genesis.randn(24, 200).to(dtype)
        fusion.reset_stats()
        (genesis.compile(fn) if compiled else fn)(*args).backward(grad)
        results.append([a.grad for a in args] + [fusion.stats()["groups"]])
    for got, want in zip(results[1][:-1], results[0][:-1]):
        same(got, want)
    assert results[0][-1] == 0 and results[1][-1] >= 2


def test_row_values_and_row_ops(capfd):
    """A reduction's result is a row value; ops over it (keepdim or not) join as row ops."""

    def f(x):
        s = x.sum(-1)  # no keepdim: read back through unsqueeze
        scale = (s * s + 1).rsqrt()
        return x * scale.unsqueeze(-1), scale

    x = genesis.randn(8, 50)
    (y, scale), lines = group_log(capfd, f, x)
    same(y, f(x)[0])
    same(scale, f(x)[1])
    assert len(lines) == 1 and "(8 rows of 50)" in lines[0]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x - x.sum((-2, -1), keepdim=True),  # rows of two dims
        lambda x: x * x.sum(),  # the whole tensor as one row
        lambda x: x / x.amin(-1, keepdim=True) + x.prod(-1, keepdim=True),
        lambda x: (x > 0).int().sum(-1, keepdim=True) * x,  # int64 sums of a cast
        lambda x: x.mean((-1,), keepdim=True).double() + x.double(),
    ],
    ids=["two_dims", "all", "amin_prod", "int_sum", "mean_cast"],
)
def test_reductions_join(fn):
    x = genesis.randn(6, 5, 40)
    got, s = stats_after(genesis.compile(fn), x)
    same(got, fn(x))
    assert s["groups"] == 1


ROW_OPERAND_CASES = {
    "full_minus_row": lambda x: x - x.amax(-1, keepdim=True),
    "row_minus_full": lambda x: x.amin(-1, keepdim=True) - x,
    "full_over_row": lambda x: x / (x.abs().sum(-1, keepdim=True) + 1),
    "row_times_row_op": lambda x: x * (x.sum(-1, keepdim=True) * 2 + 1),
    "compare_to_row": lambda x: x > x.sum(-1, keepdim=True) / 8,
    "row_of_two_dims": lambda x: x - x.amax((-2, -1), keepdim=True),
}


@pytest.mark.parametrize(
    "dtype",
    [*DTYPES, genesis.int32, genesis.int64, genesis.int16],
    ids=str,
)
@pytest.mark.parametrize("name", ROW_OPERAND_CASES)
def test_full_ops_reading_row_values_match_eager(name, dtype):
    """A full binary op with a row operand runs each row with that row's value as its number
    (Note [Fused groups on the CPU]): eager's bits, the row on either side, in every dtype."""
    fn = ROW_OPERAND_CASES[name]
    if dtype.is_floating_point:
        x = (genesis.randn(5, 6, 40) * 3).to(dtype)
    else:
        x = genesis.randint(-50, 50, (5, 6, 40)).to(dtype)
    if name == "full_over_row" and not dtype.is_floating_point:
        x = x.float()  # true division of integers is a float op: the float case covers it
    got, s = stats_after(genesis.compile(fn), x)
    same(got, fn(x))
    assert s["groups"] == 1
    strided = x.transpose(0, 1)  # a gathered input: the same
    same(genesis.compile(fn)(strided), fn(strided))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x - x.bfloat16().amax(-1, keepdim=True),
        lambda x: x.bfloat16() - x.amax(-1, keepdim=True),
        lambda x: x.int() * x.sum(-1, keepdim=True),
        lambda x: x.double() / x.sum(-1, keepdim=True),
        lambda x: (x > 0) & (x.amax(-1, keepdim=True) > 1),
        lambda x: x.half() + x.half().sum(-1, keepdim=True),
    ],
    ids=[
        "f32_minus_bf16_row",
        "bf16_minus_f32_row",
        "int_times_row",
        "double_over_row",
        "bool_and_row",
        "half_plus_row",
    ],  # fmt: skip
)
def test_row_operands_of_another_dtype_match_eager(fn):
    x = genesis.randn(6, 40)
    got, s = stats_after(genesis.compile(fn), x)
    same(got, fn(x))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x - x.sum(0, keepdim=True),  # columns: not rows
        lambda x: x - x.max(-1, keepdim=True).values,  # an arg reduction
        lambda x: (x * 2).sum(-1).reshape(3, 4).t() + 1,  # another view of a row value
    ],
    ids=["columns", "max_dim", "row_value_transposed"],
)
def test_what_does_not_join_still_matches_eager(fn):
    x = genesis.randn(12, 12)
    got, s = stats_after(genesis.compile(fn), x)
    same(got, fn(x))
    assert s["groups"] >= 2 or s["ops"] <= 2


def layer_norm_by_var(x):
    mu = x.mean(-1, keepdim=True)
    return (x - mu) / (x.var(-1, keepdim=True, unbiased=False) + 1e-5).sqrt()


VAR_CASES = {
    "var": lambda x: x.var(-1),
    "std_keepdim": lambda x: x.std(-1, keepdim=True),
    "var_two_dims": lambda x: x.var((-2, -1), correction=0),
    "var_all": lambda x: x.var(),
    "std_correction_2": lambda x: x.std(-1, correction=2),
    "layer_norm_by_var": layer_norm_by_var,
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", VAR_CASES)
def test_var_and_std_join_on_the_cpu(name, dtype):
    """var/std of trailing dims: the centre (a mean) and the centred sum of squares are row
    values of the group, each row reduced by eager's own loops (16-bit floats through float32,
    as eager), so the bits are eager's."""
    fn = VAR_CASES[name]
    x = (genesis.randn(6, 5, 40) * 3 + 1).to(dtype)
    got, s = stats_after(genesis.compile(fn), x)
    same(got, fn(x))
    assert s["groups"] == 1


def test_var_edge_cases_and_the_eager_executor(capfd):
    cases = [
        (lambda x: x.var(-1, correction=5), genesis.randn(4, 5)),  # divisor 0: inf and nan
        (lambda x: x.var(-1), genesis.randn(7, 20)[:, ::2]),  # a strided input
        (lambda x: x.std(-1, keepdim=True), genesis.randn(20, 7).t()),  # transposed
        (lambda x: x.var(0), genesis.randn(9, 4)),  # columns: eager
        (lambda x: x.var(-1), genesis.randn(0, 4)),
        (lambda x: x.var(-1), genesis.full((3, 8), 2.5)),  # constant rows: exactly 0
    ]
    for fn, x in cases:
        same(genesis.compile(fn)(x), fn(x))
    fusion._set_eager_executor(True)
    try:
        x = genesis.randn(9, 33)
        for fn in VAR_CASES.values():
            same(genesis.compile(fn)(x), fn(x))
    finally:
        fusion._set_eager_executor(False)
    capfd.readouterr()
    fusion.set_logging(True)
    try:
        genesis.compile(lambda x: x.std(-1))(genesis.randn(8, 50))
    finally:
        fusion.set_logging(False)
    err = capfd.readouterr().err
    assert err.count("fused group") == 1 and "CentredRootMeanSquare(in0, %0)" in err


def test_var_gradients_match_eager():
    results = []
    x0 = genesis.randn(24, 200) * 2
    for compiled in (False, True):
        x = x0.clone().requires_grad_()
        out = (genesis.compile(layer_norm_by_var) if compiled else layer_norm_by_var)(x)
        out.backward(genesis.linspace(-1, 1, 200).expand(24, 200))
        results.append((out, x.grad))
    same(results[1][0], results[0][0])
    same(results[1][1], results[0][1])


def test_long_rows_run_eagerly():
    """Rows over 65536 items are not joined (eager splits few long rows over the threads)."""
    x = genesis.randn(2, 70000)
    got, s = stats_after(genesis.compile(softmax), x)
    same(got, softmax(x))
    assert s["groups"] == 2  # (x - amax).exp() and e / sum


def test_row_values_outlive_the_call_and_in_place_writes():
    kept = []

    def f(x):
        m = x.amax(-1, keepdim=True)
        kept.append(m)
        y = x - m
        m.add_(1)  # a write to a pending row value runs the group first
        return y

    x = genesis.randn(4, 9)
    got = genesis.compile(f)(x)
    same(got, x - x.amax(-1, keepdim=True))
    same(kept[0], x.amax(-1, keepdim=True) + 1)


def test_a_value_read_mid_function():
    def f(x):
        s = x.sum(-1, keepdim=True)
        if s.max().item() > 1e9:  # reads a row group's value: it runs, the function goes on
            return x
        return x / s

    x = genesis.rand(5, 7) + 1
    same(genesis.compile(f)(x), x / x.sum(-1, keepdim=True))


def test_zero_size_and_strided_inputs():
    for x in (genesis.randn(0, 4), genesis.randn(7, 20)[:, ::2], genesis.randn(20, 7).t()):
        got = genesis.compile(layer_norm)(x, genesis.ones(x.shape[-1]), genesis.zeros(1))
        same(got, layer_norm(x, genesis.ones(x.shape[-1]), genesis.zeros(1)))


def test_row_groups_through_the_eager_executor():
    """The fallback executor runs row groups too (row values broadcast as views)."""
    fusion._set_eager_executor(True)
    try:
        x, w, b = genesis.randn(9, 33), genesis.randn(33), genesis.randn(33)
        for fn, args in ((softmax, (x,)), (layer_norm, (x, w, b)), (rms_norm, (x, w))):
            same(genesis.compile(fn)(*args), fn(*args))
    finally:
        fusion._set_eager_executor(False)


def test_traffic_saved_counts_row_values(capfd):
    x = genesis.randn(64, 100)
    _, lines = group_log(capfd, softmax, x)
    # never written: amax (64 rows), x - m and exp (6400 items each), sum (64): each once
    # written and once read back
    saved = 2 * 4 * (64 + 6400 + 6400 + 64)
    assert f"({saved} bytes of traffic saved)" in lines[0]


def test_large_rows_match_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 4000)).astype(np.float32)
    got = genesis.compile(softmax)(genesis.tensor(a)).numpy()
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(-1, keepdims=True), rtol=2e-6, atol=1e-9)
