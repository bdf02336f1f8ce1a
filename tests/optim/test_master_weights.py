"""genesis.optim's master_weights=True (Note [Master weights] in csrc/ops/optimizer_step.cpp):
float16/bfloat16 parameters stepped through float32 copies and float32 states, against torch's
optimizer run on float32 parameters with the same (16-bit) gradients, for every optimizer with a
fused step, on the CPU and CUDA; the 16-bit parameter is its copy rounded, state_dicts resume
exactly, groups may mix 16-bit and float32 parameters, and the core refuses bad lists."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DEVICES, to_numpy

import genesis
from genesis import optim

torch = pytest.importorskip("torch")

CASES = [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adamax", {"lr": 0.01}),
    ("Adadelta", {"lr": 1.0}),
    ("NAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01}),
    ("Rprop", {"lr": 0.01, "etas": (0.4, 1.3)}),
    ("ASGD", {"lr": 0.05, "t0": 5, "weight_decay": 0.01}),
]
HALF = {"bfloat16": (genesis.bfloat16, torch.bfloat16), "float16": (genesis.float16, torch.float16)}
SHAPES = [(7, 5), (33,), (), (2, 3, 4), (0, 3)]
STEPS = 30


def _case_id(case):
    name, options = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in options.items())


def _start(dtype, seed=0):
    """Parameter values that a 16-bit dtype holds exactly, as float32 arrays."""
    rng = np.random.default_rng(seed)
    _, tdtype = HALF[dtype]
    arrays = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    return [torch.from_numpy(a).to(tdtype).float().numpy() for a in arrays]


def _grads(dtype, step):
    """Step `step`'s gradients, rounded to the 16-bit dtype (as float32 arrays)."""
    rng = np.random.default_rng(1000 + step)
    _, tdtype = HALF[dtype]
    return [
        torch.from_numpy(rng.standard_normal(s).astype(np.float32)).to(tdtype).float().numpy()
        for s in SHAPES
    ]


def _genesis_params(arrays, dtype, device):
    gdtype, _ = HALF[dtype]
    return [
        genesis.nn.Parameter(genesis.from_numpy(a.copy()).to(device=device, dtype=gdtype))
        for a in arrays
    ]


def _relative(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", list(HALF))
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_matches_torch_in_float32(case, dtype, device):
    name, options = case
    start = _start(dtype)
    gparams = _genesis_params(start, dtype, device)
    tparams = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in start]
    gopt = getattr(optim, name)(gparams, master_weights=True, **options)
    topt = getattr(torch.optim, name)(tparams, **options)
    gdtype, _ = HALF[dtype]
    for step in range(STEPS):
        for gp, tp, g in zip(gparams, tparams, _grads(dtype, step)):
            gp.grad = genesis.from_numpy(g).to(device=device, dtype=gdtype)
            tp.grad = torch.from_numpy(g)
        gopt.step()
        topt.step()
    for gp, tp in zip(gparams, tparams):
        state = gopt.state[gp]
        master = state["master_param"]
        assert master.dtype == genesis.float32 and master.device.type == device
        for key, value in state.items():
            if isinstance(value, genesis.Tensor) and key not in ("step", "mu_product", "eta", "mu"):
                assert value.dtype == genesis.float32, key
        assert _relative(to_numpy(master), tp.detach().numpy()) <= 1e-6
        # The parameter is its float32 copy rounded, exactly.
        assert gp.dtype == gdtype
        assert bool((gp == master.to(gdtype)).all())


@pytest.mark.parametrize("device", DEVICES)
def test_master_weights_keep_small_updates_that_bfloat16_loses(device):
    # lr * grad is below half of bfloat16's last bit at 1.0: a bfloat16 step loses all of it.
    p16 = genesis.nn.Parameter(genesis.ones(64, dtype=genesis.bfloat16, device=device))
    q16 = genesis.nn.Parameter(genesis.ones(64, dtype=genesis.bfloat16, device=device))
    plain = optim.SGD([p16], lr=1e-3)
    master = optim.SGD([q16], lr=1e-3, master_weights=True)
    for _ in range(100):
        p16.grad = genesis.ones(64, dtype=genesis.bfloat16, device=device)
        q16.grad = genesis.ones(64, dtype=genesis.bfloat16, device=device)
        plain.step()
        master.step()
    assert bool((p16 == 1).all())  # every step rounded away
    kept = master.state[q16]["master_param"]
    np.testing.assert_allclose(to_numpy(kept), 0.9, rtol=1e-5)
    assert bool((q16 == kept.to(genesis.bfloat16)).all())


