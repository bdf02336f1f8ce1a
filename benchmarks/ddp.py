"""Data-parallel training (issue 49): DistributedDataParallel against torch's, in the same run.

    python benchmarks/ddp.py [--nproc 2] [--repeats 2]            # GPUs, NCCL
    python benchmarks/ddp.py --cpu --nproc 2 --layers 1 --width 32 --vocab 128 --seq 16

Two measurements, each library in processes of its own (``python -m genesis.distributed.run``
launches, alternating genesis and torch, as benchmarks/distributed.py does):

- ``step``: the GPT-2 124M step of benchmarks/training.py (bfloat16 autocast, AdamW, batch
  ``--batch`` x ``--seq`` tokens a rank) wrapped in each library's DistributedDataParallel,
  timed on ``--nproc`` ranks and on 1 rank: tokens/s over all ranks, the scaling (goal >= 1.9x
  one GPU's on 2 GPUs) and genesis against torch (goal >= 1.0x).
- ``buckets``: the all-reduce of the model's float32 gradients in genesis's DDP buckets (25 MiB,
  the first 1 MiB; 124M values for GPT-2): each library all-reduces tensors of those bucket
  sizes back to back; bus bandwidth (NCCL's convention, 2 (n - 1) / n * bytes / time) and the
  ratio (goal >= 0.95x torch.distributed's).

``--cpu`` runs both on the CPU over gloo (small sizes: a check that the script works, not a
measurement). ``--worker`` is one rank of one launch.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def _setup(library: str, args):
    """(lib, dist, device, sync) of one rank."""
    local = int(os.environ["LOCAL_RANK"])
    backend = "gloo" if args.cpu else "nccl"
    if library == "genesis":
        import genesis as lib
        import genesis.distributed as dist

        if not args.cpu:
            lib.cuda.set_device(local)
        dist.init_process_group(backend)
    else:
        import torch as lib
        import torch.distributed as dist

        if not args.cpu:
            lib.cuda.set_device(local)
        dist.init_process_group(backend, init_method="env://")
    device = "cpu" if args.cpu else f"cuda:{local}"
    sync = (lambda: None) if args.cpu else lib.cuda.synchronize
    return lib, dist, device, sync


def _model(lib, args, device):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.training import gpt

    lib.manual_seed(0)
    return gpt(lib, args.vocab, args.seq, args.layers, args.width, args.heads).to(device)


def _time_and_report(fn, warmup: int, dist, sync, args) -> None:
    """Runs fn warmup times, then times args.rounds rounds of args.steps calls; rank 0 prints
    the seconds per call of each round for the driver; ends the process group."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(args.rounds):
        sync()
        start = time.perf_counter()
        for _ in range(args.steps):
            fn()
        sync()
        times.append((time.perf_counter() - start) / args.steps)
    if dist.get_rank() == 0:
        print("ROUNDS " + json.dumps(times), flush=True)
    dist.destroy_process_group()


def _step_worker(library: str, args) -> None:
    lib, dist, device, sync = _setup(library, args)
    model = _model(lib, args, device)
    ids = None if args.cpu else [int(os.environ["LOCAL_RANK"])]
    if library == "genesis":
        from genesis.nn.parallel import DistributedDataParallel as DDP
    else:
        from torch.nn.parallel import DistributedDataParallel as DDP
    ddp = DDP(model, device_ids=ids, gradient_as_bucket_view=True)
    extra = {"fused": True} if library == "torch" and not args.cpu else {}
    opt = lib.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=0.1, **extra)
    gen = lib.Generator(device=device) if not args.cpu else None
    if gen is not None:
        gen.manual_seed(dist.get_rank())
    idx = lib.randint(0, args.vocab, (args.batch, args.seq + 1), device=device, generator=gen)
    x, y = idx[:, :-1].contiguous(), idx[:, 1:].contiguous()

    def step():
        opt.zero_grad(set_to_none=True)
        with lib.autocast(device.split(":")[0], dtype=lib.bfloat16):
            loss = ddp(x, y)
        loss.backward()
        opt.step()
        return loss

    _time_and_report(step, args.warmup, dist, sync, args)


def _bucket_sizes(args) -> list[int]:
    """The element counts of genesis's DDP buckets for the model (float32)."""
    import genesis
    from genesis.nn.parallel.distributed import _assign_buckets

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.training import gpt

    model = gpt(genesis, args.vocab, args.seq, args.layers, args.width, args.heads)  # CPU
    params = [p for p in model.parameters() if p.requires_grad]
    buckets = _assign_buckets(list(reversed(range(len(params)))), params, 25 << 20)
    return [sum(params[i].numel() for i in b) for b in buckets]


def _buckets_worker(library: str, args) -> None:
    sizes = json.loads(args.sizes)
    lib, dist, device, sync = _setup(library, args)
    tensors = [lib.ones(n, device=device) for n in sizes]

    def reduce_all():
        works = [dist.all_reduce(t, async_op=True) for t in tensors]
        for w in works:
            w.wait()

    _time_and_report(reduce_all, 1, dist, sync, args)


