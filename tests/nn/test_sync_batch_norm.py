"""nn.SyncBatchNorm in one process: batch norm's results without a process group or in a world
of one, its statistics-sharing Function against BatchNorm (forward, gradients, running
statistics, 16-bit input), convert_sync_batchnorm, repr and state_dict against torch, and bad
input. Several ranks: tests/distributed/ddp_worker.py's "syncbn" scenario (test_ddp.py)."""

import numpy as np
import pytest
import torch
from conftest import check_message

import genesis
import genesis.distributed as dist
from genesis import nn
from genesis.nn.modules._sync_batch_norm import SyncBatchNormFunction

RNG = np.random.default_rng(41)


def _pair(shape, dtype=np.float32):
    a = RNG.standard_normal(shape).astype(dtype)
    return genesis.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(a, b, tol=1e-5):
    a = a.detach().float().numpy() if isinstance(a, genesis.Tensor) else a
    b = b.detach().float().numpy() if isinstance(b, torch.Tensor) else b
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.fixture
def world():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("initialized", [False, True])
def test_batch_norm_results_without_peers(shape, initialized, request):
    if initialized:
        request.getfixturevalue("world")
    g = nn.SyncBatchNorm(3, momentum=0.2)
    t = torch.nn.SyncBatchNorm(3, momentum=0.2)  # no process group: torch's batch norm too
    with genesis.no_grad():
        g.weight.copy_(genesis.tensor([0.5, 1.5, -1.0]))
    with torch.no_grad():
        t.weight.copy_(torch.tensor([0.5, 1.5, -1.0]))
    x, tx = _pair(shape)
    g(x).pow(2).sum().backward()
    t(tx).pow(2).sum().backward()
    _close(x.grad, tx.grad, 1e-4)
    _close(g.weight.grad, t.weight.grad, 1e-4)
    _close(g.running_var, t.running_var)
    g.eval()
    t.eval()
    _close(g(x), t(tx))


@pytest.mark.parametrize("dtype", [genesis.float32, genesis.bfloat16, genesis.float16])
def test_the_sharing_function_in_a_world_of_one(world, dtype):
    """SyncBatchNormFunction itself (what several ranks run) gives BatchNorm's results."""
    x_np = RNG.standard_normal((5, 4, 6)).astype(np.float32)
    x = genesis.tensor(x_np).to(dtype).requires_grad_()
    ref = genesis.tensor(x_np).to(dtype).float().requires_grad_()
    w = genesis.tensor(RNG.standard_normal(4).astype(np.float32), requires_grad=True)
    b = genesis.tensor(RNG.standard_normal(4).astype(np.float32), requires_grad=True)
    w2, b2 = w.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    rm, rv = genesis.zeros(4), genesis.ones(4)
    rm2, rv2 = genesis.zeros(4), genesis.ones(4)
    y = SyncBatchNormFunction.apply(x, w, b, rm, rv, 1e-5, 0.1, None, 1)
    assert y.dtype == dtype
    want = nn.functional.batch_norm(ref, rm2, rv2, w2, b2, True, 0.1, 1e-5)
    g = genesis.tensor(RNG.standard_normal((5, 4, 6)).astype(np.float32))
    y.backward(g.to(dtype))
    want.backward(g.to(dtype).float())
    tol = 1e-5 if dtype == genesis.float32 else 2e-2
    _close(y, want, tol)
    _close(x.grad, ref.grad, tol * 10)
    _close(w.grad, w2.grad, tol * 10)
    _close(b.grad, b2.grad, tol * 10)
    _close(rm, rm2)
    _close(rv, rv2)


def test_convert_sync_batchnorm_shares_everything():
    net = nn.Sequential(
        nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3), nn.Sequential(nn.ReLU(), nn.BatchNorm2d(3))
    )
    net[2][1].eval()
    before = net.state_dict()
    weight = net[1].weight
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net, process_group=None)
    assert isinstance(out[1], nn.SyncBatchNorm) and isinstance(out[2][1], nn.SyncBatchNorm)
    assert isinstance(out[0], nn.Conv2d) and out[1].weight is weight
    assert out[1].training and not out[2][1].training
    assert list(out.state_dict()) == list(before)
    lone = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(4, affine=False))
    assert isinstance(lone, nn.SyncBatchNorm) and lone.weight is None
    t = torch.nn.SyncBatchNorm.convert_sync_batchnorm(torch.nn.BatchNorm1d(4, affine=False))
    assert repr(lone) == repr(t)


def test_repr_state_dict_and_torch_weights():
    g, t = (
        nn.SyncBatchNorm(5, eps=1e-3, momentum=None, bias=False),
        torch.nn.SyncBatchNorm(5, eps=1e-3, momentum=None, bias=False),
    )
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    t.running_mean.fill_(0.5)
    g.load_state_dict({k: genesis.tensor(v.numpy()) for k, v in t.state_dict().items()})
    assert float(g.running_mean[0]) == 0.5


def test_bad_input():
    bn = nn.SyncBatchNorm(3)
    with pytest.raises(ValueError) as info:
        bn(genesis.randn(3))
    check_message(info, "SyncBatchNorm")
    assert "expected at least 2D input (got 1D input)" in str(info.value)
    with pytest.raises(ValueError, match=r"^\[SyncBatchNorm\] number of input channels"):
        nn.SyncBatchNorm(0)(genesis.randn(2, 0))
    with pytest.raises(TypeError, match=r"^\[SyncBatchNorm\] input must be a genesis.Tensor"):
        bn([1.0, 2.0])
