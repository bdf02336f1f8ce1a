"""Convolutions through cuDNN (genesis/nn/functional/_conv_passes.py): genesis.backends.cudnn's
settings, which path a CUDA convolution takes, float32 kept exact unless allow_tf32, half
precision against a float32 reference, benchmark and deterministic modes, the three passes'
double backward, zero-size and non-contiguous operands and the private bindings' errors.
test_conv.py runs every convolution case against torch on CUDA too (through cuDNN there)."""

import numpy as np
import pytest
from conftest import HAS_CUDA

import genesis
import genesis.nn.functional as F
from genesis import _C
from genesis.backends import cudnn

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
HAS_CUDNN = HAS_CUDA and cudnn.is_available()
requires_cudnn = pytest.mark.skipif(not HAS_CUDNN, reason="no CUDA device with cuDNN")


def test_settings_defaults_and_flags():
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (
        True,
        False,
        False,
        False,
    )
    assert isinstance(cudnn.is_available(), bool)
    v = cudnn.version()
    assert v is None if not cudnn.is_available() else v >= 90000
    with cudnn.flags(enabled=False, benchmark=True):
        assert not cudnn.enabled and cudnn.benchmark and not cudnn.deterministic
        with cudnn.flags(deterministic=True, allow_tf32=True):
            assert cudnn.deterministic and cudnn.allow_tf32 and cudnn.benchmark
        assert not cudnn.deterministic and not cudnn.allow_tf32
    assert cudnn.enabled and not cudnn.benchmark
    with pytest.raises(TypeError, match=r"\[cudnn.flags\] benchmark must be a bool"):
        with cudnn.flags(benchmark=1):
            pass
    assert not cudnn.benchmark
    assert genesis.backends.cudnn is cudnn


def test_cpu_build_or_machine_keeps_its_own_path():
    if not _C._cuda.is_compiled():
        assert not cudnn.is_available() and cudnn.version() is None
    x = genesis.randn(1, 2, 5, 5, requires_grad=True)
    y = F.conv2d(x, genesis.randn(3, 2, 3, 3))
    assert "WindowProduct" in y.grad_fn.name()


def _arrays(*shapes):
    return [RNG.normal(size=s) for s in shapes]


def _run(lib, x, w, device, dtype, fn=F.conv2d, **kw):
    """Output and (input, weight) gradients of fn(x, w) for a fixed output gradient."""
    if lib is genesis:
        tx = genesis.tensor(x, device=device).to(dtype).requires_grad_()
        tw = genesis.tensor(w, device=device).to(dtype).requires_grad_()
    else:
        tx = torch.tensor(x, dtype=dtype).requires_grad_()
        tw = torch.tensor(w, dtype=dtype).requires_grad_()
    y = fn(tx, tw, **kw)
    g = lib.ones_like(y) * 0.5 + y.detach() * 0.25
    y.backward(g)
    out = [y, tx.grad, tw.grad]
    return [np.asarray(t.detach().float().cpu().numpy(), dtype=np.float64) for t in out]


@requires_cudnn
def test_cuda_convolutions_take_cudnn_and_disabling_restores_the_own_path():
    x = genesis.randn(2, 4, 9, 8, device="cuda", requires_grad=True)
    w = genesis.randn(6, 4, 3, 3, device="cuda", requires_grad=True)
    y = F.conv2d(x, w, padding=1)
    assert y.grad_fn.name() == "ConvBackward"
    with cudnn.flags(enabled=False):
        y2 = F.conv2d(x, w, padding=1)
    assert "WindowProduct" in y2.grad_fn.name()
    np.testing.assert_allclose(y.cpu().numpy(), y2.cpu().numpy(), rtol=1e-4, atol=1e-4)
    t = F.conv_transpose2d(x, genesis.randn(4, 3, 3, 3, device="cuda"), stride=2)
    assert t.grad_fn.name() == "ConvInputBackward"
    # integer convolutions are not cuDNN's: the own path raises or computes as before
    assert not genesis.nn.functional._conv_passes.usable(genesis.zeros(1, device="cuda").long(), 1)


@requires_cudnn
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_float32_is_exact_without_tf32(nd):
    # TF32 keeps 10 mantissa bits (relative error near 1e-3); float32 FMA math stays near 1e-6.
    spatial = {1: (64,), 2: (20, 18), 3: (8, 9, 7)}[nd]
    x, w = _arrays((4, 32, *spatial), (48, 32, *(3,) * nd))
    fn = getattr(F, f"conv{nd}d")
    tfn = getattr(torch.nn.functional, f"conv{nd}d")
    got = _run(genesis, x, w, "cuda", genesis.float32, fn, padding=1)
    ref = _run(torch, x, w, "cpu", torch.float64, tfn, padding=1)
    for a, b in zip(got, ref):
        scale = np.abs(b).max()
        np.testing.assert_allclose(a, b, rtol=0, atol=2e-5 * scale)
    with cudnn.flags(allow_tf32=True):  # allowed: runs, at TF32's accuracy
        fast = _run(genesis, x, w, "cuda", genesis.float32, fn, padding=1)
    for a, b in zip(fast, ref):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-2 * np.abs(b).max())


