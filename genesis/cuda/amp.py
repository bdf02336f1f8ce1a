"""genesis.cuda.amp: PyTorch's deprecated spellings of genesis.amp for CUDA (each warns)."""

from ..amp import custom_bwd as _custom_bwd
from ..amp import custom_fwd as _custom_fwd
from ..amp._deprecated import cuda_autocast as autocast
from ..amp._deprecated import cuda_grad_scaler as GradScaler

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``genesis.amp.custom_fwd(device_type="cuda")``."""
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """``genesis.amp.custom_bwd(device_type="cuda")``."""
    return _custom_bwd(bwd, device_type="cuda")
