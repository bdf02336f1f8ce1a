"""genesis.nn's normalization layers against PyTorch (CPU).

- functional: layer_norm, rms_norm, group_norm, batch_norm (train and eval, the in-place running
  statistics), instance_norm, normalize, local_response_norm: forward and the gradients of
  input, weight and bias (check_grads, float64 and float32), double backward of a few, every
  option, non-contiguous (channels-last-like permuted) inputs and zero-size batches;
- float16/bfloat16 forward (statistics in float32, the input's dtype back);
- modules: LayerNorm, RMSNorm, GroupNorm, BatchNorm1d/2d/3d (running statistics after several
  steps, momentum=None, track_running_stats=False, eval after train), InstanceNorm1d/2d/3d,
  LocalResponseNorm: outputs, repr, state_dict keys, a torch state_dict loaded;
- bad input: the exception class PyTorch raises, the message prefixed with the [name].
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import to_numpy
from test_autograd import check_grads, grads_both, rand
from torch_reference import skip_unless_reference_torch

import genesis

torch = pytest.importorskip("torch")

RTOL32, ATOL32 = 1e-4, 1e-5  # float32 normalizations (a reduction, rsqrt, a division)


def _np(t):
    """A NumPy float copy of a genesis or torch tensor."""
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach())
    return t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()


def _close(g, t, rtol=1e-6, atol=1e-9):
    assert tuple(g.shape) == tuple(t.shape), (g.shape, t.shape)
    assert str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (g.dtype, t.dtype)
    np.testing.assert_allclose(_np(g), _np(t), rtol=rtol, atol=atol)


def _both(array, device, dtype=None):
    """(genesis tensor, torch tensor) of one NumPy array, cast to dtype's name when given."""
    g = genesis.tensor(array, device=device)
    t = torch.tensor(array)
    if dtype is not None:
        g, t = g.to(getattr(genesis, dtype)), t.to(getattr(torch, dtype))
    return g, t


def _load_torch_state(gmod, tmod, device):
    """gmod gets tmod's parameters and buffers (values through NumPy)."""
    state = {
        k: genesis.tensor(v.detach().numpy(), device=device) for k, v in tmod.state_dict().items()
    }
    gmod.load_state_dict(state)


def _pair(name, device, *args, **kwargs):
    """The genesis and torch modules nn.<name>(*args, **kwargs), with torch's random
    affine parameters (so weight and bias are not the trivial ones) copied to genesis."""
    if "bias" in kwargs:
        skip_unless_reference_torch(torch, "the norm layers' bias= argument and reprs")
    tmod = getattr(torch.nn, name)(*args, **kwargs).double()
    with torch.no_grad():
        for p in tmod.parameters():
            p.copy_(torch.tensor(rand(tuple(p.shape), 7)) * 0.5 + 1.0)
    gmod = (
        getattr(genesis.nn, name)(*args, **kwargs, device=device, dtype=genesis.float64)
        if name != "LocalResponseNorm"
        else genesis.nn.LocalResponseNorm(*args, **kwargs)
    )
    _load_torch_state(gmod, tmod, device)
    return gmod, tmod


# ----------------------------------------------------------------------------------------------
# Functional: forward and gradients (float64)
# ----------------------------------------------------------------------------------------------

LAYER_NORM = [
    ("last", (4, 5), (5,), True, True, 1e-5),
    ("two_dims", (2, 3, 4), (3, 4), True, True, 1e-5),
    ("weight_only", (3, 6), (6,), True, False, 1e-5),
    ("bias_only", (3, 6), (6,), False, True, 1e-5),
    ("plain", (2, 2, 5), (5,), False, False, 1e-3),
    ("all_dims", (3, 4), (3, 4), True, True, 1e-5),
    ("1d", (7,), (7,), True, True, 0.1),
]


@pytest.mark.parametrize("case", LAYER_NORM, ids=[c[0] for c in LAYER_NORM])
def test_layer_norm(device, case):
    _, shape, ns, has_w, has_b, eps = case
    arrays = [rand(shape, 1) * 3 + 2]
    if has_w:
        arrays.append(rand(ns, 2))
    if has_b:
        arrays.append(rand(ns, 3))

    def fn(m, x, *wb):
        w = wb[0] if has_w else None
        b = wb[-1] if has_b else None
        return m.nn.functional.layer_norm(x, list(ns), w, b, eps)

    check_grads(fn, arrays, device)


@pytest.mark.parametrize("eps", [None, 1e-3])
@pytest.mark.parametrize("has_w", [True, False])
@pytest.mark.parametrize("shape, ns", [((4, 5), (5,)), ((2, 3, 4), (3, 4))])
def test_rms_norm(device, shape, ns, has_w, eps):
    arrays = [rand(shape, 1)] + ([rand(ns, 2)] if has_w else [])

    def fn(m, x, *w):
        return m.nn.functional.rms_norm(x, list(ns), w[0] if w else None, eps)

    check_grads(fn, arrays, device)


