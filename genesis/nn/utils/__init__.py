"""``nn.utils``: gradient clipping, parameter/vector conversion, weight and spectral
normalization (hook and parametrization forms), conv/linear + BatchNorm fusion, ``skip_init``
and ``nn.utils.rnn``."""

from . import parametrizations, parametrize, rnn
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .init import skip_init
from .weight_norm import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "skip_init",
    "spectral_norm",
    "vector_to_parameters",
    "weight_norm",
]


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated name of :func:`clip_grad_norm_` (PyTorch warns the same).

    Example::

        >>> import warnings
        >>> p = genesis.nn.Parameter(genesis.zeros(2))
        >>> p.grad = genesis.tensor([3.0, 4.0])
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     genesis.nn.utils.clip_grad_norm([p], 10.0)
        tensor(5.)
    """
    import warnings

    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
