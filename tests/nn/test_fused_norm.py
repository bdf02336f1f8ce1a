"""The fused layer norm and RMS norm kernels (Note [Fused row normalization] in
csrc/ops/normalization.cpp) against torch, on the shapes that pick each kernel path.

test_normalization.py checks the functional and module semantics (float64 gradients, double
backward, every option); here: the row lengths that take the register kernels (whole aligned
16-byte packs, up to 4 packs a thread) and the loop kernels (odd lengths, rows longer than a
block holds, misaligned storage offsets), many rows a block in backward, every floating dtype
forward and backward, the weight and bias gradients' column sums, the node names, determinism,
and the composed fallback for mixed dtypes.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import to_numpy

import genesis
import genesis.nn.functional as F

torch = pytest.importorskip("torch")

# Row lengths: tiny, odd (no 16-byte packs), GPT-2's width, a few packs past a power of two, a
# row of 4096, rows whose backward holds 2 and 4 float32 packs a thread (8192, 12288), and one
# longer than a 1024-thread block's registers hold for float32 (16384).
COLS = [1, 7, 768, 1000, 4096, 8192, 12288, 20000]
TOL = {  # (rtol, atol) of the result and the gradients against torch in float64
    "float64": (1e-10, 1e-10),
    "float32": (2e-5, 2e-5),
    "float16": (2e-3, 4e-3),
    "bfloat16": (2e-2, 3e-2),
}


def _np(t):
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(genesis.float64))
    return t.detach().double().numpy()


def _run(lib, x, w, b, dy, rms, shape, eps):
    x = x.clone().requires_grad_()
    params = [p.clone().requires_grad_() if p is not None else None for p in (w, b)]
    wp, bp = params
    if rms:
        y = lib.nn.functional.rms_norm(x, shape, wp, eps)
    else:
        y = lib.nn.functional.layer_norm(x, shape, wp, bp, eps)
    y.backward(dy)
    return y, x.grad, wp.grad if wp is not None else None, bp.grad if bp is not None else None


def _pair(array, device, dtype):
    g = genesis.tensor(array, device=device).to(getattr(genesis, dtype))
    t = torch.tensor(array).to(getattr(torch, dtype))
    return g, t


def _compare(device, dtype, xshape, nshape, rms, affine=True, eps=1e-5, rows_of=None):
    rng = np.random.default_rng(sum(xshape) + len(nshape))
    a = rng.standard_normal(xshape) * 2 + 0.5
    dy = rng.standard_normal(xshape)
    wa = rng.standard_normal(nshape) * 0.5 + 1
    ba = rng.standard_normal(nshape) * 0.5
    gx, tx = _pair(a, device, dtype)
    gdy, tdy = _pair(dy, device, dtype)
    gw, tw = _pair(wa, device, dtype) if affine else (None, None)
    gb, tb = _pair(ba, device, dtype) if affine and not rms else (None, None)
    got = _run(genesis, gx, gw, gb, gdy, rms, list(nshape), eps)
    # torch's reference in float64 from the same (rounded) inputs
    want = _run(
        torch,
        tx.double(),
        tw.double() if tw is not None else None,
        tb.double() if tb is not None else None,
        tdy.double(),
        rms,
        list(nshape),
        eps,
    )
    rtol, atol = TOL[dtype]
    for name, g, t in zip(["out", "input", "weight", "bias"], got, want):
        assert (g is None) == (t is None), name
        if g is None:
            continue
        assert g.dtype == getattr(genesis, dtype), name
        assert tuple(g.shape) == tuple(t.shape), name
        # column sums grow with the rows: scale the absolute tolerance
        scale = np.sqrt(np.prod(xshape) / np.prod(nshape)) if name in ("weight", "bias") else 1
        np.testing.assert_allclose(_np(g), _np(t), rtol=rtol, atol=atol * scale, err_msg=name)


@pytest.mark.parametrize("rms", [False, True], ids=["layer", "rms"])
@pytest.mark.parametrize("cols", COLS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_rows_of_every_length_and_dtype(device, dtype, cols, rms):
    _compare(device, dtype, (6, cols), (cols,), rms)


@pytest.mark.parametrize("rms", [False, True], ids=["layer", "rms"])
def test_many_rows_share_a_backward_block(device, rms):
    # more rows than the backward's blocks: each block sums several rows' weight gradients
    _compare(device, "float32", (3000, 64), (64,), rms)
    _compare(device, "float32", (2, 600, 40), (40,), rms)
    # enough backward blocks that their partial rows are summed in chunks first
    _compare(device, "float32", (6000, 256), (256,), rms)


@pytest.mark.parametrize("rms", [False, True], ids=["layer", "rms"])
def test_several_normalized_dims_and_no_affine(device, rms):
    _compare(device, "float32", (3, 4, 5, 6), (5, 6), rms)
    _compare(device, "float32", (4, 96), (96,), rms, affine=False)
    _compare(device, "float64", (5, 8), (5, 8), rms, eps=0.1)


@pytest.mark.parametrize("rms", [False, True], ids=["layer", "rms"])
def test_non_contiguous_and_offset_inputs(device, rms):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((8, 33)).astype(np.float32)
    for view in (lambda t: t[:, 1:], lambda t: t.t()[:32].t(), lambda t: t[1::2, :32]):
        g = view(genesis.tensor(a, device=device))
        t = view(torch.tensor(a))
        n = g.shape[-1]
        gy = F.rms_norm(g, [n]) if rms else F.layer_norm(g, [n])
        ty = torch.nn.functional.rms_norm(t, [n]) if rms else torch.nn.functional.layer_norm(t, [n])
        np.testing.assert_allclose(to_numpy(gy), ty.numpy(), rtol=2e-5, atol=2e-5)


def test_zero_size(device):
    for shape, ns in [((0, 5), [5]), ((3, 0), [0]), ((0, 0), [0])]:
        x = genesis.zeros(*shape, device=device, requires_grad=True)
        w = genesis.ones(*ns, device=device, requires_grad=True)
        b = genesis.zeros(*ns, device=device, requires_grad=True)
        y = F.layer_norm(x, ns, w, b)
        assert tuple(y.shape) == shape
        y.sum().backward()
        assert tuple(x.grad.shape) == shape
        assert to_numpy(w.grad).tolist() == [0.0] * ns[0]
        assert to_numpy(b.grad).tolist() == [0.0] * ns[0]


@pytest.mark.parametrize("rows", [512, 20000])
def test_node_names_and_determinism(device, rows):
    x = genesis.randn(rows, 96, device=device, requires_grad=True)
    w = genesis.randn(96, device=device, requires_grad=True)
    b = genesis.randn(96, device=device, requires_grad=True)
    assert F.layer_norm(x, [96], w, b).grad_fn.name() == "NativeLayerNormBackward0"
    assert F.rms_norm(x, [96], w).grad_fn.name() == "FusedRmsNormBackward0"
    dy = genesis.randn(rows, 96, device=device)
    grads = []
    for _ in range(2):
        x.grad = w.grad = b.grad = None
        F.layer_norm(x, [96], w, b).backward(dy)
        grads.append([to_numpy(t.grad) for t in (x, w, b)])
    for a, c in zip(*grads):
        assert np.array_equal(a, c)


def test_mixed_dtypes_take_the_composed_path(device):
    # a bfloat16 input with float32 parameters: promoted as PyTorch's composite does
    x = genesis.randn(4, 16, device=device).to(genesis.bfloat16)
    w = genesis.randn(16, device=device)
    y = F.layer_norm(x, [16], w)
    assert y.grad_fn is None
    ref = F.layer_norm(x.float(), [16], w)
    np.testing.assert_allclose(to_numpy(y.float()), to_numpy(ref), rtol=2e-2, atol=2e-2)


def test_double_backward_through_the_fused_node(device):
    # create_graph differentiates the recorded formula: compare second derivatives with torch
    rng = np.random.default_rng(5)
    a, wa = rng.standard_normal((3, 10)), rng.standard_normal(10)
    for rms in (False, True):
        out = []
        for lib in (genesis, torch):
            kw = {"device": device} if lib is genesis else {}
            x = lib.tensor(a, **kw).requires_grad_()
            w = lib.tensor(wa, **kw).requires_grad_()
            f = lib.nn.functional
            y = f.rms_norm(x, [10], w) if rms else f.layer_norm(x, [10], w)
            (gx,) = lib.autograd.grad((y * y.detach().sin()).sum(), x, create_graph=True)
            (gw,) = lib.autograd.grad((gx * gx).sum(), w)
            out.append(_np(gw))
        np.testing.assert_allclose(out[0], out[1], rtol=1e-9, atol=1e-9)


def test_modules_use_the_fused_op(device):
    ln = genesis.nn.LayerNorm(32, device=device)
    rn = genesis.nn.RMSNorm(32, device=device)
    x = genesis.randn(4, 32, device=device, requires_grad=True)
    assert ln(x).grad_fn.name() == "NativeLayerNormBackward0"
    assert rn(x).grad_fn.name() == "FusedRmsNormBackward0"


def test_bad_input_from_the_compiled_op():
    x = genesis.randn(2, 4)
    with pytest.raises(RuntimeError, match=r"^\[layer_norm\] expected weight of 4 items"):
        genesis._C._nn._layer_norm(x, 1, genesis.ones(3), None, 1e-5)
    with pytest.raises(RuntimeError, match=r"^\[rms_norm\] expected 1 to 2 normalized dims"):
        genesis._C._nn._rms_norm(x, 3, None, 1e-5)
    with pytest.raises(TypeError, match=r"^\[layer_norm\] expected a floating point input"):
        genesis._C._nn._layer_norm(genesis.ones(2, 4, dtype=genesis.int64), 1, None, None, 1e-5)
    with pytest.raises(RuntimeError, match=r"^\[layer_norm\] expected weight of dtype float32"):
        genesis._C._nn._layer_norm(x, 1, genesis.ones(4, dtype=genesis.float64), None, 1e-5)


# (N, C, *spatial, groups): the kernel's shapes (Note [Fused group norm kernels]): whole
# 16-byte packs and single items (odd spatial sizes), rows of more channels than warps, of fewer
# (a channel cut among warps, some warps idle), one channel a group, rows long enough for the
# widest block, one sample (the column sums of one row), no spatial dims; in the widest block, a
# channel a warp (2, 32, 32, 32), 2-3 channels a warp with some warps one channel fewer and lanes
# of 1 or 2 packs (2, 20, 224), 4 channels a warp (2, 64, 128), 2 channels (2, 32, 512), and a
# channel cut between two warps (2, 6, 2048).
GROUP_SHAPES = [
    ((16, 64, 6, 5), 32),
    ((3, 24, 7), 2),
    ((2, 6, 2048), 2),
    ((2, 9, 1024), 3),
    ((4, 8, 33), 8),
    ((2, 32, 32, 32), 4),
    ((1, 6, 16), 3),
    ((5, 12), 4),
    ((2, 20, 224), 1),
    ((2, 64, 128), 2),
    ((2, 32, 512), 2),
    ((2, 16, 64, 64), 2),  # rows of 32768 items
]


@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape, groups", GROUP_SHAPES, ids=[str(s[0]) for s in GROUP_SHAPES])
def test_fused_group_norm(device, dtype, affine, shape, groups):
    # Note [Fused group norm]: forward and every gradient against torch in float64 (16-bit
    # inputs with an affine step are fused too: the affine step rounds once with the rest).
    rng = np.random.default_rng(5)
    c = shape[1]
    x = rng.normal(size=shape) * 3 + 1
    w, b = rng.normal(size=c), rng.normal(size=c)
    dy = rng.normal(size=x.shape)
    rtol, atol = TOL[dtype]
    got, ref = [], []
    for lib, out in ((genesis, got), (torch, ref)):
        kw = {"device": device} if lib is genesis else {}
        dt = getattr(lib, dtype) if lib is genesis else torch.float64
        tx = lib.tensor(x, **kw).to(dt).requires_grad_()
        tw = lib.tensor(w, **kw).to(dt).requires_grad_() if affine in ("both", "weight") else None
        tb = lib.tensor(b, **kw).to(dt).requires_grad_() if affine in ("both", "bias") else None
        wr = tw
        if lib is torch and tw is None and tb is not None:  # torch 2.13 fails backward there
            wr = torch.ones(c, dtype=dt)
        y = lib.nn.functional.group_norm(tx, groups, wr, tb, 1e-5)
        if lib is genesis:
            assert y.grad_fn.name() == "NativeGroupNormBackward0"
        y.backward(lib.tensor(dy, **kw).to(dt))
        out += [_np(y), _np(tx.grad)] + [_np(t.grad) for t in (tw, tb) if t is not None]
    scale = [1, 1, c, c]  # the parameter gradients add over many items
    for i, (a, e) in enumerate(zip(got, ref)):
        tol = 10 * scale[min(i, 3)] ** 0.5 if dtype in ("float16", "bfloat16") else 10
        np.testing.assert_allclose(a, e, rtol=rtol * tol, atol=atol * tol * np.abs(e).max())


def test_fused_group_norm_misaligned_and_strided(device):
    # A storage offset of one item (no 16-byte packs) and a channels-last view (copied to
    # contiguous rows first): the same values as the contiguous input.
    rng = np.random.default_rng(6)
    base = genesis.tensor(rng.normal(size=(1 + 4 * 8 * 64,)), device=device).float()
    x = base[1:].view(4, 8, 64)
    w = genesis.tensor(rng.normal(size=8), device=device).float()
    want = F.group_norm(x.contiguous(), 2, w, w)
    np.testing.assert_array_equal(to_numpy(F.group_norm(x, 2, w, w)), to_numpy(want))
    nhwc = genesis.tensor(rng.normal(size=(2, 5, 6, 8)), device=device).float()
    strided = nhwc.permute(0, 3, 1, 2)
    np.testing.assert_allclose(
        to_numpy(F.group_norm(strided, 4, w, w)),
        to_numpy(F.group_norm(strided.contiguous(), 4, w, w)),
        rtol=0,
        atol=0,
    )


def test_fused_group_norm_is_deterministic(device):
    rng = np.random.default_rng(7)
    x = genesis.tensor(rng.normal(size=(64, 32, 16, 16)), device=device).float()
    w = genesis.tensor(rng.normal(size=32), device=device).float()
    dy = genesis.tensor(rng.normal(size=x.shape), device=device).float()
    runs = []
    for _ in range(2):
        tx, tw, tb = (t.detach().requires_grad_() for t in (x, w, w))
        F.group_norm(tx, 8, tw, tb).backward(dy)
        runs.append([to_numpy(t.grad) for t in (tx, tw, tb)])
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


def test_fused_group_norm_double_backward(device):
    # Under create_graph the node records its formula; second derivatives against torch, with
    # several channels a group and several items a channel.
    rng = np.random.default_rng(8)
    x, w = rng.normal(size=(3, 6, 4)), rng.normal(size=6)
    v, u = rng.normal(size=(3, 6, 4)), rng.normal(size=(3, 6, 4))
    results = []
    for lib, kw in ((genesis, {"device": device}), (torch, {})):
        tx = lib.tensor(x, **kw).double().requires_grad_()
        tw = lib.tensor(w, **kw).double().requires_grad_()
        y = lib.nn.functional.group_norm(tx, 3, tw, tw * 0.5)
        (gx,) = lib.autograd.grad(y, [tx], lib.tensor(v, **kw).double(), create_graph=True)
        (gx * lib.tensor(u, **kw).double()).sum().backward()
        results.append([_np(t) for t in (gx, tx.grad, tw.grad)])
    for a, e in zip(*results):
        np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-9)


def test_fused_group_norm_errors():
    x = genesis.randn(2, 4, 3)
    with pytest.raises(TypeError, match=r"^\[group_norm\] expected a floating point input"):
        genesis._C._nn._group_norm(genesis.ones(2, 4, dtype=genesis.int64), 2, None, None, 1e-5)
    with pytest.raises(RuntimeError, match=r"^\[group_norm\] expected 4 channels to split into 3"):
        genesis._C._nn._group_norm(x, 3, None, None, 1e-5)
    with pytest.raises(RuntimeError, match=r"^\[group_norm\] expected weight of dtype float32"):
        genesis._C._nn._group_norm(x, 2, genesis.ones(4, dtype=genesis.float64), None, 1e-5)
    with pytest.raises(RuntimeError, match=r"^\[group_norm\] expected bias of 4 items"):
        genesis._C._nn._group_norm(x, 2, None, genesis.ones(5), 1e-5)
