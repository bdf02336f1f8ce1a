"""genesis.utils: tools around the tensor library, in torch.utils's layout.

``genesis.utils.data`` loads datasets in batches, in the main process or in worker processes
(torch.utils.data's names and behaviour).
"""

from . import data

__all__ = ["data"]
