"""Autograd through make_graphed_callables (Note [Graphed callables]): gradients of graphed
functions equal eager ones bit for bit (the same kernels run), alone and chained, with inputs
that need no grad, unused inputs, the no_grad path, .grad accumulation and a training loop.

Each scenario runs twice: on a GPU with real graphs (`-k cuda`), and anywhere on the CPU with
graphs simulated (`-k sim`): there a capture runs its body once and a replay runs it again and
copies the results into the tensors the capture returned, which is what a replay does to
memory. The simulation checks the bookkeeping (static tensors, the autograd Function, grads
into .grad); only the GPU run checks the graphs themselves.
"""

import contextlib

import numpy as np
import pytest
from conftest import requires_cuda

import genesis
import genesis.cuda.graphed_callables as graphed_module

cuda = genesis.cuda


# ---- anywhere ----------------------------------------------------------------------------


def test_sample_that_requires_grad_must_be_a_leaf():
    x = genesis.ones(3).requires_grad_()
    with pytest.raises(ValueError, match=r"^\[make_graphed_callables\] sample_args\[0\] requires"):
        cuda.make_graphed_callables(lambda t: t * 2, (x * 2,))
    with pytest.raises(ValueError, match=r"^\[make_graphed_callables\] sample_args\[0\]\[0\] "):
        cuda.make_graphed_callables((lambda t: t, lambda t: t), ((x + 1,), (x.detach(),)))


# ---- simulated graphs ----------------------------------------------------------------------


def _flat(out):
    return (out,) if isinstance(out, genesis.Tensor) else tuple(out)


class _SimulatedGraph:
    """Replays by running the captured body again into the captured results' memory."""

    def __init__(self, body, out, latest):
        self.body, self.out, self.latest = body, out, latest

    def replay(self):
        with genesis.enable_grad():  # a forward body records again, for the backward one
            new = self.body()
        with genesis.no_grad():
            for o, n in zip(_flat(self.out), _flat(new)):
                if o is not None:
                    self.latest[id(o)] = (o, n)
                    o.copy_(n.detach())


@pytest.fixture
def simulated_graphs(monkeypatch):
    # The captured forward outputs -> the outputs of its last replay, whose autograd graph a
    # backward replay differentiates (a real replay reuses the captured graph's memory).
    latest = {}

    def capture(body, pool):
        out = body()
        for o in _flat(out):
            if o is not None:
                latest[id(o)] = (o, o)
        return _SimulatedGraph(body, out, latest), out

    def newest(o):
        entry = latest.get(id(o))
        return entry[1] if entry is not None and entry[0] is o else o

    real_input_grads = graphed_module._input_grads

    def input_grads(outputs, inputs, grad_outputs, allow_unused):
        return real_input_grads(tuple(map(newest, outputs)), inputs, grad_outputs, allow_unused)

    class SideStream:
        def wait_stream(self, other):
            pass

    monkeypatch.setattr(graphed_module, "_capture", capture)
    monkeypatch.setattr(graphed_module, "_input_grads", input_grads)
    monkeypatch.setattr(graphed_module, "_check_device", lambda t, what: None)
    monkeypatch.setattr(graphed_module, "Stream", SideStream)
    monkeypatch.setattr(graphed_module, "current_stream", SideStream)
    monkeypatch.setattr(graphed_module, "_stream_scope", lambda s: contextlib.nullcontext())
    monkeypatch.setattr(graphed_module, "graph_pool_handle", lambda: (0, 1))


@pytest.fixture(params=["sim", pytest.param("cuda", marks=requires_cuda)])
def device(request):
    """Where a scenario runs: "cuda" with real graphs, or "cpu" with simulated ones."""
    if request.param == "sim":
        request.getfixturevalue("simulated_graphs")
        return "cpu"
    return "cuda"


# ---- scenarios -----------------------------------------------------------------------------


def raw(t):
    """The bytes of a tensor, to compare results bit for bit."""
    return t.detach().cpu().numpy().tobytes()


def leaf(t):
    """A new leaf that requires grad, with t's values."""
    return t.detach().clone().requires_grad_()


def mlp(x, w, b):
    return (x @ w + b).relu().sum()


def params(device, seed, n_in=32, n_out=16):
    genesis.manual_seed(seed)
    w = genesis.randn(n_in, n_out, device=device).requires_grad_()
    b = genesis.randn(n_out, device=device).requires_grad_()
    return w, b


