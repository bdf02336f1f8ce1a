"""scaled_dot_product_attention through the fused CUDA kernels (Note [When attention is fused]
in genesis/nn/functional/_attention_fused.py): which inputs take the fused path, its output and
gradients against the composed path in float32 on the same 16-bit values (head dims 1 to 256,
odd lengths, causal, boolean and float masks with fully masked rows, grouped and broadcast key
heads, strided and misaligned operands, 2-D to 5-D inputs, zero sizes), the backend flags, the
refused double backward and the private bindings' errors. test_attention.py covers the
composed path against torch."""

import math

import numpy as np
import pytest
from conftest import HAS_CUDA

import genesis
import genesis.nn.functional as F
from genesis import _C
from genesis.backends import cuda as backends_cuda
from genesis.nn.attention import SDPBackend, sdpa_kernel

RNG = np.random.default_rng(5)
HAS_FUSED = HAS_CUDA and _C._nn._fused_attention_supported(genesis.zeros(1, device="cuda"))
requires_fused = pytest.mark.skipif(not HAS_FUSED, reason="no CUDA device of sm_80 or later")
DTYPES = {"bfloat16": genesis.bfloat16, "float16": genesis.float16}
TOLERANCE = {"bfloat16": 3e-2, "float16": 5e-3}
HAS_CUDNN_ATTENTION = (
    HAS_FUSED and _C._nn._cudnn_attention_built() and genesis.backends.cudnn.is_available()
)
requires_cudnn_attention = pytest.mark.skipif(
    not HAS_CUDNN_ATTENTION, reason="no cuDNN attention (built without the cuDNN frontend?)"
)


@pytest.fixture(params=["cudnn", "genesis"])
def fused_path(request):
    """Runs a test with cuDNN's attention first (the default), then with genesis's kernels
    alone (Note [When attention is fused])."""
    if request.param == "genesis":
        backends_cuda.enable_cudnn_sdp(False)
    try:
        yield request.param
    finally:
        backends_cuda.enable_cudnn_sdp(True)


both_paths = pytest.mark.usefixtures("fused_path")


def test_flags_default_and_type_checks():
    assert backends_cuda.flash_sdp_enabled() and backends_cuda.math_sdp_enabled()
    assert backends_cuda.cudnn_sdp_enabled()
    with pytest.raises(TypeError, match=r"\[enable_cudnn_sdp\] expected a bool"):
        backends_cuda.enable_cudnn_sdp(None)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH]):
        assert backends_cuda.cudnn_sdp_enabled() and not backends_cuda.flash_sdp_enabled()
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        assert not backends_cuda.cudnn_sdp_enabled() and backends_cuda.flash_sdp_enabled()
        assert not backends_cuda.math_sdp_enabled()
    assert backends_cuda.cudnn_sdp_enabled() and backends_cuda.flash_sdp_enabled()
    with pytest.raises(TypeError, match=r"\[enable_flash_sdp\] expected a bool"):
        backends_cuda.enable_flash_sdp(1)
    with pytest.raises(TypeError, match=r"\[enable_math_sdp\] expected a bool"):
        backends_cuda.enable_math_sdp("no")
    assert backends_cuda.flash_sdp_enabled() and backends_cuda.math_sdp_enabled()


def test_math_disabled_without_a_fused_kernel_raises():
    q = genesis.randn(1, 2, 3, 4)  # CPU: never fused
    backends_cuda.enable_math_sdp(False)
    try:
        with pytest.raises(RuntimeError, match=r"\[scaled_dot_product_attention\] no available"):
            F.scaled_dot_product_attention(q, q, q)
    finally:
        backends_cuda.enable_math_sdp(True)
    assert F.scaled_dot_product_attention(q, q, q).shape == (1, 2, 3, 4)


def _leaf(a, dtype):
    return genesis.tensor(a, dtype=dtype, device="cuda").requires_grad_()


def _relative_error(a, b):
    a = a.float().cpu().numpy().astype(np.float64)
    b = b.float().cpu().numpy().astype(np.float64)
    if a.size == 0:
        return 0.0
    assert np.isfinite(a).all(), "non-finite values"
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-3))


