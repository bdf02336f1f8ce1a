"""What an area module needs: the Case record, the Context it builds cases for, conversions."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import genesis

LIBRARIES = ("genesis", "numpy", "torch")


@dataclass(frozen=True)
class Goal:
    """A target for a case, judged after timing: genesis's median below ``max_seconds`` and/or
    ``speedup`` (that library's median / genesis's) at least ``min_speedup``."""

    text: str  # shown in the goal column, e.g. "< 500 ns", ">= 2x torch"
    max_seconds: float | None = None
    min_speedup: float | None = None
    versus: str = "torch"  # the library min_speedup compares with


@dataclass
class Case:
    """One benchmark: the same operation written for each library.

    ``fns`` maps a library name ("genesis", "numpy", "torch") to a no-argument callable that
    performs the operation once and returns its result. A library may be left out.
    """

    name: str
    size: str  # human description, e.g. "4096x4096 f32"
    fns: dict[str, Callable[[], Any]]
    nbytes: int | None = None  # bytes read + written by one call, for genesis's GB/s
    flops: int | None = None  # floating-point operations of one call: TFLOP/s instead of GB/s
    # Produces the expected result (ndarray, genesis or torch tensor); default: fns["numpy"],
    # else fns["torch"]. Called once, untimed, also when numpy is not timed (CUDA).
    reference: Callable[[], Any] | None = None
    dtype: str | None = None  # expected result dtype name when the reference's differs
    # Genesis's result when fns["genesis"] returns nothing (a graph's replay writes tensors made
    # at capture): read after its one untimed call, so the timed call needs no wrapper.
    output: Callable[[], Any] | None = None
    values: bool = True  # False: verify shape and dtype only (empty)
    # Floating-point results within a tolerance instead of exactly equal (check column
    # "close"): |got - want| <= atol + rtol * |want| elementwise; integer results stay exact.
    rtol: float | None = None
    atol: float | None = None
    # With values=False: checks genesis's host result (an ndarray, after the dtype and shape
    # checks) and returns a problem or None (check column "stats"), e.g. randn's moments.
    validate: Callable[[np.ndarray], str | None] | None = None
    sync: bool = True  # False: time host side only, no device synchronisation
    # At least this many calls per sample, so the sample's one synchronisation at its end is
    # spread over them (host time of calls that queue GPU work or may wait for the device).
    min_calls: int = 1
    # Host time in bursts: each sample makes exactly this many back-to-back calls, timed
    # without synchronising; the device is synchronised before and after each burst, outside
    # the timed region (a burst shorter than the launch queue measures the host cost alone).
    burst: int | None = None
    # Rounds in which the libraries take turns (each timed to its budget once a round; the
    # median of its round medians is reported), so slow drift (clocks, heat) hits all of them.
    # Burst cases always take turns (BURST_ROUNDS in run.py).
    rounds: int = 1
    # Measured elsewhere (C++): returns genesis's seconds per operation, averaged over
    # ``timer_calls`` operations; called once per sample instead of timing fns["genesis"],
    # and the case is not verified (fns may be empty).
    timer: Callable[[], float] | None = None
    timer_calls: int = 1
    goal: Goal | None = None
    info: str | None = None  # a footnote to the row (not a problem)
    setup_error: Exception | None = None  # set by Registry when the builder raised


class Registry:
    """Collects an area's case builders: ``@register`` on ``def build(ctx) -> Case | None``.

    ``@register(name="t().contiguous()")`` also declares the name the builder's case will have,
    so a ``--filter`` that cannot match it skips the builder without making its inputs (large
    on CUDA). Builders run one at a time, when the runner asks for the next case, so only one
    case's inputs are alive at once. A builder returns None to skip its case (e.g. on some
    device).
    """

    def __init__(self) -> None:
        self.builders: list[Callable[[Context], Case | None]] = []
        self.names: dict[Callable, str] = {}

    def __call__(
        self, builder: Callable[[Context], Case | None] | None = None, *, name: str | None = None
    ) -> Callable:
        if builder is None:  # @register(name=...)
            return lambda b: self(b, name=name)
        self.builders.append(builder)
        if name is not None:
            self.names[builder] = name
        return builder

    def cases(self, ctx: Context, keep: Callable[[str], bool] | None = None) -> Iterator[Case]:
        """The cases, built one at a time; ``keep(name)`` false skips a builder whose case
        name was declared (the caller still filters the cases it gets)."""
        for builder in self.builders:
            name = self.names.get(builder)
            if keep is not None and name is not None and not keep(name):
                continue
            try:
                case = builder(ctx)
            except Exception as exc:  # reported as an ERROR row; the run goes on
                case = Case(name or builder.__name__, "?", {}, setup_error=exc)
            if case is not None:
                yield case
            # The caller has dropped its reference: release this case's inputs (and the
            # pools' cached blocks on CUDA) before the next builder allocates its own.
            case = None
            ctx.free_memory()


@dataclass
class Context:
    """The device and size mode cases are built for, and the input helpers."""

    device: str = "cpu"
    quick: bool = False
    torch: Any = None  # the torch module, or None when it is not usable on ``device``
    seed: int = 0
    rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    @property
    def on_cuda(self) -> bool:
        """Whether cases are built for the GPU (CUDA sizes, CUDA-only cases)."""
        return self.device == "cuda"

    def pick(self, full: Any, quick: Any, cuda: Any = None) -> Any:
        """``quick`` in --quick mode, else ``cuda`` on the GPU when given, else ``full``."""
        if self.quick:
            return quick
        return cuda if cuda is not None and self.on_cuda else full

    def synchronize(self) -> None:
        """Waits for genesis's and torch's queued GPU work (nothing on the CPU)."""
        if self.device != "cuda":
            return
        genesis.cuda.synchronize()
        if self.torch is not None:
            self.torch.cuda.synchronize()

    def free_memory(self) -> None:
        """Collects garbage; on CUDA also empties genesis's and torch's caching pools (device
        and pinned host), so one case's blocks never crowd the next. Never raises."""
        try:
            gc.collect()
            if self.device != "cuda":
                return
            self.synchronize()
            genesis.cuda.empty_cache()
            genesis.cuda.host_empty_cache()
            if self.torch is not None:
                self.torch.cuda.empty_cache()
                host_empty = getattr(self.torch._C, "_host_emptyCache", None)
                if host_empty is not None:
                    host_empty()
        except Exception:
            pass

    def fns(self, genesis: Callable, numpy: Callable, torch: Callable) -> dict[str, Callable]:
        """The ``fns`` dict of a Case; torch's entry is left out when torch is not usable."""
        fns = {"genesis": genesis, "numpy": numpy}
        if self.torch is not None:
            fns["torch"] = torch
        return fns

    def to_genesis(self, a: np.ndarray) -> genesis.Tensor:
        """A genesis tensor on the device holding a copy of ``a``."""
        return genesis.tensor(a, device=self.device)

    def to_torch(self, a: np.ndarray) -> Any:
        """A torch tensor on the device holding a copy of ``a``."""
        if self.device == "cuda":  # one host-to-device copy, no intermediate host copy
            return self.torch.from_numpy(np.ascontiguousarray(a)).to(self.device)
        return self.torch.tensor(a, device=self.device)