@requires_cudnn
@pytest.mark.parametrize("dtype, tol", [(genesis.float16, 2e-3), (genesis.bfloat16, 2e-2)])
@pytest.mark.parametrize(
    "kw", [dict(padding=1), dict(stride=2, dilation=2, groups=4), dict(padding="same")]
)
def test_half_precision_against_float32(dtype, tol, kw):
    x, w = _arrays((3, 16, 14, 13), (8, 16 // kw.get("groups", 1), 3, 3))
    x, w = x.astype(np.float32), w.astype(np.float32)
    got = _run(genesis, x, w, "cuda", dtype, **kw)
    # the reference sees the operands as rounded to the half type
    xr = genesis.tensor(x).to(dtype).float().numpy().astype(np.float64)
    wr = genesis.tensor(w).to(dtype).float().numpy().astype(np.float64)
    ref = _run(torch, xr, wr, "cpu", torch.float64, torch.nn.functional.conv2d, **kw)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=0, atol=tol * np.abs(b).max())


# The build carries cuDNN's frontend (its graph API serves attention and half convolutions).
HAS_GRAPHS = HAS_CUDNN and _C._nn._cudnn_attention_built()


@pytest.mark.skipif(not HAS_GRAPHS, reason="no cuDNN frontend in this build, or no cuDNN")
@pytest.mark.parametrize("dtype, tol", [(genesis.float16, 2e-3), (genesis.bfloat16, 2e-2)])
@pytest.mark.parametrize(
    "shapes, fn, kw",
    [
        (((3, 16, 15, 13), (24, 16, 3, 3)), F.conv2d, dict(padding=1)),
        (((2, 8, 17, 11), (16, 8, 3, 3)), F.conv2d, dict(stride=2, dilation=2, padding=2)),
        (((4, 32, 9, 9), (8, 32, 1, 1)), F.conv2d, {}),
        (((2, 8, 29), (16, 8, 5)), F.conv1d, dict(padding=2)),
        (((2, 8, 5, 7, 6), (8, 8, 3, 3, 3)), F.conv3d, dict(padding=1, stride=(1, 2, 1))),
    ],
)
def test_half_convolutions_take_graphs_and_agree_with_the_legacy_calls(shapes, fn, kw, dtype, tol):
    """float16/bfloat16 convolutions of one group run as cuDNN graphs (Note [Convolutions
    through cuDNN's graph API]): each of the three passes keeps one, and the results agree with
    the legacy calls (benchmark mode keeps those) within the half type's rounding."""
    x, w = _arrays(*shapes)
    kept, refused = _C._nn._cudnn_graph_convolutions()
    got = _run(genesis, x, w, "cuda", dtype, fn, **kw)
    assert _C._nn._cudnn_graph_convolutions() == (kept + 3, refused)
    again = _run(genesis, x, w, "cuda", dtype, fn, **kw)  # the kept graphs
    assert _C._nn._cudnn_graph_convolutions() == (kept + 3, refused)
    with cudnn.flags(benchmark=True):
        legacy = _run(genesis, x, w, "cuda", dtype, fn, **kw)
    assert _C._nn._cudnn_graph_convolutions() == (kept + 3, refused)
    for a, b, c in zip(got, again, legacy):
        np.testing.assert_allclose(a, b, rtol=0, atol=tol * np.abs(c).max())
        np.testing.assert_allclose(a, c, rtol=0, atol=tol * np.abs(c).max())


@pytest.mark.skipif(not HAS_GRAPHS, reason="no cuDNN frontend in this build, or no cuDNN")
def test_deterministic_half_convolutions_repeat_bit_for_bit():
    x, w = _arrays((8, 32, 20, 20), (32, 32, 3, 3))
    kept, refused = _C._nn._cudnn_graph_convolutions()
    with cudnn.flags(deterministic=True):
        first = _run(genesis, x, w, "cuda", genesis.bfloat16, padding=1)
        again = _run(genesis, x, w, "cuda", genesis.bfloat16, padding=1)
    now = _C._nn._cudnn_graph_convolutions()
    assert now[0] + now[1] == kept + refused + 3  # three problems, each kept or refused
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


@requires_cudnn
@pytest.mark.parametrize("setting", ["benchmark", "deterministic"])
def test_benchmark_and_deterministic_modes_agree(setting):
    x, w = _arrays((8, 16, 24, 24), (32, 16, 3, 3))
    plain = _run(genesis, x, w, "cuda", genesis.float64, padding=1, stride=2)
    with cudnn.flags(**{setting: True}):
        first = _run(genesis, x, w, "cuda", genesis.float64, padding=1, stride=2)
        again = _run(genesis, x, w, "cuda", genesis.float64, padding=1, stride=2)
    for a, b, c in zip(plain, first, again):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
        if setting == "deterministic":
            np.testing.assert_array_equal(b, c)


@requires_cudnn
@pytest.mark.parametrize("transpose", [False, True])
def test_double_backward_through_the_three_passes(transpose):
    # gradcheck and gradgradcheck in float64: each pass's backward is the other passes.
    kw = dict(stride=2, padding=1, dilation=1, groups=2)
    if transpose:
        x = genesis.randn(2, 4, 5, 4, device="cuda", dtype=genesis.float64, requires_grad=True)
        w = genesis.randn(4, 3, 3, 2, device="cuda", dtype=genesis.float64, requires_grad=True)

        def fn(x, w):
            return F.conv_transpose2d(x, w, output_padding=1, **kw)
    else:
        x = genesis.randn(2, 4, 7, 6, device="cuda", dtype=genesis.float64, requires_grad=True)
        w = genesis.randn(6, 2, 3, 2, device="cuda", dtype=genesis.float64, requires_grad=True)

        def fn(x, w):
            return F.conv2d(x, w, **kw)

    assert genesis.autograd.gradcheck(fn, (x, w))
    assert genesis.autograd.gradgradcheck(fn, (x, w))


@requires_cudnn
def test_zero_sizes_non_contiguous_and_output_padding_past_the_stride():
    w = genesis.randn(6, 4, 3, 3, device="cuda", requires_grad=True)
    x = genesis.zeros(0, 4, 7, 7, device="cuda", requires_grad=True)
    y = F.conv2d(x, w, padding=1)
    assert y.shape == (0, 6, 7, 7)
    y.sum().backward()
    assert w.grad.shape == w.shape and float(w.grad.abs().sum()) == 0.0
    base = RNG.normal(size=(2, 7, 4, 9))
    xn = genesis.tensor(base, device="cuda").float().permute(0, 2, 1, 3)  # (2, 4, 7, 9)
    assert not xn.is_contiguous()
    got = F.conv2d(xn, w.detach(), stride=(1, 2)).cpu().numpy()
    ref = torch.nn.functional.conv2d(
        torch.tensor(base).float().permute(0, 2, 1, 3),
        torch.from_dlpack(w.detach().cpu()),
        stride=(1, 2),
    )
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-4, atol=1e-4)
    # output_padding 2 >= stride 2 (allowed while < dilation 3): the own path
    xt, wt = _arrays((1, 2, 4, 4), (2, 3, 2, 2))
    kw = dict(stride=2, dilation=3, output_padding=2)
    got = F.conv_transpose2d(
        genesis.tensor(xt, device="cuda"), genesis.tensor(wt, device="cuda"), **kw
    )
    ref = torch.nn.functional.conv_transpose2d(torch.tensor(xt), torch.tensor(wt), **kw)
    np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-9, atol=1e-9)