def _compare(qs, ks, vs, dtype_name, mask=None, causal=False, gqa=False, scale=None, prep=None):
    """Runs the attention fused (16-bit) and composed (float32 on the same values) and compares
    the output and the three gradients; returns the fused output."""
    dtype = DTYPES[dtype_name]
    arrays = [RNG.normal(size=s) for s in (qs, ks, vs)]
    low = [_leaf(a, dtype) for a in arrays]
    ref = [
        genesis.tensor(t.detach().float().cpu().numpy(), device="cuda").requires_grad_()
        for t in low
    ]
    kw = dict(attn_mask=mask, is_causal=causal, enable_gqa=gqa, scale=scale)
    ops = (lambda t: t) if prep is None else prep
    out = F.scaled_dot_product_attention(*[ops(t) for t in low], **kw)
    assert "FusedAttention" in _graph_names(out), _graph_names(out)
    with sdpa_kernel(SDPBackend.MATH):
        ref_mask = mask
        if mask is not None and mask.dtype != genesis.bool:
            ref_mask = mask.float()
        kw["attn_mask"] = ref_mask
        expect = F.scaled_dot_product_attention(*[ops(t) for t in ref], **kw)
    assert out.dtype == dtype and out.shape == expect.shape
    tol = TOLERANCE[dtype_name]
    assert _relative_error(out, expect) < tol
    grad = RNG.normal(size=tuple(out.shape))
    out.backward(genesis.tensor(grad, dtype=dtype, device="cuda"))
    expect.backward(genesis.tensor(grad, dtype=genesis.float32, device="cuda"))
    for name, a, b in zip("qkv", low, ref):
        assert a.grad is not None and a.grad.dtype == dtype, name
        assert _relative_error(a.grad, b.grad) < 2 * tol, name
    return out


def _graph_names(t):
    names, todo = [], [t.grad_fn]
    while todo and len(names) < 8:
        node = todo.pop()
        if node is None:
            continue
        names.append(node.name())
        todo.extend(n for n, _ in node.next_functions)
    return " ".join(names)


@requires_fused
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("E", [1, 16, 20, 64, 80, 128, 160, 192, 256])
@both_paths
def test_head_dims(dtype, E):
    _compare((2, 3, 37, E), (2, 3, 45, E), (2, 3, 45, E), dtype)


@requires_fused
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize(
    "L,S", [(1, 1), (1, 100), (100, 1), (64, 64), (130, 70), (70, 130), (257, 257)]
)
@pytest.mark.parametrize("causal", [False, True])
@both_paths
def test_lengths_and_causal(dtype, L, S, causal):
    _compare((2, 2, L, 64), (2, 2, S, 64), (2, 2, S, 64), dtype, causal=causal)


@requires_fused
@pytest.mark.parametrize("E", [64, 128, 256])
@both_paths
def test_long_causal_rows(E):
    _compare((1, 2, 600, E), (1, 2, 600, E), (1, 2, 600, E), "bfloat16", causal=True)


@requires_fused
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@both_paths
def test_scale(dtype):
    _compare((1, 2, 33, 32), (1, 2, 40, 32), (1, 2, 40, 32), dtype, scale=0.3)


def _mask(shape, kind, dtype, dead_rows=()):
    keep = RNG.random(shape) > 0.4
    for r in dead_rows:
        keep[..., r, :] = False
    if kind == "bool":
        return genesis.tensor(keep, device="cuda")
    bias = np.where(keep, RNG.normal(size=shape), -np.inf)
    return genesis.tensor(bias, dtype=dtype, device="cuda")


@requires_fused
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("kind", ["bool", "float32", "same"])
@pytest.mark.parametrize("shape", [(40, 50), (2, 1, 40, 50), (1, 3, 1, 50), (2, 3, 40, 50)])
def test_masks(dtype, kind, shape):
    mdtype = genesis.float32 if kind == "float32" else DTYPES[dtype]
    dead = (3, 17) if shape[-2] == 40 else ()
    mask = _mask(shape, kind, mdtype, dead_rows=dead)
    out = _compare((2, 3, 40, 32), (2, 3, 50, 32), (2, 3, 50, 32), dtype, mask=mask)
    if dead:  # every key masked: zeros, as the math backend's safe softmax
        assert (
            out[:, :, 3].float().abs().max().item(),
            out[:, :, 17].float().abs().max().item(),
        ) == (0.0, 0.0)


