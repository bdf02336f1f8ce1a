"""genesis: a GPU tensor library with a C++/CUDA core.

The tensor type, factories and dtypes are bound straight from the C++ core (``genesis._C``);
this package adds the pure-Python pieces: printing, ``genesis.cuda`` and the self-check.
"""

# Run from a source checkout, this directory shadows the installed package; extending the
# package path lets `from . import _C` find the compiled module that `pip install .` put in
# site-packages, so `python -m genesis` and `pytest` work from the repository root too.
from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)

from . import (
    _C,  # noqa: E402
    cuda,
)
from ._C import (  # noqa: E402
    IndexKind,
    IndexPlan,
    Tensor,
    UntypedStorage,
    _dtype_from_name,  # noqa: F401  (used by pickling of dtypes)
    arange,
    bfloat16,
    bmm,
    bool,
    device,
    dtype,
    empty,
    empty_like,
    eye,
    float16,
    float32,
    float64,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    initial_seed,
    int8,
    int16,
    int32,
    int64,
    linspace,
    manual_seed,
    matmul,
    mm,
    ones,
    ones_like,
    promote_types,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    seed,
    tensor,
    uint8,
    zeros,
    zeros_like,
)
from ._memory_stats import memory_stats
from ._tensor_str import get_printoptions, printoptions, set_printoptions, tensor_repr

__version__ = _C.__version__

# The compute ops, bound in C++ (several shadow Python builtins inside this namespace only, as in
# PyTorch: genesis.abs, genesis.max, genesis.sum ...).
# Imported by name, not copied in a loop, so that type checkers see them.
from ._C import (
    abs,
    add,
    all,
    any,
    argmax,
    argmin,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    cat,
    clamp,
    clip,
    concat,
    concatenate,
    cos,
    div,
    divide,
    eq,
    exp,
    floor_divide,
    ge,
    gt,
    le,
    log,
    log_softmax,
    logical_not,
    lt,
    max,
    maximum,
    mean,
    min,
    minimum,
    mul,
    multiply,
    ne,
    neg,
    negative,
    pow,
    prod,
    relu,
    remainder,
    result_type,
    rsqrt,
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
    true_divide,
    var,
    where,
)

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
    """A dict describing the storage behind tensor ``t`` (seed 000's inspect_storage)."""
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
