"""Autocast's op lists: which ops run in the lower precision, which in float32, which promote.

Note [Autocast policies]
One table for both kinds of op (Note [Autocast] in csrc/python/autocast.cpp): ``register``
hands it to the core, which finds the compiled functions and methods of each name (genesis.X,
Tensor.X, genesis.linalg.X, the compiled nn.functional ones) and casts their arguments while a
region is on; the nn.functional functions written in Python take the same policy through
``autocast_policy`` (F.softmax and F.log_softmax need not: they are one call of the compiled
softmax, which takes the policy, and their implicit-dim warning must point at the caller). The
lists are PyTorch's (aten/src/ATen/autocast_mode.{h,cpp}) for the ops
genesis has, per device type: CUDA's list is also PyTorch's for other GPUs, the CPU's is its own.
A name is one policy wherever it is bound (genesis.cross and genesis.linalg.cross, the
functional and the method forms), as in PyTorch, whose Python forms reach the same native op.
F.pad's reflect (1-D and 2-D) and replicate modes are float32
on the CPU through the private functions they call, as PyTorch's reflection_pad1d/2d and
replication_pad1d/2d/3d. Ops PyTorch writes in Python from listed ops (F.softmin,
F.gumbel_softmax) are not listed: their own calls are, as in PyTorch; F.normalize and
Tensor.square are listed as float32 on CUDA because PyTorch's are made of norm and pow, which
are. Python-written genesis functions that PyTorch has as native ops and that call listed ops
are listed with no cast (_OPAQUE), so that they run as one op.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from .. import _C

# The core's policy codes (Policy in csrc/python/autocast.cpp).
NONE, LOWER, FP32, FP32_UNLESS_DTYPE, PROMOTE, BANNED, LOWER_PRODUCTS = range(7)

# The lower precision on both device types.
_LOWER_BOTH = """
    addbmm addmm baddbmm bmm conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d
    conv_transpose3d linear matmul mm prelu scaled_dot_product_attention vecdot __matmul__
    __rmatmul__
"""
_LOWER_CUDA = "addmv addr chain_matmul einsum multi_dot mv"
_LOWER_CPU = "_addmm_activation"
# einsum of two or more operands: PyTorch's CPU runs it through bmm, which is listed.
_LOWER_PRODUCTS_CPU = "einsum"
# float32 on CUDA.
_FP32_CUDA = """
    acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan pow __pow__
    __rpow__ __rtruediv__ square softplus layer_norm rms_norm group_norm cosine_similarity
    poisson_nll_loss cosine_embedding_loss nll_loss hinge_embedding_loss kl_div l1_loss
    smooth_l1_loss huber_loss mse_loss margin_ranking_loss multilabel_margin_loss
    soft_margin_loss triplet_margin_loss multi_margin_loss binary_cross_entropy_with_logits
    cross_entropy normalize dist pdist cdist renorm logsumexp _upsample
"""
_FP32_UNLESS_DTYPE_CUDA = "prod softmax log_softmax cumprod cumsum vector_norm matrix_norm sum norm"
_PROMOTE_CUDA = """
    addcdiv addcmul atan2 bilinear cross dot vdot grid_sample index_put tensordot scatter_add
"""
# float32 on the CPU.
_FP32_CPU = """
    avg_pool3d binary_cross_entropy grid_sample polar prod quantile nanquantile stft cdist trace
    cholesky cholesky_inverse cholesky_solve inverse lu_solve orgqr ormqr pinverse max_pool3d
    max_unpool2d max_unpool3d adaptive_avg_pool3d mse_loss cosine_embedding_loss nll_loss
    hinge_embedding_loss poisson_nll_loss smooth_l1_loss cross_entropy l1_loss huber_loss
    margin_ranking_loss soft_margin_loss triplet_margin_loss multi_margin_loss ctc_loss kl_div
    multilabel_margin_loss binary_cross_entropy_with_logits cond matrix_rank solve svdvals
    eigvals eigvalsh inv householder_product tensorinv tensorsolve geqrf qr svd triangular_solve
    fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d eig eigh lstsq inv_ex
    cholesky_ex _reflection_pad _replication_pad fractional_max_pool2d_with_indices
    fractional_max_pool3d_with_indices
"""
_PROMOTE_CPU = "stack cat index_copy"
# No cast on either device type, but one op: Python-written functions that PyTorch has as native
# ops and that call listed ops (a sum inside avg_pool2d must not run in float32).
_OPAQUE = """
    avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d
"""


def _table() -> dict[str, tuple[int, int]]:
    """{name: (CUDA policy, CPU policy)}."""
    cuda: dict[str, int] = {}
    cpu: dict[str, int] = {}
    for names, policy, into in (
        (_LOWER_BOTH, LOWER, (cuda, cpu)),
        (_LOWER_CUDA, LOWER, (cuda,)),
        (_LOWER_CPU, LOWER, (cpu,)),
        (_LOWER_PRODUCTS_CPU, LOWER_PRODUCTS, (cpu,)),
        (_FP32_CUDA, FP32, (cuda,)),
        (_FP32_UNLESS_DTYPE_CUDA, FP32_UNLESS_DTYPE, (cuda,)),
        (_PROMOTE_CUDA, PROMOTE, (cuda,)),
        ("binary_cross_entropy", BANNED, (cuda,)),
        (_FP32_CPU, FP32, (cpu,)),
        (_PROMOTE_CPU, PROMOTE, (cpu,)),
    ):
        for name in names.split():
            for table in into:
                table[name] = policy
    listed = {*cuda, *cpu, *_OPAQUE.split()}
    return {name: (cuda.get(name, NONE), cpu.get(name, NONE)) for name in listed}


POLICIES = _table()


def register() -> None:
    """Hands the table to the core, which finds the compiled functions of each name."""
    scopes = [_C, _C.Tensor, _C._linalg, _C._nn]
    _C._amp._register_policies(POLICIES, scopes)


_F = TypeVar("_F", bound=Callable[..., Any])


def autocast_policy(fn: _F) -> _F:
    """A Python-written op that takes its name's policy under autocast (Note [Autocast
    policies]); outside a region the call costs one check."""
    name = fn.__name__
    if name not in POLICIES:
        raise ValueError(f"autocast_policy: {name} is on no autocast list")
    active = _C._amp._active
    call = _C._amp._call

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if active():
            return call(name, fn, args, kwargs)
        return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


register()
