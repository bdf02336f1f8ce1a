"""Key-value stores for rendezvous, with ``torch.distributed``'s store semantics.

Processes that are about to talk through NCCL first need a cheaper channel to agree on things:
the communicator's unique id, "everyone is here" barriers, debug checks. A store is that channel:
a dictionary of byte strings that every process can read and write, whose ``get`` waits for a
key that another process has not written yet.

Four stores, as in PyTorch: ``HashStore`` (one process, any threads), ``TCPStore`` (a server in
the master process, clients everywhere), ``FileStore`` (one file that several processes share)
and ``PrefixStore`` (a namespace over another store).

The stores live in ``_store_base.py`` (``Store``, ``HashStore``, ``PrefixStore``; Note [Store
layers], Note [Store counters]), ``_file_store.py`` and ``_tcp_store.py``; this module gathers
them.
"""

from genesis.distributed._file_store import FileStore
from genesis.distributed._store_base import DistStoreError, HashStore, PrefixStore, Store
from genesis.distributed._tcp_store import TCPStore

__all__ = ["DistStoreError", "FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]
