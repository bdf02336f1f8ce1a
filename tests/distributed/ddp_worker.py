"""One rank of the multi-process DistributedDataParallel tests (tests/distributed/test_ddp.py).

Started by ``python -m genesis.distributed.run --nproc-per-node N ddp_worker.py SCENARIO``; on
the CPU with the "gloo" backend unless WORKER_BACKEND=nccl (one GPU a rank). Every rank can
compute the whole global batch (the data is seeded), so each checks DDP's result against
training one model on the global batch in this process, and exits non-zero on a difference.
"""

import os
import sys

import numpy as np

import genesis
import genesis.distributed as dist
from genesis import nn
from genesis.nn.parallel import DistributedDataParallel as DDP

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
BACKEND = os.environ.get("WORKER_BACKEND", "gloo")
DEVICE = "cpu" if BACKEND == "gloo" else f"cuda:{int(os.environ['LOCAL_RANK'])}"


def fail(text):
    sys.exit(f"rank {RANK}: {text}")


def close(name, got, want, tol=1e-5):
    got, want = got.detach().cpu().double().numpy(), want.detach().cpu().double().numpy()
    if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
        fail(f"{name}: got {got.ravel()[:6]} want {want.ravel()[:6]}")


def model(seed):
    genesis.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(),
                         nn.Linear(16, 3)).to(DEVICE)  # fmt: skip


def batch(step, rank, rows=4):
    rng = np.random.default_rng(100 * step + rank)
    x = genesis.tensor(rng.standard_normal((rows, 6)).astype(np.float32), device=DEVICE)
    y = genesis.tensor(rng.standard_normal((rows, 3)).astype(np.float32), device=DEVICE)
    return x, y


def global_batch(step):
    parts = [batch(step, r) for r in range(WORLD)]
    return genesis.cat([p[0] for p in parts]), genesis.cat([p[1] for p in parts])


def sgd(params, lr=0.1):
    with genesis.no_grad():
        for p in params:
            if p.grad is not None:
                p.sub_(p.grad * lr)


def train_matches_the_global_batch():
    """Each rank starts from another seed: construction broadcasts rank 0's parameters; three
    steps on per-rank batches equal three steps on the global batch; bucket sizes and grads as
    bucket views change nothing."""
    for cap, as_view in ((25, False), (0.0002, False), (0.0002, True)):
        reference = model(0)
        net = model(RANK)  # different on each rank until DDP broadcasts
        ddp = DDP(net, bucket_cap_mb=cap, gradient_as_bucket_view=as_view)
        for p, q in zip(net.parameters(), reference.parameters()):
            close("broadcast at construction", p, q, 0)
        if cap < 1 and len(ddp._buckets) < 3:
            fail(f"expected several buckets, got {len(ddp._buckets)}")
        for step in range(3):
            net.zero_grad()
            x, y = batch(step, RANK)
            nn.functional.mse_loss(ddp(x), y).backward()
            sgd(net.parameters())
            reference.zero_grad()
            gx, gy = global_batch(step)
            nn.functional.mse_loss(reference(gx), gy).backward()
            for (n, p), q in zip(net.named_parameters(), reference.parameters()):
                close(f"cap {cap} view {as_view} step {step} grad {n}", p.grad, q.grad)
            sgd(reference.parameters())
            if as_view:
                view = ddp._buckets[ddp._bucket_of[0][0]].views[ddp._bucket_of[0][1]]
                if view.untyped_storage()._cdata != net[0].weight.grad.untyped_storage()._cdata:
                    fail("gradient_as_bucket_view: .grad is not the bucket's view")
        if not ddp._rebuilt:
            fail("the buckets were not rebuilt after the first iteration")


def no_sync_accumulates():
    net, reference = model(1), model(1)
    ddp = DDP(net)
    x0, y0 = batch(0, RANK)
    x1, y1 = batch(1, RANK)
    with ddp.no_sync():
        nn.functional.mse_loss(ddp(x0), y0).backward()
    local = net[0].weight.grad.clone()
    r0 = model(1)
    nn.functional.mse_loss(r0(x0), y0).backward()
    close("no_sync keeps the local gradient", local, r0[0].weight.grad)
    nn.functional.mse_loss(ddp(x1), y1).backward()  # synchronizes the sum of both
    for step in (0, 1):
        gx, gy = global_batch(step)
        nn.functional.mse_loss(reference(gx), gy).backward()
    for p, q in zip(net.parameters(), reference.parameters()):
        close("no_sync then sync", p.grad, q.grad)


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(6, 3)
        self.rank0_only = nn.Linear(6, 3)
        self.never = nn.Linear(6, 3)

    def forward(self, x, use_branch):
        out = self.trunk(x)
        return out + self.rank0_only(x) if use_branch else out


