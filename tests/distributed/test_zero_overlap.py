"""ZeroRedundancyOptimizer(overlap_with_ddp=True) with the DDP hooks of
genesis.distributed.algorithms.ddp_comm_hooks.ddp_zero_hook (Note [Overlapping the step with
DDP]): in a world of one in this process against DDP with the plain optimizer and against
torch's own (its "fake" backend, a world of one), on several CPU ranks (ddp_worker.py's
"zero_overlap" scenario, against the plain optimizer on the global batch), the assignment of
buckets to ranks, and misuse."""

import warnings

import numpy as np
import pytest
from conftest import HAS_CUDA, check_message
from test_ddp import launch, world  # noqa: F401 - one rank in this process

import genesis
import genesis.distributed as dist
from genesis import nn
from genesis.distributed.algorithms.ddp_comm_hooks import ddp_zero_hook, default_hooks
from genesis.distributed.optim import ZeroRedundancyOptimizer
from genesis.distributed.optim.zero_redundancy_optimizer import (
    _assign_sharded_buckets,
    _assign_whole_buckets,
)
from genesis.futures import Future
from genesis.nn.parallel import DistributedDataParallel as DDP

HOOKS = {
    "after_the_last_bucket": ddp_zero_hook.hook_with_zero_step,
    "interleaved": ddp_zero_hook.hook_with_zero_step_interleaved,
}
OPTIMIZERS = {
    "SGD": {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01},
    "Adam": {"lr": 0.01},
}


@pytest.mark.parametrize("nproc", [1, 2])
def test_ranks_step_as_the_plain_optimizer_on_the_global_batch(nproc):
    result = launch(nproc, "zero_overlap")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for r in range(nproc):
        assert f"rank {r}: zero_overlap ok" in result.stdout, output


@pytest.mark.skipif(not (HAS_CUDA and dist.is_nccl_available()), reason="needs a GPU and NCCL")
@pytest.mark.parametrize("nproc", [1, 2])
def test_ranks_on_gpus_over_nccl(nproc):
    if nproc > genesis.cuda.device_count():
        pytest.skip(f"needs {nproc} CUDA devices")
    result = launch(nproc, "zero_overlap", env={"WORKER_BACKEND": "nccl"})
    assert result.returncode == 0, result.stdout + result.stderr


def model(seed=0):
    genesis.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                         nn.Linear(16, 3))  # fmt: skip


def inputs(count, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((5, 6)).astype(np.float32) for _ in range(count)]


def close(got, want):
    """Equal to rounding (the same steps, by buckets or by groups)."""
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-7)


def overlapped(net, hook="after_the_last_bucket", optimizer="SGD", shard=False, **ddp_args):
    ddp = DDP(net, bucket_cap_mb=0.0002, **ddp_args)  # three buckets
    opt_class = getattr(genesis.optim, optimizer)
    zero = ZeroRedundancyOptimizer(
        ddp.parameters(), opt_class, overlap_with_ddp=True, **OPTIMIZERS[optimizer]
    )
    ddp.register_comm_hook(
        None, HOOKS[hook](default_hooks.allreduce_hook, ddp, zero, shard_buckets=shard)
    )
    return ddp, zero


