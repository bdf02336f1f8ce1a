"""Lazy modules: LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm* and LazyInstanceNorm*,
layers that take the size of their input (``in_features``, ``in_channels``, ``num_features``)
from the first batch they are called on.

Note [Lazy modules]: as in PyTorch, a lazy module is its layer class with placeholders
(UninitializedParameter, UninitializedBuffer: Note [Uninitialized tensors] in
genesis/nn/parameter.py) instead of the parameters and buffers whose shape depends on the input.
``LazyModuleMixin`` registers a forward pre-hook that, at the first call, runs
``initialize_parameters(*args)``: the placeholders are materialized to the shapes the input gives
and initialized by the layer's own ``reset_parameters``; then the hook removes itself and the
module's class becomes ``cls_to_become`` (a LazyLinear is a Linear from then on). Move and cast
a lazy model (``.to(dtype)``, ``.cuda()``) before that first call: the placeholders carry the
dtype and device to materialize with. ``state_dict()`` of an uninitialized module holds the
placeholders, and ``load_state_dict`` into one materializes each placeholder to the shape of
the checkpoint's tensor first (``_lazy_load_hook``), so a checkpoint of the initialized layer
(genesis's or PyTorch's) loads as it would into the layer.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, cast

from ..._C import Tensor, int64, tensor
from ...autograd import no_grad
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter, is_lazy
from ._hooks import RemovableHandle
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _NormBase
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .linear import Linear

__all__ = [
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
    "LazyLinear",
]


def _is_placeholder(value: Any) -> bool:
    """Whether a state_dict value is an uninitialized parameter or buffer: genesis's, or
    PyTorch's (a checkpoint of an uninitialized torch lazy module)."""
    if is_lazy(value):
        return True
    kind = type(value)
    return not isinstance(value, Tensor) and all(
        hasattr(kind, attribute) for attribute in ("materialize", "cls_to_become")
    )


def _check_input(layer: str, input: Any, dims: tuple[int, ...]) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"[{layer}] input must be a genesis.Tensor, got {type(input).__name__}")
    if input.dim() not in dims:
        wanted = " or ".join(f"{d}D" for d in dims)
        raise RuntimeError(
            f"[{layer}] expected {wanted} input to infer its size from, got input of shape "
            f"{tuple(input.shape)}"
        )


