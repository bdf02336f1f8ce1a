"""Custom differentiable ops: genesis.autograd.Function against torch.autograd.Function.

Each Function is written once as a factory of the library module (make_exp(m) returns the
class for m = genesis or m = torch), so the genesis and torch versions are the same code; the
tests run both on the same float64 data and compare outputs and gradients (rtol 1e-6).

Covered: forward/backward (one input, two inputs, a non-tensor argument, keyword arguments),
the node (name, next_functions, is_leaf), needs_input_grad, no_grad and inputs that need no
grad, tuple outputs (zeros for unused ones, non-tensor elements), mark_non_differentiable, an
input returned as it is, setup_context, the errors of a wrong backward (count, type, trailing
Nones, its own exceptions), saved tensors (version check, release after backward,
retain_graph), double backward and once_differentiable, gradcheck/gradgradcheck, mark_dirty,
a Function inside a larger graph and in threads, and that graphs are freed (no reference
cycle through ctx).
"""

import gc
import threading
import weakref

import numpy as np
import pytest
from conftest import skip_lifetime_check_under_sanitizer, to_numpy

import genesis

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-6, 1e-9


# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


def rand(shape, seed=0, low=None, high=None):
    """Random float64 NumPy data (standard normal, or uniform in [low, high])."""
    rng = np.random.default_rng(seed)
    if low is None:
        return np.asarray(rng.standard_normal(shape))
    return np.asarray(rng.uniform(low, high, shape))


def leaf(m, a, device="cpu", requires_grad=True):
    """A leaf of library m holding NumPy array a (genesis on `device`, torch on the CPU)."""
    if m is genesis:
        return genesis.tensor(a, device=device, requires_grad=requires_grad)
    return torch.tensor(a, requires_grad=requires_grad)


def np_of(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach())
    return t.detach().cpu().numpy()


def assert_close(got, want, rtol=RTOL, atol=ATOL):
    """genesis tensor got has the shape and values of torch tensor (or array) want."""
    assert isinstance(got, genesis.Tensor), type(got)
    want = np_of(want) if isinstance(want, torch.Tensor) else np.asarray(want)
    assert tuple(got.shape) == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(np_of(got), want, rtol=rtol, atol=atol)


def run_both(factory, arrays, device, extra=(), seed=100):
    """Applies factory(m) to leaves made of arrays (plus the non-tensor extra arguments) on
    genesis and torch, backpropagates the same random gradient through the first output, and
    compares that output and the leaves' gradients. Returns the genesis (output, leaves)."""
    results = {}
    for m in (genesis, torch):
        leaves = [leaf(m, a, device) for a in arrays]
        out = factory(m).apply(*leaves, *extra)
        first = out[0] if isinstance(out, tuple) else out
        v = rand(tuple(first.shape), seed)
        first.backward(leaf(m, v, device, requires_grad=False))
        results[m] = (first, leaves)
    (gout, gleaves), (tout, tleaves) = results[genesis], results[torch]
    assert_close(gout, tout)
    for g, t in zip(gleaves, tleaves):
        assert g.grad is not None
        assert str(g.grad.device) == str(g.device)
        assert_close(g.grad, t.grad)
    return gout, gleaves


class Marker:
    """An object to store on ctx and watch through a weakref."""


# ----------------------------------------------------------------------------------------------
# The Functions (one body for genesis and torch)
# ----------------------------------------------------------------------------------------------


