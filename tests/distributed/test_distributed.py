"""genesis.distributed: process groups and collectives over NCCL.

In-process tests use a world of one rank (a HashStore rendezvous); the multi-process ones start
distributed_worker.py under the launcher, which checks its own results against values
computed on the host. Every process started here has a timeout, so a hang fails the test.
"""

import datetime
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import DTYPES, HAS_CUDA, check_message

import genesis
import genesis.distributed as dist

WORKER = os.path.join(os.path.dirname(__file__), "distributed_worker.py")
GPUS = genesis.cuda.device_count()
requires_two_gpus = pytest.mark.skipif(GPUS < 2, reason="needs two CUDA devices")


def nccl_available():
    return HAS_CUDA and dist.is_nccl_available()


requires_nccl = pytest.mark.skipif(not nccl_available(), reason="needs a GPU and NCCL")


@pytest.fixture
def world():
    """A default group of one rank for the test, destroyed after it."""
    dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


def launch(nproc, *args, env=None, timeout=180):
    cmd = [sys.executable, "-m", "genesis.distributed.run", "--nproc-per-node", str(nproc)]
    return subprocess.run(
        [*cmd, WORKER, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def assert_ranks_ok(result, nproc, scenario):
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for r in range(nproc):
        assert f"rank {r}: {scenario} ok" in result.stdout, output


# --- errors that need no GPU ---------------------------------------------------------------

CALLS_BEFORE_INIT = {
    "all_reduce": lambda t: dist.all_reduce(t),
    "broadcast": lambda t: dist.broadcast(t, 0),
    "reduce": lambda t: dist.reduce(t, 0),
    "all_gather": lambda t: dist.all_gather([t], t),
    "all_gather_into_tensor": lambda t: dist.all_gather_into_tensor(t, t),
    "reduce_scatter_tensor": lambda t: dist.reduce_scatter_tensor(t, t),
    "all_to_all_single": lambda t: dist.all_to_all_single(t, t),
    "send": lambda t: dist.send(t, 0),
    "recv": lambda t: dist.recv(t, 0),
    "barrier": lambda t: dist.barrier(),
    "get_rank": lambda t: dist.get_rank(),
    "get_world_size": lambda t: dist.get_world_size(),
    "new_group": lambda t: dist.new_group([0]),
    "destroy_process_group": lambda t: dist.destroy_process_group(),
}


@pytest.mark.parametrize("name", sorted(CALLS_BEFORE_INIT))
def test_calls_before_init_raise(name):
    t = genesis.ones(2, device="cuda" if HAS_CUDA else "cpu")
    assert not dist.is_initialized()
    with pytest.raises((RuntimeError, ValueError)) as e:
        CALLS_BEFORE_INIT[name](t)
    if HAS_CUDA or name in ("barrier", "get_rank", "get_world_size", "new_group",
                            "destroy_process_group"):  # fmt: skip
        assert e.type is RuntimeError
        assert "not initialized" in str(e.value) and "init_process_group" in str(e.value)
    check_message(e)


def test_init_and_destroy_with_a_store(world):
    assert dist.is_initialized() and dist.is_available()
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "nccl")
    with pytest.raises(RuntimeError, match=r"^\[init_process_group\] .*already initialized"):
        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    group = dist.new_group([0])
    assert (group.rank(), group.size(), group.ranks) == (0, 1, [0])
    assert dist.get_rank(group) == 0 and dist.get_world_size(group) == 1
    outsider = dist.new_group([])
    assert outsider.rank() == -1 and dist.get_world_size(outsider) == 0
    dist.destroy_process_group(group)
    with pytest.raises(RuntimeError, match="destroyed"):
        dist.get_rank(group)
    dist.destroy_process_group()
    assert not dist.is_initialized()
    dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)  # again


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        ({"backend": "mpi"}, ValueError, "unsupported backend"),
        ({"backend": "cpu:mpi"}, ValueError, "unsupported backend"),
        ({"backend": "nccl", "rank": 0, "world_size": 0}, ValueError, "world_size >= 1"),
        ({"backend": "nccl", "rank": 1, "world_size": 1}, ValueError, "rank < world_size"),
        ({"backend": "nccl", "rank": "0", "world_size": 1}, TypeError, "rank must be an int"),
        ({"backend": "nccl", "rank": 0, "world_size": 1, "timeout": 5}, TypeError, "timedelta"),
        ({"backend": "nccl", "rank": 0, "world_size": 1,
          "timeout": datetime.timedelta(0)}, ValueError, "positive"),
        ({"backend": "nccl", "rank": 0, "world_size": 1, "init_method": "env://"},
         ValueError, "not both"),
    ],
)  # fmt: skip
def test_init_bad_arguments(kwargs, error, text):
    with pytest.raises(error, match=text) as e:
        dist.init_process_group(store=dist.HashStore(), **kwargs)
    check_message(e)
    assert not dist.is_initialized()


