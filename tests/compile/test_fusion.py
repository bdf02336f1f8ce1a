"""genesis.compile's fused groups (Note [Fusing by deferring elementwise ops] in
csrc/fusion/group.h): compiled functions give eager's answers, bit for bit, on a differential
fuzz of random graphs (elementwise ops, casts, where, row reductions, views of intermediate
values, every dtype, NaN/inf, zero-size, non-contiguous and broadcast inputs; forward and
gradients, saved or recomputed), and every way to a deferred value (ops, views, in-place writes,
exports, autograd, errors, threads) sees the values eager code would."""

import threading

import numpy as np
import pytest
from conftest import DEVICES

import genesis

fusion = genesis._C._fusion


@pytest.fixture(autouse=True)
def fuse_small_cpu_tensors():
    """These tests fuse small tensors too: on the CPU an op over fewer than 4096 items starts no
    group by default (Note [Small groups on the CPU]), which would leave them nothing deferred.
    The other files of tests/compile import this fixture."""
    fusion.set_cpu_min_items(0)
    try:
        yield
    finally:
        fusion.set_cpu_min_items(4096)


def stats_after(fn, *args):
    fusion.reset_stats()
    out = fn(*args)
    return out, fusion.stats()


def same(a, b, zero_signs=True):
    """The same dtype, shape and bits (16-bit floats widened to float32 exactly first);
    zero_signs=False takes -0.0 and +0.0 as one value."""
    if a.dtype in (genesis.bfloat16, genesis.float16):
        assert b.dtype == a.dtype
        a, b = a.float(), b.float()
    a, b = a.cpu().numpy(), b.cpu().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype.kind == "f":
        # Bits, but a NaN's sign and payload are not part of its value: a compiler may commute
        # an add of two NaNs, and which one comes out differs between two loops of eager code.
        nan = np.isnan(a)
        np.testing.assert_array_equal(nan, np.isnan(b))
        if not zero_signs:
            a, b = np.where(a == 0, 0, a).astype(a.dtype), np.where(b == 0, 0, b).astype(b.dtype)
        np.testing.assert_array_equal(
            np.where(nan, 0, a).view(f"u{a.itemsize}"), np.where(nan, 0, b).view(f"u{b.itemsize}")
        )
    else:
        np.testing.assert_array_equal(a, b)


