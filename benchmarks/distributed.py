"""all_reduce bus bandwidth: genesis.distributed against torch.distributed, in the same run.

    python benchmarks/distributed.py [--nproc 2] [--mib 1024] [--repeats 3]

The driver (this script without ``--worker``) launches ``--nproc`` ranks with
``python -m genesis.distributed.run`` once per library and repeat, alternating genesis and
torch, so that each library's NCCL groups live in processes of their own (see the user guide's
known problem with two libraries' NCCL groups in one process). In each launch every rank times
``--rounds`` rounds of all_reduce(sum) of float32 tensors; a round is ``--calls`` back-to-back
collectives between two host synchronisations. The driver prints the median round of each
library over all its launches, as time per all_reduce and bus bandwidth (NCCL's convention:
2 (n - 1) / n * bytes / time), and the ratio.

``--worker genesis|torch`` is one rank of one launch (what the launcher runs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def _round(fn, sync, calls):
    sync()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    sync()
    return (time.perf_counter() - start) / calls


def _worker(library: str, args) -> None:
    local = int(os.environ["LOCAL_RANK"])
    n = args.mib * (1 << 20) // 4
    if library == "genesis":
        import genesis
        import genesis.distributed as dist

        genesis.cuda.set_device(local)
        dist.init_process_group("nccl")
        x = genesis.ones(n, device=f"cuda:{local}")
        fn, sync, rank = (lambda: dist.all_reduce(x)), genesis.cuda.synchronize, dist.get_rank()
        done = dist.destroy_process_group
    else:
        import torch
        import torch.distributed as dist

        torch.cuda.set_device(local)
        dist.init_process_group("nccl", init_method="env://")
        x = torch.ones(n, device=f"cuda:{local}")
        fn, sync, rank = (lambda: dist.all_reduce(x)), torch.cuda.synchronize, dist.get_rank()
        done = dist.destroy_process_group
    fn()  # warm-up, and the communicator
    times = [_round(fn, sync, args.calls) for _ in range(args.rounds)]
    if rank == 0:
        print("ROUNDS " + json.dumps(times), flush=True)
    done()


def _launch(library: str, args) -> list[float]:
    cmd = [sys.executable, "-m", "genesis.distributed.run", "--nproc-per-node", str(args.nproc),
           os.path.abspath(__file__), "--worker", library, "--mib", str(args.mib),
           "--rounds", str(args.rounds), "--calls", str(args.calls)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    rows = [line for line in proc.stdout.splitlines() if line.startswith("ROUNDS ")]
    if proc.returncode != 0 or not rows:
        raise RuntimeError(
            f"{library} launch failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        )
    return json.loads(rows[-1][len("ROUNDS ") :])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nproc", type=int, default=2, help="ranks (one GPU each)")
    parser.add_argument("--mib", type=int, default=1024, help="tensor size in MiB (float32)")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds per launch")
    parser.add_argument("--calls", type=int, default=5, help="all_reduces per round")
    parser.add_argument("--repeats", type=int, default=3, help="launches per library")
    parser.add_argument("--no-torch", action="store_true", help="time genesis only")
    parser.add_argument("--worker", choices=["genesis", "torch"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker, args)
        return
    libraries = ["genesis"]
    if not args.no_torch:
        try:
            import torch.distributed  # noqa: F401
        except ImportError:
            print("torch is not installed: genesis only")
        else:
            libraries.append("torch")
    times: dict[str, list[float]] = {lib: [] for lib in libraries}
    start = time.perf_counter()
    for _ in range(args.repeats):
        for lib in libraries:
            times[lib] += _launch(lib, args)
    nbytes = args.mib * (1 << 20)
    print(f"all_reduce(sum) of {args.mib} MiB float32 over {args.nproc} ranks ({args.repeats} "
          f"launches x {args.rounds} rounds of {args.calls} calls per library; medians; "
          f"{time.perf_counter() - start:.0f} s)")  # fmt: skip
    medians = {lib: statistics.median(ts) for lib, ts in times.items()}
    for lib, m in medians.items():
        bus = 2 * (args.nproc - 1) / args.nproc * nbytes / m / 1e9
        print(f"  {lib:8s} {m * 1e3:9.3f} ms   bus bandwidth {bus:7.1f} GB/s")
    if "torch" in medians:
        print(f"  genesis vs torch: {medians['torch'] / medians['genesis']:.3f}x (goal >= 0.95x)")


if __name__ == "__main__":
    main()
