"""Docstrings of genesis.device (csrc/python/device.cpp)."""

DEVICE_INIT_TEXT = """\
Makes a device from ``"cpu"``, ``"cuda"`` or ``"cuda:N"``."""

DEVICE_INIT_INDEX = """\
Makes a device from a type and an index: ``device("cuda", 1)`` is ``cuda:1``."""

DEVICE_INIT_COPY = """\
Makes a copy of another device."""

DOCS = {
    "DeviceType": """\
The kind of a device: cpu or cuda (internal; genesis.device.type gives it as a string).""",
    "device": """\
A device that tensors live on: the CPU or one CUDA GPU.

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
""",
    "device.type": """\
The kind of device, ``'cpu'`` or ``'cuda'``.

Example::

    >>> genesis.device("cuda:0").type
    'cuda'
""",
    "device.index": """\
The CUDA device index, or None (for the CPU, and for ``device("cuda")`` without one).

Example::

    >>> genesis.device("cuda:2").index, genesis.device("cpu").index
    (2, None)
""",
    "device.__str__": """\
str(device): ``'cpu'``, ``'cuda'`` or ``'cuda:N'``, the form the constructor takes.""",
    "device.__repr__": "repr(device): ``device(type='cuda', index=0)``, as PyTorch prints it.",
    "device.__eq__": """\
device == other: equal to a device of the same type and index, or to its string.""",
    "device.__hash__": "hash(device): from the type and index.",
    "device.__reduce__": "Pickling support: a device is rebuilt from its string.",
    "device.__init__": (DEVICE_INIT_TEXT, DEVICE_INIT_INDEX, DEVICE_INIT_COPY),
}