GROUP_NORM = [
    ("3d", (4, 6, 5), 3, True, True),
    ("2d", (3, 4), 2, True, True),
    ("4d_one_group", (2, 4, 3, 3), 1, True, True),
    ("4d_instance_like", (2, 4, 3, 2), 4, True, False),
    ("no_affine", (2, 6, 4), 2, False, False),
    ("5d", (2, 4, 2, 2, 3), 2, True, True),
]


@pytest.mark.parametrize("case", GROUP_NORM, ids=[c[0] for c in GROUP_NORM])
def test_group_norm(device, case):
    _, shape, groups, has_w, has_b = case
    c = shape[1]
    arrays = [rand(shape, 1) * 2 - 1]
    if has_w:
        arrays.append(rand((c,), 2))
    if has_b:
        arrays.append(rand((c,), 3))

    def fn(m, x, *wb):
        w = wb[0] if has_w else None
        b = wb[-1] if has_b else None
        return m.nn.functional.group_norm(x, groups, w, b, eps=1e-4)

    check_grads(fn, arrays, device)


def _stats(m, x, c, mean_seed=11, var_seed=12):
    """Running statistics of lib m on x's device (not leaves)."""
    mean = m.tensor(rand((c,), mean_seed), device=x.device)
    var = m.tensor(np.abs(rand((c,), var_seed)) + 0.5, device=x.device)
    return mean, var


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 3)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_batch_norm(device, shape, training, affine):
    c = shape[1]
    arrays = [rand(shape, 1) * 2 + 1]
    if affine != "none":
        arrays.append(rand((c,), 2))
    if affine == "both":
        arrays.append(rand((c,), 3))
    running = {}

    def fn(m, x, *wb):
        w = wb[0] if wb else None
        b = wb[1] if len(wb) > 1 else None
        mean, var = _stats(m, x, c)
        running[m.__name__] = (mean, var)
        return m.nn.functional.batch_norm(x, mean, var, w, b, training, 0.3, 1e-4)

    check_grads(fn, arrays, device)
    for g, t in zip(running["genesis"], running["torch"]):
        _close(g, t, 1e-12, 1e-12)  # updated in training (unbiased variance), kept in eval


@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 4, 4)])
def test_batch_norm_without_running_stats(device, shape):
    arrays = [rand(shape, 1), rand((shape[1],), 2), rand((shape[1],), 3)]
    check_grads(
        lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
        arrays,
        device,
    )


@pytest.mark.parametrize("use_input_stats", [True, False])
@pytest.mark.parametrize("with_running", [True, False])
@pytest.mark.parametrize("shape", [(2, 3, 5), (3, 2, 3, 4), (2, 2, 2, 3, 2)])
def test_instance_norm(device, shape, use_input_stats, with_running):
    if not use_input_stats and not with_running:
        pytest.skip("running statistics are required without use_input_stats")
    c = shape[1]
    arrays = [rand(shape, 1) * 2 + 1, rand((c,), 2), rand((c,), 3)]
    running = {}

    def fn(m, x, w, b):
        mean, var = _stats(m, x, c) if with_running else (None, None)
        running[m.__name__] = (mean, var)
        return m.nn.functional.instance_norm(x, mean, var, w, b, use_input_stats, 0.2, 1e-4)

    check_grads(fn, arrays, device)
    if with_running:
        for g, t in zip(running["genesis"], running["torch"]):
            _close(g, t, 1e-12, 1e-12)


def test_instance_norm_without_affine(device):
    check_grads(lambda m, x: m.nn.functional.instance_norm(x), [rand((2, 3, 6), 1)], device)


@pytest.mark.parametrize("p", [2.0, 1.0, 3, float("inf")])
@pytest.mark.parametrize("dim", [1, 0, -1, (0, 2)])
def test_normalize(device, p, dim):
    check_grads(lambda m, x: m.nn.functional.normalize(x, p, dim), [rand((3, 4, 2), 1)], device)


def test_normalize_zero_rows_and_eps(device):
    a = rand((3, 4), 1)
    a[1] = 0.0
    check_grads(lambda m, x: m.nn.functional.normalize(x), [a], device)
    check_grads(lambda m, x: m.nn.functional.normalize(x, eps=10.0), [a], device)


def test_normalize_out(device):
    g, t = _both(rand((3, 4), 1), device)
    gout = genesis.zeros((3, 4), dtype=genesis.float64, device=device)
    result = genesis.nn.functional.normalize(g, dim=0, out=gout)
    assert result is gout
    _close(gout, torch.nn.functional.normalize(t, dim=0))


@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 6, 3, 2), (1, 4, 2, 2, 3)])
@pytest.mark.parametrize("size", [1, 2, 3, 5, 9])
def test_local_response_norm(device, shape, size):
    check_grads(
        lambda m, x: m.nn.functional.local_response_norm(x, size, alpha=0.5, beta=0.6, k=2.0),
        [rand(shape, 1) * 2],
        device,
    )


def test_local_response_norm_defaults(device):
    check_grads(
        lambda m, x: m.nn.functional.local_response_norm(x, 3), [rand((2, 4, 5), 1) * 10], device
    )


# ----------------------------------------------------------------------------------------------
# float32, double backward, non-contiguous inputs, zero-size batches
# ----------------------------------------------------------------------------------------------

