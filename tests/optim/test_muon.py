"""genesis.optim.Muon against torch.optim.Muon: several steps on identical parameters and
gradients (tall, wide, square, 1 x n and n x 1 matrices) with the options that change the
arithmetic, float32 and bfloat16 (float64 and float16 too), on the CPU and CUDA (torch on the
CPU); a step against a NumPy float64 Muon; master weights; state and state_dict both ways,
parameter groups and parameters without gradients; PyTorch's errors and messages, bad state,
non-contiguous and empty parameters.

Tolerances. Muon's Newton-Schulz iteration runs in bfloat16 (Note [Muon steps] in
csrc/ops/muon_step.cpp): every matrix between its products is rounded to 8 bits of mantissa,
and where the update has small singular values the quintic (slope a = 3.4445 at 0, five times
over) magnifies those roundings. PyTorch's bfloat16 result is 1-3% of its norm from the exact
(float64) iteration for well-conditioned matrices, up to 20% for nearly singular square ones;
genesis's is as far (it takes a X + B X as (a I + B) X, summed in float32, where PyTorch rounds
addmm's sum once: independent roundings), and the two are about that far from each other:
measured up to 3.4% over these shapes with 8 seeds and the options below (2.9% in these tests).
So parameters are compared by their displacement (what the steps moved them, which the rounding
of a bfloat16 parameter's starting value would otherwise hide): |genesis - torch| /
|torch - start| <= DISPLACEMENT_TOL = 6%, about 1.8 times the worst measured. Against NumPy's
float64 iteration, on well-conditioned shapes (long ones, one row, one column), genesis measured
at most 2.8% (PyTorch the same): the same 6%. The momentum buffers do not go through the
iteration: float32 ones agree within 1e-6 of their norm, bfloat16 ones within a bfloat16
rounding of a few elements (1e-2; PyTorch's CPU lerp fuses its multiply-add, genesis rounds the
product to float32 first).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import to_numpy

import genesis
from genesis import optim

torch = pytest.importorskip("torch")

DISPLACEMENT_TOL = 6e-2
BUFFER_TOL = {"float32": 1e-6, "float64": 1e-12, "bfloat16": 1e-2, "float16": 2e-3}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SHAPES = [(7, 5), (5, 7), (6, 6), (1, 9), (9, 1), (16, 32)]
A, B, C = 3.4445, -4.7750, 2.0315

OPTIONS = [
    {},
    {"nesterov": False},
    {"weight_decay": 0.0},
    {"adjust_lr_fn": "original", "weight_decay": 0.3},
    {"adjust_lr_fn": "match_rms_adamw"},
    {"nesterov": False, "adjust_lr_fn": "match_rms_adamw", "momentum": 0.8},
    {"momentum": 0.0},
    {"momentum": 0.3, "nesterov": True},
    {"ns_coefficients": (1.5, -0.5, 0.0), "ns_steps": 8},
    {"eps": 1e-3, "ns_steps": 3},
    {"lr": "tensor"},
]


def _case_id(options):
    return "-".join(f"{k}={v}" for k, v in options.items()) or "defaults"


def _g(t, device="cpu"):
    """A genesis copy of a torch tensor (bfloat16 through float32, exactly)."""
    values = t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()
    return genesis.tensor(values).to(device=device, dtype=getattr(genesis, str(t.dtype)[6:]))


def _np(t):
    """A float64 NumPy copy of a genesis or torch tensor (or of an array)."""
    if isinstance(t, genesis.Tensor):
        return to_numpy(t.detach().to(device="cpu", dtype=genesis.float64))
    if isinstance(t, np.ndarray):
        return t.astype(np.float64)
    return t.detach().double().numpy().copy()  # float64: not a view of the tensor


def _relative_error(a, b):
    """|a - b| / |b| over the whole tensor (the 2-norm), |a - b| when b is zero."""
    a, b = _np(a), _np(b)
    scale = np.linalg.norm(b)
    diff = np.linalg.norm(a - b)
    return diff if scale == 0 else diff / scale


def _displacement_error(got, want, start):
    """|got - want| / |want - start|: how far genesis's steps are from torch's (or NumPy's),
    relative to how far those moved the parameter (module docstring)."""
    got, want = _np(got), _np(want)
    return np.linalg.norm(got - want) / np.linalg.norm(want - start)


def _options(options, lib):
    """The options for torch or genesis: lr 0.05 unless given ("tensor": a 0-d float32 tensor
    of 0.05 of that library), large enough that a bfloat16 parameter's steps are not lost to
    its rounding."""
    lr = options.get("lr", 0.05)
    if lr == "tensor":
        lr = lib.tensor(0.05)
    return {**options, "lr": lr}


def _pair(options, dtype, device, steps=6, shapes=SHAPES, seed=0):
    """Steps a torch and a genesis Muon side by side on parameters of about 0.1; returns both
    parameter lists, the starting values and both optimizers."""
    gen = torch.Generator().manual_seed(seed)
    tparams = [
        torch.nn.Parameter((0.1 * torch.randn(s, generator=gen, dtype=torch.float64)).to(dtype))
        for s in shapes
    ]
    gparams = [genesis.nn.Parameter(_g(p, device)) for p in tparams]
    starts = [_np(p) for p in tparams]
    topt = torch.optim.Muon(tparams, **_options(options, torch))
    gopt = optim.Muon(gparams, **_options(options, genesis))
    for _ in range(steps):
        for tp, gp in zip(tparams, gparams):
            grad = torch.randn(tp.shape, generator=gen, dtype=torch.float64).to(tp.dtype)
            tp.grad = grad
            gp.grad = _g(grad, device)
        topt.step()
        gopt.step()
    return tparams, gparams, starts, topt, gopt


def _assert_close_to_torch(topt, gopt, tparams, gparams, starts, dtype_name):
    for tp, gp, start in zip(tparams, gparams, starts):
        assert gp.dtype == getattr(genesis, dtype_name) and tuple(gp.shape) == tuple(tp.shape)
        assert _displacement_error(gp, tp, start) <= DISPLACEMENT_TOL
        tstate, gstate = topt.state[tp], gopt.state[gp]
        assert sorted(gstate) == sorted(tstate) == ["momentum_buffer"]
        buf = gstate["momentum_buffer"]
        assert buf.dtype == gp.dtype and buf.device == gp.device
        want = tstate["momentum_buffer"]
        assert _relative_error(buf, want) <= BUFFER_TOL[dtype_name]


@pytest.mark.parametrize("options", OPTIONS, ids=_case_id)
@pytest.mark.parametrize("dtype_name", list(DTYPES))
def test_matches_torch(options, dtype_name, device):
    tparams, gparams, starts, topt, gopt = _pair(options, DTYPES[dtype_name], device)
    for gp in gparams:
        assert gp.device.type == device
    _assert_close_to_torch(topt, gopt, tparams, gparams, starts, dtype_name)


@pytest.mark.parametrize("dtype_name", ["float64", "float16"])
@pytest.mark.parametrize("nesterov", [True, False])
def test_other_dtypes_match_torch(dtype_name, nesterov, device):
    """float64 and float16 parameters: their steps also go through the bfloat16 iteration."""
    options = {"nesterov": nesterov, "adjust_lr_fn": "match_rms_adamw"}
    tparams, gparams, starts, topt, gopt = _pair(
        options, getattr(torch, dtype_name), device, seed=4
    )
    _assert_close_to_torch(topt, gopt, tparams, gparams, starts, dtype_name)


def test_several_seeds_and_longer_runs(device):
    """20 steps, three seeds: the differences do not grow with the steps (each step's
    orthogonalized update is rounded afresh; the buffers do not go through it)."""
    for seed in range(3):
        tparams, gparams, starts, topt, gopt = _pair(
            {"weight_decay": 0.05}, torch.float32, device, steps=20, seed=seed
        )
        _assert_close_to_torch(topt, gopt, tparams, gparams, starts, "float32")


# -- against NumPy ------------------------------------------------------------------------------


def _numpy_muon(p, g, buf, lr, weight_decay, momentum, nesterov, adjust_lr_fn, ns_steps=5):
    """One Muon step in float64 without any bfloat16: the parameter and the buffer after it."""
    buf = buf + (1 - momentum) * (g - buf)
    update = g + momentum * (buf - g) if nesterov else buf
    tall = update.shape[0] > update.shape[1]
    x = update.T if tall else update
    x = x / max(np.linalg.norm(x), 1e-7)
    for _ in range(ns_steps):
        gram = x @ x.T
        x = A * x + (B * gram + C * gram @ gram) @ x
    x = x.T if tall else x
    rows, cols = p.shape
    if adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * np.sqrt(max(rows, cols))
    else:
        ratio = np.sqrt(max(1, rows / cols))
    return p * (1 - lr * weight_decay) - lr * ratio * x, buf


@pytest.mark.parametrize("nesterov", [True, False])
@pytest.mark.parametrize("adjust_lr_fn", [None, "match_rms_adamw"])
def test_step_matches_float64_numpy(nesterov, adjust_lr_fn, device):
    """A step from a state two steps old against NumPy's float64 Muon, on well-conditioned
    shapes (long, or one row or column): within the bfloat16 iteration's distance from the
    exact one (module docstring); the buffer exactly up to float32's rounding."""
    rng = np.random.default_rng(1)
    shapes = [(16, 48), (48, 16), (8, 40), (1, 12), (12, 1)]
    options = {"lr": 0.05, "weight_decay": 0.1, "momentum": 0.9}
    params = [
        genesis.nn.Parameter(
            genesis.tensor((0.1 * rng.standard_normal(s)).astype(np.float32)).to(device)
        )
        for s in shapes
    ]
    opt = optim.Muon(params, nesterov=nesterov, adjust_lr_fn=adjust_lr_fn, **options)
    for step in range(3):
        before = [_np(p) for p in params]
        bufs = [_np(opt.state[p]["momentum_buffer"]) if step else np.zeros(p.shape) for p in params]
        for p in params:
            p.grad = genesis.tensor(rng.standard_normal(p.shape).astype(np.float32)).to(device)
        opt.step()
        for p, start, buf in zip(params, before, bufs):
            want, want_buf = _numpy_muon(
                start, _np(p.grad), buf, nesterov=nesterov, adjust_lr_fn=adjust_lr_fn, **options
            )
            assert _displacement_error(p, want, start) <= DISPLACEMENT_TOL
            assert _relative_error(opt.state[p]["momentum_buffer"], want_buf) <= 1e-6


def test_update_is_nearly_orthogonal(device):
    """What Muon is for: the step of a wide matrix has singular values near 1 (Keller Jordan's
    coefficients leave them within about (0.5, 1.5)), whatever the gradient's spectrum."""
    rng = np.random.default_rng(2)
    u, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    v, _ = np.linalg.qr(rng.standard_normal((32, 8)))
    grad = u @ np.diag(np.logspace(0, -2, 8)) @ v.T  # singular values from 1 to 0.01
    p = genesis.nn.Parameter(genesis.zeros(8, 32, device=device))
    p.grad = genesis.tensor(grad.astype(np.float32)).to(device)
    optim.Muon([p], lr=1.0, weight_decay=0.0, nesterov=False).step()
    singular = np.linalg.svd(-_np(p), compute_uv=False)
    assert singular.min() > 0.5 and singular.max() < 1.5


# -- PyTorch's effects, master weights, groups, layouts ------------------------------------------


@pytest.mark.parametrize("nesterov", [True, False])
def test_bfloat16_buffer_without_nesterov_is_normalized_as_in_torch(nesterov, device):
    """Without nesterov, PyTorch orthogonalizes a bfloat16 buffer itself (Tensor.bfloat16()
    returns it), so its in-place division by the norm normalizes the momentum buffer at each
    step; genesis does the same, so the two states agree. With nesterov the update is a new
    tensor and the buffer is the gradients' running mean."""
    tparams, gparams, _, topt, gopt = _pair(
        {"nesterov": nesterov}, torch.bfloat16, device, steps=3, shapes=[(6, 4), (3, 8)]
    )
    for tp, gp in zip(tparams, gparams):
        norms = [
            np.linalg.norm(_np(opt.state[p]["momentum_buffer"]))
            for opt, p in ((topt, tp), (gopt, gp))
        ]
        if nesterov:
            assert all(abs(n - 1) > 0.2 for n in norms)
        else:
            assert norms == pytest.approx([1.0, 1.0], abs=1e-2)
        assert (
            _relative_error(gopt.state[gp]["momentum_buffer"], topt.state[tp]["momentum_buffer"])
            <= 1e-2
        )


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_master_weights(dtype_name, device):
    """16-bit parameters with master_weights step a float32 copy from their 16-bit gradients:
    the copy follows torch's Muon on float32 parameters given the same (16-bit) gradients, the
    parameter is the copy rounded, and the buffer is float32."""
    dtype = getattr(torch, dtype_name)
    gdtype = getattr(genesis, dtype_name)
    gen = torch.Generator().manual_seed(3)
    shapes = [(7, 5), (4, 9)]
    tparams = [
        torch.nn.Parameter((0.1 * torch.randn(s, generator=gen)).to(dtype).float()) for s in shapes
    ]
    gparams = [genesis.nn.Parameter(_g(p, device).to(dtype=gdtype)) for p in tparams]
    extra = genesis.nn.Parameter(genesis.zeros(3, 3, device=device))  # float32: its own master
    starts = [_np(p) for p in tparams]
    topt = torch.optim.Muon(tparams, lr=0.002)
    gopt = optim.Muon([*gparams, extra], lr=0.002, master_weights=True)
    for _ in range(5):
        for tp, gp in zip(tparams, gparams):
            grad = torch.randn(tp.shape, generator=gen).to(dtype)
            tp.grad = grad.float()
            gp.grad = _g(grad, device)
        extra.grad = genesis.ones(3, 3, device=device)
        topt.step()
        gopt.step()
    for tp, gp, start in zip(tparams, gparams, starts):
        state = gopt.state[gp]
        assert sorted(state) == ["master_param", "momentum_buffer"]
        master = state["master_param"]
        assert master.dtype == genesis.float32 and state["momentum_buffer"].dtype == genesis.float32
        assert gp.dtype == gdtype
        assert _displacement_error(master, tp, start) <= DISPLACEMENT_TOL
        assert _relative_error(state["momentum_buffer"], topt.state[tp]["momentum_buffer"]) <= 1e-6
        np.testing.assert_array_equal(_np(gp), _np(master.to(dtype=gdtype)))
    assert sorted(gopt.state[extra]) == ["momentum_buffer"]
    # The option is kept in the groups, and a state_dict loaded with it keeps float32 states.
    fresh = optim.Muon([*gparams, extra], lr=0.002, master_weights=True)
    fresh.load_state_dict(gopt.state_dict())
    assert fresh.state[gparams[0]]["momentum_buffer"].dtype == genesis.float32
    assert fresh.param_groups[0]["master_weights"] is True


def test_groups_and_parameters_without_grad(device):
    gen = torch.Generator().manual_seed(1)
    t = [torch.nn.Parameter(torch.randn(4, 3, generator=gen)) for _ in range(3)]
    g = [genesis.nn.Parameter(_g(p, device)) for p in t]
    starts = [_np(p) for p in t]

    def groups(ps):
        return [
            {"params": ps[:2], "lr": 0.1, "nesterov": False},
            {"params": ps[2:], "adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.0},
        ]

    topt, gopt = torch.optim.Muon(groups(t), lr=0.02), optim.Muon(groups(g), lr=0.02)
    for step in range(6):
        for i, (tp, gp) in enumerate(zip(t, g)):
            if i == 1 and step < 3:  # no gradient yet: not stepped, no state
                tp.grad = gp.grad = None
                continue
            grad = torch.randn(4, 3, generator=gen)
            tp.grad, gp.grad = grad, _g(grad, device)
        topt.step()
        gopt.step()
        assert len(topt.state) == len(gopt.state)
        assert (g[1] in gopt.state) == (step >= 3)
    for tp, gp, start in zip(t, g, starts):
        assert _displacement_error(gp, tp, start) <= DISPLACEMENT_TOL
    assert gopt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]
    assert repr(gopt) == repr(topt)


def test_non_contiguous_parameters(device):
    """A transposed parameter (with a transposed gradient) steps as a contiguous one, and stays
    a view of its storage."""
    gen = torch.Generator().manual_seed(5)
    base = 0.1 * torch.randn(6, 9, generator=gen)
    t = torch.nn.Parameter(base.clone().t())
    gbase = _g(base, device)
    g = genesis.nn.Parameter(gbase.t())
    assert not g.is_contiguous()
    start = _np(t)
    topt, gopt = torch.optim.Muon([t], lr=0.05), optim.Muon([g], lr=0.05)
    for _ in range(5):
        grad = torch.randn(6, 9, generator=gen).t()
        t.grad = grad
        g.grad = _g(grad.t(), device).t()
        topt.step()
        gopt.step()
    assert _displacement_error(g, t, start) <= DISPLACEMENT_TOL
    np.testing.assert_array_equal(_np(gbase).T, _np(g))  # stepped in place through the view
    assert (
        _relative_error(gopt.state[g]["momentum_buffer"], topt.state[t]["momentum_buffer"]) <= 1e-6
    )


def test_empty_parameters_are_left_alone(device):
    """torch steps a (0, n) parameter (nothing changes) and divides by zero for (n, 0) (its
    learning-rate ratio is rows / cols); genesis leaves both, and their buffers, as they are."""
    t = torch.nn.Parameter(torch.zeros(3, 0))
    t.grad = torch.zeros(3, 0)
    with pytest.raises(ZeroDivisionError):
        torch.optim.Muon([t]).step()
    params = [genesis.nn.Parameter(genesis.zeros(s, device=device)) for s in [(0, 3), (3, 0)]]
    full = genesis.nn.Parameter(genesis.ones(2, 2, device=device))
    opt = optim.Muon([*params, full], lr=0.1)
    for p in [*params, full]:
        p.grad = genesis.ones(p.shape, device=device)
    opt.step()
    for p in params:
        assert tuple(opt.state[p]["momentum_buffer"].shape) == tuple(p.shape)
    assert not np.allclose(_np(full), 1.0)


def test_step_under_grad_mode_leaves_no_graph_and_converges():
    """Muon on a linear least-squares problem: the loss falls by orders of magnitude."""
    rng = np.random.default_rng(0)
    x = genesis.tensor(rng.standard_normal((128, 6)).astype(np.float32))
    target = genesis.tensor(rng.standard_normal((4, 6)).astype(np.float32))
    y = x @ target.t()
    model = genesis.nn.Linear(6, 4, bias=False)
    opt = optim.Muon(model.parameters(), lr=0.05, weight_decay=0.0)
    losses = []
    for _ in range(150):
        opt.zero_grad()
        loss = genesis.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 1e-2 * losses[0]
    assert model.weight.grad_fn is None and model.weight.is_leaf


# -- state_dict -------------------------------------------------------------------------------


def _to_torch(value):
    if isinstance(value, genesis.Tensor):
        return torch.from_numpy(to_numpy(value.cpu()).copy())
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_torch(v) for v in value]
    return value


