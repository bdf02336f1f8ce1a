"""PyTorch-style tensor printing: ``repr(t)`` gives what ``torch`` would print.

Only the elements that get printed are fetched: a large tensor is cut down to its
``edgeitems`` corners with views first, and just those pieces go to the host and to NumPy.
"""

import contextlib
import math
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np


@dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: Optional[bool] = None  # None: decided from the data


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    "default": _PrintOptions(),
    "short": _PrintOptions(precision=2, edgeitems=2),
    "full": _PrintOptions(threshold=math.inf),
}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """Sets how tensors print, globally, like ``torch.set_printoptions``.

    Only the options given change, except ``sci_mode``: as in PyTorch, every call sets it to
    what it is given, so a call without it goes back to choosing from the data. ``profile``
    first loads a preset of the other options: ``"default"`` (the initial values),
    ``"short"`` (precision 2, 2 edge items) or ``"full"`` (never summarize).

    Args:
        precision (int, optional): digits after the decimal point. Default: None (unchanged;
            initially 4).
        threshold (int, optional): more elements than this are summarized with ``...``.
            Default: None (unchanged; initially 1000).
        edgeitems (int, optional): elements shown at each end of a summarized dimension.
            Default: None (unchanged; initially 3).
        linewidth (int, optional): characters per line before wrapping. Default: None
            (unchanged; initially 80).
        profile (str, optional): ``"default"``, ``"short"`` or ``"full"``. Default: None.
        sci_mode (bool, optional): True or False to force scientific notation on or off.
            Default: None (chosen from the data).

    Returns:
        None

    Example::

        >>> genesis.set_printoptions(precision=2)
        >>> genesis.tensor([3.14159])
        tensor([3.14])
        >>> genesis.set_printoptions(threshold=10, edgeitems=2)
        >>> genesis.arange(100)
        tensor([ 0,  1,  ..., 98, 99])
        >>> genesis.set_printoptions(profile="default")
        >>> genesis.tensor([3.14159])
        tensor([3.1416])
    """
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        # threshold may also be float("inf") (never summarize), as PyTorch users write it.
        kinds = (int, float) if name == "threshold" else (int,)
        if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            raise TypeError(f"[set_printoptions] {name} must be an int, got {type(value).__name__}")
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise TypeError(
            f"[set_printoptions] sci_mode must be a bool, got {type(sci_mode).__name__}"
        )
    if profile is not None and profile not in _PROFILES:
        raise ValueError(
            f"[set_printoptions] profile must be one of {sorted(_PROFILES)}, got {profile!r}"
        )
    if profile is not None:
        base = _PROFILES[profile]
        for name in ("precision", "threshold", "edgeitems", "linewidth"):
            setattr(PRINT_OPTS, name, getattr(base, name))
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """Returns the current print options as a dict.

    Returns:
        dict: ``precision``, ``threshold``, ``edgeitems``, ``linewidth`` and ``sci_mode``, as
        ``set_printoptions`` takes them.

    Example::

        >>> opts = genesis.get_printoptions()
        >>> opts["precision"], opts["edgeitems"], opts["sci_mode"]
        (4, 3, None)
    """
    return dict(vars(PRINT_OPTS))


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager that changes the print options inside a ``with`` block only.

    The options are those of ``set_printoptions`` (so ``sci_mode`` is reset to None unless
    given); all of them are restored on exit, also when the block raises.

    Args:
        **kwargs: options for ``set_printoptions``.

    Yields:
        None

    Example::

        >>> x = genesis.tensor([3.14159])
        >>> with genesis.printoptions(precision=1):
        ...     print(x)
        tensor([3.1])
        >>> x
        tensor([3.1416])
    """
    saved = replace(PRINT_OPTS)
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        vars(PRINT_OPTS).update(vars(saved))


class _Formatter:
    """Picks one format and one column width for all printed values, as PyTorch does."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        values = values.reshape(-1)
        if not floating:
            # Python's str of the element: '-3', 'True' (so bools pad to ' True').
            self.max_width = max((len(self._text(v)) for v in values.tolist()), default=1)
            return
        # Only finite nonzero values decide the mode and the width; nan/inf/0 just fit in.
        with np.errstate(invalid="ignore"):
            nonzero = values[np.isfinite(values) & (values != 0)].astype(np.float64)
        if nonzero.size == 0:
            return  # all 0/nan/inf: prints as '0.', 'nan', even with sci_mode=True
        lo, hi = np.abs(nonzero).min(), np.abs(nonzero).max()
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or (not self.int_mode and lo < 1.0e-4)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode
        # The width comes from the final format (after the sci_mode override).
        self.max_width = max(len(self._text(v)) for v in nonzero.tolist())

    def width(self):
        return self.max_width

    def _text(self, value):
        if not self.floating:
            return str(value)
        if self.sci_mode:
            return format(value, f".{PRINT_OPTS.precision}e")
        if self.int_mode:
            # Integer-valued floats print as '3.' (but 'nan', 'inf' stay bare).
            return format(value, ".0f") + ("." if math.isfinite(value) else "")
        return format(value, f".{PRINT_OPTS.precision}f")

    def format(self, value):
        return self._text(value).rjust(self.max_width)