@pytest.mark.usefixtures("world")
@pytest.mark.parametrize("static_graph", [False, True])
@pytest.mark.parametrize("shard", [False, True])
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
@pytest.mark.parametrize("hook", ["after_the_last_bucket", "interleaved"])
def test_after_the_warm_up_each_backward_is_a_plain_step(hook, optimizer, shard, static_graph):
    """Two warm-up iterations (three with static_graph) move nothing and step() only warns;
    then each backward leaves what DDP with the plain optimizer's step() gives."""
    net, reference = model(), model()
    ddp, zero = overlapped(net, hook, optimizer, shard, static_graph=static_graph)
    assert len(ddp._buckets) == 3
    ref_ddp = DDP(reference, bucket_cap_mb=0.0002, static_graph=static_graph)
    ref_opt = getattr(genesis.optim, optimizer)(reference.parameters(), **OPTIMIZERS[optimizer])
    warm_up = 3 if static_graph else 2
    for i, x in enumerate(inputs(warm_up + 3)):
        zero.zero_grad()
        ddp(genesis.tensor(x)).pow(2).sum().backward()
        if i < warm_up:
            for p, q in zip(net.parameters(), reference.parameters()):
                assert genesis.equal(p, q)
            with pytest.raises(RuntimeError, match=r"^\[ZeroRedundancyOptimizer.state_dict\]"):
                zero.state_dict()
            with pytest.warns(UserWarning, match=r"^\[ZeroRedundancyOptimizer.step\] `step\(\)`"):
                assert zero.step(closure=lambda: pytest.fail("the closure ran")) is None
            continue
        ref_opt.zero_grad()
        ref_ddp(genesis.tensor(x)).pow(2).sum().backward()
        ref_opt.step()
        for p, q in zip(net.parameters(), reference.parameters()):
            close(p, q)
            close(p.grad, q.grad)  # .grad holds the averaged gradients, as DDP's
        assert len(zero.optim.state) == len(list(net.parameters()))


@pytest.mark.usefixtures("world")
def test_the_consolidated_state_is_the_plain_optimizers():
    net, reference = model(1), model(1)
    ddp, zero = overlapped(net, optimizer="Adam", shard=True)
    ref_opt = genesis.optim.Adam(reference.parameters(), **OPTIMIZERS["Adam"])
    for i, x in enumerate(inputs(5, seed=1)):
        zero.zero_grad()
        ddp(genesis.tensor(x)).sum().backward()
        if i >= 2:
            ref_opt.zero_grad()
            reference(genesis.tensor(x)).sum().backward()
            ref_opt.step()
    zero.consolidate_state_dict(0)
    state, want = zero.state_dict(), ref_opt.state_dict()
    assert sorted(state["state"]) == sorted(want["state"])
    for k, v in want["state"].items():
        for key in ("step", "exp_avg", "exp_avg_sq"):
            np.testing.assert_allclose(state["state"][k][key].numpy(), v[key].numpy(), atol=1e-7)
    zero.load_state_dict(want)  # after the warm-up it loads as the plain ZeRO's does
    assert all("exp_avg" in s for s in zero.optim.state.values())


@pytest.mark.usefixtures("world")
@pytest.mark.parametrize("hook", ["after_the_last_bucket", "interleaved"])
def test_a_hook_whose_future_is_done_at_once_and_unused_parameters(hook):
    """A hook that returns another flat tensor, already computed: its values are the gradients
    stepped (the interleaved step then runs within backward), here twice the gradients, which
    lr 0.1 makes the plain step of lr 0.2; with find_unused_parameters the warm-up is the same
    two iterations."""

    def doubling(state, bucket):
        fut = Future()
        fut.set_result(bucket.buffer() * 2)
        return fut

    net, reference = model(2), model(2)
    ddp = DDP(net, bucket_cap_mb=0.0002, find_unused_parameters=True)
    zero = ZeroRedundancyOptimizer(net.parameters(), genesis.optim.SGD, overlap_with_ddp=True,
                                   lr=0.1)  # fmt: skip
    ddp.register_comm_hook(None, HOOKS[hook](doubling, ddp, zero))
    ref_opt = genesis.optim.SGD(reference.parameters(), lr=0.2)
    for i, x in enumerate(inputs(4, seed=2)):
        zero.zero_grad()
        ddp(genesis.tensor(x)).sum().backward()
        if i >= 2:
            ref_opt.zero_grad()
            reference(genesis.tensor(x)).sum().backward()
            ref_opt.step()
        for p, q in zip(net.parameters(), reference.parameters()):
            close(p, q)


def _numels(*buckets):
    return [[genesis.empty(n) for n in sizes] for sizes in buckets]


def _shape(runs):
    return [
        [(rank, offset, [p.numel() for p in params]) for rank, offset, params in b] for b in runs
    ]