F32_CASES = [
    ("layer_norm", lambda m, x, w, b: m.nn.functional.layer_norm(x, [6], w, b), (4, 6)),
    ("rms_norm", lambda m, x, w, b: m.nn.functional.rms_norm(x, [6], w) + b, (4, 6)),
    ("group_norm", lambda m, x, w, b: m.nn.functional.group_norm(x, 3, w, b), (4, 6, 5)),
    (
        "batch_norm",
        lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
        (4, 6, 5),
    ),
    (
        "instance_norm",
        lambda m, x, w, b: m.nn.functional.instance_norm(x, weight=w, bias=b),
        (4, 6, 5),
    ),
]


@pytest.mark.parametrize("case", F32_CASES, ids=[c[0] for c in F32_CASES])
def test_float32(device, case):
    _, fn, shape = case
    arrays = [a.astype(np.float32) for a in (rand(shape, 1) + 3, rand((6,), 2), rand((6,), 3))]
    check_grads(fn, arrays, device, rtol=RTOL32, atol=ATOL32)


# (the bias is left out: its gradient does not depend on anything, so no second derivative)
DOUBLE_BACKWARD = [
    ("layer_norm", lambda m, x, w: m.nn.functional.layer_norm(x, [5], w, w * 0.5), (3, 5)),
    (
        "batch_norm",
        lambda m, x, w: m.nn.functional.batch_norm(x, None, None, w, w * 0.5, training=True),
        (4, 5),
    ),
    ("group_norm", lambda m, x, w: m.nn.functional.group_norm(x, 5, w, w * 0.5), (2, 5, 3)),
    ("rms_norm", lambda m, x, w: m.nn.functional.rms_norm(x, [5], w), (3, 5)),
]


@pytest.mark.parametrize("case", DOUBLE_BACKWARD, ids=[c[0] for c in DOUBLE_BACKWARD])
def test_double_backward(device, case):
    _, fn, shape = case
    grads_both(fn, [rand(shape, 1), rand((5,), 2)], device, rtol=1e-6, atol=1e-9)


def _nhwc_to_nchw(x):
    return x.permute(0, 3, 1, 2)  # a channels-last-like, non-contiguous (N, C, H, W) view


NON_CONTIGUOUS = [
    (
        "batch_norm_train",
        lambda m, x, w, b: m.nn.functional.batch_norm(
            _nhwc_to_nchw(x), None, None, w, b, training=True
        ),
    ),
    (
        "batch_norm_eval",
        lambda m, x, w, b: m.nn.functional.batch_norm(_nhwc_to_nchw(x), *_stats(m, x, 4), w, b),
    ),
    ("group_norm", lambda m, x, w, b: m.nn.functional.group_norm(_nhwc_to_nchw(x), 2, w, b)),
    (
        "instance_norm",
        lambda m, x, w, b: m.nn.functional.instance_norm(_nhwc_to_nchw(x), weight=w, bias=b),
    ),
    (
        "layer_norm_transposed",
        lambda m, x, w, b: m.nn.functional.layer_norm(x.transpose(1, 3), [4], w, b),
    ),
    ("rms_norm_sliced", lambda m, x, w, b: m.nn.functional.rms_norm(x[:, ::2, :, :], [4], w)),
    ("lrn", lambda m, x, w, b: m.nn.functional.local_response_norm(_nhwc_to_nchw(x), 3)),
    ("normalize", lambda m, x, w, b: m.nn.functional.normalize(_nhwc_to_nchw(x))),
]


@pytest.mark.parametrize("case", NON_CONTIGUOUS, ids=[c[0] for c in NON_CONTIGUOUS])
def test_non_contiguous(device, case):
    _, fn = case
    arrays = [rand((2, 3, 5, 4), 1) * 2 + 1, rand((4,), 2), rand((4,), 3)]
    if case[0] == "layer_norm_transposed":
        arrays = [rand((2, 4, 5, 3), 1), rand((4,), 2), rand((4,), 3)]
    if case[0] in ("lrn", "normalize"):
        arrays = arrays[:1]
        fn = (lambda f: lambda m, x: f(m, x, None, None))(fn)
    if case[0] == "rms_norm_sliced":
        arrays = arrays[:2]
        fn = (lambda f: lambda m, x, w: f(m, x, w, None))(fn)
    check_grads(fn, arrays, device)


ZERO_SIZE = [
    ("layer_norm", lambda m, x, w, b: m.nn.functional.layer_norm(x, [4], w, b), (0, 3, 4)),
    ("rms_norm", lambda m, x, w, b: m.nn.functional.rms_norm(x, [4], w) * b, (0, 4)),
    ("group_norm", lambda m, x, w, b: m.nn.functional.group_norm(x, 2, w, b), (0, 4, 3)),
    (
        "batch_norm_train",
        lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
        (0, 4, 3),
    ),
    (
        "batch_norm_eval",
        lambda m, x, w, b: m.nn.functional.batch_norm(x, *_stats(m, x, 4), w, b),
        (0, 4),
    ),
    # (torch's instance_norm indexes into an empty tensor with a weight and N=0: none here)
    ("instance_norm", lambda m, x, w, b: m.nn.functional.instance_norm(x) * w[0] * b[0], (0, 4, 3)),
    ("normalize", lambda m, x, w, b: m.nn.functional.normalize(x) * w[0] * b[0], (0, 4)),
]