@requires_fused
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@both_paths
def test_grouped_and_broadcast_key_heads(dtype):
    _compare((2, 8, 33, 64), (2, 2, 47, 64), (2, 2, 47, 64), dtype, gqa=True, causal=True)
    _compare((2, 6, 33, 64), (2, 1, 47, 64), (2, 1, 47, 64), dtype)
    _compare((3, 4, 20, 32), (1, 4, 25, 32), (1, 4, 25, 32), dtype)  # batch broadcast


@requires_fused
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@both_paths
def test_strided_and_unaligned_operands(dtype):
    # (B, L, H, E) storage seen as (B, H, L, E), as a transformer block splits heads
    _compare(
        (2, 29, 4, 64), (2, 31, 4, 64), (2, 31, 4, 64), dtype, prep=lambda t: t.transpose(1, 2)
    )
    # a last dim of stride 1 whose rows start off the 16-byte grid
    _compare((2, 3, 30, 33), (2, 3, 31, 33), (2, 3, 31, 33), dtype, prep=lambda t: t[..., 1:])
    # a non-contiguous last dim (copied for the kernel)
    _compare((2, 3, 30, 32), (2, 3, 31, 32), (2, 3, 31, 32), dtype, prep=lambda t: t[..., ::2])


@requires_fused
@pytest.mark.parametrize("dims", [2, 3, 5])
@both_paths
def test_other_ranks(dims):
    lead = {2: (), 3: (4,), 5: (2, 3, 2)}[dims]
    mask = _mask(lead[-1:] + (21, 26), "bool", genesis.bool) if dims > 2 else None
    _compare(lead + (21, 32), lead + (26, 32), lead + (26, 32), "bfloat16", mask=mask)


@requires_fused
def test_zero_sizes():
    for qs, ks in [
        ((0, 2, 5, 16), (0, 2, 7, 16)),
        ((1, 2, 0, 16), (1, 2, 7, 16)),
        ((1, 2, 5, 16), (1, 2, 0, 16)),
    ]:
        q, k, v = (_leaf(np.ones(s), genesis.bfloat16) for s in (qs, ks, ks))
        out = F.scaled_dot_product_attention(q, k, v)
        assert out.shape == qs
        if out.numel():
            assert out.float().abs().max().item() == 0.0  # no keys: zeros
        out.sum().backward()
        for t in (q, k, v):
            assert t.grad.shape == t.shape
            if t.grad.numel():
                assert t.grad.float().abs().max().item() == 0.0


@requires_fused
def test_paths_the_fused_kernel_leaves_to_the_math_backend():
    q = _leaf(RNG.normal(size=(1, 2, 9, 16)), genesis.bfloat16)
    v32 = genesis.randn(1, 2, 9, 8, device="cuda").to(genesis.bfloat16)
    cases = [
        F.scaled_dot_product_attention(q.double(), q.double(), q.double()),  # float64
        F.scaled_dot_product_attention(q, q, v32),  # value head dim differs
        F.scaled_dot_product_attention(q, q, q, dropout_p=0.5),
    ]
    mask = genesis.zeros(9, 9, device="cuda", requires_grad=True)
    cases.append(F.scaled_dot_product_attention(q, q, q, attn_mask=mask))
    for out in cases:
        assert "FusedAttention" not in _graph_names(out)
    cases[-1].sum().backward()
    assert mask.grad is not None and mask.grad.shape == (9, 9)
    with sdpa_kernel(SDPBackend.MATH):
        assert "FusedAttention" not in _graph_names(F.scaled_dot_product_attention(q, q, q))
    m = genesis.ones(9, 9, device="cuda", dtype=genesis.bool)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):  # cuDNN alone takes no mask, as torch raises
        with pytest.raises(RuntimeError, match=r"^\[scaled_dot_product_attention\] no available"):
            F.scaled_dot_product_attention(q, q, q, attn_mask=m)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH]):  # declined: composed path
        out = F.scaled_dot_product_attention(q, q, q, attn_mask=m)
        assert "FusedAttention" not in _graph_names(out)


