"""genesis.optim.Lion against a NumPy implementation of the paper's update (PyTorch has no Lion):
50 steps with every option on the CPU and CUDA in float32 and float64, master weights for
bfloat16 parameters, state_dicts that resume exactly, and PyTorch-style errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from conftest import DEVICES, to_numpy

import genesis
from genesis import optim

SHAPES = [(7, 5), (33,), (), (2, 3, 4), (0, 3)]
OPTIONS = [
    {},
    {"lr": 0.01, "betas": (0.8, 0.95)},
    {"lr": 0.003, "weight_decay": 0.5},
    {"lr": 0.01, "maximize": True, "weight_decay": 0.1},
]
DTYPES = {"float32": np.float32, "float64": np.float64}


def _reference(
    params, grads_per_step, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0, maximize=False
):
    """The paper's Lion in NumPy, in the parameters' dtype, in genesis's order of operations."""
    dtype = params[0].dtype.type
    lr, b1, b2 = dtype(lr), dtype(betas[0]), dtype(betas[1])
    shrink = dtype(1 - float(lr) * weight_decay)
    params = [p.copy() for p in params]
    moments = [np.zeros_like(p) for p in params]
    for grads in grads_per_step:
        for p, m, g in zip(params, moments, grads):
            g = -g if maximize else g
            p *= shrink
            c = m * b1 + (dtype(1) - b1) * g
            p += -lr * np.sign(c).astype(dtype)
            m[...] = m * b2 + (dtype(1) - b2) * g
    return params, moments


def _data(dtype, steps=50, seed=0):
    rng = np.random.default_rng(seed)
    start = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]
    return start, grads


def _relative(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize(
    "options", OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()) or "defaults"
)
def test_matches_the_reference(options, dtype, device):
    start, grads = _data(DTYPES[dtype])
    params = [genesis.nn.Parameter(genesis.from_numpy(a.copy()).to(device)) for a in start]
    opt = optim.Lion(params, **options)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = genesis.from_numpy(g).to(device)
        opt.step()
    want, moments = _reference(start, grads, **options)
    # Relative to the norm of all parameters, as tests/optim/test_optim.py: CUDA contracts
    # m * beta1 + (1 - beta1) * g into one fma, an ulp away from NumPy's two roundings a step.
    tol = 1e-6 if dtype == "float32" else 1e-12
    for p in params:
        assert p.dtype == getattr(genesis, dtype)
    got = np.concatenate([to_numpy(p).ravel() for p in params])
    assert _relative(got, np.concatenate([w.ravel() for w in want])) <= tol
    got_m = np.concatenate([to_numpy(opt.state[p]["exp_avg"]).ravel() for p in params])
    assert _relative(got_m, np.concatenate([m.ravel() for m in moments])) <= tol


@pytest.mark.parametrize("device", DEVICES)
def test_master_weights_follow_the_float32_reference(device):
    start, grads = _data(np.float32, steps=20)
    start = [genesis.from_numpy(a).to(genesis.bfloat16).float().numpy() for a in start]
    grads = [
        [genesis.from_numpy(g).to(genesis.bfloat16).float().numpy() for g in step] for step in grads
    ]
    params = [
        genesis.nn.Parameter(genesis.from_numpy(a.copy()).to(device, genesis.bfloat16))
        for a in start
    ]
    opt = optim.Lion(params, lr=0.01, weight_decay=0.1, master_weights=True)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = genesis.from_numpy(g).to(device, genesis.bfloat16)
        opt.step()
    want, _ = _reference(start, grads, lr=0.01, weight_decay=0.1)
    for p, w in zip(params, want):
        master = opt.state[p]["master_param"]
        assert master.dtype == genesis.float32
        assert _relative(to_numpy(master), w) <= 1e-6
        assert bool((p == master.to(genesis.bfloat16)).all())


@pytest.mark.parametrize("device", DEVICES)
def test_state_dict_resumes_exactly(device):
    start, grads = _data(np.float32, steps=10)

    def run(params, opt, steps):
        for step_grads in steps:
            for p, g in zip(params, step_grads):
                p.grad = genesis.from_numpy(g).to(device)
            opt.step()

    params = [genesis.nn.Parameter(genesis.from_numpy(a.copy()).to(device)) for a in start]
    opt = optim.Lion(params, lr=0.01)
    run(params, opt, grads[:5])
    # state_dict() holds the state tensors themselves, as PyTorch's: copy before stepping on.
    saved = ([p.detach().clone() for p in params], copy.deepcopy(opt.state_dict()))
    assert sorted(saved[1]["state"][0]) == ["exp_avg"]
    run(params, opt, grads[5:])
    params2 = [genesis.nn.Parameter(p) for p in saved[0]]
    opt2 = optim.Lion(params2, lr=0.5)
    opt2.load_state_dict(saved[1])
    assert opt2.param_groups[0]["lr"] == 0.01
    run(params2, opt2, grads[5:])
    for p, q in zip(params, params2):
        assert bool((p == q).all())


def test_bad_options_raise_as_pytorch_does():
    p = [genesis.nn.Parameter(genesis.zeros(2))]
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.Lion(p, lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
        optim.Lion(p, betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: -0.1"):
        optim.Lion(p, betas=(0.9, -0.1))
    with pytest.raises(ValueError, match="Invalid weight_decay value: -0.5"):
        optim.Lion(p, weight_decay=-0.5)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Lion([])


def test_a_zero_direction_does_not_move_the_parameter():
    p = genesis.nn.Parameter(genesis.tensor([1.0, -1.0]))
    opt = optim.Lion([p], lr=0.1)
    p.grad = genesis.zeros(2)
    opt.step()
    assert p.tolist() == [1.0, -1.0]