def test_init_times_out_when_a_rank_never_joins():
    with pytest.raises(RuntimeError, match=r"timed out after 0.3 s: only 1 of 2 ranks joined") as e:
        dist.init_process_group(
            "nccl", store=dist.HashStore(), rank=0, world_size=2,
            timeout=datetime.timedelta(seconds=0.3),
        )  # fmt: skip
    check_message(e)
    assert not dist.is_initialized()


def test_new_group_bad_ranks(world):
    for ranks, text in (([1], "ranks must be ints in"), ([0, 0], "duplicates"), (["0"], "ints")):
        with pytest.raises(ValueError, match=text) as e:
            dist.new_group(ranks)
        check_message(e)
    with pytest.raises(ValueError, match="unsupported backend"):
        dist.new_group([0], backend="mpi")


def test_bad_tensors_and_reductions(world):
    with pytest.raises(TypeError, match=r"^\[all_reduce\] tensor must be a genesis.Tensor"):
        dist.all_reduce(np.ones(2))
    with pytest.raises(ValueError, match=r"^\[all_reduce\] NCCL communicates CUDA tensors"):
        dist.all_reduce(genesis.ones(2))
    with pytest.raises(ValueError, match=r"^\[broadcast\] NCCL communicates CUDA tensors"):
        dist.broadcast(genesis.ones(2), src=0)
    if HAS_CUDA:
        x = genesis.ones(2, 3, device="cuda")
        with pytest.raises(ValueError, match=r"^\[all_reduce\] unknown reduction 'mean'"):
            dist.all_reduce(x, op="mean")
        with pytest.raises(ValueError, match=r"^\[all_reduce\] tensor must be contiguous"):
            dist.all_reduce(x.t())
        with pytest.raises(ValueError, match=r"^\[broadcast\] rank 3 is not in the group"):
            dist.broadcast(x, src=3)
        with pytest.raises(ValueError, match="needs the sending rank"):
            dist.recv(x)


def test_backends_and_cpu_tensors_in_a_world_of_one():
    """None gives torch's "cpu:gloo,cuda:nccl": CPU tensors go through the store; "nccl" alone
    refuses them; "gloo" takes both devices."""
    for backend, name in ((None, "cpu:gloo,cuda:nccl"), ("gloo", "gloo"),
                          ("cpu:gloo,cuda:nccl", "cpu:gloo,cuda:nccl")):  # fmt: skip
        dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1)
        try:
            assert dist.get_backend() == name
            x = genesis.arange(6.0).reshape(2, 3)
            dist.all_reduce(x, op="avg")
            assert genesis.equal(x, genesis.arange(6.0).reshape(2, 3))
            work = dist.all_reduce(x, async_op=True)
            assert work.is_completed() and work.wait()
            out = genesis.zeros(1, 2, 3)
            dist.all_gather_into_tensor(out, x)
            assert genesis.equal(out[0], x)
            if HAS_CUDA:
                with pytest.raises(ValueError, match=r"^\[all_gather_into_tensor\] input_tensor"):
                    dist.all_gather_into_tensor(out, x.cuda())
            dist.barrier()
            assert dist.get_backend(dist.new_group([0], backend="gloo")) == "gloo"
        finally:
            dist.destroy_process_group()
    dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    try:
        with pytest.raises(ValueError, match=r"^\[all_reduce\] NCCL communicates CUDA"):
            dist.all_reduce(genesis.ones(2))
        group = dist.new_group([0], backend="gloo")  # a CPU group beside the NCCL world
        x = genesis.ones(2)
        dist.all_reduce(x, group=group)
        assert x.tolist() == [1.0, 1.0]
    finally:
        dist.destroy_process_group()