@requires_fused
def test_double_backward_raises():
    q = _leaf(RNG.normal(size=(1, 2, 9, 16)), genesis.bfloat16)
    out = F.scaled_dot_product_attention(q, q, q)
    (g,) = genesis.autograd.grad(out.float().sum(), q, create_graph=True)
    with pytest.raises(RuntimeError, match=r"\[scaled_dot_product_attention\] the fused"):
        g.float().sum().backward()


@requires_fused
def test_multi_head_attention_layer_uses_the_kernel():
    genesis.manual_seed(0)
    mha = genesis.nn.MultiheadAttention(64, 4, batch_first=True).to("cuda", genesis.bfloat16)
    x = genesis.randn(2, 30, 64, device="cuda", dtype=genesis.bfloat16)
    out, weights = mha(x, x, x, need_weights=False)
    assert weights is None and "FusedAttention" in _graph_names(out)


@requires_fused
def test_against_torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    shape = (2, 4, 300, 128)
    arrays = [RNG.normal(size=shape).astype(np.float32) for _ in range(3)]
    g = [genesis.tensor(a, device="cuda", dtype=genesis.bfloat16).requires_grad_() for a in arrays]
    t = [torch.tensor(a, device="cuda", dtype=torch.bfloat16, requires_grad=True) for a in arrays]
    out = F.scaled_dot_product_attention(*g, is_causal=True)
    expect = torch.nn.functional.scaled_dot_product_attention(*t, is_causal=True)
    grad = RNG.normal(size=shape).astype(np.float32)
    out.backward(genesis.tensor(grad, device="cuda", dtype=genesis.bfloat16))
    expect.backward(torch.tensor(grad, device="cuda", dtype=torch.bfloat16))
    assert _relative_error(out, expect.detach()) < 2e-2
    for a, b in zip(g, t):
        assert _relative_error(a.grad, b.grad) < 4e-2


@requires_fused
def test_binding_errors():
    q = genesis.randn(1, 2, 4, 8, device="cuda").to(genesis.bfloat16)
    op = "scaled_dot_product_attention"
    with pytest.raises(
        TypeError, match=r"\[sdpa\] the fused attention takes float16, bfloat16 or float32"
    ):
        _C._nn._fused_attention(
            q.double(), q.double(), q.double(), None, 1.0, False, 0.0, True, True, "sdpa"
        )
    with pytest.raises(RuntimeError, match=r"\[sdpa\] the fused attention takes 4-D"):
        _C._nn._fused_attention(q[0], q[0], q[0], None, 1.0, False, 0.0, True, True, "sdpa")
    with pytest.raises(RuntimeError, match=r"do not fit"):
        _C._nn._fused_attention(
            q, q[:, :1, :, :4], q[:, :1, :, :4], None, 1.0, False, 0.0, True, True, op
        )
    with pytest.raises(RuntimeError, match=r"head dims from 1 to 256"):
        big = genesis.zeros(1, 1, 2, 264, device="cuda", dtype=genesis.bfloat16)
        _C._nn._fused_attention(big, big, big, None, 1.0, False, 0.0, True, True, op)
    with pytest.raises(RuntimeError, match=r"attn_mask \(1, 1, 3, 4\) does not broadcast"):
        m = genesis.ones(1, 1, 3, 4, device="cuda", dtype=genesis.bool).reshape(1, 1, 3, 4)
        _C._nn._fused_attention(q, q, q, m, 1.0, False, 0.0, True, True, op)
    with pytest.raises(TypeError, match=r"attn_mask must be bool, float32"):
        m = genesis.ones(1, 1, 4, 4, device="cuda", dtype=genesis.int32)
        _C._nn._fused_attention(q, q, q, m, 1.0, False, 0.0, True, True, op)
    out, lse, rng, path = _C._nn._fused_attention(
        q, q, q, None, 1 / math.sqrt(8), False, 0.0, True, True, op
    )
    assert path in (1, 2) and rng is None
    assert lse.dtype == genesis.float32 and lse.shape == (1, 2, 4)
    with pytest.raises(RuntimeError, match=r"are not those of query"):
        _C._nn._fused_attention_backward(
            q[:, :, :2], q, q, q, out, lse, None, 1.0, False, 0.0, None, True, op
        )
    with pytest.raises(ValueError, match=r"takes 0 <= dropout_p < 1, got 1"):
        _C._nn._fused_attention(q, q, q, None, 1.0, False, 1.0, True, True, op)
    with pytest.raises(ValueError, match=r"dropout backward takes the forward's rng"):
        _C._nn._fused_attention_backward(
            q, q, q, q, out, lse, None, 1.0, False, 0.5, None, True, op
        )
    cpu = genesis.zeros(1, 1, 2, 8, dtype=genesis.bfloat16)
    with pytest.raises(RuntimeError, match=r"takes CUDA tensors"):
        _C._nn._fused_attention(cpu, cpu, cpu, None, 1.0, False, 0.0, True, True, op)


