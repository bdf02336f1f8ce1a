"""``torch.nn.functional`` with PyTorch's names and signatures, so
``import genesis.nn.functional as F`` runs code written for ``torch.nn.functional``.

One private module per family (``_activation``, ``_conv``, ``_loss`` ...), each listing its names
in ``__all__``; this package star-imports them all (it has no ``__all__`` of its own, as
``torch.nn.functional`` has none, so type checkers see every name). A new family is its file and
one import line here. The math is genesis's compiled ops.

Example::

    >>> import genesis.nn.functional as F
    >>> F.gelu(genesis.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
"""

from ._activation import *
from ._attention import *
from ._conv import *
from ._ctc import *
from ._distance import *
from ._dropout import *
from ._fractional_pooling import *
from ._grid import *
from ._interpolate import *
from ._linear import *
from ._linear_cross_entropy import *
from ._loss import *
from ._normalization import *
from ._padding import *
from ._pooling import *
from ._sparse import *
