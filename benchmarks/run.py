"""Benchmark runner: verify each case once, time it per library, print one table.

python -m benchmarks [--device cpu|cuda] [--quick] [--filter TEXT] [--json PATH]
python benchmarks/run.py ...   (same)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

if not __package__:  # run as a script: make the ``benchmarks`` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import genesis  # noqa: E402
from benchmarks import (  # noqa: E402
    attention,
    autograd,
    casts,
    compiling,
    compute,
    copies,
    creation,
    data_loading,
    dlpack,
    everyday,
    files,
    graphs,
    indexing,
    layers,
    memory,
    multigpu,
    optim,
    processes,
    sorting,
    sweep,
    training,
)
from benchmarks.common import Case, Context, as_numpy  # noqa: E402
from benchmarks.report import Result, render  # noqa: E402
from benchmarks.timing import FULL, QUICK, Budget, Timing, measure, measure_reported  # noqa: E402

BURST_ROUNDS = 7  # alternating rounds per library for host-time (burst) cases

# One module per area, in table order. A new area: add a module with ``cases(ctx)`` here.
AREAS = (
    ("creation", creation),
    ("memory", memory),
    ("copies", copies),
    ("casts", casts),
    ("indexing", indexing),
    ("dlpack", dlpack),
    ("compute", compute),
    ("sorting", sorting),
    ("everyday", everyday),
    ("sweep", sweep),
    ("autograd", autograd),
    ("layers", layers),
    ("attention", attention),
    ("optim", optim),
    ("training", training),
    ("compiling", compiling),
    ("data loading", data_loading),
    ("graphs", graphs),
    ("files", files),
    ("processes", processes),
    ("multigpu", multigpu),
)


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _load_torch(device: str):
    """The torch module when it imports (and has CUDA for --device cuda), else None."""
    try:
        import torch
    except Exception:
        return None
    if device == "cuda" and not torch.cuda.is_available():
        return None
    return torch


def _equal(got: np.ndarray, want: np.ndarray) -> bool:
    """Exact equality (NaN equals NaN), without assert_array_equal's cost on large arrays."""
    floats = got.dtype.kind in "fc" and want.dtype.kind in "fc"
    return bool(np.array_equal(got, want, equal_nan=floats))


def _tolerance(case: Case) -> bool:
    return case.rtol is not None or case.atol is not None


