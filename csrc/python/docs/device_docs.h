#pragma once
// Docstrings of genesis.device (csrc/python/device.cpp).

namespace genesis::python::docs {

inline constexpr const char* kDeviceType =
    "The kind of a device: cpu or cuda (internal; genesis.device.type gives it as a string).";

inline constexpr const char* kDevice =
    R"doc(A device that tensors live on: the CPU or one CUDA GPU.

``device("cpu")``, ``device("cuda")`` (the current GPU), ``device("cuda:1")`` and
``device("cuda", 1)`` make one; ``device(d)`` copies another. Wherever genesis takes a device
it also takes the string, or an int meaning that CUDA device (``device=1`` is ``"cuda:1"``). A
CUDA tensor's device always has an index: ``device="cuda"`` becomes
``cuda:<current device>``. Making a device object never touches the GPU. Unlike PyTorch, a
device compares equal to its string (``device("cpu") == "cpu"``). Devices pickle.

Args:
    type (str or genesis.device): ``"cpu"``, ``"cuda"`` or ``"cuda:N"``, or a device to copy.
    index (int, optional): the CUDA device index, when ``type`` is ``"cuda"`` without one.

Example::

    >>> d = genesis.device("cuda:1")
    >>> d
    device(type='cuda', index=1)
    >>> d.type, d.index, str(d)
    ('cuda', 1, 'cuda:1')
    >>> genesis.device("cuda", 1) == d == "cuda:1"
    True
    >>> genesis.zeros(2).device == genesis.device("cpu")
    True
)doc";

inline constexpr const char* kDeviceInitText =
    R"doc(Makes a device from ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.)doc";
inline constexpr const char* kDeviceInitIndex =
    R"doc(Makes a device from a type and an index: ``device("cuda", 1)`` is ``cuda:1``.)doc";
inline constexpr const char* kDeviceInitCopy = R"doc(Makes a copy of another device.)doc";

inline constexpr const char* kDeviceTypeAttr = R"doc(The kind of device, ``'cpu'`` or ``'cuda'``.

Example::

    >>> genesis.device("cuda:0").type
    'cuda'
)doc";

inline constexpr const char* kDeviceIndex =
    R"doc(The CUDA device index, or None (for the CPU, and for ``device("cuda")`` without one).

Example::

    >>> genesis.device("cuda:2").index, genesis.device("cpu").index
    (2, None)
)doc";

inline constexpr const char* kDeviceStr =
    R"doc(str(device): ``'cpu'``, ``'cuda'`` or ``'cuda:N'``, the form the constructor takes.)doc";
inline constexpr const char* kDeviceRepr =
    R"doc(repr(device): ``device(type='cuda', index=0)``, as PyTorch prints it.)doc";
inline constexpr const char* kDeviceEq =
    R"doc(device == other: equal to a device of the same type and index, or to its string.)doc";
inline constexpr const char* kDeviceHash = R"doc(hash(device): from the type and index.)doc";
inline constexpr const char* kDeviceReduce =
    R"doc(Pickling support: a device is rebuilt from its string.)doc";

}  // namespace genesis::python::docs
