"""Dropout in genesis.compile's groups: the mask is drawn inside the fused pass from the same
Philox counters as eager's fused dropout (Note [Fused dropout]), so a seed gives eager's mask
and values, the generator advances as in eager code, and the backward (or its recomputation)
reads the mask or draws it again."""

import numpy as np
import pytest
from conftest import requires_cuda
from test_fused_programs import HAS_NVRTC, cuda_fusion, requires_nvrtc  # noqa: F401
from test_fusion import fuse_small_cpu_tensors, same  # noqa: F401
from test_row_groups import softmax

import genesis
from genesis import nn

F = nn.functional
fusion = genesis._C._fusion


def bias_gelu_dropout(x, b):
    h = x + b
    h = h * 0.5 * (1.0 + genesis.tanh(0.79788456 * (h + 0.044715 * h * h * h)))
    return F.dropout(h, 0.1, training=True)


def run(fn, compiled, *inputs, seed=7):
    """Output, input grads, the next draw of the generator, stats after forward and backward."""
    genesis.manual_seed(seed)
    leaves = [t.detach().clone().requires_grad_() for t in inputs]
    fusion.reset_stats()
    out = (genesis.compile(fn) if compiled else fn)(*leaves)
    forward = dict(fusion.stats())
    weights = (
        genesis.linspace(-1, 1, out.numel(), device=out.device).reshape(out.shape).to(out.dtype)
    )
    (out * weights).sum().backward()
    return out, [t.grad for t in leaves], genesis.rand(3), forward, dict(fusion.stats())


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.float64, genesis.bfloat16], ids=str)
@pytest.mark.parametrize("recompute", [False, True], ids=["saved", "recomputed"])
def test_bias_gelu_dropout_matches_eager(dtype, recompute):
    fusion.set_recompute(recompute)
    try:
        x, b = genesis.randn(64, 300).to(dtype), genesis.randn(300).to(dtype)
        got = run(bias_gelu_dropout, True, x, b)
        want = run(bias_gelu_dropout, False, x, b)
    finally:
        fusion.set_recompute(None)
    same(got[0], want[0])
    for g, w in zip(got[1], want[1]):
        same(g, w)
    same(got[2], want[2])  # the generator moved on as in eager code
    assert got[3]["groups"] == 1
    assert (got[3]["results_written"] == 1) == recompute  # else the saved values and the mask
    assert got[4]["recipes_alive"] == 0
    if recompute:  # the mask too is drawn again in the backward group instead of read
        assert got[4]["recomputed_in_groups"] >= 7


def test_dropout_after_a_row_reduction():
    """Attention's softmax-then-dropout as one row group."""

    def f(x):
        return F.dropout(softmax(x), 0.25, training=True) * 3

    x = genesis.randn(40, 50)
    got, want = run(f, True, x), run(f, False, x)
    same(got[0], want[0])
    same(got[1][0], want[1][0])
    assert got[3]["groups"] == 1


def test_eval_mode_and_p_zero_draw_nothing():
    x = genesis.randn(100)
    genesis.manual_seed(1)
    out = genesis.compile(lambda x: F.dropout(x, 0.5, training=False) * 2)(x)
    same(out, x * 2)
    same(genesis.rand(2), (genesis.manual_seed(1), genesis.rand(2))[1])


def test_two_dropouts_and_strided_input():
    def f(x):
        return F.dropout(F.dropout(x.t() * 2, 0.3, training=True) + 1, 0.6, training=True)

    x = genesis.randn(30, 17)
    got, want = run(f, True, x), run(f, False, x)
    same(got[0], want[0])
    same(got[1][0], want[1][0])


@requires_nvrtc
def test_dropout_programs_compile():
    fusion._capture_sources(True)
    try:
        x = genesis.randn(64, 300)
        genesis.compile(bias_gelu_dropout)(x, genesis.randn(300))
        genesis.compile(lambda x: F.dropout(softmax(x), 0.2, training=True))(x)
        genesis.compile(lambda x: F.dropout(x.t().bfloat16(), 0.4, training=True))(x)
        programs = [(n, t) for n, t in fusion._captured_sources() if "g_dropout_kept(" in t]
    finally:
        fusion._capture_sources(False)
    assert len(programs) == 3
    for name, text in programs:
        assert "unsigned long long seed" in text and "g_pack" not in text
        assert fusion._nvrtc_compile(text, name + ".cu", 90)[:4] == b"\x7fELF"
    # seed and offset are arguments: the next call's draws use the same program
    assert len({n for n, _ in programs}) == 3


@requires_cuda
@requires_nvrtc
@pytest.mark.parametrize("dtype", [genesis.float32, genesis.bfloat16], ids=str)
def test_cuda_dropout_matches_eager(cuda_fusion, dtype):  # noqa: F811
    x = genesis.randn(256, 768, device="cuda").to(dtype)
    b = genesis.randn(768, device="cuda").to(dtype)
    got = run(bias_gelu_dropout, True, x, b)
    want = run(bias_gelu_dropout, False, x, b)
    same(got[0], want[0])
    for g, w in zip(got[1], want[1]):
        same(g, w)
    assert got[3]["groups"] == 1
    np.testing.assert_array_equal(got[2].cpu().numpy(), want[2].cpu().numpy())
