"""PowerSGD's communication hooks (genesis.distributed.algorithms.ddp_comm_hooks.powerSGD_hook,
Note [PowerSGD]) in a world of one rank in this process; ddp_worker.py's "powersgd" scenario
runs them on several ranks (tests/distributed/test_ddp.py)."""

import pickle

import numpy as np
import pytest
from test_ddp import world  # noqa: F401 - one rank in this process

import genesis
from genesis import nn
from genesis.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powerSGD
from genesis.nn.parallel import DistributedDataParallel as DDP


def pair(seed=0, dtype=genesis.float32):
    """(DDP model, the same plain model): three same-shaped 16 x 16 layers, others, biases."""
    genesis.manual_seed(seed)
    layers = [nn.Linear(8, 16), nn.Tanh()]
    for _ in range(3):
        layers += [nn.Linear(16, 16), nn.Tanh()]
    net = nn.Sequential(*layers, nn.Linear(16, 5)).to(dtype)
    plain = nn.Sequential(*[type(m)(*_dims(m)) for m in net]).to(dtype)
    plain.load_state_dict(net.state_dict())
    return DDP(net, bucket_cap_mb=0.002), net, plain


def _dims(m):
    return (m.in_features, m.out_features) if isinstance(m, nn.Linear) else ()


def step(ddp, net, plain, seed):
    rng = np.random.default_rng(seed)
    x = genesis.tensor(rng.standard_normal((32, 8))).to(net[0].weight.dtype)  # full rank
    net.zero_grad()
    plain.zero_grad()
    ddp(x).pow(2).mean().backward()
    plain(x).pow(2).mean().backward()


def grads(model):
    return [p.grad.clone() for p in model.parameters()]


@pytest.mark.usefixtures("world")
def test_before_start_iter_the_gradients_are_all_reduced():
    ddp, net, plain = pair()
    state = powerSGD.PowerSGDState(None, start_powerSGD_iter=3)
    ddp.register_comm_hook(state, powerSGD.powerSGD_hook)
    for i in range(3):
        step(ddp, net, plain, i)
        for p, q in zip(net.parameters(), plain.parameters()):
            assert genesis.equal(p.grad, q.grad)
    assert state.iter == 3 and state.compression_stats() == (0, 0, 0)


def full_rank_state():
    return powerSGD.PowerSGDState(
        None,
        matrix_approximation_rank=64,
        start_powerSGD_iter=0,
        min_compression_rate=0,
        use_error_feedback=False,
        warm_start=False,
    )


@pytest.mark.usefixtures("world")
def test_at_full_rank_the_factors_give_the_gradients_back():
    """P Q^T = P P^T M = M once P spans M's columns (full-rank gradients): the plain gradients,
    to rounding (in float64: Gram-Schmidt over 16 columns loses orthogonality in float32)."""
    ddp, net, plain = pair(dtype=genesis.float64)
    state = full_rank_state()
    ddp.register_comm_hook(state, powerSGD.powerSGD_hook)
    for i in range(3):
        step(ddp, net, plain, i)
        for p, q in zip(net.parameters(), plain.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-7, atol=1e-10)
    rate, before, after = state.compression_stats()
    assert before > 0 and after > 0 and rate == before / after


@pytest.mark.usefixtures("world")
def test_the_batched_hook_at_full_rank():
    """The whole bucket as one square: 16 x 16 weights make a full-rank 16 x 16 square."""
    genesis.manual_seed(0)
    net = nn.Linear(16, 16, bias=False).double()
    plain = nn.Linear(16, 16, bias=False).double()
    plain.load_state_dict(net.state_dict())
    ddp = DDP(net)
    state = full_rank_state()
    ddp.register_comm_hook(state, powerSGD.batched_powerSGD_hook)
    for _ in range(2):
        x = genesis.randn(32, 16, dtype=genesis.float64)
        net.zero_grad()
        plain.zero_grad()
        ddp(x).pow(2).sum().backward()
        plain(x).pow(2).sum().backward()
        np.testing.assert_allclose(net.weight.grad.numpy(), plain.weight.grad.numpy(), rtol=1e-7)
    assert state.compression_stats() == (256 / 512, 512, 1024)