def gelu_tanh(x):
    return x * 0.5 * (1.0 + genesis.tanh(0.79788456 * (x + 0.044715 * x * x * x)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_gelu_chain_matches_eager(device, dtype):
    x = genesis.randn(4099, device=device).to(getattr(genesis, dtype))
    same(genesis.compile(gelu_tanh)(x), gelu_tanh(x))


def test_temporaries_are_never_written():
    x = genesis.randn(10000)
    out, s = stats_after(genesis.compile(gelu_tanh), x)
    assert s["groups"] == 1 and s["ops"] == 9
    assert s["results_written"] == 1 and s["results_skipped"] == 8
    assert s["bytes_skipped"] == 8 * 2 * 10000 * 4
    same(out, gelu_tanh(x))


def test_results_still_held_are_written():
    kept = []

    def f(x):
        y = x * 2
        kept.append(y)  # held outside: must be written
        return y + 1

    x = genesis.randn(100)
    out, s = stats_after(genesis.compile(f), x)
    assert s["results_written"] == 2 and s["results_skipped"] == 0
    same(kept[0], x * 2)
    same(out, x * 2 + 1)


# ---- the differential fuzz ---------------------------------------------------------------

UNARY = ["neg", "abs", "exp", "tanh", "sigmoid", "relu", "sqrt", "log1p", "sin", "square", "floor"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "atan2", "fmod"]
COMPARE = ["lt", "ge", "eq", "ne"]
REDUCE = ["sum", "mean", "amax", "amin", "prod"]
# A fused CUDA row adds in another order than eager's reduction kernel: the CUDA fuzz reduces
# with the exact ones only (test_row_groups.py checks fused sums against eager's within rounding).
EXACT_REDUCE = ["amax", "amin"]
FLOAT_DTYPES = ["float32", "float64", "bfloat16", "float16"]
INT_DTYPES = ["int32", "int64", "int16", "uint8"]


def _random_value(rng, shape, dtype):
    if dtype in INT_DTYPES:
        a = rng.integers(0, 9, size=shape) if dtype == "uint8" else rng.integers(-9, 9, size=shape)
        return genesis.tensor(a.astype(dtype))
    a = rng.standard_normal(shape) * 2
    if rng.random() < 0.2 and a.size:
        a.flat[rng.integers(0, a.size)] = rng.choice([np.nan, np.inf, -np.inf, 0.0])
    return genesis.tensor(a.astype(np.float32)).to(getattr(genesis, dtype))


def _input(rng, shape, dtype):
    """A random view of `shape`: contiguous, transposed, sliced with a step, or broadcast."""
    kind = rng.integers(0, 4)
    if kind == 1 and len(shape) == 2:
        return _random_value(rng, shape[::-1], dtype).t()
    if kind == 2:
        return _random_value(rng, (*shape[:-1], shape[-1] * 2), dtype)[..., ::2]
    if kind == 3:
        small = tuple(s if rng.random() < 0.5 else 1 for s in shape)
        return _random_value(rng, small, dtype)
    return _random_value(rng, shape, dtype)


def _random_program(rng, reductions=REDUCE):
    """A list of steps: each makes a new value from earlier ones (or numbers)."""
    steps = []
    n_inputs = int(rng.integers(1, 4))
    n_values = n_inputs
    for _ in range(int(rng.integers(1, 12))):
        kind = rng.choice(
            ["unary", "binary", "number", "compare_where", "cast", "reduce", "view"],
            p=[0.22, 0.25, 0.15, 0.12, 0.09, 0.11, 0.06],
        )
        pick = [int(rng.integers(0, n_values)) for _ in range(3)]
        if kind == "unary":
            steps.append(("unary", str(rng.choice(UNARY)), pick[0]))
        elif kind == "binary":
            steps.append(("binary", str(rng.choice(BINARY)), pick[0], pick[1]))
        elif kind == "number":
            number = float(rng.choice([0.5, -2.0, 3.0, 1e-3])) if rng.random() < 0.7 else 2
            steps.append(("number", str(rng.choice(["add", "mul", "sub"])), pick[0], number))
        elif kind == "cast":
            steps.append(("cast", str(rng.choice(FLOAT_DTYPES + INT_DTYPES + ["bool"])), pick[0]))
        elif kind == "view":  # the same values through other strides or an offset
            steps.append(("view", str(rng.choice(["transposed", "offset", "reshaped"])), pick[0]))
        elif kind == "reduce":  # the rows of the last dim (or two), or the columns of the
            # first (or two: Note [Column groups]), kept as size-1 dims
            keepdim, two_dims = bool(rng.random() < 0.7), bool(rng.random() < 0.25)
            leading = bool(rng.random() < 0.4)
            steps.append(
                ("reduce", str(rng.choice(reductions)), pick[0], keepdim, two_dims, leading)
            )
        else:
            steps.append(("where", str(rng.choice(COMPARE)), pick[0], pick[1], pick[2]))
        n_values += 1
    return n_inputs, steps


def _run_program(steps, inputs):
    values = list(inputs)
    for step in steps:
        kind, name = step[0], step[1]
        if kind == "unary":
            x = values[step[2]]
            if (
                name in ("sqrt", "log1p", "exp", "tanh", "sigmoid", "sin")
                and not x.is_floating_point()
            ):
                x = x.float()
            if name in ("neg", "abs", "relu", "square", "floor") and x.dtype == genesis.bool:
                x = x.int()
            values.append(getattr(genesis, name)(x))
        elif kind == "binary":
            a, b = values[step[2]], values[step[3]]
            if name in ("atan2", "fmod", "pow") and not (
                a.is_floating_point() or b.is_floating_point()
            ):
                a = a.float()
            if a.dtype == genesis.bool and b.dtype == genesis.bool:
                a = a.int()
            if name == "sub" and (a.dtype == genesis.bool or b.dtype == genesis.bool):
                a, b = a.int(), b.int()
            values.append(getattr(genesis, name)(a, b))
        elif kind == "number":
            x = values[step[2]]
            if x.dtype == genesis.bool:
                x = x.int()
            values.append(getattr(genesis, name)(x, step[3]))
        elif kind == "cast":
            values.append(values[step[2]].to(getattr(genesis, name)))
        elif kind == "view":
            x = values[step[2]]
            if name == "transposed" and x.ndim >= 2:  # a pending copy read through strides
                values.append(x.transpose(-1, -2).contiguous().transpose(-1, -2))
            elif name == "offset" and x.ndim >= 1:  # a view that starts inside its storage
                values.append(genesis.cat([x, x])[x.shape[0] :])
            else:
                values.append(x.reshape(-1).reshape(x.shape))
        elif kind == "reduce":
            x, keepdim, two_dims = values[step[2]], step[3], step[4]
            if x.dtype == genesis.bool or (name == "mean" and not x.is_floating_point()):
                x = x.float()
            if x.numel() == 0 and name in ("amax", "amin"):
                name = "sum"  # no identity: IndexError in both
            if x.ndim == 0:
                values.append(getattr(genesis, name)(x))
                continue
            if step[5] and x.ndim >= 2:  # leading dims
                dims = (0, 1) if two_dims and x.ndim >= 3 else (0,)
                r = getattr(genesis, name)(x, dim=dims if name != "prod" else 0, keepdim=keepdim)
                if not keepdim:  # the reduced dims back as size 1, so it broadcasts against x
                    for _ in range(1 if name == "prod" else len(dims)):
                        r = r.unsqueeze(0)
                values.append(r)
                continue
            dims = (-2, -1) if two_dims and x.ndim >= 2 else (-1,)
            r = getattr(genesis, name)(x, dim=dims if name != "prod" else dims[-1], keepdim=keepdim)
            if not keepdim:  # the reduced dims back as size 1, so it broadcasts against x
                for _ in range(1 if name == "prod" else len(dims)):
                    r = r.unsqueeze(-1)
            values.append(r)
        else:
            cond = getattr(genesis, name)(values[step[2]], values[step[3]])
            values.append(genesis.where(cond, values[step[3]], values[step[4]]))
    return values[len(inputs) :]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("seed", range(20))
def test_random_graphs_match_eager(device, seed):
    """100 random graphs a seed (2000 in all): every value the program makes, compiled == eager."""
    rng = np.random.default_rng(seed)
    compiled = genesis.compile(_run_program)
    for _ in range(100):
        shape = [(7,), (3, 5), (2, 3, 4), (64, 33), (1, 1), (0, 3), ()][int(rng.integers(0, 7))]
        dtype = str(rng.choice(FLOAT_DTYPES + INT_DTYPES, p=[0.3, 0.1, 0.15, 0.1] + [0.35 / 4] * 4))
        n_inputs, steps = _random_program(rng, EXACT_REDUCE if device == "cuda" else REDUCE)
        inputs = [
            _input(rng, shape, dtype).to(device)
            if shape
            else _random_value(rng, (), dtype).to(device)
            for _ in range(n_inputs)
        ]
        with np.errstate(all="ignore"):
            want = _run_program(steps, inputs)
            got = compiled(steps, inputs)
        for g, w in zip(got, want):
            same(g, w)


@pytest.mark.parametrize("recompute", [False, True], ids=["saved", "recomputed"])
@pytest.mark.parametrize("seed", range(5))
def test_random_graphs_gradients_match_eager(seed, recompute):
    """60 random float graphs a seed: the inputs' gradients of a weighted sum of every value
    (the backward ops of a compiled forward run in a region and fuse too, with saved values
    written or recomputed: Note [Recomputed values]), compiled == eager."""
    fusion.set_recompute(recompute)
    try:
        _gradients_match(seed)
    finally:
        fusion.set_recompute(None)
    assert fusion.stats()["recipes_alive"] == 0


def _gradients_match(seed):
    rng = np.random.default_rng(1000 + seed)
    compiled = genesis.compile(_run_program)
    for _ in range(60):
        shape = [(7,), (3, 5), (2, 3, 4), (64, 33), (0, 3), ()][int(rng.integers(0, 6))]
        dtype = str(rng.choice(["float32", "float64", "bfloat16"]))
        n_inputs, steps = _random_program(rng)
        inputs = [
            (_input(rng, shape, dtype) if shape else _random_value(rng, (), dtype))
            for _ in range(n_inputs)
        ]
        grads = []
        for fn in (_run_program, compiled):
            leaves = [t.detach().requires_grad_() for t in inputs]
            with np.errstate(all="ignore"):
                values = [v for v in fn(steps, leaves) if v.requires_grad]
            if not values:
                break
            weights = [genesis.linspace(-1, 1, v.numel()).double().reshape(v.shape) for v in values]
            sum((v.double() * w).sum() for v, w in zip(values, weights)).backward()
            grads.append([t.grad for t in leaves])
        for got, want in zip(*grads) if len(grads) == 2 else ():
            assert (got is None) == (want is None)
            if got is not None:
                same(got, want)


# ---- every way to a deferred value ----------------------------------------------------------


def test_python_reads_a_value_mid_function():
    def f(x):
        y = x * 2 + 1
        if y.sum().item() > 0:  # data-dependent control flow: runs the group so far
            return y * 3
        return y - 3

    f_compiled = genesis.compile(f)
    for sign in (1, -1):
        x = genesis.ones(50) * sign
        same(f_compiled(x), f(x))


def test_inplace_write_to_an_input_after_a_deferred_read():
    def f(x):
        y = x * 2
        x.add_(1)  # the group must read x before this write
        return y, x * 3

    x = genesis.arange(10.0)
    y, z = genesis.compile(f)(x.clone())
    same(y, genesis.arange(10.0) * 2)
    same(z, (genesis.arange(10.0) + 1) * 3)


def test_inplace_write_to_a_deferred_result():
    def f(x):
        y = x * 2
        y.mul_(5)
        return y + 1

    x = genesis.randn(33)
    same(genesis.compile(f)(x), f(x))


def test_views_of_deferred_results():
    def f(x):
        y = x * 2 + 1
        return y.t() * 3, y[1], y.reshape(-1)[::2] + 0

    x = genesis.randn(4, 6)
    for g, w in zip(genesis.compile(f)(x), f(x)):
        same(g, w)


def test_other_ops_read_deferred_results():
    def f(x, w):
        y = genesis.relu(x * 2 - 1)
        return (y @ w).sum(dim=0), y.sum(), genesis.cat([y, y + 1])

    x, w = genesis.randn(8, 5), genesis.randn(5, 3)
    for g, w_ in zip(genesis.compile(f)(x, w), f(x, w)):
        same(g, w_)


def test_exports_inside_the_function():
    seen = {}

    def f(x):
        y = x + 1
        seen["numpy"] = y.numpy().copy()
        seen["dlpack"] = np.from_dlpack(x * 3).copy()
        return y

    x = genesis.randn(16)
    genesis.compile(f)(x)
    np.testing.assert_array_equal(seen["numpy"], (x + 1).numpy())
    np.testing.assert_array_equal(seen["dlpack"], (x * 3).numpy())


def test_printing_inside_the_function(capsys):
    @genesis.compile
    def f(x):
        y = x * 10
        print(y)
        return y

    f(genesis.ones(3))
    assert "10." in capsys.readouterr().out


def gelu_loss(x, w):
    return (gelu_tanh(x * w) * 3).sum()


def loss_and_grads(fn, x0, w0):
    """fn(x, w)'s loss, the fused ops its backward ran, and the gradients of x and w."""
    x, w = x0.clone().requires_grad_(), w0.clone().requires_grad_()
    loss = fn(x, w)
    fusion.reset_stats()
    loss.backward()
    return loss.detach(), fusion.stats()["ops"], x.grad, w.grad


def test_autograd_through_a_compiled_function():
    x0, w0 = genesis.randn(200), genesis.randn(200)
    eager = loss_and_grads(gelu_loss, x0, w0)
    compiled = loss_and_grads(genesis.compile(gelu_loss), x0, w0)
    for i in (0, 2, 3):
        same(compiled[i], eager[i])


def test_an_error_inside_the_function_still_runs_deferred_ops():
    kept = []

    @genesis.compile
    def f(x):
        kept.append(x * 2)
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        f(genesis.arange(4.0))
    assert not fusion.region_active()
    same(kept[0], genesis.arange(4.0) * 2)


def test_errors_of_ops_are_raised_at_the_op():
    @genesis.compile
    def f(x):
        return x + genesis.ones(3)

    with pytest.raises(
        RuntimeError, match=r"\[__add__\] shapes \(4,\) and \(3,\) cannot be broadcast"
    ):
        f(genesis.ones(4))
    assert not fusion.region_active()


def test_long_chains_run_as_several_groups():
    def f(x):
        for _ in range(150):
            x = x * 1.001 + 0.01
        return x

    x = genesis.randn(64)
    out, s = stats_after(genesis.compile(f), x)
    assert s["groups"] >= 3 and s["ops"] == 300
    same(out, f(x))


def test_changing_shapes_within_a_function():
    def f(x, row):
        y = x * 2
        z = y + row  # same shape: joins
        col = (z.sum(dim=1, keepdim=True) * 0.5).exp()  # a reduction reads z
        return z / col, (row * 3).sin()  # another shape: a new group

    x, row = genesis.randn(6, 5), genesis.randn(5)
    for g, w in zip(genesis.compile(f)(x, row), f(x, row)):
        same(g, w)


def test_interleaved_shapes_keep_their_groups_open():
    """Note [Open groups]: ops of two shapes taking turns join one group per shape."""

    def f(x, p):
        y = x * 2
        q = p + 1
        y = (y + 3).tanh()
        q = q * q
        return y - 1, q.exp()

    x, p = genesis.randn(100), genesis.randn(7)
    got, s = stats_after(genesis.compile(f), x, p)
    assert s["groups"] == 2 and s["ops"] == 7
    for g, w in zip(got, f(x, p)):
        same(g, w)


def test_a_value_pending_in_another_group_runs_it_first():
    def f(x, p):
        q = (p * 3).sin()  # pending in the group of p's shape
        y = x * 2  # the group of x's shape
        return y + q, q  # reads q broadcast: q's group runs, then y + q joins y's

    x, p = genesis.randn(10, 7), genesis.randn(7)
    got, s = stats_after(genesis.compile(f), x, p)
    assert s["groups"] == 2
    for g, w in zip(got, f(x, p)):
        same(g, w)


def test_more_shapes_than_open_groups():
    def f(xs):
        ys = [x * 2 for x in xs]
        return [(y + 1) * y for y in ys]

    xs = [genesis.randn(n) for n in range(1, 21)]  # 20 shapes: the oldest groups run early
    got, s = stats_after(genesis.compile(f), xs)
    for g, w in zip(got, f(xs)):
        same(g, w)
    assert s["groups"] >= 20


def test_zero_size_and_zero_dim():
    def f(x, s):
        return x * 2 + 1, s * 3 - s

    x, s = genesis.ones(0, 4), genesis.tensor(2.5)
    for g, w in zip(genesis.compile(f)(x, s), f(x, s)):
        same(g, w)


def test_results_outlive_the_call_and_are_not_pending():
    out = genesis.compile(gelu_tanh)(genesis.randn(100))
    assert not fusion.region_active()
    # a second compiled call does not change the first one's result
    first = out.numpy().copy()
    genesis.compile(gelu_tanh)(genesis.randn(100))
    np.testing.assert_array_equal(out.numpy(), first)


def test_nested_regions_run_at_the_outermost_exit():
    inner = genesis.compile(lambda x: x * 2)

    @genesis.compile
    def outer(x):
        y = inner(x) + 1
        assert fusion.region_active()
        return y

    fusion.reset_stats()
    x = genesis.randn(10)
    same(outer(x), x * 2 + 1)
    assert fusion.stats()["groups"] == 1


def test_threads_have_their_own_regions():
    compiled = genesis.compile(gelu_tanh)
    xs = [genesis.randn(5000) for _ in range(4)]
    results = [None] * 4

    def work(i):
        for _ in range(5):
            results[i] = compiled(xs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, r in zip(xs, results):
        same(r, gelu_tanh(x))


def test_debug_log_describes_groups(capfd):
    genesis.compile(gelu_tanh, debug=True)(genesis.randn(10))
    err = capfd.readouterr().err
    assert "fused group: 9 ops over (10,)" in err
    assert "Tanh(%5)" in err and "[written]" in err
    assert "ran because the compiled region ended:" in err


def test_log_says_why_groups_ran_and_where_the_graph_broke(capfd):
    def f(x, small):
        y = (x * 2).exp()
        if y.sum().item() > 0:  # a graph break; the sum's group runs for the read
            y = y + 1
        z = y.cumsum(0)  # an op that does not fuse reads y
        w = (small + 1) * 2
        return z * 3, w

    genesis.compile(f, debug=True)(genesis.randn(50), genesis.randn(7))
    err = capfd.readouterr().err
    assert "[genesis.compile] graph break: item() reads a tensor's value into Python" in err
    assert (
        err.count("ran because an op that does not fuse, a read or a write needed its values") == 2
    )
    assert err.count("ran because the compiled region ended") == 2


# ---- the front end ---------------------------------------------------------------------------


def test_decorator_forms_and_backends():
    @genesis.compile
    def a(x):
        return x + 1

    @genesis.compile(mode="max-autotune")
    def b(x):
        return x + 1

    x = genesis.ones(3)
    same(a(x), x + 1)
    same(b(x), x + 1)
    fusion.reset_stats()
    same(genesis.compile(lambda x: x * 2 + 1, backend="eager")(x), x * 2 + 1)
    assert fusion.stats()["groups"] == 0
    same(genesis.compile(lambda x: x * 2, backend="inductor")(x), x * 2)
    f = lambda x: x  # noqa: E731
    assert genesis.compile(f, disable=True) is f
    assert genesis.compile(gelu_tanh).__name__ == "gelu_tanh"


def test_bad_arguments():
    with pytest.raises(RuntimeError, match="compile: unknown backend"):
        genesis.compile(gelu_tanh, backend="tvm")
    with pytest.raises(RuntimeError, match="compile: unrecognized mode"):
        genesis.compile(gelu_tanh, mode="fast")
    with pytest.raises(TypeError, match="compile: expected a callable"):
        genesis.compile(3)
    with pytest.raises(RuntimeError, match="both"):
        genesis.compile(gelu_tanh, mode="default", options={})
    with pytest.raises(RuntimeError, match=r"\[compile\] a compiled region was closed more"):
        fusion.exit_region()


def test_compiled_modules():
    nn = genesis.nn
    genesis.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(approximate="tanh"), nn.Linear(16, 4))
    x = genesis.randn(5, 8)
    want = model(x)
    opt = genesis.compile(model)
    assert type(opt).__name__ == "OptimizedModule" and opt._orig_mod is model
    same(opt(x), want)
    assert list(opt.state_dict()) == ["_orig_mod." + k for k in model.state_dict()]
    model.note = "kept"
    assert opt.note == "kept"  # attributes fall through to the original module
    opt.eval()
    assert not model.training
    model.compile()
    assert type(model).__name__ == "Sequential"
    same(model(x), want)
    assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_is_compiling():
    seen = []
    genesis.compile(lambda x: seen.append(genesis._compile.is_compiling()) or x)(genesis.ones(1))
    assert seen == [True] and not genesis._compile.is_compiling()


def test_backward_of_a_compiled_forward_fuses_too():
    """The gradient ops of a graph recorded in a compiled region run in one (fused groups)."""
    x0, w0 = genesis.randn(300), genesis.randn(300)
    eager = loss_and_grads(gelu_loss, x0, w0)
    compiled = loss_and_grads(genesis.compile(gelu_loss), x0, w0)
    assert eager[1] == 0 and compiled[1] > 5
    for i in (2, 3):
        same(compiled[i], eager[i])


def test_fullgraph_raises_where_a_value_reaches_python():
    def f(x):
        y = x * 2
        if y.sum() > 0:  # bool() of a tensor: a graph break
            return y
        return -y

    x = genesis.ones(4)
    assert genesis.compile(f)(x).tolist() == [2.0] * 4  # without fullgraph: runs and goes on
    strict = genesis.compile(f, fullgraph=True)
    with pytest.raises(RuntimeError, match=r"\[bool\] genesis.compile\(fullgraph=True\)") as info:
        strict(x)
    assert "if y.sum() > 0" in str(info.traceback[-1])  # the user's line is in the traceback
    assert not fusion.region_active()
    for read in (lambda t: t.item(), lambda t: t.tolist(), lambda t: t.numpy(), float, int):
        with pytest.raises(RuntimeError, match="fullgraph=True"):
            genesis.compile(lambda t, read=read: read(t * 2), fullgraph=True)(genesis.ones(1))
    # a function without reads compiles fully
    same(genesis.compile(gelu_tanh, fullgraph=True)(x), gelu_tanh(x))


@pytest.mark.parametrize("device", DEVICES)
def test_casts_join_groups(device):
    """Casts (to(), .float(), autocast's) fuse with the ops around them, with eager's values."""

    def f(x, y):
        h = (x.float() * 1.5 + y).bfloat16()  # bf16 -> f32 -> ... -> bf16
        return genesis.tanh(h).to(genesis.float16), (h > 0).int() * 3, h.clone()

    x = genesis.randn(1000, device=device).bfloat16()
    y = genesis.randn(1000, device=device)
    fusion.reset_stats()
    got = genesis.compile(f)(x, y)
    if device == "cpu":
        assert fusion.stats()["groups"] == 1
    for g, w in zip(got, f(x, y)):
        same(g, w)


def test_every_cast_pair_matches_eager():
    names = FLOAT_DTYPES + INT_DTYPES + ["bool", "int8", "int64"]
    rng = np.random.default_rng(0)
    for src in names:
        x = _random_value(rng, (257,), src if src != "bool" else "int32")
        if src == "bool":
            x = x > 0
        # a strided view too
        for view in (x, x[::2]):
            for dst in names:
                dt = getattr(genesis, dst)
                same(
                    genesis.compile(
                        lambda v, dt=dt: v.to(dt) + 0 if dt != genesis.bool else v.to(dt)
                    )(view),
                    view.to(dt) + 0 if dt != genesis.bool else view.to(dt),
                )


def test_memory_others_may_write_is_read_at_once():
    """An op reading memory genesis does not own (NumPy's, DLPack's, an exported address) runs
    at once: a later write by its owner cannot reach a deferred read."""

    def f(a):
        t = genesis.from_numpy(a)
        y = t * 2 + 1
        a += 100  # NumPy writes the memory after the ops
        return y

    a = np.arange(5.0, dtype=np.float32)
    same(genesis.compile(f)(a.copy()), genesis.tensor(a * 2 + 1))

    def g(t):
        y = t * 2
        view = t.numpy()  # the address leaves genesis: y is computed first
        view += 100
        return y, t * 3  # t is shared now: read at once

    t = genesis.arange(4.0)
    y, z = genesis.compile(g)(t)
    same(y, genesis.arange(4.0) * 2)
    same(z, (genesis.arange(4.0) + 100) * 3)