def unused_parameters():
    genesis.manual_seed(3)
    net = Branchy().to(DEVICE)
    ddp = DDP(net, find_unused_parameters=True, bucket_cap_mb=0.0001)
    for step in range(2):
        net.zero_grad()
        x, _ = batch(step, RANK)
        ddp(x, RANK == 0).sum().backward()
        if net.never.weight.grad is not None:
            fail("a parameter no rank used got a gradient")
        g = net.rank0_only.weight.grad
        if g is None:
            fail("a parameter rank 0 used has no gradient")
        x0, _ = batch(step, 0)
        want = genesis.ones(x0.shape[0], 3, device=DEVICE).t() @ x0 / WORLD
        close("a parameter one rank used is averaged", g, want)
    # without find_unused_parameters the next forward names what got no gradient
    genesis.manual_seed(3)
    strict = DDP(Branchy().to(DEVICE))
    x, _ = batch(0, RANK)
    strict(x, True).sum().backward()
    try:
        strict(x, True)
    except RuntimeError as e:
        if "find_unused_parameters=True" not in str(e) or "never.weight" not in str(e):
            fail(f"unexpected message: {e}")
    else:
        fail("an unused parameter did not raise at the next forward")


def uneven_inputs_join():
    """Rank r has 2 + r batches; the others answer its collectives after theirs ran out."""
    net = model(5)
    ddp = DDP(net, bucket_cap_mb=0.0005)
    with ddp.join():
        for step in range(2 + RANK):
            net.zero_grad()
            x, y = batch(step, RANK)
            nn.functional.mse_loss(ddp(x), y).backward()
            sgd(net.parameters())
    # every rank applied the same averaged updates for its own steps; the replicas agree on the
    # steps all took part in, and rank r's update at step s is the average over active ranks
    reference = model(5)
    for step in range(2 + WORLD - 1):
        active = [r for r in range(WORLD) if step < 2 + r]
        if RANK not in active:
            break
        reference.zero_grad()
        total = None
        for r in active:
            x, y = batch(step, r)
            loss = nn.functional.mse_loss(reference(x), y) / WORLD  # divided by the initial size
            total = loss if total is None else total + loss
        total.backward()
        sgd(reference.parameters())
    for p, q in zip(net.parameters(), reference.parameters()):
        close("join: the updates of the active ranks", p, q)
    try:
        with ddp.join(throw_on_early_termination=True):
            for step in range(1 + RANK):
                x, y = batch(step, RANK)
                nn.functional.mse_loss(ddp(x), y).backward()
        if WORLD > 1:
            fail("throw_on_early_termination did not raise")
    except RuntimeError as e:
        if "ran out of inputs" not in str(e):
            fail(f"unexpected message: {e}")


def buffers_and_checkpoints():
    genesis.manual_seed(RANK)
    net = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4)).to(DEVICE)
    ddp = DDP(net)
    x, _ = batch(0, RANK)
    ddp(x).sum().backward()  # each rank updates rank 0's running stats with its own batch
    theirs = net[1].running_mean.clone()
    dist.broadcast(theirs, 0)
    if WORLD > 1 and RANK > 0 and genesis.allclose(theirs, net[1].running_mean):
        fail("the ranks' running stats should differ after a training forward")
    ddp.eval()
    with genesis.no_grad():
        ddp(x)  # broadcasts rank 0's buffers first (and eval leaves them as they are)
    close("the buffers are rank 0's", net[1].running_mean, theirs, 0)
    ddp.train()
    state = ddp.state_dict()
    if not all(k.startswith("module.") for k in state):
        fail(f"DDP state_dict keys: {list(state)}")
    from genesis.nn.modules.utils import consume_prefix_in_state_dict_if_present

    consume_prefix_in_state_dict_if_present(state, "module.")
    plain = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4)).to(DEVICE)
    plain.load_state_dict(state)
    close("a DDP checkpoint loads into the plain model", plain[0].weight, net[0].weight, 0)