def test_cpu_never_fused():
    q = genesis.randn(1, 2, 5, 8, dtype=genesis.bfloat16, requires_grad=True)
    out = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert "FusedAttention" not in _graph_names(out)
    if not HAS_CUDA:
        assert not _C._nn._fused_attention_supported(q)


def test_views_the_kernels_take():
    """The 4-D views of query and mask that the fused path builds (no GPU needed)."""
    from genesis.nn.functional._attention_fused import _as_4d, _mask_4d

    assert tuple(_as_4d(genesis.zeros(5, 8)).shape) == (1, 1, 5, 8)
    assert tuple(_as_4d(genesis.zeros(3, 5, 8)).shape) == (1, 3, 5, 8)
    assert tuple(_as_4d(genesis.zeros(2, 3, 4, 5, 8)).shape) == (6, 4, 5, 8)
    lead = (2, 3, 4)  # query (2, 3, 4, L, E) folds to (6, 4, L, E)
    assert tuple(_mask_4d(genesis.zeros(5, 7), lead).shape) == (1, 1, 5, 7)
    assert tuple(_mask_4d(genesis.zeros(4, 5, 7), lead).shape) == (1, 4, 5, 7)
    assert tuple(_mask_4d(genesis.zeros(2, 3, 1, 5, 7), lead).shape) == (6, 1, 5, 7)
    assert _mask_4d(genesis.zeros(2, 1, 1, 5, 7), lead) is None  # folds unlike the query
    assert _mask_4d(genesis.zeros(9, 2, 3, 4, 5, 7), lead) is None  # would grow the output
    assert tuple(_mask_4d(genesis.zeros(3, 5, 7), (3,)).shape) == (1, 3, 5, 7)
    assert tuple(_mask_4d(genesis.zeros(5, 7), ()).shape) == (1, 1, 5, 7)


def test_sdpa_kernel_sets_and_restores_the_paths():
    from genesis.nn.attention import SDPBackend, sdpa_kernel

    torch_attention = pytest.importorskip("torch.nn.attention")
    assert {b.name: b.value for b in SDPBackend} == {
        b.name: b.value for b in torch_attention.SDPBackend.__members__.values()
    }
    flags = backends_cuda.flash_sdp_enabled, backends_cuda.math_sdp_enabled
    with sdpa_kernel(SDPBackend.MATH):
        assert (flags[0](), flags[1]()) == (False, True)
        with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION], set_priority=True):
            assert (flags[0](), flags[1]()) == (True, False)
        assert (flags[0](), flags[1]()) == (False, True)
    with pytest.raises(ValueError, match="inside"):
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION]):
            assert (flags[0](), flags[1]()) == (True, False)
            raise ValueError("inside")
    assert (flags[0](), flags[1]()) == (True, True)
    q = genesis.randn(1, 2, 3, 4)  # CPU: only the math path takes it
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        with pytest.raises(RuntimeError, match="no available kernel"):
            F.scaled_dot_product_attention(q, q, q)
    with pytest.raises(TypeError, match=r"\[sdpa_kernel\] backends must be SDPBackend"):
        with sdpa_kernel(["MATH"]):
            pass
    assert (flags[0](), flags[1]()) == (True, True)
    if HAS_FUSED:
        h = genesis.randn(1, 2, 9, 16, device="cuda").to(genesis.bfloat16).requires_grad_()
        with sdpa_kernel(SDPBackend.MATH):
            assert "FusedAttention" not in _graph_names(F.scaled_dot_product_attention(h, h, h))
        assert "FusedAttention" in _graph_names(F.scaled_dot_product_attention(h, h, h))