def test_whole_buckets_go_round_the_ranks():
    buckets = _numels([3, 4], [5], [1], [2, 2])
    assert _shape(_assign_whole_buckets(buckets, 3)) == [
        [(0, 0, [3, 4])],
        [(1, 0, [5])],
        [(2, 0, [1])],
        [(0, 0, [2, 2])],
    ]
    assert _shape(_assign_whole_buckets(buckets, 1)) == [[(0, 0, list(b))] for b in
                                                         ([3, 4], [5], [1], [2, 2])]  # fmt: skip


def test_sharded_buckets_are_cut_at_total_over_world_size():
    """torch's rule: buckets from the smallest, a run closed before the parameter that would
    bring it to total / world values, each run to the least loaded rank not yet in its bucket."""
    buckets = _numels([4, 4, 4, 4], [10], [2, 2])  # 30 values, 15 a rank
    assert _shape(_assign_sharded_buckets(buckets, 2)) == [
        [(0, 0, [4, 4, 4]), (1, 3, [4])],  # rank 0 had 4 (the smallest bucket), rank 1 had 10
        [(1, 0, [10])],
        [(0, 0, [2, 2])],
    ]
    # never more runs than ranks in a bucket (torch asserts there): the rest stays in the last
    one = _assign_sharded_buckets(_numels([4, 4, 4, 4, 4, 4]), 3)
    assert _shape(one) == [[(0, 0, [4]), (1, 1, [4]), (2, 2, [4, 4, 4, 4])]]


@pytest.mark.usefixtures("world")
def test_misuse():
    net = model()
    ddp = DDP(net)
    plain_zero = ZeroRedundancyOptimizer(net.parameters(), genesis.optim.SGD, lr=0.1)
    for name, make in (("hook_with_zero_step", ddp_zero_hook.hook_with_zero_step),
                       ("hook_with_zero_step_interleaved",
                        ddp_zero_hook.hook_with_zero_step_interleaved)):  # fmt: skip
        with pytest.raises(ValueError, match=rf"^\[{name}\] ZeroRedundancyOptimizer must be ") as e:
            make(default_hooks.allreduce_hook, ddp, plain_zero)
        check_message(e, name)
        zero = ZeroRedundancyOptimizer(
            list(net.parameters())[:2], genesis.optim.SGD, overlap_with_ddp=True, lr=0.1
        )
        with pytest.raises(ValueError, match="every parameter of the DDP model") as e:
            make(default_hooks.allreduce_hook, ddp, zero)
        check_message(e, name)
        with pytest.raises(TypeError, match="hook must be callable") as e:
            make("allreduce", ddp, zero)
        check_message(e, name)
        with pytest.raises(TypeError, match="ddp must be a DistributedDataParallel") as e:
            make(default_hooks.allreduce_hook, net, zero)
        check_message(e, name)

    name = "ZeroRedundancyOptimizer"
    with pytest.raises(ValueError, match=r"^\[ZeroRedundancyOptimizer\] .*LBFGS") as e:
        ZeroRedundancyOptimizer(net.parameters(), genesis.optim.LBFGS, overlap_with_ddp=True)
    check_message(e, name)
    groups = [{"params": list(net[0].parameters())}, {"params": list(net[2].parameters())}]
    with pytest.raises(RuntimeError, match="single parameter group") as e:
        ZeroRedundancyOptimizer(groups, genesis.optim.SGD, overlap_with_ddp=True, lr=0.1)
    check_message(e, name)
    zero = ZeroRedundancyOptimizer(groups[:1], genesis.optim.SGD, overlap_with_ddp=True, lr=0.1)
    with pytest.raises(RuntimeError, match="single parameter group") as e:
        zero.add_param_group(groups[1])
    check_message(e, "ZeroRedundancyOptimizer.add_param_group")

    # overlap_with_ddp=True without the hook: step() warns and moves nothing, as torch's; the
    # local optimizer never comes, so its state cannot be asked for
    before = [p.detach().clone() for p in net.parameters()]
    zero = ZeroRedundancyOptimizer(net.parameters(), genesis.optim.SGD, overlap_with_ddp=True,
                                   lr=0.1)  # fmt: skip
    for _ in range(3):
        zero.zero_grad()
        ddp(genesis.ones(2, 6)).sum().backward()
        with pytest.warns(UserWarning, match="overlap_with_ddp=True"):
            assert zero.step() is None
    assert all(genesis.equal(p, q) for p, q in zip(net.parameters(), before))
    for method, args in (("consolidate_state_dict", ()), ("state_dict", ()),
                         ("load_state_dict", ({"state": {}, "param_groups": []},))):  # fmt: skip
        with pytest.raises(RuntimeError, match="after the warm-up iterations") as e:
            getattr(zero, method)(*args)
        check_message(e, f"ZeroRedundancyOptimizer.{method}")
    assert not hasattr(zero, "optim")


