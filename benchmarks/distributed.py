"""all_reduce bus bandwidth: genesis.distributed against torch.distributed, in the same run.

    python -m genesis.distributed.run --nproc-per-node 2 benchmarks/distributed.py [--mib 1024]

Each rank sets up both libraries' NCCL process groups (torch's through a file in a temporary
directory that rank 0 names in genesis's store), then times rounds of all_reduce(sum) of float32
tensors, alternating the libraries round by round. A round is ``--calls`` back-to-back
collectives between two host synchronisations; rank 0 prints the median round of each library
as time per all_reduce and bus bandwidth (NCCL's convention: 2 (n - 1) / n * bytes / time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import genesis
import genesis.distributed as dist


def _round(fn, sync, calls):
    sync()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    sync()
    return (time.perf_counter() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=1024, help="tensor size in MiB (float32)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--no-torch", action="store_true", help="time genesis only")
    args = parser.parse_args()
    local = int(os.environ["LOCAL_RANK"])
    torch = None
    if not args.no_torch:
        try:  # imported before genesis loads NCCL (see the user guide's known issue)
            import torch
        except ImportError:
            pass
    genesis.cuda.set_device(local)
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    n = args.mib * (1 << 20) // 4
    x = genesis.ones(n, device=f"cuda:{local}")
    dist.all_reduce(x)  # warm-up, and the communicator
    libraries = {"genesis": (lambda: dist.all_reduce(x), genesis.cuda.synchronize)}
    if torch is not None:
        import torch.distributed as tdist

        torch.cuda.set_device(local)
        store = dist.PrefixStore("bench/", genesis.distributed._group.state.store)
        if rank == 0:
            path = os.path.join(tempfile.mkdtemp(), "torch-rendezvous")
            store.set("path", path)
        path = store.get("path").decode()
        tdist.init_process_group("nccl", init_method=f"file://{path}", rank=rank, world_size=world)
        t = torch.ones(n, device=f"cuda:{local}")
        tdist.all_reduce(t)
        libraries["torch"] = (lambda: tdist.all_reduce(t), torch.cuda.synchronize)
    times = {lib: [] for lib in libraries}
    for _ in range(args.rounds):
        for lib, (fn, sync) in libraries.items():
            times[lib].append(_round(fn, sync, args.calls))
    if rank == 0:
        nbytes = n * 4
        print(f"all_reduce(sum) of {args.mib} MiB float32 over {world} ranks "
              f"({args.rounds} rounds of {args.calls} calls; medians)")  # fmt: skip
        medians = {lib: statistics.median(ts) for lib, ts in times.items()}
        for lib, m in medians.items():
            bus = 2 * (world - 1) / world * nbytes / m / 1e9
            print(f"  {lib:8s} {m * 1e3:9.3f} ms   bus bandwidth {bus:7.1f} GB/s")
        if "torch" in medians:
            print(f"  genesis vs torch: {medians['torch'] / medians['genesis']:.3f}x "
                  "(goal >= 0.95x)")  # fmt: skip
    if torch is not None:
        tdist.destroy_process_group()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