@requires_cudnn
def test_the_bindings_check_their_operands():
    x = genesis.randn(1, 4, 6, 6, device="cuda")
    w = genesis.randn(2, 4, 3, 3, device="cuda")
    args = ([1, 1], [1, 1], [1, 1], 1, False, False, False, "conv2d")
    with pytest.raises(
        RuntimeError,
        match=r"\[conv2d\] input is float32 on cpu but the other operand is float32 on cuda",
    ):
        _C._nn._conv(x.cpu(), w, *args)
    with pytest.raises(RuntimeError, match=r"\[conv2d\] input is float64"):
        _C._nn._conv(x.double(), w, *args)
    with pytest.raises(RuntimeError, match=r"\[conv2d\] input \[1, 4, 6, 6\] and weight"):
        _C._nn._conv(x, genesis.randn(2, 3, 3, 3, device="cuda"), *args)
    with pytest.raises(TypeError, match=r"\[conv2d\] expected a floating point input"):
        _C._nn._conv(x.long(), w.long(), *args)
    with pytest.raises(RuntimeError, match=r"\[conv2d\] grad_output \[1, 2, 5, 5\] is not"):
        _C._nn._conv_backward_input(
            genesis.randn(1, 2, 5, 5, device="cuda"), w, [1, 4, 6, 6], *args
        )
    with pytest.raises(RuntimeError, match=r"\[conv2d\] the kernel"):
        _C._nn._conv(genesis.randn(1, 4, 1, 1, device="cuda"), w, [0, 0], *args[1:])