def _fused_pair(q, k, v, causal, cudnn):
    """(out, lse, path) of one forward through the private binding on one path."""
    scale = 1 / math.sqrt(q.shape[-1])
    out, lse, _, path = _C._nn._fused_attention(
        q, k, v, None, scale, causal, 0.0, cudnn, not cudnn, "sdpa"
    )
    return out, lse, path


@requires_cudnn_attention
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize(
    "qs,ks", [((2, 4, 128, 64), (2, 4, 128, 64)), ((1, 8, 300, 128), (1, 2, 257, 128))]
)
@pytest.mark.parametrize("causal", [False, True])
def test_cudnn_runs_and_agrees_with_the_genesis_kernels(dtype, qs, ks, causal):
    """cuDNN takes the common shapes (path 2), and its output, log-sum-exp and gradients agree
    with genesis's kernels; each backward also follows the other path's forward (the two lse
    have one meaning)."""
    dt = DTYPES[dtype]
    q, k, v = (genesis.tensor(RNG.normal(size=s), dtype=dt, device="cuda") for s in (qs, ks, ks))
    out_c, lse_c, path_c = _fused_pair(q, k, v, causal, True)
    out_g, lse_g, path_g = _fused_pair(q, k, v, causal, False)
    assert (path_c, path_g) == (2, 1)
    assert _relative_error(out_c, out_g) < TOLERANCE[dtype]
    assert _relative_error(lse_c, lse_g) < 1e-4
    dout = genesis.tensor(RNG.normal(size=qs), dtype=dt, device="cuda")
    scale = 1 / math.sqrt(qs[-1])
    grads = {}
    for fwd, out, lse in (("cudnn", out_c, lse_c), ("genesis", out_g, lse_g)):
        for bwd in (True, False):
            grads[fwd, bwd] = _C._nn._fused_attention_backward(
                dout, q, k, v, out, lse, None, scale, causal, 0.0, None, bwd, "sdpa"
            )
    ref = grads["genesis", False]
    for key, got in grads.items():
        for name, a, b in zip("qkv", got, ref):
            assert a.shape == b.shape and a.dtype == dt, (key, name)
            assert _relative_error(a, b) < 2 * TOLERANCE[dtype], (key, name)


@requires_cudnn_attention
def test_cudnn_declines_what_it_does_not_take():
    """Head dims not a multiple of 8 and misaligned rows go to genesis's kernels (path 1), or
    to nothing (path 0, no tensors) when those are switched off."""
    q = genesis.tensor(RNG.normal(size=(1, 2, 16, 20)), dtype=genesis.bfloat16, device="cuda")
    assert _fused_pair(q, q, q, False, True)[2] == 0
    scale = 1.0
    out, lse, _, path = _C._nn._fused_attention(
        q, q, q, None, scale, False, 0.0, True, True, "sdpa"
    )
    assert path == 1 and out.shape == q.shape
    wide = genesis.tensor(RNG.normal(size=(1, 2, 16, 65)), dtype=genesis.bfloat16, device="cuda")
    shifted = wide[..., 1:]  # E 64, rows start 2 bytes past 16-byte alignment
    assert _fused_pair(shifted, shifted, shifted, True, True)[2] == 0
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):  # declined, math off: no kernel, as torch
        with pytest.raises(RuntimeError, match=r"^\[scaled_dot_product_attention\] no available"):
            F.scaled_dot_product_attention(q, q, q)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH]):  # declined: composed path
        out = F.scaled_dot_product_attention(q, q, q)
        assert "FusedAttention" not in _graph_names(out)


