"""Finding and loading NCCL (Note [Loading NCCL] in csrc/cuda/nccl.cpp).

genesis never links NCCL. The first collective loads it from, in order: the ``nvidia-nccl-cu13``
or ``nvidia-nccl-cu12`` package installed in this Python (where PyTorch's CUDA wheels also put
it), ``$GENESIS_NCCL_PATH``, then the system's ``libnccl.so.2``.
"""

import glob
import os
import sys

from .. import _C

_version = None


def _candidates():
    """Paths of libnccl.so.2 inside installed NVIDIA packages, in sys.path order."""
    found = []
    for entry in sys.path:
        if not entry or not os.path.isdir(os.path.join(entry, "nvidia")):
            continue
        for pattern in ("nvidia/nccl/lib/libnccl.so*", "nvidia/cu*/lib/libnccl.so*"):
            found.extend(sorted(glob.glob(os.path.join(entry, pattern))))
    return found


def load():
    """Loads NCCL once and returns its version as a tuple, such as (2, 27, 3).

    Raises RuntimeError naming what to install when no NCCL can be found.
    """
    global _version
    if _version is None:
        code = _C._distributed.nccl_load(_candidates())
        # NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
        _version = (code // 10000, (code % 10000) // 100, code % 100)
    return _version
