"""``genesis.distributed.algorithms``: what data-parallel training plugs in, as torch's
(``ddp_comm_hooks``: DistributedDataParallel's communication hooks).

Example::

    >>> from genesis.distributed.algorithms.ddp_comm_hooks import default_hooks
"""
