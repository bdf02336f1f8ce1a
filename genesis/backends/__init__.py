"""genesis.backends: settings of the compute libraries genesis calls, with
``torch.backends``'s names: ``genesis.backends.cuda`` (matrix products on CUDA) and
``genesis.backends.cudnn`` (convolutions through cuDNN).

Example::

    >>> genesis.backends.cuda.matmul.allow_tf32
    False
"""

from . import cuda, cudnn

__all__ = ["cuda", "cudnn"]