class LazyModuleMixin:
    """The mixin of lazy modules (Note [Lazy modules]): their parameters take their shape from
    the first input, then the module becomes ``cls_to_become``.

    A lazy class lists the mixin first (``class LazyLinear(LazyModuleMixin, Linear)``), creates
    its input-dependent parameters as :class:`~genesis.nn.UninitializedParameter` (buffers as
    :class:`~genesis.nn.UninitializedBuffer`) and defines ``initialize_parameters(*args)``,
    which materializes them from the forward's arguments and initializes them.

    Example::

        >>> model = genesis.nn.Sequential(genesis.nn.LazyLinear(8), genesis.nn.ReLU(),
        ...                               genesis.nn.LazyLinear(2))
        >>> model[0].has_uninitialized_params()
        True
        >>> model(genesis.randn(3, 5)).shape
        genesis.Size([3, 2])
        >>> model[0]
        Linear(in_features=5, out_features=8, bias=True)
    """

    cls_to_become: type | None = None

    if TYPE_CHECKING:
        # Module's, which every lazy class has: it lists the mixin before its Module class.
        _parameters: dict[str, Parameter | None]
        _buffers: dict[str, Tensor | None]
        _load_state_dict_pre_hooks: OrderedDict[int, Callable[..., None]]

        def register_forward_pre_hook(
            self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
        ) -> RemovableHandle: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The load pre-hook in PyTorch's private form, hook(state_dict, prefix, ...), without the
        # module argument. Both hooks are kept by id, not by handle: a handle refers to its dict
        # weakly, so it would neither pickle nor follow a deep copy to the copy's dicts.
        load_hook = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[load_hook.id] = self._lazy_load_hook
        self._load_hook_id = load_hook.id
        self._initialize_hook_id = self.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True
        ).id

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer of this module is still a placeholder."""
        tensors = itertools.chain(self._parameters.values(), self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materializes and initializes the placeholders from the forward's arguments; each
        lazy class defines it."""
        raise NotImplementedError(
            f"[{type(self).__name__}] initialize_parameters is not implemented"
        )

    def _infer_parameters(self, module: Any, args: tuple, kwargs: dict | None = None) -> None:
        """The forward pre-hook of the first call: initialize, unhook, change class."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"[{module._get_name()}] module has not been fully initialized")
        module._forward_pre_hooks.pop(module._initialize_hook_id, None)
        module._forward_pre_hooks_with_kwargs.pop(module._initialize_hook_id, None)
        module._load_state_dict_pre_hooks.pop(module._load_hook_id, None)
        del module._initialize_hook_id
        del module._load_hook_id
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _lazy_load_hook(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        """load_state_dict pre-hook: a placeholder whose checkpoint entry is a tensor is
        materialized to that tensor's shape, so the entry is then copied in as usual."""
        tensors = itertools.chain(self._parameters.items(), self._buffers.items())
        for name, current in tensors:
            value = state_dict.get(prefix + name)
            if (
                is_lazy(current)
                and not _is_placeholder(value)
                and value is not None  # (None has no shape either)
                and hasattr(value, "shape")
            ):
                with no_grad():
                    current.materialize(tuple(value.shape))

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        # A placeholder entry for a tensor that is still a placeholder has nothing to load (both
        # stay uninitialized, as in PyTorch). Module's loading compares shapes, which
        # placeholders have none of, so such pairs are set aside while it runs.
        # (dict[str, Any]: one loop over the two stores, whose value types differ)
        stores: tuple[dict[str, Any], ...] = (self._parameters, self._buffers)
        aside = [
            (store, name, current)
            for store in stores
            for name, current in store.items()
            if is_lazy(current) and _is_placeholder(state_dict.get(prefix + name))
        ]
        if aside:
            skipped = {prefix + name for _, name, _ in aside}
            state_dict = {k: v for k, v in state_dict.items() if k not in skipped}
            for store, name, _ in aside:
                store[name] = None
        try:
            # The mixin's super() is the lazy class's Module class, which mypy cannot see here.
            super()._load_from_state_dict(  # type: ignore[misc]
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        finally:
            for store, name, current in aside:
                store[name] = current


# -- Linear -------------------------------------------------------------------------------------


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`~genesis.nn.Linear` whose ``in_features`` is the last dimension of the first
    input; at that first call it becomes a ``Linear``.

    Args:
        out_features (int): size of each output sample.
        bias (bool): whether to learn an additive bias. Default: True.
        device, dtype: where and in which dtype the parameters will be made.

    The weight and bias are :class:`~genesis.nn.UninitializedParameter` until the first call,
    then initialized as ``Linear``'s (U(-1/sqrt(in_features), 1/sqrt(in_features))).

    Example::

        >>> layer = genesis.nn.LazyLinear(2)
        >>> layer
        LazyLinear(in_features=0, out_features=2, bias=True)
        >>> layer(genesis.randn(3, 4)).shape
        genesis.Size([3, 2])
        >>> layer
        Linear(in_features=4, out_features=2, bias=True)
    """

    cls_to_become = Linear

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(0, 0, False)  # no bias: it would be replaced at once
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """Linear's initialization, once the parameters have their shape."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Takes ``in_features`` from the input's last dimension and initializes the weight
        and bias (a layer loaded from a state_dict takes it from the loaded weight)."""
        if self.has_uninitialized_params():
            if not isinstance(input, Tensor):
                _check_input("LazyLinear", input, ())
            if input.dim() == 0:
                raise RuntimeError(
                    "[LazyLinear] expected input with at least 1 dimension to take in_features "
                    "from, got a 0-d tensor"
                )
            with no_grad():
                self.in_features = input.shape[-1]
                # Placeholders until now (has_uninitialized_params), whatever Linear declares.
                weight = cast(UninitializedParameter, self.weight)
                weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    cast(UninitializedParameter, self.bias).materialize((self.out_features,))
                self.reset_parameters()
        elif self.in_features == 0:
            self.in_features = self.weight.shape[-1]


# -- Convolutions -------------------------------------------------------------------------------


class _LazyConvXdMixin(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` from the first input's channel
    dimension (dim 1 of a batched input, dim 0 of an unbatched one)."""

    _nd: int
    transposed: bool
    groups: int
    in_channels: int
    out_channels: int
    kernel_size: tuple
    # _ConvNd's (Parameters; bias None where the layer has none): placeholders until the first call.
    weight: Parameter
    bias: Parameter

    def reset_parameters(self) -> None:
        """The convolution's initialization, once the parameters have their shape."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            # super(): the lazy class's _ConvNd (mixin listed first), which mypy cannot see here.
            super().reset_parameters()  # type: ignore[misc]

    def _check_out_channels(self) -> None:
        if self.out_channels % self.groups != 0:
            raise ValueError(f"[{type(self).__name__}] out_channels must be divisible by groups")

    def _get_in_channels(self, input: Tensor) -> int:
        n = self._nd + 1  # the channel dim and the spatial dims
        _check_input(type(self).__name__, input, (n, n + 1))
        return input.shape[1] if input.dim() == n + 1 else input.shape[0]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """Takes ``in_channels`` from the input and initializes the weight and bias (a layer
        loaded from a state_dict takes it from the loaded weight)."""
        weight = self.weight
        if self.has_uninitialized_params():
            in_channels = self._get_in_channels(input)
            if in_channels % self.groups != 0:
                raise ValueError(
                    f"[{type(self).__name__}] in_channels must be divisible by groups, got "
                    f"{in_channels} input channels and groups={self.groups}"
                )
            self.in_channels = in_channels
            if self.transposed:
                shape = (in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, in_channels // self.groups, *self.kernel_size)
            with no_grad():
                # Placeholders until now (has_uninitialized_params), whatever _ConvNd declares.
                cast(UninitializedParameter, weight).materialize(shape)
                if self.bias is not None:
                    cast(UninitializedParameter, self.bias).materialize((self.out_channels,))
                self.reset_parameters()
        elif self.in_channels == 0:
            self.in_channels = weight.shape[0] if self.transposed else weight.shape[1] * self.groups


class _LazyConv(_LazyConvXdMixin):
    def __init__(
        self,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        # in_channels and out_channels 0 and no bias: the parameters are replaced at once.
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        self._check_out_channels()
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(
        self,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            0,
            0,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            False,
            dilation,
            padding_mode,
        )
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        self._check_out_channels()
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """A :class:`~genesis.nn.Conv1d` whose ``in_channels`` is the channel dimension of the
    first input ((N, C, L) or (C, L)); at that first call it becomes a ``Conv1d``.

    Args: out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', device, dtype: as ``Conv1d``'s. The weight and bias are
    :class:`~genesis.nn.UninitializedParameter` until the first call, then initialized as
    ``Conv1d``'s.

    Example::

        >>> conv = genesis.nn.LazyConv1d(4, 3)
        >>> conv(genesis.zeros(1, 2, 10)).shape
        genesis.Size([1, 4, 8])
        >>> conv
        Conv1d(2, 4, kernel_size=(3,), stride=(1,))
    """

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A :class:`~genesis.nn.Conv2d` whose ``in_channels`` is the channel dimension of the
    first input ((N, C, H, W) or (C, H, W)); at that first call it becomes a ``Conv2d``.

    Args: as :class:`LazyConv1d`'s (``Conv2d``'s without ``in_channels``).

    Example::

        >>> conv = genesis.nn.LazyConv2d(8, 3, padding=1)
        >>> conv(genesis.zeros(2, 3, 16, 16)).shape
        genesis.Size([2, 8, 16, 16])
        >>> conv.weight.shape
        genesis.Size([8, 3, 3, 3])
    """

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """A :class:`~genesis.nn.Conv3d` whose ``in_channels`` is the channel dimension of the
    first input ((N, C, D, H, W) or (C, D, H, W)); at that first call it becomes a ``Conv3d``.

    Args: as :class:`LazyConv1d`'s (``Conv3d``'s without ``in_channels``).

    Example::

        >>> genesis.nn.LazyConv3d(2, 2)(genesis.zeros(1, 1, 3, 3, 3)).shape
        genesis.Size([1, 2, 2, 2, 2])
    """

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A :class:`~genesis.nn.ConvTranspose1d` whose ``in_channels`` is the channel dimension
    of the first input; at that first call it becomes a ``ConvTranspose1d``.

    Args: out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
    bias=True, dilation=1, padding_mode='zeros', device, dtype: as ``ConvTranspose1d``'s. The
    weight is (in_channels, out_channels / groups, k) once materialized.

    Example::

        >>> deconv = genesis.nn.LazyConvTranspose1d(3, 2, stride=2)
        >>> deconv(genesis.zeros(1, 2, 4)).shape
        genesis.Size([1, 3, 8])
        >>> deconv.weight.shape
        genesis.Size([2, 3, 2])
    """

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A :class:`~genesis.nn.ConvTranspose2d` whose ``in_channels`` is the channel dimension
    of the first input; at that first call it becomes a ``ConvTranspose2d``.

    Args: as :class:`LazyConvTranspose1d`'s.

    Example::

        >>> deconv = genesis.nn.LazyConvTranspose2d(2, 2, stride=2)
        >>> deconv(genesis.zeros(1, 4, 5, 5)).shape
        genesis.Size([1, 2, 10, 10])
    """

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A :class:`~genesis.nn.ConvTranspose3d` whose ``in_channels`` is the channel dimension
    of the first input; at that first call it becomes a ``ConvTranspose3d``.

    Args: as :class:`LazyConvTranspose1d`'s.

    Example::

        >>> genesis.nn.LazyConvTranspose3d(1, 2)(genesis.zeros(1, 1, 2, 2, 2)).shape
        genesis.Size([1, 1, 3, 3, 3])
    """

    cls_to_become = ConvTranspose3d


# -- Normalization ------------------------------------------------------------------------------


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """What the lazy batch and instance norms share: ``num_features`` from the first input's
    channel dimension; weight and bias (``affine``) and the running statistics
    (``track_running_stats``) are placeholders until then."""

    num_features: int

    def __init__(
        self,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        # No parameters or buffers yet: they are placeholders, made below.
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=int64, device=device)

    def reset_parameters(self) -> None:
        """The layer's initialization (weight 1, bias 0, running statistics reset), once the
        parameters and buffers have their shape."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Takes ``num_features`` from the input's channel dimension and initializes the
        parameters and buffers (a layer loaded from a state_dict takes it from them)."""
        self._check_input_dim(input)
        unbatched = isinstance(self, _InstanceNorm) and input.dim() == self._get_no_batch_dim()
        features = input.shape[0 if unbatched else 1]
        if self.has_uninitialized_params():
            self.num_features = features
            with no_grad():
                for t in (self.weight, self.bias, self.running_mean, self.running_var):
                    if is_lazy(t):
                        t.materialize((features,))
                self.reset_parameters()
        elif self.num_features == 0:
            loaded = self.weight if self.weight is not None else self.running_mean
            self.num_features = features if loaded is None else loaded.shape[0]


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """A :class:`~genesis.nn.BatchNorm1d` whose ``num_features`` is dim 1 of the first input
    ((N, C) or (N, C, L)); at that first call it becomes a ``BatchNorm1d``.

    Args:
        eps (float): added to the variance for numerical stability. Default: 1e-5.
        momentum (float or None): the weight of the batch in the running update. Default: 0.1.
        affine (bool): whether to learn ``weight`` and ``bias``. Default: True.
        track_running_stats (bool): whether to keep running estimates. Default: True.
        device, dtype: where and in which dtype the parameters and buffers will be made.
        bias (bool): keyword-only: whether to learn the bias (with ``affine``). Default: True.

    ``weight``, ``bias``, ``running_mean`` and ``running_var`` are placeholders until the first
    call, then initialized as ``BatchNorm1d``'s (ones, zeros, zeros, ones).

    Example::

        >>> bn = genesis.nn.LazyBatchNorm1d()
        >>> bn(genesis.randn(8, 3)).shape
        genesis.Size([8, 3])
        >>> bn
        BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """A :class:`~genesis.nn.BatchNorm2d` whose ``num_features`` is dim 1 of the first
    (N, C, H, W) input; at that first call it becomes a ``BatchNorm2d``.

    Args: as :class:`LazyBatchNorm1d`'s.

    Example::

        >>> bn = genesis.nn.LazyBatchNorm2d()
        >>> bn(genesis.randn(2, 3, 4, 4)).shape
        genesis.Size([2, 3, 4, 4])
    """

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    """A :class:`~genesis.nn.BatchNorm3d` whose ``num_features`` is dim 1 of the first
    (N, C, D, H, W) input; at that first call it becomes a ``BatchNorm3d``.

    Args: as :class:`LazyBatchNorm1d`'s.

    Example::

        >>> bn = genesis.nn.LazyBatchNorm3d()
        >>> bn(genesis.randn(2, 3, 2, 2, 2)).shape
        genesis.Size([2, 3, 2, 2, 2])
    """

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    """An :class:`~genesis.nn.InstanceNorm1d` whose ``num_features`` is the channel dimension
    of the first input ((N, C, L) or (C, L)); at that first call it becomes an
    ``InstanceNorm1d``.

    Args: as :class:`LazyBatchNorm1d`'s. As in PyTorch, ``affine`` and ``track_running_stats``
    default to True here, unlike ``InstanceNorm1d``'s.

    Example::

        >>> norm = genesis.nn.LazyInstanceNorm1d(affine=False, track_running_stats=False)
        >>> norm(genesis.randn(2, 3, 5)).shape
        genesis.Size([2, 3, 5])
        >>> type(norm).__name__, norm.num_features
        ('InstanceNorm1d', 3)
    """

    cls_to_become = InstanceNorm1d
    _NAME = "LazyInstanceNorm1d"


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    """An :class:`~genesis.nn.InstanceNorm2d` whose ``num_features`` is the channel dimension
    of the first input ((N, C, H, W) or (C, H, W)); at that first call it becomes an
    ``InstanceNorm2d``.

    Args: as :class:`LazyInstanceNorm1d`'s.

    Example::

        >>> norm = genesis.nn.LazyInstanceNorm2d()
        >>> norm(genesis.randn(2, 3, 4, 4)).shape
        genesis.Size([2, 3, 4, 4])
        >>> norm.weight.shape
        genesis.Size([3])
    """

    cls_to_become = InstanceNorm2d
    _NAME = "LazyInstanceNorm2d"


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    """An :class:`~genesis.nn.InstanceNorm3d` whose ``num_features`` is the channel dimension
    of the first input ((N, C, D, H, W) or (C, D, H, W)); at that first call it becomes an
    ``InstanceNorm3d``.

    Args: as :class:`LazyInstanceNorm1d`'s.

    Example::

        >>> norm = genesis.nn.LazyInstanceNorm3d()
        >>> norm(genesis.randn(2, 3, 2, 2, 2)).shape
        genesis.Size([2, 3, 2, 2, 2])
    """

    cls_to_become = InstanceNorm3d
    _NAME = "LazyInstanceNorm3d"
