"""nn.DataParallel (Note [Data parallel in one process] in genesis/nn/modules/data_parallel.py):
without CUDA it calls the module; with one GPU it moves the module there and feeds it the
inputs copied over; the split / replicate / threaded apply / gather steps (genesis.nn.parallel's
helpers) run on one GPU as two replicas, and on two GPUs where the machine has them; repr,
state_dict keys and bad arguments as torch's."""

import numpy as np
import pytest
import torch
from conftest import HAS_CUDA

import genesis
from genesis import nn
from genesis.nn import parallel

RNG = np.random.default_rng(43)
requires_cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")
GPUS = genesis.cuda.device_count() if HAS_CUDA else 0


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(6, 8), nn.Linear(8, 3)

    def forward(self, x, scale=1.0, extra=None):
        h = self.b(self.a(x).tanh()) * scale
        return {"out": h, "pair": (h.sum(-1), extra)}


def _data(rows=10):
    return genesis.tensor(RNG.standard_normal((rows, 6)).astype(np.float32))


def test_repr_state_dict_and_bad_arguments():
    g = nn.DataParallel(nn.Linear(4, 2))
    assert repr(g) == repr(torch.nn.DataParallel(torch.nn.Linear(4, 2)))
    assert list(g.state_dict()) == ["module.weight", "module.bias"]
    assert parallel.DataParallel is nn.DataParallel
    with pytest.raises(TypeError, match=r"^\[DataParallel\] module must be a genesis.nn.Module"):
        nn.DataParallel(lambda x: x)


@pytest.mark.skipif(HAS_CUDA, reason="the path of a machine without CUDA")
def test_without_cuda_it_calls_the_module():
    net = Net()
    x = _data()
    got = nn.DataParallel(net)(x, scale=2.0)
    want = net(x, scale=2.0)
    assert genesis.equal(got["out"], want["out"]) and got["out"].device.type == "cpu"
    assert parallel.data_parallel(net, x)["out"].shape == (10, 3)


@requires_cuda
def test_one_gpu_moves_the_module_and_the_inputs():
    genesis.manual_seed(0)
    net, ref = Net(), Net()
    ref.load_state_dict(net.state_dict())
    dp = nn.DataParallel(net, device_ids=[0])
    assert next(net.parameters()).device == genesis.device("cuda", 0)
    x = _data()
    out = dp(x, scale=0.5, extra="kept")
    assert out["out"].device == genesis.device("cuda", 0) and out["pair"][1] == "kept"
    out["out"].pow(2).sum().backward()
    ref(x, scale=0.5)["out"].pow(2).sum().backward()
    np.testing.assert_allclose(
        net.a.weight.grad.cpu().numpy(), ref.a.weight.grad.numpy(), 1e-5, 1e-6
    )
    net.cpu()
    with pytest.raises(RuntimeError, match=r"^\[DataParallel\] module must have its parameters"):
        dp(x)


@requires_cuda
def test_the_steps_with_two_replicas_on_one_gpu():
    genesis.manual_seed(1)
    net = Net().cuda()
    x = _data(9).cuda().requires_grad_()
    parts, kparts = parallel.scatter_kwargs((x,), {"scale": 3.0}, [0, 0])
    assert [p[0].shape[0] for p in parts] == [5, 4] and kparts == ({"scale": 3.0},) * 2
    replicas = parallel.replicate(net, [0, 0])
    assert replicas[0] is not net and replicas[0].a.weight is net.a.weight
    outs = parallel.parallel_apply(replicas, parts, kparts, [0, 0])
    joined = parallel.gather(outs, 0)
    want = net(x, scale=3.0)
    np.testing.assert_allclose(
        joined["out"].detach().cpu().numpy(), want["out"].detach().cpu().numpy(), 1e-6, 1e-6
    )
    assert joined["pair"][1] is None
    joined["out"].sum().backward()
    grad = x.grad.clone()
    x.grad = None
    want["out"].sum().backward()
    np.testing.assert_allclose(grad.cpu().numpy(), x.grad.cpu().numpy(), 1e-6, 1e-6)
    with pytest.warns(UserWarning, match="scalars"):
        assert parallel.gather([genesis.ones((), device="cuda")] * 2, -1).shape == (2,)


@pytest.mark.skipif(GPUS < 2, reason="needs two CUDA devices")
def test_two_gpus_match_one():
    genesis.manual_seed(2)
    net, ref = Net(), Net()
    ref.load_state_dict(net.state_dict())
    dp = nn.DataParallel(net.cuda(0), device_ids=[0, 1])
    x = _data(11)
    out = dp(x)["out"]
    want = ref.cuda(0)(x.cuda(0))["out"]
    np.testing.assert_allclose(out.detach().cpu().numpy(), want.detach().cpu().numpy(), 1e-5, 1e-6)
    out.pow(2).sum().backward()
    want.pow(2).sum().backward()
    for p, q in zip(net.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.cpu().numpy(), 1e-4, 1e-5)
