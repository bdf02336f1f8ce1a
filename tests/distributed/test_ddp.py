"""genesis.nn.parallel.DistributedDataParallel and genesis.distributed.optim's
ZeroRedundancyOptimizer: several CPU ranks over the "gloo" backend (ddp_worker.py checks each
against training on the global batch), one rank in this process, bucket assignment, and bad
arguments."""

import os
import subprocess
import sys

import pytest
from conftest import HAS_CUDA, check_message

import genesis
import genesis.distributed as dist
from genesis import nn
from genesis.nn.parallel import DistributedDataParallel as DDP
from genesis.nn.parallel.distributed import _assign_buckets

WORKER = os.path.join(os.path.dirname(__file__), "ddp_worker.py")
SCENARIOS = [
    "train", "no_sync", "unused", "join", "buffers", "zero", "hooks", "powersgd", "syncbn"
]  # fmt: skip


def launch(nproc, *scenarios, env=None):
    cmd = [sys.executable, "-m", "genesis.distributed.run", "--nproc-per-node", str(nproc)]
    return subprocess.run(
        [*cmd, WORKER, *scenarios],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize("nproc", [1, 2, 3])
def test_ranks_train_as_one_model_on_the_global_batch(nproc):
    result = launch(nproc, *SCENARIOS)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for r in range(nproc):
        for s in SCENARIOS:
            assert f"rank {r}: {s} ok" in result.stdout, output


GPUS = genesis.cuda.device_count()


@pytest.mark.skipif(not (HAS_CUDA and dist.is_nccl_available()), reason="needs a GPU and NCCL")
@pytest.mark.parametrize("nproc", [1, 2])
def test_ranks_on_gpus_over_nccl(nproc):
    if nproc > GPUS:
        pytest.skip(f"needs {nproc} CUDA devices")
    result = launch(nproc, *SCENARIOS, env={"WORKER_BACKEND": "nccl"})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for r in range(nproc):
        assert f"rank {r}: buffers ok" in result.stdout, output


@pytest.fixture
def world():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


def test_a_world_of_one_gives_the_plain_gradients(world):
    genesis.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 7), nn.GELU(), nn.Linear(7, 2))
    plain = nn.Sequential(nn.Linear(5, 7), nn.GELU(), nn.Linear(7, 2))
    plain.load_state_dict(net.state_dict())
    ddp = DDP(net, bucket_cap_mb=0.0001)
    x = genesis.randn(4, 5)
    for _ in range(2):  # the second iteration runs on the rebuilt buckets
        ddp(x).pow(2).sum().backward()
        plain(x).pow(2).sum().backward()
    for p, q in zip(net.parameters(), plain.parameters()):
        assert genesis.equal(p.grad, q.grad)
    assert isinstance(ddp, nn.Module) and ddp.module is net
    assert list(ddp.state_dict()) == [f"module.{k}" for k in net.state_dict()]
    assert (
        repr(ddp)
        == "DistributedDataParallel(\n  (module): " + repr(net).replace("\n", "\n  ") + "\n)"
    )
    with genesis.no_grad():  # no reduction is prepared, none is expected
        ddp(x)
    ddp(x).sum().backward()


def test_a_compiled_ddp_model(world):
    """genesis.compile around DDP: the backward's fused groups and the bucket hooks together."""
    genesis.manual_seed(0)
    net = nn.Sequential(nn.Linear(64, 256), nn.GELU(approximate="tanh"), nn.Linear(256, 64))
    plain = nn.Sequential(nn.Linear(64, 256), nn.GELU(approximate="tanh"), nn.Linear(256, 64))
    plain.load_state_dict(net.state_dict())
    compiled = genesis.compile(DDP(net, bucket_cap_mb=0.01))
    x = genesis.randn(128, 64)
    for _ in range(2):
        net.zero_grad()
        plain.zero_grad()
        compiled(x).pow(2).sum().backward()
        plain(x).pow(2).sum().backward()
        for p, q in zip(net.parameters(), plain.parameters()):
            assert genesis.equal(p.grad, q.grad)


def test_buckets_go_in_reverse_order_and_split_by_size_and_dtype():
    params = [genesis.zeros(n, dtype=dt) for n, dt in
              [(100, genesis.float32), (300, genesis.float32), (50, genesis.float64),
               (400, genesis.float32)]]  # fmt: skip
    cap = 1600  # bytes
    assert _assign_buckets([3, 2, 1, 0], params, cap) == [[3], [1, 0], [2]]
    assert _assign_buckets([3, 2, 1, 0], params, 1 << 30) == [[3, 1, 0], [2]]


