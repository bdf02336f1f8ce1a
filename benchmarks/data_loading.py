"""DataLoader throughput (genesis.utils.data against torch.utils.data): one epoch over a dataset
of images kept in two tensors (uint8 images 3x32x32 and int64 labels, as a TensorDataset),
with a per-item Python transform (to float32, normalize, flip odd items horizontally), batches
of 128 (32 with --quick) from 2 worker processes (fork, persistent, so the workers start once,
when the case is built). One call is one epoch, consumed in the main process: every batch's
values are summed there (in float64), so each batch's pages are read. The check compares the
per-batch sums with NumPy's.

Area module: ``cases(ctx)`` like the others; not in benchmarks/run.py's AREAS yet. Standalone:
``python benchmarks/data_loading.py [--quick]`` prints the medians and the ratio.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

if not __package__:  # run as a script: make the ``benchmarks`` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import genesis  # noqa: E402
from benchmarks.common import Case, Context, Registry  # noqa: E402

register = Registry()
cases = register.cases

WORKERS = 2


class Images:
    """Item i of (images, labels), in the library the tensors belong to: the image as float32
    scaled to about [-2, 2], flipped along its width when i is odd, and its label."""

    def __init__(self, images: Any, labels: Any) -> None:
        self.images, self.labels = images, labels

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int) -> tuple[Any, Any]:
        x = (self.images[i].float() / 255 - 0.5) / 0.25
        if i % 2:
            x = x.flip(-1)
        return x, self.labels[i]


def _reference(images: np.ndarray, labels: np.ndarray, batch: int) -> np.ndarray:
    x = (images.astype(np.float32) / np.float32(255) - np.float32(0.5)) / np.float32(0.25)
    x[1::2] = x[1::2, :, :, ::-1]
    sums = []
    for start in range(0, len(labels), batch):
        part = slice(start, start + batch)
        sums.append(x[part].astype(np.float64).sum() + labels[part].sum())
    return np.array(sums)


def _epoch(loader: Any, to_tensor: Callable[[list[float]], Any]) -> Any:
    sums = [float(x.double().sum()) + float(y.sum()) for x, y in loader]
    return to_tensor(sums)


@register(name="DataLoader epoch, 2 workers")
def dataloader_epoch(ctx: Context) -> Case | None:
    if ctx.on_cuda:
        return None  # the loading runs on the CPU; the same row as the CPU run
    n, batch = ctx.pick(4096, 256), ctx.pick(128, 32)
    images = ctx.rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
    labels = ctx.rng.integers(0, 10, n).astype(np.int64)
    options = {
        "batch_size": batch,
        "num_workers": WORKERS,
        "persistent_workers": True,
        "multiprocessing_context": "fork",
    }
    from genesis.utils.data import DataLoader

    g_loader = DataLoader(Images(genesis.tensor(images), genesis.tensor(labels)), **options)
    fns = {"genesis": lambda: _epoch(g_loader, lambda s: genesis.tensor(s, dtype=genesis.float64))}
    if ctx.torch is not None:
        T = ctx.torch
        t_loader = T.utils.data.DataLoader(Images(T.tensor(images), T.tensor(labels)), **options)
        fns["torch"] = lambda: _epoch(t_loader, lambda s: T.tensor(s, dtype=T.float64))
    return Case(
        "DataLoader epoch, 2 workers",
        f"{n}x3x32x32 u8, batch {batch}",
        fns,
        nbytes=images.nbytes * 5,  # read uint8, write float32 (the batch), read it again
        reference=lambda: _reference(images, labels, batch),
        rtol=1e-9,
        atol=1e-6,
        info="per-item Python transform (float, normalize, flip); persistent fork workers; "
        "one call = one epoch read in the main process",
    )


def main(argv: list[str] | None = None) -> int:
    """Times the case for genesis and torch (when importable) and prints medians and ratio."""
    from benchmarks.run import _load_torch
    from benchmarks.timing import FULL, QUICK, measure

    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    ctx = Context(device="cpu", quick=quick, torch=_load_torch("cpu"))
    case = dataloader_epoch(ctx)
    assert case is not None
    got = np.asarray(case.fns["genesis"]().tolist())
    want = case.reference()  # type: ignore[misc]
    ok = np.allclose(got, want, rtol=case.rtol, atol=case.atol)
    print(f"{case.name} [{case.size}]  check: {'ok' if ok else 'MISMATCH'}")
    medians = {}
    for lib, fn in case.fns.items():
        medians[lib] = measure(fn, budget=QUICK if quick else FULL).median
        per_second = int(case.size.split("x")[0]) / medians[lib]
        print(f"  {lib:8s} {medians[lib] * 1e3:8.1f} ms per epoch  {per_second:10.0f} images/s")
    if "torch" in medians:
        print(f"  vs torch: {medians['torch'] / medians['genesis']:.2f}x (> 1: genesis faster)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
