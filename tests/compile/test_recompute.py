"""Recomputed values of genesis.compile (Note [Recomputed values] in csrc/fusion/group.cpp):
results that only autograd holds are not written; the backward pass computes them again from
the chain's inputs inside its own fused group, with eager's gradients."""

import gc
import threading

import pytest
from test_fusion import fuse_small_cpu_tensors, gelu_tanh, same  # noqa: F401
from test_row_groups import layer_norm, softmax

import genesis
from genesis import nn

fusion = genesis._C._fusion


@pytest.fixture
def recompute():
    fusion.set_recompute(True)  # on the CPU too (by default only CUDA recomputes)
    try:
        yield
    finally:
        fusion.set_recompute(None)


def grads_of(fn, *inputs, grad=None):
    """(output, input grads, stats after forward, stats after backward)."""
    leaves = [t.detach().clone().requires_grad_() for t in inputs]
    fusion.reset_stats()
    out = fn(*leaves)
    forward = dict(fusion.stats())
    out.backward(grad if grad is not None else genesis.ones_like(out))
    return out, [t.grad for t in leaves], forward, dict(fusion.stats())


def test_a_chain_writes_only_its_output_and_backward_recomputes(recompute):
    x, g = genesis.randn(5000), genesis.randn(5000)
    out, grads, forward, after = grads_of(genesis.compile(gelu_tanh), x, grad=g)
    want_out, want_grads, _, _ = grads_of(gelu_tanh, x, grad=g)
    same(out, want_out)
    same(grads[0], want_grads[0])
    assert forward["results_written"] == 1 and forward["results_recomputable"] >= 4
    assert after["groups"] == 2  # the forward and one backward group
    # each saved value backward reads is copied into its group (one, saved by a mul whose other
    # operand needs no gradient, is never read)
    assert after["recomputed_in_groups"] >= forward["results_recomputable"] - 1
    assert after["recomputed_alone"] == 0 and after["recipes_alive"] == 0


def test_without_recomputation_saved_values_are_written():
    fusion.set_recompute(False)
    try:
        x = genesis.randn(300)
        _, grads, forward, _ = grads_of(genesis.compile(gelu_tanh), x)
        assert forward["results_recomputable"] == 0 and forward["results_written"] > 1
        same(grads[0], grads_of(gelu_tanh, x)[1][0])
    finally:
        fusion.set_recompute(None)


def test_the_default_recomputes_on_cuda_only():
    x = genesis.randn(300)
    _, _, forward, _ = grads_of(genesis.compile(gelu_tanh), x)
    assert forward["results_recomputable"] == 0


def test_a_compiled_model_under_an_eager_loss(recompute):
    """The backward of a compiled module fuses even when the loss around it is eager."""
    genesis.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.GELU(approximate="tanh"), nn.Linear(64, 8))
    x, target = genesis.randn(16, 32), genesis.randn(16, 8)
    grads = []
    for compiled in (False, True):
        model.zero_grad()
        m = genesis.compile(model) if compiled else model
        fusion.reset_stats()
        nn.functional.mse_loss(m(x), target).backward()
        grads.append([p.grad for p in model.parameters()])
        if compiled:
            assert fusion.stats()["recomputed_in_groups"] > 0
    for got, want in zip(*grads):
        same(got, want)


def test_an_in_place_write_to_an_input_runs_the_recipes_first(recompute):
    """Recipes watch what they read: a write to the chain's input makes them compute the saved
    values first, so backward then raises as eager's version check does (x is saved too)."""
    x = genesis.randn(100).requires_grad_()
    leaf = x * 1.0
    fusion.reset_stats()
    out = genesis.compile(gelu_tanh)(leaf)
    assert fusion.stats()["results_recomputable"] > 0
    with genesis.no_grad():
        leaf.add_(1)
    assert fusion.stats()["recomputed_alone"] > 0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_unused_recipes_let_go(recompute):
    gc.collect()
    fusion.reset_stats()
    before = fusion.stats()["recipes_alive"]
    x = genesis.randn(1000).requires_grad_()
    out = genesis.compile(gelu_tanh)(x)
    assert fusion.stats()["recipes_alive"] > before
    del out  # the graph and its saved values go without a backward pass
    assert fusion.stats()["recipes_alive"] == before
    with genesis.no_grad():
        x.mul_(2)  # no recipe watches x now: the write computes nothing
    assert fusion.stats()["recomputed_alone"] == 0


