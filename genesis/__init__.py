"""genesis: a GPU tensor library with a C++/CUDA core.

The tensor type, factories and dtypes are bound straight from the C++ core (``genesis._C``);
this package adds the pure-Python pieces: printing, ``genesis.cuda`` and the self-check.
"""

# The compiled core that belongs to these files, or an ImportError that says what to run
# (Note [Build identifier] in _core_loader.py).
from os.path import dirname as _dirname  # noqa: E402

from ._core_loader import load_core as _load_core

# The directory of these .py files (an editable install's __path__ also names the build's).
_C = _load_core(__name__, _dirname(__file__))

# Every name the core binds for users, listed so that a missing one fails here, at import. The
# compute ops shadow Python builtins inside this namespace only, as in PyTorch (genesis.abs,
# genesis.max, genesis.sum ...).
from . import cuda  # noqa: E402
from ._C import (  # noqa: E402
    IndexKind,
    IndexPath,
    IndexPlan,
    Tensor,
    UntypedStorage,
    _dtype_from_name,  # noqa: F401  (used by pickling of dtypes)
    abs,
    add,
    all,
    any,
    arange,
    argmax,
    argmin,
    bfloat16,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    bmm,
    bool,
    cat,
    clamp,
    clip,
    concat,
    concatenate,
    cos,
    device,
    div,
    divide,
    dtype,
    empty,
    empty_like,
    eq,
    exp,
    eye,
    float16,
    float32,
    float64,
    floor_divide,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    ge,
    gt,
    initial_seed,
    int8,
    int16,
    int32,
    int64,
    le,
    linspace,
    log,
    log_softmax,
    logical_not,
    lt,
    manual_seed,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mm,
    mul,
    multiply,
    ne,
    neg,
    negative,
    ones,
    ones_like,
    pow,
    prod,
    promote_types,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    relu,
    remainder,
    result_type,
    rsqrt,
    seed,
    sigmoid,
    sin,
    softmax,
    sqrt,
    stack,
    std,
    sub,
    subtract,
    sum,
    tanh,
    tensor,
    true_divide,
    uint8,
    var,
    where,
    zeros,
    zeros_like,
)
from ._memory_stats import memory_stats
from ._tensor_str import get_printoptions, printoptions, set_printoptions, tensor_repr

__version__ = _C.__version__

# PyTorch's aliases.
half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64

Tensor.__repr__ = tensor_repr  # type: ignore[method-assign]
Tensor.__str__ = tensor_repr  # type: ignore[method-assign]


def is_tensor(obj):
    """True when obj is a genesis.Tensor."""
    return isinstance(obj, Tensor)


def inspect_storage(t):
    """A dict describing tensor ``t`` and the storage behind it: shape, dtype, device, the
    storage's size in bytes, contiguity, data pointer, offset, strides and use count."""
    s = t.untyped_storage()
    return {
        "shape": t.shape,
        "dtype": t.dtype,
        "device": t.device,
        "size_bytes": s.nbytes(),
        "is_contiguous": t.is_contiguous(),
        "data_ptr": hex(s.data_ptr()) if s.data_ptr() else None,
        "storage_offset": t.storage_offset(),
        "strides": t.stride(),
        "use_count": s.use_count(),
    }


def build_info():
    """How this genesis was built: version, CUDA compiled or not, architectures."""
    return {
        "version": __version__,
        "cuda_compiled": _C._cuda.is_compiled(),
        "cuda_runtime": _C._cuda.runtime_version() or None,
        "cuda_architectures": _C._cuda.architectures().split() if _C._cuda.is_compiled() else [],
    }
