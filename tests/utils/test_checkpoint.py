"""genesis.utils.checkpoint: gradients equal to the run without checkpoint (arguments and
parameters, with dropout thanks to the restored random state), against torch.utils.checkpoint on
the same weights, the argument checks and errors of torch 2.13, and the memory it saves (the
recorded graph on every device, peak CUDA memory on a GPU)."""

import contextlib
import gc
import warnings

import numpy as np
import pytest
import test_docstrings as rules  # tests/project, on sys.path through tests/conftest.py
from conftest import requires_cuda

import genesis
import genesis.nn as nn
from genesis.utils import checkpoint as ckpt_module
from genesis.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential


def _np(t):
    return np.array(t.detach().cpu().numpy())  # a copy: .grad accumulates in place


def _mlp(device, width=8, depth=3, dropout=0.0, seed=0):
    genesis.manual_seed(seed)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
        if dropout:
            layers.append(nn.Dropout(dropout))
    layers.append(nn.Linear(width, 2))
    return nn.Sequential(*layers).to(device)


def _grads(model):
    return [_np(p.grad) for p in model.parameters()]


def _zero(model, *tensors):
    for p in model.parameters():
        p.grad = None
    for t in tensors:
        t.grad = None


def _run(model, x, call, seed=7):
    """Output, input gradient and parameter gradients of call(model, x).sum().backward()."""
    _zero(model, x)
    genesis.manual_seed(seed)
    out = call(model, x)
    out.sum().backward()
    return _np(out), _np(x.grad), _grads(model)


def _assert_same(a, b, rtol=1e-5, atol=1e-6):
    out_a, gx_a, gp_a = a
    out_b, gx_b, gp_b = b
    np.testing.assert_allclose(out_a, out_b, rtol=rtol, atol=atol)
    np.testing.assert_allclose(gx_a, gx_b, rtol=rtol, atol=atol)
    assert len(gp_a) == len(gp_b)
    for ga, gb in zip(gp_a, gp_b):
        np.testing.assert_allclose(ga, gb, rtol=rtol, atol=atol)


def _plain(model, x):
    return model(x)


# ----------------------------------------------------------------------------- gradients


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_mlp_matches_plain(device, use_reentrant):
    model = _mlp(device)
    x = genesis.randn(5, 8, device=device).requires_grad_()
    want = _run(model, x, _plain)
    got = _run(model, x, lambda m, t: checkpoint(m, t, use_reentrant=use_reentrant))
    _assert_same(got, want)


def test_parameters_get_gradients_when_no_argument_requires_grad(device):
    model = _mlp(device)
    x = genesis.randn(4, 8, device=device)
    _zero(model)
    model(x).sum().backward()
    want = _grads(model)
    _zero(model)
    out = checkpoint(model, x, use_reentrant=False)
    assert out.requires_grad
    out.sum().backward()
    for g, w in zip(_grads(model), want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_gradients_accumulate_into_existing_grad(device):
    model = _mlp(device)
    x = genesis.randn(3, 8, device=device).requires_grad_()
    _zero(model, x)
    model(x).sum().backward()
    once = _grads(model)
    checkpoint(model, x, use_reentrant=False).sum().backward()
    for g, w in zip(_grads(model), once):
        np.testing.assert_allclose(g, 2 * w, rtol=1e-5, atol=1e-6)


def test_dropout_masks_match_with_preserved_rng_state(device):
    model = _mlp(device, width=16, dropout=0.5)
    x = genesis.randn(6, 16, device=device).requires_grad_()
    want = _run(model, x, _plain)
    got = _run(model, x, lambda m, t: checkpoint(m, t, use_reentrant=False))
    _assert_same(got, want)
    got_seq = _run(model, x, lambda m, t: checkpoint_sequential(m, 3, t, use_reentrant=False))
    _assert_same(got_seq, want)


def test_dropout_without_preserved_rng_state_draws_new_masks(device):
    model = _mlp(device, width=64, dropout=0.5)
    x = genesis.randn(8, 64, device=device).requires_grad_()
    want = _run(model, x, _plain)
    got = _run(
        model, x, lambda m, t: checkpoint(m, t, use_reentrant=False, preserve_rng_state=False)
    )
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)  # the same forward
    assert not np.allclose(got[1], want[1])  # the recomputation drew other masks


def test_preserve_rng_state_false_without_randomness(device):
    model = _mlp(device)
    x = genesis.randn(5, 8, device=device).requires_grad_()
    want = _run(model, x, _plain)
    got = _run(
        model, x, lambda m, t: checkpoint(m, t, use_reentrant=False, preserve_rng_state=False)
    )
    _assert_same(got, want)