# --- against torch's ZeroRedundancyOptimizer (its "fake" backend: a world of one in process) ---


@pytest.fixture(scope="module")
def torch_world():
    torch = pytest.importorskip("torch")
    tdist = pytest.importorskip("torch.distributed")
    fake_pg = pytest.importorskip("torch.testing._internal.distributed.fake_pg")
    if not tdist.is_available() or tdist.is_initialized():
        pytest.skip("torch.distributed is unavailable or in use")
    tdist.init_process_group("fake", store=fake_pg.FakeStore(), rank=0, world_size=1)
    yield torch
    tdist.destroy_process_group()


@pytest.mark.usefixtures("world")
@pytest.mark.parametrize("static_graph", [False, True])
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
@pytest.mark.parametrize("hook", ["after_the_last_bucket", "interleaved"])
def test_matches_torch(torch_world, hook, optimizer, static_graph):
    """The same warm-up (torch: 2 iterations, 3 with static_graph) and the same parameters."""
    with warnings.catch_warnings(record=True):  # torch's deprecations of its TorchScript parts
        moved = _train_both(torch_world, hook, optimizer, static_graph)
    warm_up = 3 if static_graph else 2
    assert moved == [False] * warm_up + [True] * (6 - warm_up)


def _train_both(torch, hook, optimizer, static_graph):
    """Trains genesis's and torch's overlapped models alike, comparing their parameters after
    each backward; returns whether each backward moved them."""
    from torch.distributed.algorithms.ddp_comm_hooks import ddp_zero_hook as torch_hooks
    from torch.distributed.optim import ZeroRedundancyOptimizer as TorchZero

    def identity_hook(state, bucket):  # a world of one: the average is the bucket
        fut = torch.futures.Future()
        fut.set_result(bucket.buffer())
        return fut

    net = model(3)
    ddp, zero = overlapped(net, hook, optimizer, static_graph=static_graph)
    tnet = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16),
                               torch.nn.Tanh(), torch.nn.Linear(16, 3))  # fmt: skip
    with torch.no_grad():
        for t, g in zip(tnet.parameters(), net.parameters()):
            t.copy_(torch.from_numpy(g.detach().numpy().copy()))
    tddp = torch.nn.parallel.DistributedDataParallel(
        tnet, bucket_cap_mb=0.0002, static_graph=static_graph
    )
    make = {"after_the_last_bucket": torch_hooks.hook_with_zero_step,
            "interleaved": torch_hooks.hook_with_zero_step_interleaved}[hook]  # fmt: skip
    tzero = TorchZero(tddp.parameters(), optimizer_class=getattr(torch.optim, optimizer),
                      overlap_with_ddp=True, **OPTIMIZERS[optimizer])  # fmt: skip
    tddp.register_comm_hook(None, make(identity_hook, tddp, tzero))
    moved = []
    for x in inputs(6, seed=3):
        before = [p.detach().clone() for p in net.parameters()]
        zero.zero_grad()
        tzero.zero_grad()
        ddp(genesis.tensor(x)).pow(2).sum().backward()
        tddp(torch.from_numpy(x)).pow(2).sum().backward()
        moved.append(not all(genesis.equal(p, q) for p, q in zip(net.parameters(), before)))
        for t, g in zip(tnet.parameters(), net.parameters()):
            np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), atol=1e-5)
    return moved