@pytest.mark.parametrize("case", ZERO_SIZE, ids=[c[0] for c in ZERO_SIZE])
def test_zero_size_batch(device, case):
    _, fn, shape = case
    check_grads(fn, [rand(shape, 1), rand((4,), 2), rand((4,), 3)], device)


def test_zero_size_local_response_norm(device):
    g, t = _both(np.zeros((0, 3, 4)), device)
    _close(
        genesis.nn.functional.local_response_norm(g, 2),
        torch.nn.functional.local_response_norm(t, 2),
    )


def test_batch_norm_zero_batch_leaves_running_stats(device):
    gmod, tmod = _pair("BatchNorm2d", device, 3)
    g, t = _both(np.zeros((0, 3, 2, 2)), device)
    _close(gmod(g), tmod(t))
    for key, value in tmod.state_dict().items():
        _close(gmod.state_dict()[key], value)  # num_batches_tracked counts the empty batch


# ----------------------------------------------------------------------------------------------
# float16 and bfloat16
# ----------------------------------------------------------------------------------------------

TOL = {"float16": (2e-3, 4e-3), "bfloat16": (1.6e-2, 3.2e-2)}

HALF_CASES = [
    ("layer_norm", lambda m, x, w, b: m.nn.functional.layer_norm(x, [6], w, b)),
    ("rms_norm", lambda m, x, w, b: m.nn.functional.rms_norm(x, [6], w)),
    ("rms_norm_eps", lambda m, x, w, b: m.nn.functional.rms_norm(x * 1e-3, [6], None, 1e-6)),
    ("group_norm", lambda m, x, w, b: m.nn.functional.group_norm(x.transpose(1, 2), 2, None, b)),
    (
        "batch_norm_train",
        lambda m, x, w, b: m.nn.functional.batch_norm(
            x.transpose(1, 2), None, None, w, b, training=True
        ),
    ),
    (
        "batch_norm_eval",
        lambda m, x, w, b: m.nn.functional.batch_norm(
            x.transpose(1, 2), w * 0.5, w.abs() + 0.5, w, b
        ),
    ),
    ("instance_norm", lambda m, x, w, b: m.nn.functional.instance_norm(x.transpose(1, 2))),
    ("normalize", lambda m, x, w, b: m.nn.functional.normalize(x, dim=-1)),
    ("lrn", lambda m, x, w, b: m.nn.functional.local_response_norm(x.transpose(1, 2), 3)),
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", HALF_CASES, ids=[c[0] for c in HALF_CASES])
def test_half_forward(device, case, dtype):
    """The input's dtype back, and the values of the float32 computation rounded once (torch's
    own CPU half results can be further off: its instance_norm in bfloat16 is by 0.05)."""
    _, fn = case
    g_args = [
        _both(a.astype(np.float32), device, dtype)
        for a in (rand((5, 4, 6), 1) * 2 + 3, rand((6,), 2), rand((6,), 3))
    ]
    gout = fn(genesis, *(p[0] for p in g_args))
    tout = fn(torch, *(p[1] for p in g_args))
    assert gout.dtype is getattr(genesis, dtype) and tout.dtype is getattr(torch, dtype)
    reference = fn(torch, *(p[1].float() for p in g_args)).to(tout.dtype)
    _close(gout, reference, *TOL[dtype])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_batch_norm_running_stats(device, dtype):
    g, t = _both((rand((8, 3, 4), 1) * 2 + 3).astype(np.float32), device, dtype)
    gm, tm = (
        genesis.zeros(3, device=device).to(getattr(genesis, dtype)),
        torch.zeros(3, dtype=getattr(torch, dtype)),
    )
    gv, tv = (
        genesis.ones(3, device=device).to(getattr(genesis, dtype)),
        torch.ones(3, dtype=getattr(torch, dtype)),
    )
    _close(
        genesis.nn.functional.batch_norm(g, gm, gv, training=True),
        torch.nn.functional.batch_norm(t, tm, tv, training=True),
        *TOL[dtype],
    )
    _close(gm, tm, *TOL[dtype])
    _close(gv, tv, *TOL[dtype])


def test_half_statistics_are_float32(device):
    # Values whose float16 sum of squares would overflow: the statistics are float32.
    a = np.full((2, 8), 300.0, np.float32)
    a[:, ::2] = 100.0
    g, t = _both(a, device, "float16")
    for fn in (
        lambda m, x: m.nn.functional.layer_norm(x, [8]),
        lambda m, x: m.nn.functional.rms_norm(x, [8]),
    ):
        out = fn(genesis, g)
        assert out.dtype is genesis.float16
        _close(out, fn(torch, t), *TOL["float16"])
        assert np.isfinite(_np(out)).all()


def test_half_module(device):
    gmod, tmod = _pair("BatchNorm1d", device, 4)
    gmod.half()
    tmod.half()
    assert gmod.num_batches_tracked.dtype is genesis.int64
    g, t = _both(rand((6, 4), 1).astype(np.float32), device, "float16")
    _close(gmod(g), tmod(t), *TOL["float16"])
    gmod.eval()
    tmod.eval()
    _close(gmod(g), tmod(t), *TOL["float16"])


# ----------------------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------------------

BN = [
    ("BatchNorm1d", (6, 3)),
    ("BatchNorm1d", (4, 3, 5)),
    ("BatchNorm2d", (3, 3, 4, 2)),
    ("BatchNorm3d", (2, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("name, shape", BN, ids=[f"{n}-{len(s)}d" for n, s in BN])
@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
def test_batch_norm_module_training_steps(device, name, shape, momentum):
    gmod, tmod = _pair(name, device, 3, momentum=momentum)
    for step in range(4):
        g, t = _both(rand(shape, 20 + step) * (step + 1) + step, device)
        _close(gmod(g), tmod(t), 1e-9, 1e-9)
    for key, value in tmod.state_dict().items():  # running stats and num_batches_tracked
        _close(gmod.state_dict()[key], value, 1e-12, 1e-12)
    assert int(gmod.num_batches_tracked) == 4
    gmod.eval()
    tmod.eval()
    g, t = _both(rand(shape, 99), device)
    _close(gmod(g), tmod(t), 1e-9, 1e-9)
    assert int(gmod.num_batches_tracked) == 4  # eval does not count


def test_batch_norm_module_gradients(device):
    gmod, tmod = _pair("BatchNorm2d", device, 3)
    a = rand((2, 3, 4, 4), 1)
    g = genesis.tensor(a, device=device, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    v = rand((2, 3, 4, 4), 2)
    gmod(g).backward(genesis.tensor(v, device=device))
    tmod(t).backward(torch.tensor(v))
    _close(g.grad, t.grad)
    _close(gmod.weight.grad, tmod.weight.grad)
    _close(gmod.bias.grad, tmod.bias.grad)


@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_untracked(device, affine):
    gmod, tmod = _pair("BatchNorm1d", device, 3, affine=affine, track_running_stats=False)
    assert gmod.running_mean is None and gmod.num_batches_tracked is None
    assert list(gmod.state_dict()) == list(tmod.state_dict())
    g, t = _both(rand((5, 3, 2), 1), device)
    _close(gmod(g), tmod(t), 1e-9, 1e-9)
    gmod.eval()
    tmod.eval()
    _close(gmod(g), tmod(t), 1e-9, 1e-9)  # eval still uses the batch's statistics


def test_batch_norm_eval_after_train_and_reset(device):
    gmod, tmod = _pair("BatchNorm2d", device, 2, bias=False)
    for step in range(3):
        g, t = _both(rand((2, 2, 3, 3), step) + step, device)
        gmod(g)
        tmod(t)
    gmod.eval()
    tmod.eval()
    g, t = _both(rand((2, 2, 3, 3), 50), device)
    _close(gmod(g), tmod(t), 1e-9, 1e-9)
    gmod.reset_running_stats()
    tmod.reset_running_stats()
    _close(gmod(g), tmod(t), 1e-9, 1e-9)
    assert int(gmod.num_batches_tracked) == 0


INSTANCE = [
    ("InstanceNorm1d", (2, 3, 5)),
    ("InstanceNorm1d", (3, 5)),
    ("InstanceNorm2d", (2, 3, 4, 2)),
    ("InstanceNorm2d", (3, 4, 2)),
    ("InstanceNorm3d", (2, 3, 2, 3, 2)),
    ("InstanceNorm3d", (3, 2, 2, 2)),
]


@pytest.mark.parametrize("name, shape", INSTANCE, ids=[f"{n}-{len(s)}d" for n, s in INSTANCE])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"affine": True},
        {"track_running_stats": True},
        {"affine": True, "track_running_stats": True, "momentum": 0.4},
    ],
    ids=["plain", "affine", "tracked", "both"],
)
def test_instance_norm_module(device, name, shape, kwargs):
    gmod, tmod = _pair(name, device, 3, **kwargs)
    for step in range(3):
        g, t = _both(rand(shape, step) * 2 + step, device)
        _close(gmod(g), tmod(t), 1e-9, 1e-9)
    for key, value in tmod.state_dict().items():
        _close(gmod.state_dict()[key], value, 1e-12, 1e-12)
    gmod.eval()
    tmod.eval()
    g, t = _both(rand(shape, 77), device)
    _close(gmod(g), tmod(t), 1e-9, 1e-9)


def test_instance_norm_module_mismatched_channels_warns(device):
    norm = genesis.nn.InstanceNorm1d(4)
    with pytest.warns(UserWarning, match="does not match num_features"):
        out = norm(genesis.tensor(rand((2, 3, 5), 1), device=device))
    _close(out, torch.nn.functional.instance_norm(torch.tensor(rand((2, 3, 5), 1))))


MODULES = [
    ("LayerNorm", ((4,),), {}, (3, 4)),
    ("LayerNorm", ([3, 4],), {"eps": 1e-3, "bias": False}, (2, 3, 4)),
    ("LayerNorm", (4,), {"elementwise_affine": False}, (2, 4)),
    ("RMSNorm", (4,), {}, (3, 4)),
    ("RMSNorm", ([2, 4],), {"eps": 1e-4, "elementwise_affine": False}, (3, 2, 4)),
    ("GroupNorm", (2, 4), {}, (3, 4, 5)),
    ("GroupNorm", (4, 4), {"affine": False, "eps": 1e-3}, (3, 4, 2, 2)),
    ("GroupNorm", (1, 4), {"bias": False}, (3, 4)),
]


@pytest.mark.parametrize(
    "name, args, kwargs, shape", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)]
)
def test_modules(device, name, args, kwargs, shape):
    gmod, tmod = _pair(name, device, *args, **kwargs)
    a = rand(shape, 1) + 1
    g = genesis.tensor(a, device=device, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    v = rand(shape, 2)
    gout, tout = gmod(g), tmod(t)
    _close(gout, tout, 1e-9, 1e-9)
    gout.backward(genesis.tensor(v, device=device))
    tout.backward(torch.tensor(v))
    _close(g.grad, t.grad, 1e-9, 1e-9)
    for (gname, gp), (tname, tp) in zip(gmod.named_parameters(), tmod.named_parameters()):
        assert gname == tname
        _close(gp.grad, tp.grad, 1e-9, 1e-9)


def test_local_response_norm_module(device):
    gmod, tmod = _pair("LocalResponseNorm", device, 3, alpha=0.1, beta=0.5, k=2.0)
    g, t = _both(rand((2, 5, 3, 3), 1), device)
    _close(gmod(g), tmod(t))


def test_default_initialization(device):
    for g in (
        genesis.nn.LayerNorm(3, device=device),
        genesis.nn.GroupNorm(1, 3, device=device),
        genesis.nn.BatchNorm1d(3, device=device),
        genesis.nn.RMSNorm(3, device=device),
        genesis.nn.InstanceNorm1d(3, affine=True, device=device),
    ):
        np.testing.assert_array_equal(_np(g.weight), np.ones(3, np.float32))
        if getattr(g, "bias", None) is not None:
            np.testing.assert_array_equal(_np(g.bias), np.zeros(3, np.float32))
        assert g.weight.dtype is genesis.float32 and g.weight.requires_grad
        assert str(g.weight.device).startswith(device)
    bn = genesis.nn.BatchNorm2d(2, device=device, dtype=genesis.float64)
    assert bn.running_mean.dtype is genesis.float64
    assert bn.num_batches_tracked.dtype is genesis.int64
    assert bn.num_batches_tracked.shape == ()
    assert str(bn.num_batches_tracked.device).startswith(device)
    np.testing.assert_array_equal(_np(bn.running_var), np.ones(2))


REPRS = [
    ("LayerNorm", (4,), {}),
    ("LayerNorm", ([2, 3],), {"eps": 1e-6, "elementwise_affine": False}),
    ("LayerNorm", (5,), {"bias": False}),
    ("RMSNorm", (4,), {}),
    ("RMSNorm", ((2, 4),), {"eps": 1e-6, "elementwise_affine": False}),
    ("GroupNorm", (2, 4), {}),
    ("GroupNorm", (3, 6), {"eps": 1e-3, "affine": False}),
    ("GroupNorm", (3, 6), {"bias": False}),
    ("BatchNorm1d", (3,), {}),
    ("BatchNorm2d", (3,), {"momentum": None, "affine": False}),
    ("BatchNorm3d", (3,), {"eps": 1e-3, "track_running_stats": False, "bias": False}),
    ("InstanceNorm1d", (3,), {}),
    ("InstanceNorm2d", (3,), {"affine": True, "track_running_stats": True}),
    ("InstanceNorm3d", (3,), {"momentum": 0.2, "affine": True, "bias": False}),
    ("LocalResponseNorm", (2,), {}),
    ("LocalResponseNorm", (3,), {"alpha": 0.1, "beta": 1, "k": 2}),
]


@pytest.mark.parametrize(
    "name, args, kwargs", REPRS, ids=[f"{r[0]}-{i}" for i, r in enumerate(REPRS)]
)
def test_repr_and_state_dict_keys(name, args, kwargs):
    skip_unless_reference_torch(torch, "the norm layers' reprs")
    g = getattr(genesis.nn, name)(*args, **kwargs)
    t = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(g) == repr(t).replace("torch.", "genesis.")
    assert list(g.state_dict()) == list(t.state_dict())
    assert [n for n, _ in g.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert repr(genesis.nn.Sequential(g)) == repr(torch.nn.Sequential(t))


@pytest.mark.parametrize(
    "name, shape", [("BatchNorm2d", (4, 3, 2, 2)), ("InstanceNorm1d", (2, 3, 4))]
)
def test_load_trained_torch_state_dict(device, name, shape):
    kwargs = {"affine": True, "track_running_stats": True} if name.startswith("Inst") else {}
    tmod = getattr(torch.nn, name)(3, **kwargs).double()
    for step in range(3):  # running statistics and parameters away from their initial values
        out = tmod(torch.tensor(rand(shape, step) * 3 + 1))
        out.square().sum().backward()
        with torch.no_grad():
            for p in tmod.parameters():
                p -= 0.1 * p.grad
    gmod = getattr(genesis.nn, name)(3, **kwargs, device=device, dtype=genesis.float64)
    result = gmod.load_state_dict(tmod.state_dict())  # torch tensors, through DLPack
    assert not result.missing_keys and not result.unexpected_keys
    for mode in ("eval", "train"):
        getattr(gmod, mode)()
        getattr(tmod, mode)()
        g, t = _both(rand(shape, 10), device)
        _close(gmod(g), tmod(t), 1e-9, 1e-9)
    # and the other way: genesis's state_dict into a fresh torch module
    fresh = getattr(torch.nn, name)(3, **kwargs).double()
    fresh.load_state_dict({k: torch.tensor(_np(v)) for k, v in gmod.state_dict().items()})
    for key, value in fresh.state_dict().items():
        _close(gmod.state_dict()[key], value)


def test_load_state_dict_without_num_batches_tracked(device):
    # A pre-version-2 checkpoint (plain dict, no metadata) has no num_batches_tracked.
    bn = genesis.nn.BatchNorm1d(2, device=device)
    bn.num_batches_tracked.add_(5)
    state = {
        "weight": genesis.ones(2),
        "bias": genesis.zeros(2),
        "running_mean": genesis.ones(2),
        "running_var": genesis.ones(2) * 2,
    }
    bn.load_state_dict(state)
    assert int(bn.num_batches_tracked) == 5
    np.testing.assert_array_equal(_np(bn.running_var), [2.0, 2.0])


def test_instance_norm_rejects_old_running_stats():
    norm = genesis.nn.InstanceNorm1d(2)
    with pytest.raises(RuntimeError, match="Unexpected running stats buffer"):
        norm.load_state_dict({"running_mean": genesis.zeros(2), "running_var": genesis.ones(2)})


def test_module_cast_and_move(device):
    bn = genesis.nn.BatchNorm1d(3).to(device).double()
    assert bn.running_mean.dtype is genesis.float64
    assert bn.num_batches_tracked.dtype is genesis.int64
    out = bn(genesis.tensor(rand((4, 3), 1), device=device))
    assert out.dtype is genesis.float64


# ----------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------

F = genesis.nn.functional


def _x(*shape):
    return genesis.tensor(rand(shape, 1))


BAD = [
    (
        "BatchNorm1d",
        ValueError,
        "expected 2D or 3D input (got 4D input)",
        lambda: genesis.nn.BatchNorm1d(3)(_x(2, 3, 4, 4)),
    ),
    (
        "BatchNorm2d",
        ValueError,
        "expected 4D input (got 3D input)",
        lambda: genesis.nn.BatchNorm2d(3)(_x(2, 3, 4)),
    ),
    (
        "BatchNorm3d",
        ValueError,
        "expected 5D input (got 4D input)",
        lambda: genesis.nn.BatchNorm3d(3)(_x(2, 3, 4, 4)),
    ),
    (
        "BatchNorm1d",
        TypeError,
        "input must be a genesis.Tensor",
        lambda: genesis.nn.BatchNorm1d(3)([1.0, 2.0]),
    ),
    (
        "InstanceNorm1d",
        ValueError,
        "expected 2D or 3D input (got 4D input)",
        lambda: genesis.nn.InstanceNorm1d(3)(_x(2, 3, 4, 4)),
    ),
    (
        "InstanceNorm2d",
        ValueError,
        "expected 3D or 4D input (got 2D input)",
        lambda: genesis.nn.InstanceNorm2d(3)(_x(2, 3)),
    ),
    (
        "InstanceNorm3d",
        ValueError,
        "match num_features (3), but got: 4",
        lambda: genesis.nn.InstanceNorm3d(3, affine=True)(_x(2, 4, 2, 2, 2)),
    ),
    (
        "GroupNorm",
        ValueError,
        "must be divisible by num_groups",
        lambda: genesis.nn.GroupNorm(2, 5),
    ),
    (
        "batch_norm",
        RuntimeError,
        "running_mean should contain 4 elements not 3",
        lambda: genesis.nn.BatchNorm1d(3)(_x(2, 4)),
    ),
    (
        "batch_norm",
        RuntimeError,
        "weight should contain 4 elements not 3",
        lambda: genesis.nn.BatchNorm1d(3, track_running_stats=False)(_x(2, 4)),
    ),
    (
        "batch_norm",
        ValueError,
        "Expected more than 1 value per channel when training",
        lambda: genesis.nn.BatchNorm1d(3)(_x(1, 3)),
    ),
    (
        "batch_norm",
        RuntimeError,
        "running_mean must be defined in evaluation mode",
        lambda: F.batch_norm(_x(2, 3), None, None),
    ),
    (
        "batch_norm",
        ValueError,
        "must either both be None or neither be None",
        lambda: F.batch_norm(_x(2, 3), genesis.zeros(3), None, training=True),
    ),
    (
        "batch_norm",
        ValueError,
        "eps must be positive during training",
        lambda: F.batch_norm(_x(2, 3), None, None, training=True, eps=0.0),
    ),
    (
        "batch_norm",
        RuntimeError,
        "at least 2 dims",
        lambda: F.batch_norm(_x(3), genesis.zeros(3), genesis.ones(3)),
    ),
    (
        "batch_norm",
        TypeError,
        "momentum must be a float",
        lambda: F.batch_norm(
            _x(2, 3), genesis.zeros(3), genesis.ones(3), training=True, momentum=None
        ),
    ),
    (
        "batch_norm",
        TypeError,
        "running_mean must be a genesis.Tensor",
        lambda: F.batch_norm(_x(2, 3), [0.0] * 3, genesis.ones(3)),
    ),
    (
        "batch_norm",
        NotImplementedError,
        "not implemented for genesis.int64",
        lambda: F.batch_norm(genesis.ones(2, 3, dtype=genesis.int64), None, None, training=True),
    ),
    (
        "instance_norm",
        ValueError,
        "Expected more than 1 spatial element",
        lambda: F.instance_norm(_x(2, 3, 1)),
    ),
    (
        "instance_norm",
        RuntimeError,
        "running_mean and running_var to be defined",
        lambda: F.instance_norm(_x(2, 3, 4), use_input_stats=False),
    ),
    (
        "instance_norm",
        RuntimeError,
        "running_mean should contain 3 elements not 4",
        lambda: F.instance_norm(_x(2, 3, 4), genesis.zeros(4), genesis.ones(4)),
    ),
    (
        "layer_norm",
        RuntimeError,
        "expected input with shape [*, 3], but got input of size[2, 4]",
        lambda: F.layer_norm(_x(2, 4), [3]),
    ),
    (
        "layer_norm",
        RuntimeError,
        "Expected weight to be of same shape as normalized_shape",
        lambda: F.layer_norm(_x(2, 4), [4], genesis.ones(3)),
    ),
    (
        "layer_norm",
        RuntimeError,
        "Expected bias to be of same shape as normalized_shape",
        lambda: F.layer_norm(_x(2, 4), [4], None, genesis.ones(2, 2)),
    ),
    ("layer_norm", RuntimeError, "at least 1-dimensional", lambda: F.layer_norm(_x(2, 4), [])),
    (
        "layer_norm",
        TypeError,
        "input must be a genesis.Tensor",
        lambda: F.layer_norm([[1.0, 2.0]], [2]),
    ),
    (
        "layer_norm",
        NotImplementedError,
        "not implemented for genesis.int32",
        lambda: genesis.nn.LayerNorm(2)(genesis.ones(3, 2, dtype=genesis.int32)),
    ),
    ("rms_norm", RuntimeError, "Given normalized_shape=[3]", lambda: F.rms_norm(_x(2, 4), [3])),
    (
        "rms_norm",
        RuntimeError,
        "Expected weight to be of same shape",
        lambda: F.rms_norm(_x(2, 4), [4], genesis.ones(2)),
    ),
    ("group_norm", RuntimeError, "Expected at least 2 dimensions", lambda: F.group_norm(_x(4), 2)),
    (
        "group_norm",
        RuntimeError,
        "divisible by num_groups, but got input of shape [2, 5, 3]",
        lambda: F.group_norm(_x(2, 5, 3), 2),
    ),
    (
        "group_norm",
        RuntimeError,
        "Expected weight to be a vector of size equal",
        lambda: F.group_norm(_x(2, 4, 3), 2, genesis.ones(3)),
    ),
    (
        "group_norm",
        RuntimeError,
        "Expected num groups to be greater than 0",
        lambda: F.group_norm(_x(2, 4, 3), 0),
    ),
    (
        "group_norm",
        ValueError,
        "Expected more than 1 value per channel",
        lambda: F.group_norm(_x(1, 2), 2),
    ),
    (
        "local_response_norm",
        ValueError,
        "Expected 3D or higher dimensionality input",
        lambda: F.local_response_norm(_x(2, 4), 2),
    ),
    (
        "local_response_norm",
        RuntimeError,
        "size must be a positive int",
        lambda: F.local_response_norm(_x(2, 4, 3), 0),
    ),
    ("normalize", IndexError, "dimension out of range", lambda: F.normalize(_x(2, 4), dim=2)),
]


@pytest.mark.parametrize("case", BAD, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD)])
def test_bad_input(case):
    name, exc, text, call = case
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert msg.startswith(f"[{name}] "), msg
    assert text in msg, msg


def test_torch_raises_the_same_classes():
    """The classes above are PyTorch's for the same calls (a sample)."""
    tf = torch.nn.functional
    x = torch.randn(2, 3, 4)
    with pytest.raises(ValueError):
        torch.nn.BatchNorm2d(3)(x)
    with pytest.raises(ValueError):
        tf.instance_norm(torch.randn(2, 3, 1))
    with pytest.raises(RuntimeError):
        tf.layer_norm(torch.randn(2, 4), [3])
    with pytest.raises(RuntimeError):
        tf.group_norm(torch.randn(2, 5, 3), 2)
    with pytest.raises(NotImplementedError):
        tf.layer_norm(torch.ones(3, 2, dtype=torch.int32), [2])
    with pytest.raises(ValueError):
        tf.local_response_norm(torch.randn(2, 4), 2)
    with pytest.raises(IndexError):
        tf.normalize(torch.randn(2, 4), dim=2)