def test_unused_parameter_without_detection_raises_at_the_next_forward(world):
    net = nn.ModuleDict({"used": nn.Linear(3, 3), "unused": nn.Linear(3, 3)})

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = net

        def forward(self, x):
            return self.inner["used"](x)

    ddp = DDP(Net())
    ddp(genesis.ones(2, 3)).sum().backward()
    with pytest.raises(RuntimeError, match="find_unused_parameters=True") as e:
        ddp(genesis.ones(2, 3))
    assert "inner.unused.weight" in str(e.value)
    check_message(e)


def test_bad_arguments(world):
    with pytest.raises(TypeError, match=r"^\[DistributedDataParallel\] module must be") as e:
        DDP(lambda x: x)
    check_message(e)
    with pytest.raises(ValueError, match=r"^\[DistributedDataParallel\] bucket_cap_mb") as e:
        DDP(nn.Linear(2, 2), bucket_cap_mb=0)
    check_message(e)
    with pytest.raises(ValueError, match=r"^\[DistributedDataParallel\] device_ids") as e:
        DDP(nn.Linear(2, 2), device_ids=[0])
    check_message(e)
    if HAS_CUDA:
        mixed = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2).cuda())
        with pytest.raises(ValueError, match="several devices"):
            DDP(mixed)


def test_needs_a_process_group():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match=r"^\[DistributedDataParallel\] the default") as e:
        DDP(nn.Linear(2, 2))
    check_message(e)


def test_the_module_path_is_torchs():
    import genesis.nn.parallel as parallel

    assert genesis.nn.parallel is parallel and parallel.DistributedDataParallel is DDP


def test_zero_redundancy_optimizer_in_a_world_of_one(world):
    from genesis.distributed.optim import ZeroRedundancyOptimizer

    genesis.manual_seed(0)
    w = nn.Parameter(genesis.randn(4))
    w_ref = nn.Parameter(w.detach().clone())
    opt = ZeroRedundancyOptimizer([w], genesis.optim.AdamW, lr=0.1, weight_decay=0.01)
    ref = genesis.optim.AdamW([w_ref], lr=0.1, weight_decay=0.01)
    for _ in range(3):
        for p, o in ((w, opt), (w_ref, ref)):
            o.zero_grad()
            (p * p).sum().backward()
            o.step()
    assert genesis.equal(w, w_ref)
    opt.param_groups[0]["lr"] = 0.5  # what an LR scheduler does reaches the local optimizer
    (w * w).sum().backward()
    opt.step()
    assert opt.optim.param_groups[0]["lr"] == 0.5
    with pytest.raises(RuntimeError, match="consolidate_state_dict"):
        opt.state_dict()
    opt.consolidate_state_dict()
    assert list(opt.state_dict()["state"]) == [0]
    with pytest.raises(TypeError, match=r"^\[ZeroRedundancyOptimizer\] optimizer_class"):
        ZeroRedundancyOptimizer([w], "adam")
    with pytest.raises(ValueError, match="overlap_with_ddp"):  # test_zero_overlap.py: the rest
        ZeroRedundancyOptimizer([w], genesis.optim.LBFGS, overlap_with_ddp=True)


def test_a_custom_communication_hook(world):
    """A hook gets each bucket in order, may return another flat tensor, and is checked."""
    from genesis.futures import Future

    genesis.manual_seed(1)
    net = nn.Sequential(nn.Linear(6, 6), nn.Linear(6, 6))
    ddp = DDP(net, bucket_cap_mb=0.0001)
    seen = []

    def doubling(state, bucket):
        seen.append((state, bucket.index(), bucket.is_last(), len(bucket.parameters())))
        assert [g.shape for g in bucket.gradients()] == [p.shape for p in bucket.parameters()]
        fut = Future()
        fut.set_result(bucket.buffer() * 2)  # not the buffer itself: DDP copies it in
        return fut

    ddp.register_comm_hook("state", doubling)
    with pytest.raises(RuntimeError, match="registered already"):
        ddp.register_comm_hook(None, doubling)
    x = genesis.randn(3, 6)
    ddp(x).sum().backward()
    plain = nn.Sequential(nn.Linear(6, 6), nn.Linear(6, 6))
    plain.load_state_dict(net.state_dict())
    plain(x).sum().backward()
    for p, q in zip(net.parameters(), plain.parameters()):
        assert genesis.equal(p.grad, q.grad * 2)
    n = len(ddp._buckets)
    assert [s[1] for s in seen] == list(range(n)) and [s[2] for s in seen] == [False] * (n - 1) + [
        True
    ]
    assert all(s[0] == "state" for s in seen)
    late = DDP(nn.Linear(2, 2))
    late(genesis.ones(1, 2)).sum().backward()
    with pytest.raises(RuntimeError, match=r"^\[DistributedDataParallel.register_comm_hook\] "):
        late.register_comm_hook(None, doubling)
    with pytest.raises(TypeError, match="must be callable"):
        DDP(nn.Linear(2, 2)).register_comm_hook(None, "hook")