def _to_genesis(value):
    if isinstance(value, torch.Tensor):
        return genesis.tensor(
            value.float().numpy() if value.dtype == torch.bfloat16 else value.numpy()
        )
    if isinstance(value, dict):
        return {k: _to_genesis(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_genesis(v) for v in value]
    return value


@pytest.mark.parametrize("dtype_name", list(DTYPES))
def test_state_dict_matches_torch_and_loads_both_ways(dtype_name, device):
    options = {"lr": 0.05, "weight_decay": 0.01, "nesterov": False, "adjust_lr_fn": "original"}
    dtype = DTYPES[dtype_name]
    tparams, gparams, starts, topt, gopt = _pair(options, dtype, device, steps=4)
    tsd, gsd = topt.state_dict(), gopt.state_dict()
    assert gsd["param_groups"] == tsd["param_groups"]
    assert sorted(gsd["state"]) == sorted(tsd["state"])
    for k in tsd["state"]:
        assert sorted(gsd["state"][k]) == sorted(tsd["state"][k]) == ["momentum_buffer"]
        value = tsd["state"][k]["momentum_buffer"]
        assert gsd["state"][k]["momentum_buffer"].dtype == getattr(genesis, str(value.dtype)[6:])
        assert tuple(gsd["state"][k]["momentum_buffer"].shape) == tuple(value.shape)
    # torch's state into genesis and genesis's into torch: both continue as one run.
    gfresh = optim.Muon(gparams, lr=123.0)
    gfresh.load_state_dict(_to_genesis(tsd))
    tfresh = torch.optim.Muon(tparams, lr=123.0)
    tfresh.load_state_dict(_to_torch(gsd))
    assert gfresh.param_groups[0]["lr"] == options["lr"]
    assert gfresh.param_groups[0]["ns_coefficients"] == (A, B, C)
    assert tfresh.param_groups[0]["nesterov"] is False
    gen = torch.Generator().manual_seed(7)
    for _ in range(3):
        for tp, gp in zip(tparams, gparams):
            grad = torch.randn(tp.shape, generator=gen, dtype=torch.float64).to(dtype)
            tp.grad, gp.grad = grad, _g(grad, device)
        tfresh.step()
        gfresh.step()
    _assert_close_to_torch(tfresh, gfresh, tparams, gparams, starts, dtype_name)


def test_genesis_run_continues_in_torch(device):
    """A genesis optimizer's state_dict, loaded into a new torch optimizer with genesis's
    parameters, continues the genesis run: the buffers stay equal, and the parameters move
    alike."""
    tparams, gparams, _, _, gopt = _pair({"weight_decay": 0.1}, torch.float32, device, steps=5)
    with torch.no_grad():
        for tp, gp in zip(tparams, gparams):
            tp.copy_(torch.from_numpy(_np(gp)))
    starts = [_np(p) for p in tparams]
    other = torch.optim.Muon(tparams, weight_decay=0.1)
    other.load_state_dict(_to_torch(gopt.state_dict()))
    assert other.param_groups[0]["lr"] == 0.05
    gen = torch.Generator().manual_seed(8)
    for _ in range(4):
        for tp, gp in zip(tparams, gparams):
            grad = torch.randn(tp.shape, generator=gen)
            tp.grad, gp.grad = grad, _g(grad, device)
        other.step()
        gopt.step()
    _assert_close_to_torch(other, gopt, tparams, gparams, starts, "float32")


def test_state_dict_casts_and_checks_the_buffer(device):
    p = genesis.nn.Parameter(genesis.zeros(2, 3, device=device, dtype=genesis.float64))
    opt = optim.Muon([p])
    group = dict(opt.state_dict()["param_groups"][0])
    opt.load_state_dict(
        {"state": {0: {"momentum_buffer": genesis.ones(2, 3)}}, "param_groups": [group]}
    )
    buf = opt.state[p]["momentum_buffer"]
    assert buf.dtype == genesis.float64 and buf.device == p.device
    with pytest.raises(ValueError, match="'momentum_buffer' of shape \\(3, 2\\) for parameter 0"):
        opt.load_state_dict(
            {"state": {0: {"momentum_buffer": genesis.ones(3, 2)}}, "param_groups": [group]}
        )


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lr": -1.0},
        {"momentum": -0.1},
        {"weight_decay": -0.1},
        {"adjust_lr_fn": "spectral"},
    ],
    ids=lambda kwargs: next(iter(kwargs)),
)
def test_bad_options_raise_as_torch(kwargs):
    with pytest.raises(ValueError) as expected:
        torch.optim.Muon([torch.nn.Parameter(torch.zeros(2, 2))], **kwargs)
    with pytest.raises(ValueError) as got:
        optim.Muon([genesis.nn.Parameter(genesis.zeros(2, 2))], **kwargs)
    assert str(got.value) == str(expected.value)