def test_is_nccl_available_is_a_bool():
    assert isinstance(dist.is_nccl_available(), bool)
    if not genesis.cuda.is_compiled():
        assert not dist.is_nccl_available()


def test_reduce_op_names():
    assert [dist.ReduceOp.SUM, dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.MAX,
            dist.ReduceOp.AVG] == ["sum", "product", "min", "max", "avg"]  # fmt: skip


# --- one rank on one GPU ------------------------------------------------------------------


def random_tensor(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == genesis.bool:
        return genesis.tensor(rng.random(shape) < 0.5, device="cuda")
    values = rng.integers(-50, 50, size=shape) if not dtype.is_floating_point else rng.random(shape)
    if dtype == genesis.uint8:
        values = np.abs(values)
    return genesis.tensor(values, device="cuda").to(dtype)


@requires_nccl
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_world_of_one_every_collective(world, dtype):
    x = random_tensor((4, 5), dtype)
    want = x.cpu()
    reductions = ["sum", "max", "min", "product"] + (["avg"] if dtype.is_floating_point else [])
    for op in reductions:
        y = x.clone()
        if dtype == genesis.int16:
            with pytest.raises(TypeError, match=r"^\[all_reduce\] NCCL cannot reduce int16"):
                dist.all_reduce(y, op=op)
            continue
        dist.all_reduce(y, op=op)
        assert genesis.equal(y.cpu(), want), op
    y = x.clone()
    dist.broadcast(y, src=0)
    assert genesis.equal(y.cpu(), want)
    if dtype != genesis.int16:
        y = x.clone()
        dist.reduce(y, dst=0)
        assert genesis.equal(y.cpu(), want)
        out = genesis.empty_like(x)
        dist.reduce_scatter_tensor(out, x)
        assert genesis.equal(out.cpu(), want)
    out = [genesis.empty_like(x)]
    dist.all_gather(out, x)
    assert genesis.equal(out[0].cpu(), want)
    out = genesis.empty((1, 4, 5), dtype=dtype, device="cuda")
    dist.all_gather_into_tensor(out, x)
    assert genesis.equal(out[0].cpu(), want)
    out = genesis.empty_like(x)
    dist.all_to_all_single(out, x)
    assert genesis.equal(out.cpu(), want)
    dist.barrier()


@requires_nccl
def test_world_of_one_async_work_and_stream_order(world):
    side = genesis.cuda.Stream()
    with genesis.cuda.stream(side):
        x = genesis.ones(1 << 22, device="cuda") * 3  # queued on the side stream
        work = dist.all_reduce(x, op="avg", async_op=True)  # follows it
        work.wait()
        y = x * 2
    assert isinstance(work, dist.Work)
    side.synchronize()  # y was computed on the side stream
    work.synchronize()
    assert work.is_completed() and work.is_success()
    assert y[-1].item() == 6.0 and y.sum().item() == 6.0 * (1 << 22)


@requires_nccl
def test_world_of_one_zero_size_and_zero_dim(world):
    empty, scalar = genesis.ones(0, device="cuda"), genesis.full((), 4.0, device="cuda")
    for x in (empty, scalar):
        dist.all_reduce(x)
        dist.broadcast(x, src=0)
    assert empty.shape == (0,) and scalar.shape == () and scalar.item() == 4.0


@requires_nccl
def test_world_of_one_shape_errors(world):
    x = genesis.ones(4, device="cuda")
    with pytest.raises(ValueError, match=r"^\[all_gather\] the output needs"):
        dist.all_gather_into_tensor(genesis.ones(3, device="cuda"), x)
    with pytest.raises(ValueError, match=r"^\[reduce_scatter\] the input needs"):
        dist.reduce_scatter_tensor(genesis.ones(3, device="cuda"), x)
    with pytest.raises(ValueError, match=r"^\[all_gather\] tensor_list must hold 1"):
        dist.all_gather([x, x], x)
    with pytest.raises(ValueError, match=r"^\[all_to_all_single\] input split sizes"):
        dist.all_to_all_single(x, x, input_split_sizes=[3])
    with pytest.raises(ValueError, match=r"cannot send to or from itself"):
        dist.send(x, dst=0)
    with pytest.raises(TypeError, match=r"^\[all_reduce\] op=avg needs a floating-point"):
        dist.all_reduce(genesis.ones(2, dtype=genesis.int64, device="cuda"), op="avg")


@requires_nccl
def test_world_of_one_group_device_is_fixed_by_its_first_collective(world):
    dist.all_reduce(genesis.ones(2, device="cuda:0"))
    if GPUS > 1:
        with pytest.raises(ValueError, match=r"communicates on cuda:0"):
            dist.all_reduce(genesis.ones(2, device="cuda:1"))


@requires_nccl
def test_non_member_collective_raises(world):
    outsider = dist.new_group([])
    with pytest.raises(RuntimeError, match=r"this process \(rank 0\) is not a member"):
        dist.all_reduce(genesis.ones(2, device="cuda"), group=outsider)


@requires_nccl
def test_destroyed_group_raises(world):
    group = dist.new_group([0])
    dist.all_reduce(genesis.ones(2, device="cuda"), group=group)
    dist.destroy_process_group(group)
    with pytest.raises(RuntimeError, match="destroyed"):
        dist.all_reduce(genesis.ones(2, device="cuda"), group=group)


# --- several processes ----------------------------------------------------------------------


@requires_nccl
def test_launcher_world_of_one_runs_every_collective():
    result = launch(1, "collectives")
    assert_ranks_ok(result, 1, "collectives")


@pytest.mark.parametrize("nproc", [1, 3])
def test_gloo_every_collective_on_cpu(nproc):
    """The "gloo" backend (CPU tensors through the store): every collective, every dtype, with
    the same checks as NCCL's, on ranks without a GPU."""
    result = launch(nproc, "collectives", env={"WORKER_BACKEND": "gloo"})
    assert_ranks_ok(result, nproc, "collectives")


@requires_nccl
def test_debug_mode_finds_mismatched_shapes_without_hanging():
    # Two ranks may share one GPU here: the check runs before NCCL is touched.
    result = launch(2, "debug_mismatch", env={"GENESIS_DISTRIBUTED_DEBUG": "DETAIL"})
    assert_ranks_ok(result, 2, "debug_mismatch")


@requires_nccl
def test_debug_mode_times_out_on_a_missing_rank():
    result = launch(2, "debug_missing_rank", env={"GENESIS_DISTRIBUTED_DEBUG": "DETAIL"})
    assert_ranks_ok(result, 2, "debug_missing_rank")


@requires_two_gpus
@requires_nccl
def test_two_gpus_every_collective():
    result = launch(2, "collectives")
    assert_ranks_ok(result, 2, "collectives")


@requires_two_gpus
@requires_nccl
def test_two_gpus_torch_distributed_through_dlpack(tmp_path):
    pytest.importorskip("torch")
    result = launch(2, "torch_nccl", str(tmp_path / "rendezvous"))
    assert_ranks_ok(result, 2, "torch_nccl")


@requires_two_gpus
@requires_nccl
@pytest.mark.parametrize("order", ["genesis,torch", "torch,genesis"])
def test_two_gpus_genesis_and_torch_groups_at_once(tmp_path, order):
    pytest.importorskip("torch")
    result = launch(2, "both_nccl", str(tmp_path / "rendezvous"), order)
    assert_ranks_ok(result, 2, "both_nccl")


def test_torch_gloo_through_dlpack_on_cpu(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.distributed.is_available():
        pytest.skip("this PyTorch has no torch.distributed")
    result = launch(2, "torch_gloo", str(tmp_path / "rendezvous"))
    assert_ranks_ok(result, 2, "torch_gloo")
