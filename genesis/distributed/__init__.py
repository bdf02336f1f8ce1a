"""Several processes working together, with torch.distributed's names.

The rendezvous stores (``TCPStore``, ``FileStore``, ``HashStore``, ``PrefixStore``) through
which processes find each other, and the launcher, ``python -m genesis.distributed.run``.

Example::

    >>> store = genesis.distributed.HashStore()
    >>> store.add("arrived", 1)
    1
"""

from genesis.distributed._store import (
    DistStoreError,
    FileStore,
    HashStore,
    PrefixStore,
    Store,
    TCPStore,
)

__all__ = ["DistStoreError", "FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]