@requires_cudnn_attention
def test_cudnn_graph_built_inside_a_cuda_graph_capture():
    """The first call of a new shape builds its cuDNN graph while a CUDA graph is being
    captured (no synchronizing, no allocation outside the capture's pool); the replay then
    recomputes the same attention on new values."""
    shape = (1, 3, 96, 64)  # a shape no other test builds
    q = genesis.tensor(RNG.normal(size=shape), dtype=genesis.bfloat16, device="cuda")
    graph = genesis.cuda.CUDAGraph()
    with genesis.cuda.graph(graph):
        out, _, path = _fused_pair(q, q, q, True, True)
    assert path == 2
    fresh = genesis.tensor(RNG.normal(size=shape), dtype=genesis.bfloat16, device="cuda")
    q.copy_(fresh)
    graph.replay()
    genesis.cuda.synchronize()
    want, _, _ = _fused_pair(fresh, fresh, fresh, True, False)
    assert _relative_error(out, want) < TOLERANCE["bfloat16"]


@requires_cudnn_attention
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("heads,kv_heads", [(4, 4), (4, 2)])
@pytest.mark.parametrize("causal", [False, True])
def test_cudnn_results_in_the_operands_layout(dtype, heads, kv_heads, causal):
    """Note [Attention results in the operands' layout]: heads made by view + transpose (a
    GPT-2's qkv split) give an output and q, k, v gradients laid out (B, L, H, E) too, so the
    model's transpose(1, 2).contiguous() and the gradients' way back are views (siblings' gradients
    share one buffer, so the split's backward is a view too); values and gradients as the composed
    path's; contiguous operands keep contiguous results."""
    dt = DTYPES[dtype]
    b, s, e = 2, 72, 64
    split = [heads * e, kv_heads * e, kv_heads * e]
    a = RNG.normal(size=(b, s, sum(split)))
    ref_qkv = genesis.tensor(a, dtype=dt, device="cuda").float().requires_grad_()
    qkv = genesis.tensor(a, dtype=dt, device="cuda").requires_grad_()
    gqa = heads != kv_heads

    def heads_of(t):
        parts = t.split(split, dim=2)
        return [x.view(b, s, -1, e).transpose(1, 2) for x in parts]

    q, k, v = heads_of(qkv)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
    assert out.transpose(1, 2).is_contiguous()  # (B, L, H, E) in memory
    assert out.transpose(1, 2).contiguous().data_ptr() == out.data_ptr()  # the copy is free
    with sdpa_kernel(SDPBackend.MATH):
        ref = heads_of(ref_qkv)
        expect = F.scaled_dot_product_attention(*ref, is_causal=causal, enable_gqa=gqa)
    assert _relative_error(out, expect) < TOLERANCE[dtype]
    grad = genesis.tensor(RNG.normal(size=tuple(out.shape)), dtype=dt, device="cuda")
    dq, dk, dv = genesis.autograd.grad(out, (q, k, v), grad, retain_graph=True)
    for d in (dq, dk, dv):  # (B, L, H, E) rows: each position's heads dense
        assert d.transpose(1, 2).stride()[2:] == (e, 1), d.stride()
    if gqa:
        assert all(d.transpose(1, 2).is_contiguous() for d in (dq, dk, dv))
    else:  # Note [Sibling views]: the gradients are the pieces of one (B, L, 3HE) buffer
        item = dq.element_size()
        assert dq.stride(2) == sum(split)
        assert dk.data_ptr() - dq.data_ptr() == split[0] * item
        assert dv.data_ptr() - dk.data_ptr() == split[1] * item
    out.backward(grad)
    expect.backward(grad.float())
    assert _relative_error(qkv.grad, ref_qkv.grad) < 2 * TOLERANCE[dtype]
    if not gqa:  # contiguous (B, H, L, E) operands: a contiguous result
        out_c, _, path = _fused_pair(q.contiguous(), k.contiguous(), v.contiguous(), causal, True)
        assert path == 2 and out_c.is_contiguous()
        assert _relative_error(out_c, out) < TOLERANCE[dtype]