@pytest.mark.parametrize("device", DEVICES)
def test_a_group_may_mix_float32_and_16_bit_parameters(device):
    start = _start("bfloat16")
    p32 = genesis.nn.Parameter(genesis.from_numpy(start[0].copy()).to(device))
    p16 = genesis.nn.Parameter(genesis.from_numpy(start[1].copy()).to(device, genesis.bfloat16))
    t32 = torch.nn.Parameter(torch.from_numpy(start[0].copy()))
    t16 = torch.nn.Parameter(torch.from_numpy(start[1].copy()))
    gopt = optim.AdamW([p32, p16], lr=0.01, master_weights=True)
    topt = torch.optim.AdamW([t32, t16], lr=0.01)
    for step in range(10):
        g = _grads("bfloat16", step)
        p32.grad, p16.grad = (
            genesis.from_numpy(g[0]).to(device),
            genesis.from_numpy(g[1]).to(device, genesis.bfloat16),
        )
        t32.grad, t16.grad = torch.from_numpy(g[0]), torch.from_numpy(g[1])
        gopt.step()
        topt.step()
    assert "master_param" not in gopt.state[p32]  # a float32 parameter is its own master
    assert _relative(to_numpy(p32), t32.detach().numpy()) <= 1e-6
    assert _relative(to_numpy(gopt.state[p16]["master_param"]), t16.detach().numpy()) <= 1e-6


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_16_bit_parameters(device):
    base = genesis.randn(6, 4, device=device).to(genesis.bfloat16)
    p = genesis.nn.Parameter(base.t())  # a transposed view: stepped through a dense copy
    opt = optim.Adam([p], lr=0.1, master_weights=True)
    for _ in range(3):
        p.grad = genesis.ones(4, 6, device=device, dtype=genesis.bfloat16)
        opt.step()
    master = opt.state[p]["master_param"]
    assert bool((p == master.to(genesis.bfloat16)).all())
    assert float((master - p.float()).abs().max()) < 0.02


@pytest.mark.parametrize("device", DEVICES)
def test_state_dict_resumes_exactly(device, tmp_path):
    start = _start("bfloat16")

    def make():
        params = _genesis_params(start, "bfloat16", device)
        return params, optim.AdamW(params, lr=0.01, master_weights=True)

    def steps(params, opt, first, last):
        for step in range(first, last):
            for p, g in zip(params, _grads("bfloat16", step)):
                p.grad = genesis.from_numpy(g).to(device=device, dtype=genesis.bfloat16)
            opt.step()

    params, opt = make()
    steps(params, opt, 0, 5)
    path = tmp_path / "opt.pt"
    genesis.save({"params": [p.detach() for p in params], "opt": opt.state_dict()}, path)
    steps(params, opt, 5, 10)

    saved = genesis.load(path)
    params2, opt2 = make()
    with genesis.no_grad():
        for p, q in zip(params2, saved["params"]):
            p.copy_(q)
    opt2.load_state_dict(saved["opt"])
    assert opt2.state[params2[0]]["exp_avg"].dtype == genesis.float32  # not cast to bfloat16
    assert opt2.state[params2[0]]["master_param"].dtype == genesis.float32
    steps(params2, opt2, 5, 10)
    for p, q in zip(params, params2):
        assert bool((p == q).all())
    for p, q in zip(params, params2):
        assert bool((opt.state[p]["master_param"] == opt2.state[q]["master_param"]).all())


def test_the_core_checks_master_weight_lists():
    p16 = genesis.zeros(3, dtype=genesis.bfloat16)
    g16 = genesis.zeros(3, dtype=genesis.bfloat16)
    bad_master = genesis.zeros(3, dtype=genesis.float64)
    with pytest.raises(RuntimeError, match="sgd_step.*master weight 0"):
        genesis._C._optim._sgd_step(
            [bad_master], [g16], [], 0.1, 0.0, 0.0, 0.0, False, False, narrow=[p16]
        )
    with pytest.raises(ValueError, match="sgd_step.*expected 1 16-bit parameters, got 2"):
        genesis._C._optim._sgd_step(
            [genesis.zeros(3)], [g16], [], 0.1, 0.0, 0.0, 0.0, False, False, narrow=[p16, p16]
        )
    # Without master weights, a gradient of another dtype is refused as before.
    with pytest.raises(RuntimeError, match="sgd_step.*grad 0"):
        genesis._C._optim._sgd_step([genesis.zeros(3)], [g16], [], 0.1, 0.0, 0.0, 0.0, False, False)


def test_master_weights_is_kept_in_the_groups():
    p = genesis.nn.Parameter(genesis.zeros(2, dtype=genesis.bfloat16))
    opt = optim.SGD([p], lr=0.1, master_weights=True)
    assert opt.param_groups[0]["master_weights"] is True
    assert opt.state_dict()["param_groups"][0]["master_weights"] is True
    # Off, the groups have PyTorch's keys only (state_dicts match torch's).
    assert "master_weights" not in optim.Adam([genesis.nn.Parameter(genesis.zeros(1))]).defaults