def test_mlp_grads_equal_eager_for_new_data_each_call(device):
    w, b = params(device, 0)
    we, be = leaf(w), leaf(b)
    graphed = cuda.make_graphed_callables(mlp, (genesis.randn(64, 32, device=device), w, b))
    assert w.grad is None and b.grad is None  # warm-up and capture used autograd.grad
    outs = []
    for seed in range(3):
        genesis.manual_seed(10 + seed)
        x = genesis.randn(64, 32, device=device) * (seed + 1)
        loss = graphed(x, w, b)
        assert loss.grad_fn is not None and loss.grad_fn.name() == "GraphedBackward"
        loss.backward()
        eager = mlp(x, we, be)
        eager.backward()
        assert raw(loss) == raw(eager)
        assert raw(w.grad) == raw(we.grad) and raw(b.grad) == raw(be.grad)
        outs.append((loss, raw(loss)))
        w.grad = b.grad = we.grad = be.grad = None
    # Every call's output shares the graph's memory: the last call overwrote the others.
    assert all(raw(o) == outs[-1][1] for o, _ in outs)
    assert outs[0][1] != outs[-1][1]


def test_grad_accumulates_over_steps_as_eager(device):
    # The first step's .grad must be autograd's own copy: were it the graph's memory, the next
    # backward replay would overwrite it before adding.
    w, b = params(device, 1)
    we, be = leaf(w), leaf(b)
    x0 = genesis.randn(64, 32, device=device)
    graphed = cuda.make_graphed_callables(mlp, (x0.clone(), w, b), num_warmup_iters=1)
    for seed in range(3):
        genesis.manual_seed(20 + seed)
        x = genesis.randn(64, 32, device=device)
        graphed(x, w, b).backward()
        mlp(x, we, be).backward()
        assert raw(w.grad) == raw(we.grad) and raw(b.grad) == raw(be.grad)


def layer1(x, w1):
    return (x @ w1).relu()


def layer2(h, w2, b2):
    y = h @ w2 + b2
    return (y * y).mean(), y.sum(1)


def test_chained_callables_equal_eager(device):
    genesis.manual_seed(2)
    w1 = genesis.randn(32, 24, device=device).requires_grad_()
    w2 = genesis.randn(24, 8, device=device).requires_grad_()
    b2 = genesis.randn(8, device=device).requires_grad_()
    w1e, w2e, b2e = leaf(w1), leaf(w2), leaf(b2)
    h_sample = genesis.randn(16, 24, device=device).requires_grad_()
    samples = ((genesis.randn(16, 32, device=device), w1), (h_sample, w2, b2))
    g1, g2 = cuda.make_graphed_callables((layer1, layer2), samples, num_warmup_iters=2)
    for seed in range(3):
        genesis.manual_seed(30 + seed)
        x = genesis.randn(16, 32, device=device)
        h = g1(x, w1)
        loss, rows = g2(h, w2, b2)
        (loss + rows.sum() * 0.5).backward()
        he = layer1(x, w1e)
        loss_e, rows_e = layer2(he, w2e, b2e)
        (loss_e + rows_e.sum() * 0.5).backward()
        assert raw(h) == raw(he) and raw(loss) == raw(loss_e) and raw(rows) == raw(rows_e)
        for p, pe in ((w1, w1e), (w2, w2e), (b2, b2e)):
            assert raw(p.grad) == raw(pe.grad)
    assert h_sample.grad is None  # the sample is the static input, outside the user's graph


def test_inputs_that_need_no_grad(device):
    w, b = params(device, 3)
    we = leaf(w)
    # b's sample needs no grad: no gradient is captured for it.
    fixed_b = b.detach().clone()
    graphed = cuda.make_graphed_callables(mlp, (genesis.randn(64, 32, device=device), w, fixed_b))
    x = genesis.randn(64, 32, device=device)
    bias = b.detach() + 1
    graphed(x, w, bias).backward()
    mlp(x, we, bias).backward()
    assert raw(w.grad) == raw(we.grad)
    with pytest.raises(ValueError, match=r"^\[make_graphed_callables\] argument 2 requires grad"):
        graphed(x, w, b)
    # x requires grad in the sample: its gradient comes back to the argument, not the sample.
    xs = genesis.randn(64, 32, device=device).requires_grad_()
    w_const, b_const = w.detach().clone(), b.detach().clone()
    g_x = cuda.make_graphed_callables(mlp, (xs, w_const, b_const))
    xa, xe = leaf(x), leaf(x)
    g_x(xa, w_const, b_const).backward()
    mlp(xe, w_const, b_const).backward()
    assert raw(xa.grad) == raw(xe.grad) and xs.grad is None