def _to_numpy(t):
    """Host NumPy copy of a (small) tensor; half types widen to float32 as NumPy/bfloat16 need."""
    # A copy of the printed part, never the tensor's own memory: numpy() hands the address out,
    # which would mark the storage shared and forget what genesis knows of its contents (a
    # validated index, say), and printing only reads.
    t = t.cpu() if t.is_cuda else t.clone()
    if t.dtype.is_floating_point and t.dtype.itemsize == 2:
        t = t.float()
    return t.numpy()


def _summarized_numpy(t, cut):
    """The printed part of ``t`` as one array: every dim in ``cut`` keeps only its edges."""
    edge = PRINT_OPTS.edgeitems

    def gather(part, dim):
        if dim == len(cut):
            return _to_numpy(part)
        if not cut[dim]:
            return gather(part, dim + 1)
        size = part.shape[dim]
        ends = [part.narrow(dim, 0, edge), part.narrow(dim, size - edge, edge)]
        return np.concatenate([gather(p, dim + 1) for p in ends], axis=dim)

    return gather(t, 0)


def _vector_str(values, cut, indent, fmt):
    # Each element takes its width plus ', '; as many as fit in the line after the indent.
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (fmt.width() + 2)))
    items = [fmt.format(v) for v in values.tolist()]
    if cut:
        edge = PRINT_OPTS.edgeitems
        items = items[:edge] + [" ..."] + items[edge:]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values, cut, indent, fmt):
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector_str(values, cut[0], indent, fmt)
    rows = [_nested_str(row, cut[1:], indent + 1, fmt) for row in values]
    if cut[0]:
        edge = PRINT_OPTS.edgeitems
        rows = rows[:edge] + ["..."] + rows[edge:]
    # Sub-blocks of a 3-d+ tensor are separated by ndim-2 blank lines.
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _add_suffixes(text, suffixes, indent):
    # A suffix goes on its own line when it would overflow the last line of the data.
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    return "".join(parts) + ")"


def tensor_repr(t):
    """Returns the text ``repr(t)`` and ``str(t)`` give: what PyTorch would print.

    The dtype is shown unless it is float32, int64 or bool, the device unless it is the CPU,
    ``grad_fn=<...>`` for a result that autograd records (``requires_grad=True`` for a leaf
    that requires grad), and tensors of more than ``threshold`` elements are summarized (see
    ``genesis.set_printoptions``). Only the printed elements are copied to the host.

    Args:
        t (Tensor): the tensor to print.

    Returns:
        str: the text.

    Example::

        >>> genesis.tensor_repr(genesis.ones(2, dtype=genesis.float16))
        'tensor([1., 1.], dtype=genesis.float16)'
        >>> print(genesis.arange(6).view(2, 3))
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    edge = PRINT_OPTS.edgeitems
    if t.numel() == 0:
        # A 1-d empty tensor is just '[]'; other empty shapes need their size spelled out.
        if t.ndim != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        body = "[]"
    else:
        summarize = t.numel() > PRINT_OPTS.threshold
        if edge == 0:
            # No edge items to show: PyTorch prints the size instead (and only '...' if cut).
            suffixes.append(f"size={tuple(t.shape)}")
        if summarize and edge == 0 and t.ndim > 0:
            body = "[...]"
        else:
            cut = tuple(summarize and n > 2 * edge for n in t.shape)
            values = _summarized_numpy(t, cut)
            fmt = _Formatter(values, t.dtype.is_floating_point)
            body = _nested_str(values, cut, indent, fmt)
    # Default dtypes go unsaid; for an empty tensor only float32 does, since '[]' reads as float.
    implied = ("float32",) if t.numel() == 0 else ("float32", "int64", "bool")
    if t.dtype.name not in implied:
        suffixes.append(f"dtype=genesis.{t.dtype.name}")
    # Autograd state last, as PyTorch prints it: the node that made a result, else whether a
    # leaf requires grad.
    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif getattr(t, "requires_grad", False):
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


def tensor_format(t, spec):
    """``format(t, spec)`` and f-strings: a 0-d tensor formats its value (``f"{t:.3f}"``), as
    in PyTorch; any tensor formats as ``str(t)`` with an empty spec; other specs on tensors with
    dims raise TypeError.

    Args:
        t (Tensor): the tensor.
        spec (str): the format spec.

    Returns:
        str: the formatted text.

    Example::

        >>> f"{genesis.tensor(2.0 / 3):.3f}", format(genesis.tensor([1, 2]))
        ('0.667', 'tensor([1, 2])')
    """
    if t.dim() == 0:
        return format(t.item(), spec)
    if not spec:
        return tensor_repr(t)
    raise TypeError(
        f"[format] format spec {spec!r} needs a 0-d tensor; this one has shape {t.shape}"
    )