def zero_redundancy():
    """DDP with Adam's state sharded over the ranks: the same steps as plain Adam on the
    global batch; the consolidated state is plain Adam's; it loads back."""
    from genesis.distributed.optim import ZeroRedundancyOptimizer

    net, reference = model(7), model(7)
    ddp = DDP(net)
    later = [p for m in (net[2], net[4]) for p in m.parameters()]
    groups = [{"params": list(net[0].parameters())}, {"params": later, "lr": 0.02}]
    opt = ZeroRedundancyOptimizer(groups, genesis.optim.Adam, lr=0.01)
    ref_groups = [{"params": list(reference[0].parameters())},
                  {"params": [p for m in (reference[2], reference[4]) for p in m.parameters()],
                   "lr": 0.02}]  # fmt: skip
    ref_opt = genesis.optim.Adam(ref_groups, lr=0.01)
    owned = sum(len(g["params"]) for g in opt.optim.param_groups)
    if WORLD > 1 and owned >= len(list(net.parameters())):
        fail(f"rank {RANK} owns all {owned} parameters: the state is not sharded")
    for step in range(3):
        opt.zero_grad()
        x, y = batch(step, RANK)
        nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()
        ref_opt.zero_grad()
        gx, gy = global_batch(step)
        nn.functional.mse_loss(reference(gx), gy).backward()
        ref_opt.step()
        for (n, p), q in zip(net.named_parameters(), reference.parameters()):
            close(f"zero step {step} {n}", p, q)
    opt.consolidate_state_dict(to=0)
    if RANK == 0:
        state = opt.state_dict()
        want = ref_opt.state_dict()
        if sorted(state["state"]) != sorted(want["state"]):
            fail(f"consolidated keys {sorted(state['state'])} want {sorted(want['state'])}")
        for k, v in want["state"].items():
            for key in ("exp_avg", "exp_avg_sq", "step"):
                close(f"consolidated {k} {key}", state["state"][k][key], v[key])
        if [g["lr"] for g in state["param_groups"]] != [0.01, 0.02]:
            fail(f"param_groups {state['param_groups']}")
    else:
        try:
            opt.state_dict()
            fail("state_dict() off the consolidating rank did not raise")
        except RuntimeError:
            pass
    fresh = ZeroRedundancyOptimizer(net.parameters(), genesis.optim.Adam, lr=0.5)
    flat = ref_opt.state_dict()
    numbers = [i for g in flat["param_groups"] for i in g["params"]]
    flat["param_groups"] = [{**flat["param_groups"][0], "params": numbers}]
    fresh.load_state_dict(flat)
    for g in fresh.optim.param_groups:
        if g["lr"] != 0.01:
            fail(f"loaded lr {g['lr']}")
        for p in g["params"]:
            if "exp_avg" not in fresh.optim.state[p]:
                fail("a loaded shard lacks its state")


def comm_hooks():
    """torch's default hooks: the all-reduce hook gives DDP's own gradients, the float16 and
    bfloat16 ones the same within their rounding; uneven inputs with a hook still join."""
    from genesis.distributed.algorithms.ddp_comm_hooks import default_hooks

    hooks = default_hooks
    for hook, tol in ((hooks.allreduce_hook, 1e-6), (hooks.fp16_compress_hook, 2e-3),
                      (hooks.bf16_compress_hook, 2e-2)):  # fmt: skip
        net, reference = model(9), model(9)
        ddp = DDP(net, bucket_cap_mb=0.0002)
        ddp.register_comm_hook(None, hook)
        for step in range(2):
            net.zero_grad()
            reference.zero_grad()
            x, y = batch(step, RANK)
            nn.functional.mse_loss(ddp(x), y).backward()
            gx, gy = global_batch(step)
            nn.functional.mse_loss(reference(gx), gy).backward()
            for (n, p), q in zip(net.named_parameters(), reference.parameters()):
                scale = max(1.0, float(q.grad.abs().max()))
                close(f"{hook.__name__} step {step} {n}", p.grad / scale, q.grad / scale, tol)
    ddp = DDP(model(9), bucket_cap_mb=0.0002)
    ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
    with ddp.join():
        for step in range(1 + RANK):
            x, y = batch(step, RANK)
            nn.functional.mse_loss(ddp(x), y).backward()


