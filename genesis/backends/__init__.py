"""genesis.backends: settings of the compute libraries genesis calls, with
``torch.backends``'s names. So far ``genesis.backends.cuda`` (matrix products on CUDA).

Example::

    >>> genesis.backends.cuda.matmul.allow_tf32
    False
"""

from . import cuda

__all__ = ["cuda"]