@pytest.mark.parametrize("fn", [softmax, layer_norm], ids=["softmax", "layer_norm"])
def test_row_groups_recompute_from_written_row_values(recompute, fn):
    x = genesis.randn(24, 130)
    args = (x,) if fn is softmax else (x, genesis.randn(130), genesis.randn(130))
    g = genesis.randn(24, 130)
    out, grads, forward, after = grads_of(genesis.compile(fn), *args, grad=g)
    want_out, want_grads, _, _ = grads_of(fn, *args, grad=g)
    same(out, want_out)
    for got, want in zip(grads, want_grads):
        same(got, want)
    assert forward["results_recomputable"] > 0 and after["recipes_alive"] == 0


def test_a_value_needed_by_an_op_that_is_not_fused(recompute):
    """A saved value read by a matmul in backward is recomputed on its own, then read."""
    w = genesis.randn(40, 30)

    def f(x, w):
        return genesis.tanh(x * 2) @ w

    x = genesis.randn(20, 40)
    out, grads, _, after = grads_of(genesis.compile(f), x, w)
    want_out, want_grads, _, _ = grads_of(f, x, w)
    same(out, want_out)
    for got, want in zip(grads, want_grads):
        same(got, want)
    assert after["recipes_alive"] == 0


def test_recipes_sharing_steps_compute_them_once(recompute, capfd):
    """The saved values of one chain share their first steps: copied into the backward group,
    each step is computed once (the chain's tanh once, not once per saved value)."""
    x = genesis.randn(64).requires_grad_()
    out = genesis.compile(gelu_tanh)(x)
    fusion.set_logging(True)
    try:
        out.sum().backward()
    finally:
        fusion.set_logging(False)
    backward = capfd.readouterr().err
    assert backward.count("= Tanh(") == 1 and "[recomputed]" in backward
    same(x.grad, grads_of(gelu_tanh, x.detach())[1][0])


def test_threads_recompute_their_own_values(recompute):
    """Each thread's compiled steps leave and copy in their own recipes."""
    xs = [genesis.randn(20000) for _ in range(4)]
    want = [grads_of(gelu_tanh, x)[1][0] for x in xs]
    got, errors = [None] * 4, []
    compiled = genesis.compile(gelu_tanh)

    def work(i):
        try:
            for _ in range(5):
                x = xs[i].detach().clone().requires_grad_()
                compiled(x).backward(genesis.ones(20000))
                got[i] = x.grad
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for g, w in zip(got, want):
        same(g, w)
    assert fusion.stats()["recipes_alive"] == 0


def _live_buffers(nbytes):
    """How many live CPU allocations of exactly nbytes there are."""
    found = genesis.detailed_memory_stats("cpu").get_large_allocations(nbytes)
    return sum(1 for a in found if a.requested == nbytes)


@pytest.mark.parametrize("recompute_on", [False, True], ids=["saved", "recomputed"])
def test_pending_and_recomputed_values_hold_no_memory(recompute_on):
    """Note [Pending storages hold no memory]: a deferred result takes memory only when it is
    written, so the temporaries of a chain never do, and with recomputation neither do the
    values autograd saved for the backward pass (eager holds each of them)."""
    n = 1 << 16
    nbytes = 4 * n
    fusion.set_recompute(recompute_on)
    genesis.enable_memory_debugging(True)  # the CPU's allocations are listed while it is on
    try:
        x = genesis.randn(n).requires_grad_()
        gc.collect()
        base = _live_buffers(nbytes)
        eager_out = gelu_tanh(x)
        eager = _live_buffers(nbytes) - base
        del eager_out

        seen = []

        def pending_then_read(t):
            y = t.detach() * 2.0 + 1.0  # two ops, both deferred: no memory yet
            seen.append(_live_buffers(nbytes) - base)
            y.numpy()  # a read runs the group: the held result gets its memory
            seen.append(_live_buffers(nbytes) - base)

        genesis.compile(pending_then_read)(x)
        assert seen == [0, 1]
        # the memory written later is named as eager's would be (the memory profiler's shapes)
        y = genesis.compile(lambda t: t.detach() * 3.0)(x)
        (found,) = [
            a
            for a in genesis.detailed_memory_stats("cpu").get_large_allocations(nbytes)
            if a.requested == nbytes and a.address == y.data_ptr()
        ]
        assert found.shape == (n,) and found.dtype == genesis.float32
        del y

        out = genesis.compile(gelu_tanh)(x)
        compiled = _live_buffers(nbytes) - base
        assert eager >= 6  # the output and the saved values
        if recompute_on:
            assert compiled == 1  # only the output: every saved value is a recipe
        else:
            assert 1 < compiled <= eager
        out.backward(genesis.ones_like(out))
        assert x.grad is not None
        del out
        gc.collect()
        assert fusion.stats()["recipes_alive"] == 0
    finally:
        genesis.enable_memory_debugging(False)
        fusion.set_recompute(None)