def test_backward_leaves_the_callers_random_stream_alone(device):
    model = _mlp(device, dropout=0.5)
    x = genesis.randn(4, 8, device=device).requires_grad_()

    def draws(call):
        genesis.manual_seed(3)
        call(model, x).sum().backward()
        return genesis.rand(5).tolist()

    assert draws(_plain) == draws(lambda m, t: checkpoint(m, t, use_reentrant=False))


def test_nested_and_tuple_outputs(device):
    lin = nn.Linear(4, 3).to(device)
    x = genesis.randn(2, 4, device=device).requires_grad_()

    def f(t, scale):
        h = lin(t)
        return {"pair": (h.tanh(), h * scale), "list": [h.sum(1)], "tag": "ok", "n": 3}

    def loss(out):
        a, b = out["pair"]
        return a.sum() + (b * b).sum() + out["list"][0].pow(2).sum()

    _zero(lin, x)
    loss(f(x, 2.0)).backward()
    want = [_np(x.grad), _np(lin.weight.grad), _np(lin.bias.grad)]
    _zero(lin, x)
    out = checkpoint(f, x, 2.0, use_reentrant=False)
    assert out["tag"] == "ok" and out["n"] == 3
    assert isinstance(out["pair"], tuple) and isinstance(out["list"], list)
    loss(out).backward()
    for g, w in zip([_np(x.grad), _np(lin.weight.grad), _np(lin.bias.grad)], want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_only_some_outputs_used(device):
    x = genesis.randn(3, 4, device=device).requires_grad_()
    a, b = checkpoint(lambda t: (t.sin(), t.cos()), x, use_reentrant=False)
    a.sum().backward()
    np.testing.assert_allclose(_np(x.grad), np.cos(_np(x)), rtol=1e-5, atol=1e-6)


def test_outputs_that_do_not_require_grad(device):
    x = genesis.randn(3, 4, device=device).requires_grad_()
    y, idx, c = checkpoint(lambda t: (t * t, t.argmax(1), t.detach() + 1), x, use_reentrant=False)
    assert y.requires_grad and not idx.requires_grad  # integer outputs never require grad
    assert idx.dtype == genesis.int64
    (y.sum() + c.sum()).backward()  # c depends on nothing requiring grad: a zero gradient
    np.testing.assert_allclose(_np(x.grad), 2 * _np(x), rtol=1e-5, atol=1e-6)


def test_keyword_and_nested_arguments(device):
    lin = nn.Linear(4, 4).to(device)
    x = genesis.randn(2, 4, device=device).requires_grad_()
    w = genesis.randn(2, 4, device=device).requires_grad_()
    z = genesis.randn(2, 4, device=device).requires_grad_()

    def f(t, pair, *, weight, mode="tanh"):
        h = getattr(lin(t), mode)()
        return h * weight + pair[0] * pair[1]["k"]

    def grads():
        return [_np(v.grad) for v in (x, w, z, lin.weight)]

    _zero(lin, x, w, z)
    f(x, [z, {"k": 3.0}], weight=w, mode="sigmoid").sum().backward()
    want = grads()
    _zero(lin, x, w, z)
    checkpoint(
        f, x, [z, {"k": 3.0}], weight=w, mode="sigmoid", use_reentrant=False
    ).sum().backward()
    for g, e in zip(grads(), want):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_returned_input_keeps_its_own_history(device):
    x = genesis.randn(3, device=device).requires_grad_()
    y, same = checkpoint(lambda t: (t * 3, t), x, use_reentrant=False)
    (y.sum() + same.sum()).backward()
    np.testing.assert_allclose(_np(x.grad), np.full(3, 4.0, np.float32))


def test_nested_checkpoint(device):
    model = _mlp(device, depth=4, dropout=0.25)
    x = genesis.randn(4, 8, device=device).requires_grad_()
    layers = list(model.children())

    def inner(t):
        for layer in layers[:6]:
            t = layer(t)
        return t

    def outer(t):
        t = checkpoint(inner, t, use_reentrant=False)
        for layer in layers[6:]:
            t = layer(t)
        return t

    want = _run(model, x, _plain)
    got = _run(model, x, lambda m, t: checkpoint(outer, t, use_reentrant=False))
    _assert_same(got, want)


def test_retain_graph_recomputes_each_backward(device):
    model = _mlp(device)
    x = genesis.randn(3, 8, device=device).requires_grad_()
    _zero(model, x)
    out = checkpoint(model, x, use_reentrant=False).sum()
    out.backward(retain_graph=True)
    once = _np(x.grad)
    out.backward()
    np.testing.assert_allclose(_np(x.grad), 2 * once, rtol=1e-5, atol=1e-6)


def test_grad_gives_the_argument_gradients(device):
    x = genesis.randn(3, 4, device=device).requires_grad_()
    (gx,) = genesis.autograd.grad(checkpoint(lambda t: t.exp(), x, use_reentrant=False).sum(), x)
    np.testing.assert_allclose(_np(gx), np.exp(_np(x)), rtol=1e-5, atol=1e-6)
    assert x.grad is None


def test_under_no_grad_just_runs_the_function(device):
    model = _mlp(device)
    x = genesis.randn(2, 8, device=device).requires_grad_()
    with genesis.no_grad():
        out = checkpoint(model, x, use_reentrant=False)
    assert not out.requires_grad and out.grad_fn is None
    np.testing.assert_allclose(_np(out), _np(model(x)), rtol=1e-6)


def test_context_fn_wraps_forward_and_recomputation(device):
    events = []

    @contextlib.contextmanager
    def mark(name):
        events.append(f"enter {name}")
        yield
        events.append(f"exit {name}")

    x = genesis.randn(3, device=device).requires_grad_()
    out = checkpoint(
        lambda t: t.sin(), x, use_reentrant=False, context_fn=lambda: (mark("fwd"), mark("re"))
    )
    assert events == ["enter fwd", "exit fwd"]
    out.sum().backward()
    assert events == ["enter fwd", "exit fwd", "enter re", "exit re"]


# ----------------------------------------------------------------------------- against torch


def _torch_mlp(torch, model):
    """torch's copy of a genesis Sequential of Linear / Tanh / Dropout, weights through numpy."""
    layers = []
    for m in model.children():
        if isinstance(m, nn.Linear):
            t = torch.nn.Linear(m.in_features, m.out_features)
            with torch.no_grad():
                t.weight.copy_(torch.from_numpy(_np(m.weight)))
                t.bias.copy_(torch.from_numpy(_np(m.bias)))
            layers.append(t)
        elif isinstance(m, nn.Tanh):
            layers.append(torch.nn.Tanh())
        else:
            raise AssertionError(type(m))
    return torch.nn.Sequential(*layers)


@pytest.mark.parametrize("segments", ["one", "two", "len"])
def test_checkpoint_sequential_matches_torch(device, segments):
    torch = pytest.importorskip("torch")
    model = _mlp(device, depth=4)
    n = {"one": 1, "two": 2, "len": len(model)}[segments]
    ref = _torch_mlp(torch, model)
    data = np.random.default_rng(0).standard_normal((5, 8)).astype(np.float32)
    x = genesis.tensor(data, device=device).requires_grad_()
    tx = torch.tensor(data, requires_grad=True)

    got = _run(model, x, lambda m, t: checkpoint_sequential(m, n, t, use_reentrant=False))
    tout = torch.utils.checkpoint.checkpoint_sequential(ref, n, tx, use_reentrant=False)
    tout.sum().backward()
    want = (
        tout.detach().numpy(),
        tx.grad.numpy(),
        [p.grad.numpy() for p in ref.parameters()],
    )
    _assert_same(got, want, rtol=1e-4, atol=1e-5)
    _assert_same(got, _run(model, x, _plain))


def test_checkpoint_matches_torch_with_kwargs_and_tuples(device):
    torch = pytest.importorskip("torch")
    model = _mlp(device, depth=2)
    ref = _torch_mlp(torch, model)
    rng = np.random.default_rng(1)
    data, bias = (rng.standard_normal((4, 8)).astype(np.float32) for _ in range(2))

    def run(lib, net, x, b):
        def f(t, *, shift):
            h = net(t + shift)
            return h.sigmoid(), (h * h).sum()

        a, s = lib.utils.checkpoint.checkpoint(f, x, shift=b, use_reentrant=False)
        (a.sum() + s).backward()
        return [x.grad, b.grad, *[p.grad for p in net.parameters()]]

    x, b = (genesis.tensor(v, device=device).requires_grad_() for v in (data, bias))
    tx, tb = (torch.tensor(v, requires_grad=True) for v in (data, bias))
    got = run(genesis, model, x, b)
    want = run(torch, ref, tx, tb)
    for g, w in zip(got, want):
        np.testing.assert_allclose(_np(g), w.numpy(), rtol=1e-4, atol=1e-5)


def test_sequential_accepts_a_list_of_functions(device):
    fns = [lambda t: t * 2, genesis.sin, lambda t: t + 1]
    x = genesis.randn(4, device=device).requires_grad_()
    checkpoint_sequential(fns, 2, x, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * np.cos(2 * _np(x)), rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- checks and errors


def test_use_reentrant_none_warns_and_means_true():
    x = genesis.randn(3).requires_grad_()
    with pytest.warns(UserWarning, match=r"^\[checkpoint\] checkpoint: the use_reentrant"):
        checkpoint(lambda t: t * 2, x).sum().backward()
    np.testing.assert_allclose(_np(x.grad), np.full(3, 2.0, np.float32))
    with pytest.warns(UserWarning, match="use_reentrant"):
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
            checkpoint(lambda t, scale: t * scale, x, scale=2)
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant"):
        checkpoint_sequential([genesis.sin], 1, x)


def test_explicit_use_reentrant_does_not_warn():
    x = genesis.randn(3).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda t: t * 2, x, use_reentrant=False)
        checkpoint(lambda t: t * 2, x, use_reentrant=True)
        checkpoint_sequential([genesis.sin, genesis.cos], 2, x, use_reentrant=False)


def test_reentrant_refuses_kwargs_context_fn_and_debug():
    x = genesis.randn(3).requires_grad_()
    with pytest.raises(ValueError, match="Unexpected keyword arguments: a,b"):
        checkpoint(lambda t, a, b: t, x, a=1, b=2, use_reentrant=True)
    with pytest.raises(ValueError, match=r"\[checkpoint\] Passing `context_fn` or `debug`"):
        checkpoint(lambda t: t, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match=r"\[checkpoint\] Passing `context_fn` or `debug`"):
        checkpoint(lambda t: t, x, use_reentrant=True, context_fn=ckpt_module.noop_context_fn)
        checkpoint(
            lambda t: t,
            x,
            use_reentrant=True,
            context_fn=lambda: (contextlib.nullcontext(), contextlib.nullcontext()),
        )


def test_bad_arguments():
    x = genesis.randn(3).requires_grad_()
    with pytest.raises(ValueError, match=r"determinism_check should be one of"):
        checkpoint(lambda t: t, x, use_reentrant=False, determinism_check="shapes")
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential([genesis.sin], 1, x, use_reentrant=False, foo=1)
    for segments in (0, 3, 1.5):
        with pytest.raises(ValueError, match=r"\[checkpoint\] segments must be"):
            checkpoint_sequential([genesis.sin, genesis.cos], segments, x, use_reentrant=False)


class _Flaky:
    """Returns a different structure on its second call."""

    def __init__(self, second):
        self.calls = 0
        self.second = second

    def __call__(self, t):
        self.calls += 1
        return (t * 2,) if self.calls == 1 else self.second(t)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_recomputation_with_another_number_of_tensors_raises(device, use_reentrant):
    x = genesis.randn(3, device=device).requires_grad_()
    (y,) = checkpoint(_Flaky(lambda t: (t * 2, t * 3)), x, use_reentrant=use_reentrant)
    with pytest.raises(CheckpointError, match=r"^\[checkpoint\] a different number of tensors"):
        y.sum().backward()
    assert issubclass(CheckpointError, RuntimeError)


def test_recomputation_with_other_shapes_raises(device):
    x = genesis.randn(4, device=device).requires_grad_()
    (y,) = checkpoint(_Flaky(lambda t: (t[:2] * 2,)), x, use_reentrant=False)
    with pytest.raises(RuntimeError, match=r"(?s)^\[checkpoint\] recomputed values.*\[4\].*\[2\]"):
        y.sum().backward()


def test_recomputation_with_another_dtype_raises(device):
    x = genesis.randn(4, device=device).requires_grad_()
    (y,) = checkpoint(_Flaky(lambda t: ((t * 2).double(),)), x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="float64"):
        y.sum().backward()


def test_debug_names_the_function():
    x = genesis.randn(3).requires_grad_()

    calls = []

    def changing(t):
        calls.append(t)
        return (t,) * len(calls) if len(calls) > 1 else t * 2

    y = checkpoint(changing, x, use_reentrant=False, debug=True)
    with pytest.raises(CheckpointError, match="(?s)function: .*changing.*recomputed outputs"):
        y.sum().backward()


def test_double_backward_raises(device):
    x = genesis.randn(3, device=device).requires_grad_()
    y = checkpoint(lambda t: t**3, x, use_reentrant=False).sum()
    with pytest.raises(RuntimeError, match=r"^\[checkpoint\] double backward"):
        genesis.autograd.grad(y, x, create_graph=True)


def test_argument_written_in_place_before_backward_raises(device):
    x = genesis.randn(3, device=device).requires_grad_()
    a = x * 1
    y = checkpoint(lambda t: t.sin(), a, use_reentrant=False)
    with genesis.no_grad():
        a.add_(1)
    with pytest.raises(RuntimeError):
        y.sum().backward()


# ----------------------------------------------------------------------------- memory


def _graph_nodes(t):
    """The number of nodes reachable from t.grad_fn."""
    seen, todo = [], [t.grad_fn]  # a list: the nodes' wrappers stay alive, ids unique
    while todo:
        node = todo.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        todo.extend(fn for fn, _ in node.next_functions)
    return len(seen)


def test_checkpoint_records_no_activation_nodes(device):
    """The graph is where activations are saved: a checkpointed deep MLP records one node for
    the whole function (plus the leaves' accumulators), the plain one a node per op."""
    model = _mlp(device, depth=12)
    x = genesis.randn(4, 8, device=device).requires_grad_()
    plain = _graph_nodes(model(x))
    whole = _graph_nodes(checkpoint(model, x, use_reentrant=False))
    segmented = _graph_nodes(checkpoint_sequential(model, 5, x, use_reentrant=False))
    leaves = 1 + len(list(model.parameters()))
    assert whole == 1 + 1  # the checkpoint node and x's accumulator
    assert plain > 2 * 12 + leaves
    assert whole < segmented < plain


def test_activations_are_freed_after_forward(device):
    """An activation made inside the function is not kept alive by the graph."""
    import weakref

    kept = []

    def f(t):
        h = (t * 2).exp()
        kept.append(weakref.ref(h))
        return h.sum()

    x = genesis.randn(16, device=device).requires_grad_()
    y = checkpoint(f, x, use_reentrant=False)
    gc.collect()
    assert kept[0]() is None
    y.backward()
    np.testing.assert_allclose(_np(x.grad), 2 * np.exp(2 * _np(x)), rtol=1e-5)


@requires_cuda
def test_checkpoint_lowers_peak_cuda_memory():
    # Activations (8 MiB each) dwarf the weights (256 KiB each), so the peak is activations.
    width, depth, batch = 256, 48, 8192
    model = _mlp("cuda", width=width, depth=depth)
    x = genesis.randn(batch, width, device="cuda").requires_grad_()

    def peak(call):
        _zero(model, x)
        gc.collect()
        genesis.cuda.synchronize()
        genesis.cuda.reset_peak_memory_stats()
        base = genesis.cuda.memory_allocated()
        call(model, x).sum().backward()
        genesis.cuda.synchronize()
        return genesis.cuda.max_memory_allocated() - base

    plain = peak(_plain)
    segmented = peak(lambda m, t: checkpoint_sequential(m, 7, t, use_reentrant=False))
    whole = peak(lambda m, t: checkpoint(m, t, use_reentrant=False))
    activation = batch * width * 4
    # Plain keeps every Tanh output (Linear's input) until backward; 7 segments keep their
    # inputs, the last segment's activations, and one segment's recomputation in backward.
    assert plain > 0.8 * depth * activation, (plain, depth * activation)
    assert segmented < plain / 2, (plain, segmented)
    # One checkpoint around everything recomputes everything at once: no lower peak, but
    # nothing is kept from the first run on top of it either.
    assert whole < 1.2 * plain, (plain, whole)


# ----------------------------------------------------------------------------- docstrings


PUBLIC = sorted(
    (f"genesis.utils.checkpoint.{name}", getattr(ckpt_module, name)) for name in ckpt_module.__all__
)


@pytest.mark.parametrize("qualname, obj", PUBLIC, ids=[q for q, _ in PUBLIC])
def test_docstring(qualname, obj):
    rules.test_docstring(qualname, obj)


@pytest.mark.parametrize("qualname, obj", PUBLIC, ids=[q for q, _ in PUBLIC])
def test_examples_run(qualname, obj):
    rules.test_examples_run(qualname, obj)


def test_exports():
    assert genesis.utils.checkpoint is ckpt_module
    assert set(ckpt_module.__all__) == {
        "CheckpointError",
        "checkpoint",
        "checkpoint_sequential",
        "noop_context_fn",
    }
