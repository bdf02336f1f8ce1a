"""genesis.utils: tools around the tensor library, in torch.utils's layout.

``genesis.utils.data`` loads datasets in batches, in the main process or in worker processes
(torch.utils.data's names and behaviour). ``genesis.utils.checkpoint`` trades compute for
memory: a checkpointed function keeps no activations and is run again in backward
(torch.utils.checkpoint's names and behaviour).
"""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