def make_exp(m, markers=None):
    class Exp(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            if markers is not None:
                ctx.marker = Marker()
                markers.append(weakref.ref(ctx.marker))
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    return Exp


def make_mul(m):
    class Mul(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    return Mul


def make_scale(m):
    class Scale(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.scale = scale
            return x * scale

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale, None

    return Scale


def make_cube(m, once=False):
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * g

    if once:
        backward = m.autograd.function.once_differentiable(backward)

    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

    Cube.backward = staticmethod(backward)
    return Cube


def make_sin_cos(m, seen=None):
    """Two outputs; backward records the gradients it got."""

    class SinCos(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, gs, gc):
            if seen is not None:
                seen.append((gs, gc))
            (x,) = ctx.saved_tensors
            return gs * x.cos() - gc * x.sin()

    return SinCos


def make_sort(m):
    """(sorted values, indices as floats), the indices marked non-differentiable."""

    class Sort(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            values, indices = x.sort()
            indices = indices.to(x.dtype)
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return values, indices

        @staticmethod
        def backward(ctx, gv, gi):
            (indices,) = ctx.saved_tensors
            grad = m.zeros_like(gv)
            grad[indices.long()] = gv
            return grad

    return Sort


def make_identity(m):
    """Returns its input as it is; backward doubles the gradient (to see it ran)."""

    class Identity(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Identity


def make_exp_setup_context(m):
    class ExpSetup(m.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    return ExpSetup


def make_with_backward(m, backward):
    """forward: the product of its inputs times 2; backward as given."""

    class Custom(m.autograd.Function):
        @staticmethod
        def forward(ctx, *xs):
            out = xs[0] * 2
            for x in xs[1:]:
                out = out * x
            return out

    Custom.backward = staticmethod(backward)
    return Custom


# ----------------------------------------------------------------------------------------------
# Forward and backward
# ----------------------------------------------------------------------------------------------


def test_exp(device):
    out, _ = run_both(make_exp, [rand((3, 4))], device)
    assert out.device.type == device


def test_two_inputs(device):
    run_both(make_mul, [rand((3, 4), 1), rand((3, 4), 2)], device)


def test_non_tensor_argument(device):
    run_both(make_scale, [rand((5,))], device, extra=(2.5,))


def test_keyword_argument(device):
    def make(m):
        class Scaled(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, scale=1.0):
                ctx.scale = scale
                return x * scale

            @staticmethod
            def backward(ctx, g):
                return g * ctx.scale, None

        return Scaled

    x = leaf(genesis, rand((4,)), device)
    y = make(genesis).apply(x, scale=3.0)
    y.sum().backward()
    assert_close(y, rand((4,)) * 3)
    assert_close(x.grad, np.full(4, 3.0))


def test_saved_input_and_intermediate(device):
    """Saving an input, an intermediate of forward and None."""

    def make(m):
        class SinSq(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                s = x.sin()
                ctx.save_for_backward(x, s, None)
                return s * s

            @staticmethod
            def backward(ctx, g):
                x, s, nothing = ctx.saved_tensors
                assert nothing is None
                return g * 2 * s * x.cos()

        return SinSq

    run_both(make, [rand((2, 3))], device)


# ----------------------------------------------------------------------------------------------
# The node, needs_input_grad, no_grad
# ----------------------------------------------------------------------------------------------


def test_grad_fn(device):
    x = leaf(genesis, rand((3,)), device)
    y = make_exp(genesis).apply(x)
    assert y.grad_fn.name() == "ExpBackward"
    assert not y.is_leaf and y.requires_grad
    assert x.is_leaf and x.grad_fn is None
    ((node, nr),) = y.grad_fn.next_functions
    assert node.name() == "AccumulateGrad" and nr == 0


def test_next_functions_link_inputs(device):
    """Edges to a non-leaf input's node, to a leaf's accumulator, and none for a tensor that
    needs no grad (as torch)."""
    x = leaf(genesis, rand((3,)), device)
    z = x * 1
    out = make_mul(genesis).apply(z, x)
    (n0, nr0), (n1, nr1) = out.grad_fn.next_functions[:2]
    assert n0.name() == "MulBackward0" and nr0 == 0
    assert n1.name() == "AccumulateGrad" and nr1 == 0
    assert z.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    c = leaf(genesis, rand((3,)), device, requires_grad=False)
    out = make_mul(genesis).apply(c, x)
    assert out.grad_fn.next_functions[0][0] is None
    assert out.grad_fn.next_functions[1][0].name() == "AccumulateGrad"


def make_recorder(m, log):
    """Records ctx.needs_input_grad and that forward ran."""

    class Recorder(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, *rest):
            log.append(tuple(ctx.needs_input_grad))
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2,) + (None,) * (len(ctx.needs_input_grad) - 1)

    return Recorder


def test_no_input_requires_grad(device):
    log = []
    x = leaf(genesis, rand((3,)), device, requires_grad=False)
    y = make_recorder(genesis, log).apply(x, x)
    assert log == [(False, False)]
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    assert_close(y, rand((3,)) * 2)


def test_apply_under_no_grad(device):
    log = []
    x = leaf(genesis, rand((3,)), device)
    with genesis.no_grad():
        y = make_recorder(genesis, log).apply(x)
    assert log == [(False,)]
    assert not y.requires_grad and y.grad_fn is None
    assert_close(y, rand((3,)) * 2)


def test_needs_input_grad_mixed():
    logs = {}
    for m in (genesis, torch):
        logs[m] = []
        x = leaf(m, rand((2,)))
        c = leaf(m, rand((2,)), requires_grad=False)
        make_recorder(m, logs[m]).apply(x, c, 3.0, None).sum().backward()
    assert logs[genesis] == [(True, False, False, False)]
    assert logs[genesis] == logs[torch]


# ----------------------------------------------------------------------------------------------
# Outputs
# ----------------------------------------------------------------------------------------------


def test_tuple_outputs_one_used(device):
    """backward gets zeros for the output the loss does not use (materialized, as torch)."""
    seen = {genesis: [], torch: []}
    grads = {}
    for m in (genesis, torch):
        x = leaf(m, rand((4,)), device)
        s, c = make_sin_cos(m, seen[m]).apply(x)
        assert s.grad_fn is c.grad_fn
        (s * 3).sum().backward()
        grads[m] = x.grad
    assert_close(grads[genesis], grads[torch])
    ((gs, gc),) = seen[genesis]
    assert isinstance(gc, genesis.Tensor)
    assert_close(gc, np.zeros(4))
    assert_close(gs, np.full(4, 3.0))


def test_tuple_outputs_both_used(device):
    def make(m):
        class Both(make_sin_cos(m)):
            pass

        return Both

    results = {}
    for m in (genesis, torch):
        x = leaf(m, rand((4,)), device)
        s, c = make(m).apply(x)
        (s * c + c).sum().backward()
        results[m] = x.grad
    assert_close(results[genesis], results[torch])


def test_non_tensor_output_passes_through(device):
    got = []

    class WithExtras(genesis.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, "label", 7

        @staticmethod
        def backward(ctx, g, g_label, g_seven):
            got.append((g_label, g_seven))
            return g * 2

    x = leaf(genesis, rand((3,)), device)
    y, label, seven = WithExtras.apply(x)
    assert (label, seven) == ("label", 7)
    y.sum().backward()
    assert got == [(None, None)]
    assert_close(x.grad, np.full(3, 2.0))


def test_mark_non_differentiable(device):
    results = {}
    for m in (genesis, torch):
        x = leaf(m, np.array([3.0, 1.0, 2.0, 0.5]), device)
        values, indices = make_sort(m).apply(x)
        assert values.requires_grad and not indices.requires_grad
        assert indices.grad_fn is None
        (values * leaf(m, np.arange(4.0), device, False)).sum().backward()
        results[m] = (values, indices, x.grad)
    for g, t in zip(results[genesis], results[torch]):
        assert_close(g, t)


def test_mark_non_differentiable_input_returned():
    for m in (genesis, torch):
        x = leaf(m, rand((2,)))

        class Pass(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(x)
                return x, x * 2

            @staticmethod
            def backward(ctx, ga, gb):
                return gb * 2

        a, b = Pass.apply(x)
        assert not a.requires_grad, m.__name__
        assert x.is_leaf and x.requires_grad
        b.sum().backward()
        np.testing.assert_allclose(np_of(x.grad), [2.0, 2.0])


def test_input_returned_as_is(device):
    results = {}
    for m in (genesis, torch):
        x = leaf(m, rand((3,)), device)
        y = make_identity(m).apply(x)
        assert y is not x
        assert y.grad_fn is not None and y.grad_fn.name() == "IdentityBackward"
        assert x.is_leaf and x.grad_fn is None and x.requires_grad
        (y * 3).sum().backward()
        results[m] = (y, x.grad)
    for g, t in zip(results[genesis], results[torch]):
        assert_close(g, t)
    assert_close(results[genesis][1], np.full(3, 6.0))


def test_keyword_tensor_returned_as_is_stays_a_leaf():
    for m in (genesis, torch):

        class ReturnsOther(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, other=None):
                return x * 2, other

            @staticmethod
            def backward(ctx, g, g_other):
                return g * 2, None

        x, w = leaf(m, rand((2,))), leaf(m, rand((2,), 1))
        try:
            _, b = ReturnsOther.apply(x, other=w)
        except TypeError as e:
            # torch before 2.12 takes no keyword arguments in apply; genesis must.
            if m is torch and "keyword" in str(e):
                continue
            raise
        assert w.is_leaf and w.grad_fn is None, m.__name__
        assert b is not w


def test_setup_context(device):
    run_both(make_exp_setup_context, [rand((3, 2))], device)


# ----------------------------------------------------------------------------------------------
# Errors of backward
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "backward, n_inputs",
    [
        (lambda ctx, g: g, 2),  # too few
        (lambda ctx, g: (g, g), 1),  # too many (not None)
        (lambda ctx, g: (g, None, g), 2),
    ],
    ids=["too_few", "too_many", "extra_tensor"],
)
def test_wrong_number_of_gradients(backward, n_inputs):
    for m in (genesis, torch):
        xs = [leaf(m, rand((2,), i)) for i in range(n_inputs)]
        fn = make_with_backward(m, backward)
        with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
            fn.apply(*xs).sum().backward()


def test_non_tensor_gradient():
    x = leaf(genesis, rand((2,)))
    fn = make_with_backward(genesis, lambda ctx, g: 1.0)
    with pytest.raises(TypeError, match="returned a gradient of type float"):
        fn.apply(x).sum().backward()


def test_gradient_for_a_non_tensor_argument():
    for m in (genesis, torch):
        x = leaf(m, rand((2,)))

        class Scale(make_scale(m)):
            @staticmethod
            def backward(ctx, g):
                return g * ctx.scale, g

        with pytest.raises(RuntimeError, match="returned a gradient different than None at"):
            Scale.apply(x, 2.0).sum().backward()


def test_trailing_nones_allowed(device):
    x = leaf(genesis, rand((2,)), device)
    fn = make_with_backward(genesis, lambda ctx, g: (g * 2, None, None))
    fn.apply(x).sum().backward()
    assert_close(x.grad, np.full(2, 2.0))


def test_exception_in_backward_propagates():
    class MyError(ValueError):
        pass

    def backward(ctx, g):
        raise MyError("boom in backward")

    x = leaf(genesis, rand((2,)))
    y = genesis.sin(make_with_backward(genesis, backward).apply(x)).sum()
    with pytest.raises(MyError, match="^boom in backward$") as excinfo:
        y.backward()
    assert type(excinfo.value) is MyError


def test_save_for_backward_rejects_non_tensors():
    ctx = genesis.autograd.FunctionCtx()
    with pytest.raises(TypeError, match="save_for_backward can only save tensors"):
        ctx.save_for_backward(genesis.ones(1), 3.0)


def test_mark_dirty_not_supported():
    class InPlace(genesis.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(NotImplementedError, match="mark_dirty"):
        InPlace.apply(leaf(genesis, rand((2,))) * 1)


# ----------------------------------------------------------------------------------------------
# Saved tensors
# ----------------------------------------------------------------------------------------------

INPLACE = "modified by an inplace operation"


def test_saved_input_modified_in_place(device):
    """A saved input that needs no grad, written after apply."""
    for m in (genesis, torch):
        x = leaf(m, rand((3,)), device)
        c = leaf(m, rand((3,), 1), device, requires_grad=False)
        out = make_mul(m).apply(x, c)
        with m.no_grad():
            c.add_(1)
        with pytest.raises(RuntimeError, match=INPLACE):
            out.sum().backward()


def test_saved_non_leaf_modified_in_place(device):
    for m in (genesis, torch):
        x = leaf(m, rand((3,)), device)
        z = x * 1
        out = make_cube(m).apply(z)
        with m.no_grad():
            z.mul_(2)
        with pytest.raises(RuntimeError, match=INPLACE):
            out.sum().backward()


def test_saved_output_modified_in_place(device):
    for m in (genesis, torch):
        x = leaf(m, rand((3,)), device)
        y = make_exp(m).apply(x)
        with m.no_grad():
            y.mul_(2)
        with pytest.raises(RuntimeError, match=INPLACE):
            y.sum().backward()


def test_backward_twice_without_retain_graph(device):
    contexts = []

    class Keep(genesis.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            contexts.append(ctx)
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = leaf(genesis, rand((3,)), device)
    y = Keep.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        contexts[0].saved_tensors  # noqa: B018 (the property raises)
    del y
    gc.collect()
    skip_lifetime_check_under_sanitizer(device)
    with pytest.raises(RuntimeError, match="saved_tensors"):
        contexts[0].saved_tensors  # noqa: B018


def test_retain_graph_accumulates(device):
    results = {}
    for m in (genesis, torch):
        x = leaf(m, rand((3,), 1), device)
        c = leaf(m, rand((3,), 2), device)
        y = make_mul(m).apply(x, c).sum()
        y.backward(retain_graph=True)
        y.backward()
        results[m] = (x.grad, c.grad)
    for g, t in zip(results[genesis], results[torch]):
        assert_close(g, t)
    assert_close(results[genesis][0], 2 * rand((3,), 2))


# ----------------------------------------------------------------------------------------------
# Double backward, once_differentiable, gradcheck
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("factory", [make_cube, make_exp], ids=["cube", "exp_saved_output"])
def test_double_backward(factory, device):
    results = {}
    for m in (genesis, torch):
        x = leaf(m, rand((4,), 3), device)
        (g,) = m.autograd.grad(factory(m).apply(x).sum(), [x], create_graph=True)
        assert g.requires_grad
        w = leaf(m, rand((4,), 4), device, requires_grad=False)
        (g2,) = m.autograd.grad((g * w).sum(), [x])
        results[m] = (g, g2)
    for got, want in zip(results[genesis], results[torch]):
        assert_close(got, want)


def test_once_differentiable(device):
    x = leaf(genesis, rand((4,), 3), device)
    (g,) = genesis.autograd.grad(
        make_cube(genesis, once=True).apply(x).sum(), [x], create_graph=True
    )
    assert not g.requires_grad and g.grad_fn is None
    assert_close(g, 3 * rand((4,), 3) ** 2)


@pytest.mark.parametrize(
    "factory", [make_exp, make_cube, make_mul, make_exp_setup_context], ids=lambda f: f.__name__
)
def test_gradcheck(factory):
    n = 2 if factory is make_mul else 1
    inputs = tuple(leaf(genesis, rand((3,), i, 0.5, 1.5)) for i in range(n))
    fn = factory(genesis).apply
    assert genesis.autograd.gradcheck(fn, inputs)
    assert genesis.autograd.gradgradcheck(fn, inputs)


def test_gradcheck_fails_on_wrong_backward():
    def wrong(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * x * g  # d(x**3) is 3 x**2

    def make(m):
        class WrongCube(make_cube(m)):
            pass

        WrongCube.backward = staticmethod(wrong)
        return WrongCube

    x = leaf(genesis, rand((3,), 0, 0.5, 1.5))
    assert genesis.autograd.gradcheck(make(genesis).apply, (x,), raise_exception=False) is False
    with pytest.raises(genesis.autograd.GradcheckError):
        genesis.autograd.gradcheck(make(genesis).apply, (x,))


# ----------------------------------------------------------------------------------------------
# In a graph, in threads, and freeing the graph
# ----------------------------------------------------------------------------------------------


def test_inside_a_larger_graph(device):
    results = {}
    for m in (genesis, torch):
        x = leaf(m, rand((3, 2)), device)
        w = leaf(m, rand((3, 2), 1), device)
        y = make_mul(m).apply(m.sin(x), w)
        (make_exp(m).apply(y) * 2).sum().backward()
        results[m] = (x.grad, w.grad)
    for g, t in zip(results[genesis], results[torch]):
        assert_close(g, t)


def test_threads():
    """Independent graphs through the same Function in two threads."""
    fn = make_cube(genesis)
    errors, grads = [], {}

    def work(k):
        try:
            for _ in range(30):
                x = leaf(genesis, rand((5,), k))
                genesis.sin(fn.apply(x)).sum().backward()
            grads[k] = x.grad
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in (1, 2):
        a = rand((5,), k)
        assert_close(grads[k], np.cos(a**3) * 3 * a**2)


@pytest.mark.parametrize("after", ["del", "backward", "retain_graph", "create_graph"])
def test_graph_is_freed(after, device):
    """Nothing keeps the node and its ctx alive once the outputs are gone (no reference cycle
    through ctx: the output saved for backward must not keep its own node)."""
    markers = []
    x = leaf(genesis, rand((3,)), device)
    y = make_exp(genesis, markers).apply(x)
    g = None
    if after == "backward":
        y.sum().backward()
    elif after == "retain_graph":
        y.sum().backward(retain_graph=True)
    elif after == "create_graph":
        (g,) = genesis.autograd.grad(y.sum(), [x], create_graph=True)
    assert markers[0]() is not None
    skip_lifetime_check_under_sanitizer(device)
    del y, g
    gc.collect()
    assert markers[0]() is None


def test_graph_of_tuple_outputs_is_freed(device):
    markers = []

    class Pair(genesis.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x.exp(), x.sin()
            ctx.save_for_backward(a, b, x)
            ctx.mark_non_differentiable(b)
            ctx.marker = Marker()
            markers.append(weakref.ref(ctx.marker))
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            a, _, _ = ctx.saved_tensors
            return ga * a

    x = leaf(genesis, rand((3,)), device)
    a, b = Pair.apply(x)
    skip_lifetime_check_under_sanitizer(device)
    del a, b
    gc.collect()
    assert markers[0]() is None