def power_sgd():
    """PowerSGD at a rank that holds the gradients gives the global batch's gradients; at rank
    1 every rank still ends with the same gradients (the decompressed average)."""
    from genesis.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powerSGD

    for hook in (powerSGD.powerSGD_hook, powerSGD.batched_powerSGD_hook):
        net, reference = model(11).double(), model(11).double()
        ddp = DDP(net, bucket_cap_mb=0.0002)
        state = powerSGD.PowerSGDState(None, matrix_approximation_rank=64, start_powerSGD_iter=0,
                                       min_compression_rate=0, use_error_feedback=False,
                                       warm_start=False)  # fmt: skip
        ddp.register_comm_hook(state, hook)
        for step in range(2):
            net.zero_grad()
            reference.zero_grad()
            x, y = batch(step, RANK, rows=32)  # full-rank gradients
            nn.functional.mse_loss(ddp(x.double()), y.double()).backward()
            gx, gy = (t.double() for t in global_batch_of(step, 32))
            nn.functional.mse_loss(reference(gx), gy).backward()
            if hook is powerSGD.powerSGD_hook:  # the batched square is padded: not full rank
                for (n, p), q in zip(net.named_parameters(), reference.parameters()):
                    close(f"powerSGD full rank step {step} {n}", p.grad, q.grad, 1e-7)
        net = model(12)
        ddp = DDP(net, bucket_cap_mb=0.0002)
        state = powerSGD.PowerSGDState(None, matrix_approximation_rank=1, start_powerSGD_iter=2)
        ddp.register_comm_hook(state, hook)
        for step in range(4):
            net.zero_grad()
            x, y = batch(step, RANK)
            nn.functional.mse_loss(ddp(x), y).backward()
            for n, p in net.named_parameters():
                first = p.grad.clone()
                dist.broadcast(first, 0)
                close(f"{hook.__name__} rank 1 step {step} {n}: rank 0's gradient", p.grad, first,
                      1e-6)  # fmt: skip
        if state.compression_stats()[0] <= 1 or state.iter != 4:
            fail(f"{hook.__name__}: stats {state.compression_stats()}, iter {state.iter}")


def zero_overlap():
    """ZeroRedundancyOptimizer(overlap_with_ddp=True) stepping in DDP's hook (Note [Overlapping
    the step with DDP]): the warm-up batches (two, three with static_graph) move nothing; then
    each backward leaves the parameters of the plain optimizer on the global batch, with each
    rank holding the state of its buckets only; the consolidated state is the plain one's."""
    from genesis.distributed.algorithms.ddp_comm_hooks import ddp_zero_hook, default_hooks
    from genesis.distributed.optim import ZeroRedundancyOptimizer

    sgd = (genesis.optim.SGD, {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01})
    adam = (genesis.optim.Adam, {"lr": 0.01})
    plain, interleaved = (
        ddp_zero_hook.hook_with_zero_step,
        ddp_zero_hook.hook_with_zero_step_interleaved,
    )
    cases = [  # (hook, shard_buckets, optimizer, static_graph, gradient_as_bucket_view)
        (plain, False, sgd, False, False),
        (interleaved, False, adam, False, True),
        (plain, True, adam, True, False),
        (interleaved, True, sgd, False, False),
    ]  # fmt: skip
    for make_hook, shard, (opt_class, options), static, as_view in cases:
        what = f"{make_hook.__name__} shard {shard} {opt_class.__name__} static {static}"
        net, reference = model(13), model(13)
        cap = 0.001 if shard else 0.0002  # 2 buckets, one cut over 2 ranks; or 3 whole ones
        ddp = DDP(net, bucket_cap_mb=cap, static_graph=static, gradient_as_bucket_view=as_view)
        zero = ZeroRedundancyOptimizer(
            net.parameters(), opt_class, overlap_with_ddp=True, **options
        )
        hook = make_hook(default_hooks.allreduce_hook, ddp, zero, shard_buckets=shard)
        ddp.register_comm_hook(None, hook)
        ref_opt = opt_class(reference.parameters(), **options)
        for step in range(3 if static else 2):  # the warm-up, without zero_grad as torch's test
            x, y = batch(50 + step, RANK)
            nn.functional.mse_loss(ddp(x), y).backward()
            for (n, p), q in zip(net.named_parameters(), reference.parameters()):
                close(f"{what} warm-up {step} {n} moved", p, q, 0)
        for step in range(3):
            zero.zero_grad()
            x, y = batch(step, RANK)
            nn.functional.mse_loss(ddp(x), y).backward()
            ref_opt.zero_grad()
            gx, gy = global_batch(step)
            nn.functional.mse_loss(reference(gx), gy).backward()
            ref_opt.step()
            for (n, p), q in zip(net.named_parameters(), reference.parameters()):
                close(f"{what} step {step} {n}", p, q)
                close(f"{what} step {step} grad {n}", p.grad, q.grad)
        if len(ddp._buckets) < 2:
            fail(f"expected several buckets, got {len(ddp._buckets)}")
        mine = [1 if zero._owner.get(id(p)) == RANK else 0 for p in net.parameters()]
        owned = genesis.tensor(mine, device=DEVICE)
        local = {id(p) for p in zero.optim.param_groups[0]["params"]}
        if sorted(local) != sorted(id(p) for p in net.parameters() if zero._owner[id(p)] == RANK):
            fail(f"{what}: the local optimizer is not over this rank's buckets")
        if any(p not in zero.optim.state for p in zero.optim.param_groups[0]["params"]):
            fail(f"{what}: a parameter of this rank has no state")
        if WORLD > 1 and int(owned.sum()) == owned.numel():
            fail(f"{what}: rank {RANK} owns every parameter: the state is not sharded")
        dist.all_reduce(owned)
        if owned.tolist() != [1] * owned.numel():
            fail(f"{what}: each parameter must have one owner, got {owned.tolist()}")
        if shard and WORLD > 1 and not any(len(runs) > 1 for runs in zero._overlap.runs):
            cuts = [[(r, off, len(ps)) for r, off, ps in runs] for runs in zero._overlap.runs]
            fail(f"{what}: no bucket was cut over the ranks: {cuts}")
        zero.consolidate_state_dict(to=0)
        if RANK == 0:
            state, want = zero.state_dict()["state"], ref_opt.state_dict()["state"]
            if sorted(state) != sorted(want):
                fail(f"{what}: consolidated keys {sorted(state)} want {sorted(want)}")
            for k, v in want.items():
                for key, value in v.items():
                    close(f"{what}: consolidated {k} {key}", state[k][key], value)