def _launch(library: str, what: str, nproc: int, args, sizes=None) -> list[float]:
    cmd = [sys.executable, "-m", "genesis.distributed.run", "--nproc-per-node", str(nproc),
           os.path.abspath(__file__), "--worker", library, "--what", what,
           *_shared_arguments(args)]  # fmt: skip
    if sizes is not None:
        cmd += ["--sizes", json.dumps(sizes)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    rows = [line for line in proc.stdout.splitlines() if line.startswith("ROUNDS ")]
    if proc.returncode != 0 or not rows:
        raise RuntimeError(
            f"{library} {what} launch failed (exit {proc.returncode}):\n{proc.stdout}\n"
            f"{proc.stderr}"
        )
    return json.loads(rows[-1][len("ROUNDS ") :])


_SHARED = ["batch", "seq", "layers", "width", "heads", "vocab", "warmup", "rounds", "steps"]


def _shared_arguments(args) -> list[str]:
    out = []
    for name in _SHARED:
        out += [f"--{name}", str(getattr(args, name))]
    return out + (["--cpu"] if args.cpu else [])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nproc", type=int, default=2, help="ranks (one GPU each)")
    parser.add_argument("--batch", type=int, default=8, help="sequences per rank")
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--width", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--vocab", type=int, default=50304)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5, help="steps (or bucket sets) per round")
    parser.add_argument("--repeats", type=int, default=2, help="launches per library and size")
    parser.add_argument("--cpu", action="store_true", help="gloo on the CPU (a smoke test)")
    parser.add_argument("--no-torch", action="store_true", help="time genesis only")
    parser.add_argument("--only", choices=["step", "buckets"], help="one measurement")
    parser.add_argument("--worker", choices=["genesis", "torch"], help=argparse.SUPPRESS)
    parser.add_argument("--what", choices=["step", "buckets"], help=argparse.SUPPRESS)
    parser.add_argument("--sizes", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        (_step_worker if args.what == "step" else _buckets_worker)(args.worker, args)
        return
    libraries = ["genesis"]
    if not args.no_torch:
        try:
            import torch.distributed  # noqa: F401
        except ImportError:
            print("torch is not installed: genesis only")
        else:
            libraries.append("torch")
    tokens = args.batch * args.seq
    where = "CPU, gloo" if args.cpu else "GPUs, NCCL"
    if args.only in (None, "step"):
        med = {}
        for nproc in sorted({1, args.nproc}):
            times: dict[str, list[float]] = {lib: [] for lib in libraries}
            for _ in range(args.repeats):
                for lib in libraries:
                    times[lib] += _launch(lib, "step", nproc, args)
            for lib in libraries:
                med[(lib, nproc)] = statistics.median(times[lib])
        print(f"DDP GPT-2 step ({args.layers}x{args.width}, vocab {args.vocab}, B {args.batch} "
              f"x S {args.seq} a rank, bf16 autocast, AdamW; {where}; medians of "
              f"{args.repeats} launches x {args.rounds} rounds of {args.steps} steps)")  # fmt: skip
        for (lib, nproc), m in sorted(med.items()):
            rate = nproc * tokens / m
            print(f"  {lib:8s} {nproc} rank(s): {m * 1e3:9.2f} ms/step  {rate:12.0f} tokens/s")
        n = args.nproc
        for lib in libraries:
            if (lib, 1) in med and n > 1:
                scale = n * med[(lib, 1)] / med[(lib, n)]
                print(f"  {lib} scaling {n} ranks vs 1: {scale:.2f}x (goal >= {0.95 * n:.2f}x)")
        if "torch" in libraries:
            ratio = med[("torch", n)] / med[("genesis", n)]
            print(f"  genesis vs torch DDP on {n} ranks: {ratio:.3f}x (goal >= 1.0x)")
    if args.only in (None, "buckets"):
        sizes = _bucket_sizes(args)
        nbytes = 4 * sum(sizes)
        times = {lib: [] for lib in libraries}
        for _ in range(args.repeats):
            for lib in libraries:
                times[lib] += _launch(lib, "buckets", args.nproc, args, sizes)
        print(f"bucketed all_reduce of {sum(sizes) / 1e6:.1f}M float32 gradients in "
              f"{len(sizes)} buckets over {args.nproc} ranks ({where}; medians)")  # fmt: skip
        medians = {lib: statistics.median(ts) for lib, ts in times.items()}
        for lib, m in medians.items():
            bus = 2 * (args.nproc - 1) / args.nproc * nbytes / m / 1e9
            print(f"  {lib:8s} {m * 1e3:9.3f} ms   bus bandwidth {bus:7.1f} GB/s")
        if "torch" in medians:
            ratio = medians["torch"] / medians["genesis"]
            print(f"  genesis vs torch: {ratio:.3f}x (goal >= 0.95x)")


if __name__ == "__main__":
    main()
