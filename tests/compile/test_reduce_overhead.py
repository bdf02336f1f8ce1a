"""genesis.compile(..., mode="reduce-overhead"): CUDA calls replayed as CUDA graphs per argument
signature (Note [Replaying compiled calls] in genesis/_graph_replay.py). The bookkeeping is
checked on the CPU with make_graphed_callables replaced by a recorder; the graphs themselves
on a GPU."""

import warnings

import numpy as np
import pytest
from conftest import requires_cuda

import genesis
import genesis._graph_replay as replay_module
import genesis.cuda.graphed_callables as graphed_module
from genesis import nn


def gelu(x):
    return x * 0.5 * (1.0 + genesis.tanh(0.79788456 * (x + 0.044715 * x * x * x)))


def test_cpu_calls_run_as_the_default_mode():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = genesis.compile(gelu, mode="reduce-overhead")
    x = genesis.randn(100)
    for _ in range(4):
        assert genesis.equal(f(x), genesis.compile(gelu)(x))
    assert f._genesis_replay.entries == {}  # nothing keyed: CPU arguments are never captured


def key_on_the_cpu(self, args):
    """GraphReplay._key for CPU tensors (the real one keys CUDA tensors only)."""
    if not args or not all(isinstance(a, genesis.Tensor) for a in args):
        return None
    grad = genesis.is_grad_enabled()
    params = tuple(p for p in self.parameters() if p.requires_grad) if grad else ()
    parts = tuple((tuple(a.shape), a.dtype, a.requires_grad) for a in args)
    return (parts, grad, tuple(id(p) for p in params)), params


@pytest.fixture
def recorded(monkeypatch):
    """CPU tensors count as graphable, and make_graphed_callables records its samples and
    returns a plain caller (no graph)."""
    captures = []

    def fake_make(fn, samples, num_warmup_iters=3):
        assert not genesis.is_autocast_cache_enabled()  # casts are recorded, not cached
        captures.append(samples)

        def call(*args):
            assert len(args) == len(samples)
            return fn(*args)

        return call

    monkeypatch.setattr(graphed_module, "make_graphed_callables", fake_make)
    monkeypatch.setattr(replay_module.GraphReplay, "_key", key_on_the_cpu)
    return captures


def test_two_compiled_calls_then_one_capture_per_signature(recorded):
    f = genesis.compile(gelu, mode="reduce-overhead")
    x, y = genesis.randn(8), genesis.randn(3, 4)
    for _ in range(5):
        assert genesis.allclose(f(x), gelu(x))
    assert len(recorded) == 1 and genesis.is_autocast_cache_enabled()  # back on
    (sample,) = recorded[0]
    assert sample is not x and sample.shape == x.shape and not sample.requires_grad
    for _ in range(3):
        f(y)
    assert len(recorded) == 2  # another shape: its own capture
    f(x.requires_grad_())
    f(x)
    f(x)
    assert len(recorded) == 3 and recorded[2][0].requires_grad and recorded[2][0].is_leaf


def test_a_module_passes_its_parameters_when_grad_is_on(recorded):
    genesis.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 2))
    compiled = genesis.compile(model, mode="reduce-overhead")
    x = genesis.randn(5, 4)
    for _ in range(3):
        compiled(x).sum().backward()
    (samples,) = recorded
    assert all(s is p for s, p in zip(samples[1:], model.parameters()))  # as themselves
    assert len(samples) == 1 + len(list(model.parameters()))
    with genesis.no_grad():
        for _ in range(3):
            compiled(x)
    assert len(recorded) == 2 and len(recorded[1]) == 1  # no parameters without grad


@pytest.mark.parametrize("error", [TypeError, ValueError, RuntimeError])
def test_a_failed_capture_warns_once_and_runs_compiled(monkeypatch, error):
    def failing(fn, samples, num_warmup_iters=3):
        raise error("[make_graphed_callables] a graphed callable must return a tensor")

    monkeypatch.setattr(graphed_module, "make_graphed_callables", failing)
    monkeypatch.setattr(replay_module.GraphReplay, "_key", key_on_the_cpu)
    f = genesis.compile(lambda x: {"y": x * 2}, mode="reduce-overhead")
    x = genesis.randn(3)
    with pytest.warns(UserWarning, match="reduce-overhead' could not capture"):
        for _ in range(3):
            assert genesis.equal(f(x)["y"], x * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert genesis.equal(f(x)["y"], x * 2)


@requires_cuda
def test_replayed_calls_match_eager_on_cuda():
    f = genesis.compile(gelu, mode="reduce-overhead")
    for _ in range(5):
        x = genesis.randn(1000, device="cuda")
        got = f(x).clone()
        assert genesis.allclose(got, gelu(x), atol=1e-6)
    (graphed,) = [e for e in f._genesis_replay.entries.values() if callable(e)]
    assert graphed.fwd_graph is not None


@requires_cuda
@pytest.mark.parametrize("autocast", [False, True])
def test_a_replayed_training_step_on_cuda(autocast):
    """A compiled module's steps replayed: the same losses and gradients as eager steps (under
    autocast too, where each replay casts the weights the last step updated)."""
    genesis.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Dropout(0.0), nn.Linear(32, 4)).cuda()
    plain = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Dropout(0.0), nn.Linear(32, 4)).cuda()
    plain.load_state_dict(model.state_dict())
    compiled = genesis.compile(model, mode="reduce-overhead")
    for step in range(5):
        x = genesis.tensor(np.random.default_rng(step).standard_normal((8, 16)).astype("f4"))
        x = x.cuda()
        model.zero_grad()
        plain.zero_grad()
        with genesis.autocast("cuda", dtype=genesis.bfloat16, enabled=autocast):
            loss = compiled(x).float().square().mean()
            want = plain(x).float().square().mean()
        loss.backward()
        want.backward()
        tol = 1e-2 if autocast else 1e-5
        assert abs(float(loss) - float(want)) < tol
        for p, q in zip(model.parameters(), plain.parameters()):
            assert genesis.allclose(p.grad, q.grad, atol=tol, rtol=tol)
        with genesis.no_grad():
            for p, q in zip(model.parameters(), plain.parameters()):
                p.sub_(0.1 * p.grad)
                q.sub_(0.1 * q.grad)
    replay = compiled._compiled_forward._genesis_replay  # OptimizedModule holds the replayed call
    assert any(callable(e) for e in replay.entries.values())