def test_bad_tensor_lr():
    p = genesis.nn.Parameter(genesis.zeros(2, 2))
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        optim.Muon([p], lr=genesis.tensor([0.1, 0.2]))
    with pytest.raises(ValueError, match="Learning rate should be >= 0 but is"):
        optim.Muon([p], lr=genesis.tensor(-0.1))


@pytest.mark.parametrize("shape", [(3,), (2, 3, 4), ()])
def test_parameters_of_other_dims_raise_as_torch(shape):
    """At construction, as PyTorch (whose message shows a torch.Size where genesis's shows a
    genesis.Size)."""
    with pytest.raises(ValueError) as expected:
        torch.optim.Muon(
            [torch.nn.Parameter(torch.zeros(2, 2)), torch.nn.Parameter(torch.zeros(shape))]
        )
    with pytest.raises(ValueError) as got:
        optim.Muon(
            [genesis.nn.Parameter(genesis.zeros(2, 2)), genesis.nn.Parameter(genesis.zeros(shape))]
        )
    assert str(got.value) == str(expected.value).replace("torch.Size", "genesis.Size")


@pytest.mark.parametrize(
    "case",
    [
        ({"ns_steps": 100}, None),
        ({"ns_coefficients": (3.4445, -4.775)}, None),
        ({}, (3,)),  # a 1-D parameter added after construction, which PyTorch does not check
    ],
    ids=["ns_steps", "ns_coefficients", "1-D gradient"],
)
def test_step_errors_raise_as_torch(case, device):
    """PyTorch's step raises these ValueErrors, after moving the first buffer; genesis raises
    them with the op's name in front, before anything moves."""
    options, extra_shape = case

    def run(lib, param, make):
        """The optimizer and the parameter whose step raises."""
        p = param(make((2, 3)))
        opt = lib.optim.Muon([p], **options)
        p.grad = make((2, 3)) + 1
        if extra_shape is not None:
            p = param(make(extra_shape))
            opt.add_param_group({"params": [p]})
            p.grad = make(extra_shape) + 1
        with pytest.raises(ValueError) as info:
            opt.step()
        return p, opt, str(info.value)

    _, _, message = run(torch, torch.nn.Parameter, torch.zeros)
    p, opt, got = run(genesis, genesis.nn.Parameter, lambda s: genesis.zeros(s, device=device))
    assert re.fullmatch(r"\[muon_step\] " + re.escape(message), got), got
    assert not _np(p).any() and not _np(opt.state[p]["momentum_buffer"]).any()


