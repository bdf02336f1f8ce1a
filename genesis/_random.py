"""genesis.fork_rng: run a block with the default generator's state saved and restored."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ._C import get_rng_state, set_rng_state


@contextlib.contextmanager
def fork_rng(devices: object = None, enabled: bool = True) -> Iterator[None]:
    """Saves the default generator's state and restores it when the block ends.

    Random draws inside the block advance the generator as usual; afterwards the numbers go on
    as if the block had drawn nothing. genesis has one default generator for every device
    (Note [Generators]), so ``devices`` is accepted for PyTorch's signature and changes nothing.

    Args:
        devices (iterable, optional): accepted for PyTorch's signature. Default: None.
        enabled (bool): when False, the state is not saved or restored. Default: True.

    Yields:
        None

    Example::

        >>> a = genesis.rand(2)
        >>> with genesis.fork_rng():
        ...     _ = genesis.rand(100)
        >>> genesis.manual_seed(genesis.initial_seed())
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
