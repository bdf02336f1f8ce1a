"""Neural-network helpers with torch.nn's names. So far ``genesis.nn.functional``: the
pointwise activations, softmax and ``linear`` (no layers or modules yet).

Example::

    >>> genesis.nn.functional.relu(genesis.tensor([-1.0, 2.0]))
    tensor([0., 2.])
"""

from . import functional

__all__ = ["functional"]