def test_step_errors_name_the_tensor():
    p = genesis.nn.Parameter(genesis.zeros(2, 3))
    p.grad = genesis.ones(2, 3)
    opt = optim.Muon([p])
    opt.step()
    before = _np(p)
    opt.state[p]["momentum_buffer"] = genesis.zeros(3, 2)
    with pytest.raises(RuntimeError, match=r"\[muon_step\] momentum buffer 0 .*does not match"):
        opt.step()
    np.testing.assert_array_equal(_np(p), before)  # nothing was stepped
    opt.state[p]["momentum_buffer"] = genesis.zeros(2, 3)
    opt.param_groups[0]["adjust_lr_fn"] = "spectral"
    with pytest.raises(ValueError, match=r"\[muon_step\] Adjust learning rate function spectral"):
        opt.step()
    v = genesis.zeros(2, 2)
    step = genesis._C._optim._muon_step
    args = (0.01, 0.1, 0.95, True, (A, B, C), 1e-7, 5, None)
    with pytest.raises(ValueError, match=r"\[muon_step\] expected 1 gradients, got 0"):
        step([v], [], [v], *args)
    with pytest.raises(ValueError, match=r"\[muon_step\] expected 1 momentum buffers, got 2"):
        step([v], [v], [v, v], *args)
    with pytest.raises(TypeError, match=r"\[muon_step\] expected grad 0 to be a tensor"):
        step([v], [1.0], [v], *args)
    with pytest.raises(RuntimeError, match=r"\[muon_step\] grad 0 \(float64"):
        step([v], [genesis.zeros(2, 2, dtype=genesis.float64)], [v], *args)
    with pytest.raises(RuntimeError, match=r"\[muon_step\] master weight 0"):
        step([v], [v], [v], *args, narrow=[genesis.zeros(2, 2)])
    q = genesis.zeros(2, 2, dtype=genesis.int64)
    with pytest.raises(TypeError, match=r"\[muon_step\] param 0 must be a floating point"):
        step([q], [q], [q], *args)