def global_batch_of(step, rows):
    parts = [batch(step, r, rows) for r in range(WORLD)]
    return genesis.cat([p[0] for p in parts]), genesis.cat([p[1] for p in parts])


def sync_batch_norm():
    """SyncBatchNorm over ranks with unequal batches (and, with 2 ranks or more, an empty one)
    against BatchNorm1d on the global batch: each rank's output and input gradient are its slice
    of the global ones, the weight's and bias's gradients sum to the global ones over the ranks,
    and the running statistics agree; in eval both use the running statistics."""
    C, L = 3, 5
    for step, rows_of in enumerate(
        [lambda r: 2 + r] + ([lambda r: 0 if r == 0 else 3] if WORLD > 1 else [])
    ):
        sizes = [rows_of(r) for r in range(WORLD)]
        rng = np.random.default_rng(7 + step)
        xs = [rng.standard_normal((n, C, L)).astype(np.float32) for n in sizes]
        ws = [rng.standard_normal((n, C, L)).astype(np.float32) for n in sizes]
        genesis.manual_seed(3)
        sync = nn.SyncBatchNorm(C, momentum=0.3).to(DEVICE)
        plain = nn.BatchNorm1d(C, momentum=0.3).to(DEVICE)
        with genesis.no_grad():
            for m in (sync, plain):
                m.weight.copy_(genesis.tensor([1.5, -0.5, 2.0], device=DEVICE))
                m.bias.copy_(genesis.tensor([0.1, 0.2, -0.3], device=DEVICE))
        x = genesis.tensor(xs[RANK], device=DEVICE).requires_grad_()
        y = sync(x)
        (y * genesis.tensor(ws[RANK], device=DEVICE)).sum().backward()
        X = genesis.tensor(np.concatenate(xs), device=DEVICE).requires_grad_()
        Y = plain(X)
        (Y * genesis.tensor(np.concatenate(ws), device=DEVICE)).sum().backward()
        lo = sum(sizes[:RANK])
        hi = lo + sizes[RANK]
        close("syncbn output", y, Y[lo:hi])
        close("syncbn input grad", x.grad, X.grad[lo:hi], tol=1e-4)
        for name in ("weight", "bias"):
            grad = getattr(sync, name).grad.clone()
            dist.all_reduce(grad)
            close(f"syncbn {name} grad", grad, getattr(plain, name).grad, tol=1e-4)
        close("syncbn running_mean", sync.running_mean, plain.running_mean)
        close("syncbn running_var", sync.running_var, plain.running_var)
        sync.eval()
        plain.eval()
        probe = genesis.tensor(xs[-1], device=DEVICE)
        close("syncbn eval", sync(probe), plain(probe))


SCENARIOS = {
    "train": train_matches_the_global_batch,
    "no_sync": no_sync_accumulates,
    "unused": unused_parameters,
    "join": uneven_inputs_join,
    "buffers": buffers_and_checkpoints,
    "zero": zero_redundancy,
    "hooks": comm_hooks,
    "powersgd": power_sgd,
    "zero_overlap": zero_overlap,
    "syncbn": sync_batch_norm,
}

if __name__ == "__main__":
    dist.init_process_group(BACKEND)
    for name in sys.argv[1:]:
        SCENARIOS[name]()
        print(f"rank {RANK}: {name} ok", flush=True)
    dist.destroy_process_group()