def uses_first(x, u):
    return (x * 3).sum()


def test_allow_unused_input(device):
    x = genesis.randn(10, device=device).requires_grad_()
    u = genesis.randn(10, device=device).requires_grad_()
    with pytest.raises(RuntimeError, match=r"appears to not have been used in the graph"):
        cuda.make_graphed_callables(uses_first, (x, u))
    with pytest.raises(RuntimeError, match=r"appears to not have been used in the graph"):
        cuda.make_graphed_callables(uses_first, (x, u), num_warmup_iters=0)
    assert not cuda.is_current_stream_capturing()
    graphed = cuda.make_graphed_callables(uses_first, (x, u), allow_unused_input=True)
    xa = leaf(genesis.randn(10, device=device))
    graphed(xa, u).backward()
    assert xa.grad.tolist() == [3.0] * 10
    assert u.grad is None and x.grad is None


def test_no_grad_path_replays_the_forward_graph_only(device):
    w, b = params(device, 4)
    graphed = cuda.make_graphed_callables(mlp, (genesis.randn(64, 32, device=device), w, b))
    x = genesis.randn(64, 32, device=device)
    with genesis.no_grad():
        first = graphed(x, w, b)
        assert first.grad_fn is None and not first.requires_grad
        assert raw(first) == raw(mlp(x, w, b))
        assert graphed(x * 2, w, b) is first  # the static output itself
    # Grad on but no argument requires grad: the same.
    out = graphed(x, w.detach(), b.detach())
    assert out is first and out.grad_fn is None
    assert raw(out) == raw(mlp(x, w.detach(), b.detach()))
    assert w.grad is None


def with_mask(x, w):
    y = x @ w
    return y.sum(), y > 0


def test_outputs_without_grad_are_not_differentiable(device):
    w, _ = params(device, 5)
    we = leaf(w)
    graphed = cuda.make_graphed_callables(with_mask, (genesis.randn(64, 32, device=device), w))
    x = genesis.randn(64, 32, device=device)
    total, mask = graphed(x, w)
    assert total.requires_grad and not mask.requires_grad
    total.backward()
    total_e, mask_e = with_mask(x, we)
    total_e.backward()
    assert raw(mask) == raw(mask_e) and raw(w.grad) == raw(we.grad)


def test_sgd_training_loop_matches_eager(device):
    w, b = params(device, 6)
    we, be = leaf(w), leaf(b)
    w2 = genesis.randn(16, 4, device=device).requires_grad_()
    w2e = leaf(w2)

    def step(x, w, b, w2):
        return ((x @ w + b).relu() @ w2).square().mean()

    graphed = cuda.make_graphed_callables(step, (genesis.randn(64, 32, device=device), w, b, w2))
    for i in range(5):
        genesis.manual_seed(60 + i)
        x = genesis.randn(64, 32, device=device)
        loss = graphed(x, w, b, w2)
        loss.backward()
        loss_e = step(x, we, be, w2e)
        loss_e.backward()
        assert raw(loss) == raw(loss_e)
        with genesis.no_grad():
            for p, pe in ((w, we), (b, be), (w2, w2e)):
                p -= 0.01 * p.grad
                pe -= 0.01 * pe.grad
                p.grad = pe.grad = None
    for p, pe in ((w, we), (b, be), (w2, w2e)):
        np.testing.assert_array_equal(p.detach().cpu().numpy(), pe.detach().cpu().numpy())


@requires_cuda
def test_graphed_training_steps_never_wait_for_the_device():
    w, b = params("cuda", 7)
    graphed = cuda.make_graphed_callables(mlp, (genesis.randn(64, 32, device="cuda"), w, b))
    xs = [genesis.randn(64, 32, device="cuda") for _ in range(3)]
    cuda.set_sync_debug_mode("error")  # any implicit wait raises RuntimeError
    try:
        for x in xs:
            graphed(x, w, b).backward()
            with genesis.no_grad():
                w -= 0.01 * w.grad
                b -= 0.01 * b.grad
            w.grad = b.grad = None
    finally:
        cuda.set_sync_debug_mode("default")