def dtype_name(dt: Any) -> str:
    """'float32' for genesis.float32, np.float32 / np.dtype('float32') and torch.float32."""
    if isinstance(dt, np.dtype) or (isinstance(dt, type) and issubclass(dt, np.generic)):
        return np.dtype(dt).name
    return str(dt).rsplit(".", 1)[-1]


def as_numpy(x: Any) -> tuple[str, np.ndarray]:
    """(dtype name, host ndarray) of a result; bfloat16 values come back as float32."""
    if isinstance(x, np.ndarray):
        return x.dtype.name, x
    if isinstance(x, np.generic):  # a NumPy scalar, e.g. a.sum()
        return x.dtype.name, np.asarray(x)
    name = dtype_name(x.dtype)
    if isinstance(x, genesis.Tensor):
        if x.is_cuda:
            x = x.cpu()
        if name == "bfloat16":
            x = x.float()
        return name, np.asarray(x.numpy())
    x = x.detach().cpu()  # torch
    if name == "bfloat16":
        x = x.float()
    return name, x.numpy()


def size_str(shape: tuple[int, ...] | int, dtype: str) -> str:
    """'2^24 f32', '4096x4096 f32', '16384x16384 f32' (powers of two only for 1-D sizes)."""
    short = {
        "float16": "f16",
        "bfloat16": "bf16",
        "float32": "f32",
        "float64": "f64",
        "int32": "i32",
        "int64": "i64",
        "int8": "i8",
        "uint8": "u8",
    }.get(dtype, dtype)
    if isinstance(shape, int):
        shape = (shape,)
    dims = []
    for n in shape:
        p = n.bit_length() - 1
        dims.append(f"2^{p}" if len(shape) == 1 and n > 4096 and n == 1 << p else str(n))
    return f"{'x'.join(dims)} {short}"
