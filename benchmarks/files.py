"""Loading checkpoints from files (issue 17): what a mapped load costs on the CPU, and a load
onto CUDA (the last row, --device cuda).

``genesis.load(path, mmap=True)`` against ``torch.load(path, mmap=True)`` (the NumPy column:
``np.load`` of one of the arrays with ``mmap_mode="c"``), and ``genesis.safetensors.load_file``
against ``safetensors.numpy.load_file`` (NumPy column) and ``safetensors.torch.load_file``
(torch column). The checkpoint: 8 float32 tensors, 1 GiB in all (16 MiB with --quick), written
once to a temporary folder, so the page cache holds it. Each call loads the whole file and
returns its first tensor; the check reads that tensor (touching its pages only) against the
saved values. Goal: >= 1x torch for load(mmap=True), >= 1x the NumPy front end for load_file.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any

import numpy as np

import genesis
from benchmarks.common import Case, Context, Goal, Registry
from genesis import safetensors as gst

register = Registry()
cases = register.cases

TENSORS = 8


def _checkpoint(ctx: Context) -> tuple[dict[str, np.ndarray], str, int]:
    """The arrays, a fresh folder (removed at exit) and the total bytes."""
    total = ctx.pick(1 << 30, 16 << 20)
    per = total // TENSORS // 4
    arrays = {f"w{i}": ctx.rng.standard_normal(per, dtype=np.float32) for i in range(TENSORS)}
    folder = tempfile.mkdtemp(prefix="genesis-bench-files-")
    atexit.register(shutil.rmtree, folder, True)
    return arrays, folder, total


@register(name="load(mmap=True)")
def load_mmap(ctx: Context) -> Case | None:
    if ctx.on_cuda:
        return None  # a CPU case (loading to CUDA is another row)
    arrays, folder, total = _checkpoint(ctx)
    ours = os.path.join(folder, "genesis.pt")
    genesis.save({k: genesis.from_numpy(a) for k, a in arrays.items()}, ours)
    npy = os.path.join(folder, "w0.npy")
    np.save(npy, arrays["w0"])
    T = ctx.torch
    theirs = os.path.join(folder, "torch.pt")
    if T is not None:
        T.save({k: T.from_numpy(a) for k, a in arrays.items()}, theirs)
    return Case(
        "load(mmap=True)",
        f"{TENSORS} f32 tensors, {total >> 20} MiB",
        ctx.fns(
            genesis=lambda: genesis.load(ours, mmap=True)["w0"],
            numpy=lambda: np.load(npy, mmap_mode="c"),
            torch=lambda: T.load(theirs, mmap=True, weights_only=True)["w0"],
        ),
        reference=lambda: arrays["w0"],
        goal=Goal(">= 1x torch", min_speedup=1.0),
        info="the whole checkpoint loaded, its first tensor returned (untouched); numpy: "
        "np.load of that one array, mmap_mode='c'",
    )


@register(name="safetensors load_file")
def safetensors_load_file(ctx: Context) -> Case | None:
    if ctx.on_cuda:
        return None
    try:
        import safetensors.numpy as sf_numpy
    except ImportError:
        return None
    arrays, folder, total = _checkpoint(ctx)
    path = os.path.join(folder, "model.safetensors")
    sf_numpy.save_file(arrays, path)
    fns: dict[str, Any] = {
        "genesis": lambda: gst.load_file(path)["w0"],
        "numpy": lambda: sf_numpy.load_file(path)["w0"],
    }
    if ctx.torch is not None:
        try:
            import safetensors.torch as sf_torch

            fns["torch"] = lambda: sf_torch.load_file(path)["w0"]
        except ImportError:
            pass
    return Case(
        "safetensors load_file",
        f"{TENSORS} f32 tensors, {total >> 20} MiB",
        fns,
        reference=lambda: arrays["w0"],
        goal=Goal(">= 1x numpy", min_speedup=1.0, versus="numpy"),
        info="the whole file loaded, its first tensor returned; numpy and torch: the "
        "safetensors package's front ends",
    )


@register(name="load to CUDA")
def load_to_cuda(ctx: Context) -> Case | None:
    """A 4 GiB checkpoint (8 float32 tensors; 16 MiB with --quick) loaded onto the GPU:
    genesis.load(map_location="cuda") against torch.load(map_location="cuda"), each from its own
    file in the page cache. Each call loads every tensor and waits for the device."""
    if not ctx.on_cuda:
        return None
    total = ctx.pick(4 << 30, 16 << 20)
    per = total // TENSORS // 4
    folder = tempfile.mkdtemp(prefix="genesis-bench-files-")
    atexit.register(shutil.rmtree, folder, True)
    first = ctx.rng.standard_normal(per, dtype=np.float32)
    ours, theirs = os.path.join(folder, "genesis.pt"), os.path.join(folder, "torch.pt")
    genesis.save({f"w{i}": genesis.from_numpy(first) for i in range(TENSORS)}, ours)
    T = ctx.torch
    fns: dict[str, Any] = {"genesis": lambda: genesis.load(ours, map_location="cuda")["w0"]}
    if T is not None:
        # Separate tensors of the same values (torch would save one shared storage otherwise).
        T.save({f"w{i}": T.from_numpy(first.copy()) for i in range(TENSORS)}, theirs)
        fns["torch"] = lambda: T.load(theirs, map_location="cuda", weights_only=True)["w0"]
    return Case(
        "load to CUDA",
        f"{TENSORS} f32 tensors, {total >> 20} MiB",
        fns,
        reference=lambda: first,
        nbytes=total,
        goal=None if ctx.quick else Goal(">= 1x torch", min_speedup=1.0),
        info="load(path, map_location='cuda') of the whole checkpoint (8 storages of the same "
        "values), its first tensor returned",
    )