@pytest.mark.usefixtures("world")
def test_error_feedback_keeps_what_compression_lost():
    ddp, net, plain = pair()
    state = powerSGD.PowerSGDState(None, matrix_approximation_rank=1, start_powerSGD_iter=2)
    ddp.register_comm_hook(state, powerSGD.powerSGD_hook)
    errors = None
    for i in range(5):
        step(ddp, net, plain, i)
        if i < 2:
            continue
        # what each bucket sent plus what it kept is its gradient plus the last step's error
        flat_errors = genesis.cat([state.error_dict[b] for b in sorted(state.error_dict)])
        got = genesis.cat([p.grad.reshape(-1) for p in _bucket_order(ddp, net)])
        want = genesis.cat([q.grad.reshape(-1) for q in _bucket_order(ddp, plain)])
        if errors is not None:
            want = want + errors
        np.testing.assert_allclose((got + flat_errors).numpy(), want.numpy(), atol=1e-5)
        errors = flat_errors
        # the 16 x 16 layers were sent as rank-1 factors: their gradients are now rank 1
        g = net[2].weight.grad
        singular = np.linalg.svd(g.numpy(), compute_uv=False)
        assert singular[1] < 1e-4 * singular[0]
    rate, before, after = state.compression_stats()
    assert rate > 1
    assert state.iter == 5
    assert set(state.p_memory_dict) == set(state.error_dict)  # warm start keeps the factors


def _bucket_order(ddp, model):
    """model's parameters in the order of DDP's buckets' flat tensors."""
    params = list(model.parameters())
    return [params[i] for b in ddp._buckets for i in b.indices]


@pytest.mark.usefixtures("world")
def test_warm_start_continues_the_power_iteration():
    """With a warm start the same gradient is approximated better each step (one more step of
    the power iteration towards its top singular vectors); without, Q is drawn anew each step."""
    rng = np.random.default_rng(0)
    u, _ = np.linalg.qr(rng.standard_normal((32, 32)))
    v, _ = np.linalg.qr(rng.standard_normal((32, 32)))
    sigma = 4.0 * 0.6 ** np.arange(32)  # a gap of 0.6 between the top two
    w = (u * sigma) @ v.T
    top = sigma[0] * np.outer(u[:, 0], v[:, 0])
    residuals = {}
    for warm in (True, False):
        net = nn.Linear(32, 32, bias=False).double()
        ddp = DDP(net)
        state = powerSGD.PowerSGDState(
            None, start_powerSGD_iter=2 if warm else 0, use_error_feedback=False, warm_start=warm
        )
        ddp.register_comm_hook(state, powerSGD.powerSGD_hook)
        out = []
        for _ in range(12):
            net.zero_grad()
            (ddp(genesis.eye(32, dtype=genesis.float64)) * genesis.tensor(w.T)).sum().backward()
            assert np.allclose(net.weight.grad.numpy(), w) or state.iter > state.start_powerSGD_iter
            out.append(float(np.abs(net.weight.grad.numpy() - top).max()))
        residuals[warm] = out[2:]
    assert residuals[True][-1] < 1e-3 * residuals[True][0]
    assert min(residuals[False]) > 100 * residuals[True][-1]


@pytest.mark.usefixtures("world")
def test_the_state_pickles_without_its_group():
    state = powerSGD.PowerSGDState(object(), matrix_approximation_rank=3)  # a group, say
    state.iter = 7
    back = pickle.loads(pickle.dumps(state))
    assert back.process_group is None and back.iter == 7 and back.matrix_approximation_rank == 3
    assert back.rng.randint(100) == state.rng.randint(100)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"^PowerSGDState: expect start_powerSGD_iter > 1"):
        powerSGD.PowerSGDState(None, start_powerSGD_iter=1)
    with pytest.raises(ValueError, match=r"^PowerSGDState: matrix_approximation_rank"):
        powerSGD.PowerSGDState(None, matrix_approximation_rank=0)
    powerSGD.PowerSGDState(None, start_powerSGD_iter=0, use_error_feedback=False, warm_start=False)