def _close(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str | None:
    """None when |got - want| <= atol + rtol * |want| everywhere (NaN equal to NaN, infinities
    equal), else a description of the worst element. In float64, in chunks (large results)."""
    g, w = got.reshape(-1), want.reshape(-1)
    bad, worst, worst_at = 0, -1.0, 0
    chunk = 1 << 22
    for start in range(0, g.size, chunk):
        gv = g[start : start + chunk].astype(np.float64)
        wv = w[start : start + chunk].astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(gv - wv)
            excess = err - (atol + rtol * np.abs(wv))
        same = (gv == wv) | (np.isnan(gv) & np.isnan(wv))
        excess[same] = -1.0
        excess[np.isnan(excess)] = np.inf  # NaN against a number
        over = excess > 0
        n = int(np.count_nonzero(over))
        if n:
            bad += n
            i = int(np.argmax(excess))
            if excess[i] > worst:
                worst, worst_at = float(excess[i]), start + i
    if not bad:
        return None
    idx = tuple(int(i) for i in np.unravel_index(worst_at, got.shape))
    return (
        f"{bad} of {g.size} elements beyond rtol={rtol:g} atol={atol:g}; worst at {idx}: "
        f"{float(g[worst_at])!r}, expected {float(w[worst_at])!r}"
    )


def _compare(case: Case, got, want, dtype: str | None) -> list[str]:
    """Problems of ``got`` against ``want`` (a tuple of results compares part by part)."""
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return [f"a {type(got).__name__} result, expected a {len(want)}-tuple"]
        problems = []
        for i, (g, w) in enumerate(zip(got, want)):
            problems += [f"[{i}] {p}" for p in _compare(case, g, w, None)]
        return problems
    want_dtype, want = as_numpy(want)
    got_dtype, got = as_numpy(got)
    want_dtype = dtype or want_dtype
    problems = []
    if got_dtype != want_dtype:
        problems.append(f"dtype {got_dtype}, expected {want_dtype}")
    if got.shape != want.shape:
        problems.append(f"shape {got.shape}, expected {want.shape}")
    elif not case.values:
        if case.validate is not None:
            problem = case.validate(got)
            if problem:
                problems.append(problem)
    elif _tolerance(case) and got.dtype.kind == "f" and want.dtype.kind == "f":
        problem = _close(got, want, case.rtol or 0.0, case.atol or 0.0)
        if problem:
            problems.append(problem)
    elif not _equal(got, want):
        try:
            np.testing.assert_array_equal(got, want)
        except AssertionError as exc:
            lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
            problems.append(" | ".join(lines[1:4]))
    return problems


def verify(case: Case, result: Result, sync) -> None:
    """Runs genesis and the reference once and records ok / close / stats / shape / MISMATCH /
    ERROR.

    ``sync()`` waits for all queued GPU work: after each call, so results that are still being
    written (non_blocking copies into pinned host memory) are complete before they are read.
    """
    try:
        got = case.fns["genesis"]()
        sync()
        if case.output is not None:
            got = case.output()
    except Exception as exc:
        result.check, result.note = "ERROR", f"genesis raised {_short(exc)}"
        return
    reference = case.reference or case.fns.get("numpy") or case.fns.get("torch")
    if reference is None:
        result.check = "no ref"
        return
    try:
        want = reference()
        sync()
    except Exception as exc:
        result.check, result.note = "no ref", _short(exc)
        return
    try:
        problems = _compare(case, got, want, case.dtype)
    except Exception as exc:  # e.g. genesis's result does not convert to NumPy
        result.check, result.note = "ERROR", f"checking the result raised {_short(exc)}"
        return
    if problems:
        result.check, result.note = "MISMATCH", "; ".join(problems)
    elif not case.values:
        result.check = "stats" if case.validate is not None else "shape"
    else:
        result.check = "close" if _tolerance(case) else "ok"


def _sync_all(syncs: dict):
    fns = [fn for fn in syncs.values() if fn is not None]

    def sync() -> None:
        for fn in fns:
            fn()

    return sync


def run_case(area: str, case: Case, libraries: list[str], syncs: dict, budget: Budget) -> Result:
    result = Result(
        area, case.name, case.size, case.nbytes, goal=case.goal, info=case.info, flops=case.flops
    )
    if case.setup_error is not None:
        result.check, result.note = "ERROR", f"building the case raised {_short(case.setup_error)}"
        return result
    if case.timer is not None:  # genesis measured by the callee (C++): nothing to verify
        try:
            result.times["genesis"] = measure_reported(case.timer, case.timer_calls, budget)
        except Exception as exc:
            result.check, result.note = "ERROR", f"genesis raised {_short(exc)}"
    else:
        verify(case, result, _sync_all(syncs))
    # Host-time cases (bursts) swing with the machine's state over seconds, and long GPU cases
    # (matmul) with its clocks: the libraries take turns, BURST_ROUNDS (or case.rounds) rounds
    # each, and each keeps the median of its round medians.
    rounds = BURST_ROUNDS if case.burst is not None else case.rounds
    timings: dict[str, list[Timing]] = {}
    for _ in range(rounds):
        for lib in libraries:
            if lib == "genesis" and case.timer is not None:
                continue
            fn = case.fns.get(lib)
            if fn is None or (lib == "genesis" and result.check == "ERROR") or lib in result.errors:
                continue
            try:
                sync = syncs[lib] if case.sync else None
                timing = measure(fn, sync, budget, case.min_calls, case.burst)
                timings.setdefault(lib, []).append(timing)
            except Exception as exc:
                result.errors[lib] = _short(exc)
    for lib, runs in timings.items():
        result.times[lib] = _combine(runs)
    return result


def _combine(runs: list[Timing]) -> Timing:
    if len(runs) == 1:
        return runs[0]
    return Timing(
        statistics.median(t.median for t in runs),
        min(t.min for t in runs),
        sum(t.samples for t in runs),
        runs[0].calls_per_sample,
    )


def _cuda_memory_line(torch) -> str:
    """Pools after the run (every case's tensors are gone by then: allocated should be 0)."""
    mib = 1 << 20
    try:
        g = (
            f"genesis allocated {genesis.cuda.memory_allocated() / mib:.0f} MiB, "
            f"peak {genesis.cuda.max_memory_allocated() / mib:.0f} MiB, "
            f"reserved {genesis.cuda.memory_reserved() / mib:.0f} MiB"
        )
    except Exception as exc:
        g = f"genesis memory stats raised {_short(exc)}"
    text = f"CUDA memory after the run: {g}"
    if torch is not None:
        try:
            text += (
                f"; torch allocated {torch.cuda.memory_allocated() / mib:.0f} MiB, "
                f"peak {torch.cuda.max_memory_allocated() / mib:.0f} MiB"
            )
        except Exception as exc:
            text += f"; torch memory stats raised {_short(exc)}"
    return text


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Time genesis against NumPy and PyTorch; print medians and speed ratios.",
    )
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--quick", action="store_true", help="small sizes, few reps (smoke test)")
    p.add_argument("--filter", default="", help="only cases whose 'area/case' contains this")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    device = args.device
    torch = _load_torch(device)

    syncs = {"genesis": None, "numpy": None, "torch": None}
    if device == "cuda":
        if not genesis.cuda.is_available():
            print("genesis.cuda.is_available() is False: no CUDA cases to run.", file=sys.stderr)
            return 2
        if not hasattr(genesis.cuda, "synchronize"):
            print(
                "genesis.cuda.synchronize() does not exist: CUDA timings would be wrong, skipped.",
                file=sys.stderr,
            )
            return 2
        syncs["genesis"] = genesis.cuda.synchronize
        if torch is not None:
            syncs["torch"] = torch.cuda.synchronize

    libraries = ["genesis"] + (["numpy"] if device == "cpu" else [])
    libraries += ["torch"] if torch is not None else []
    budget = QUICK if args.quick else FULL
    ctx = Context(device=device, quick=args.quick, torch=torch)

    versions = [f"genesis {genesis.__version__}", f"numpy {np.__version__}"]
    if torch is not None:
        versions.append(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    else:
        versions.append("torch: not available")
    header = (
        f"device {device}{' (quick)' if args.quick else ''} | {' | '.join(versions)} | "
        f"{platform.machine()}, {os.cpu_count()} CPUs\n"
        "medians per call; 'vs X' = X time / genesis time (> 1: genesis is faster); "
        "GB/s: genesis, bytes read + written\n"
    )

    show_progress = sys.stderr.isatty()
    results: list[Result] = []
    start = time.perf_counter()
    needle = args.filter.lower()
    for area, module in AREAS:

        def keep(name: str, area: str = area) -> bool:
            return needle in f"{area}/{name}".lower()

        for case in module.cases(ctx, keep):
            if not keep(case.name):
                del case  # before the next builder allocates
                continue
            if show_progress:
                print(f"\r\033[K{area}/{case.name} ...", end="", file=sys.stderr, flush=True)
            try:
                results.append(run_case(area, case, libraries, syncs, budget))
            except Exception as exc:  # never abort the run: an ERROR row instead
                results.append(Result(area, case.name, case.size, check="ERROR", note=_short(exc)))
            del case
    if show_progress:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - start

    if not results:
        print(f"no case matches --filter {args.filter!r}", file=sys.stderr)
        return 1
    print(render(results, libraries, header))
    print(f"\n{len(results)} case{'' if len(results) == 1 else 's'} in {elapsed:.1f} s")
    if device == "cuda":
        print(_cuda_memory_line(torch))

    if args.json:
        payload = {
            "device": device,
            "quick": args.quick,
            "libraries": libraries,
            "versions": versions,
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "results": [r.to_json() for r in results],
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
