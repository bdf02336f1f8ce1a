"""tools/stubgen reads only pybind11's signature lines, so docstrings can grow prose freely."""

import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent.parent / "tools"
if not (TOOLS / "stubgen").is_dir():
    pytest.skip("tools/ is not next to this tests/ directory", allow_module_level=True)
sys.path.insert(0, str(TOOLS))

from stubgen.signatures import Param, parse, signatures  # noqa: E402


def test_one_signature_with_and_without_prose():
    line = "add(self: genesis._C.Tensor, other: object, *, alpha: object = None) -> Tensor"
    bare = signatures("add", line + "\n")
    prose = signatures("add", line + "\n\nAdds other (times alpha).\n\nadd(x) -> y is not one.\n")
    assert bare == prose
    (sig,) = bare
    assert [p.name for p in sig.params] == ["self", "other", "*", "alpha"]
    assert sig.params[3] == Param("alpha", "object", "None")
    assert sig.returns == "Tensor"


def test_overloads_with_prose():
    doc = (
        "size(*args, **kwargs)\nOverloaded function.\n\n"
        "1. size(self: genesis._C.Tensor) -> tuple\n\nThe shape.\n\n"
        "2. size(self: genesis._C.Tensor, dim: typing.SupportsInt) -> int\n\n"
        "The size of dimension dim:\n\n    size(1) -> 3 for a (2, 3) tensor\n"
    )
    one, two = signatures("size", doc)
    assert one.returns == "tuple" and two.returns == "int"
    assert two.params[1] == Param("dim", "typing.SupportsInt")


def test_brackets_quotes_and_defaults_do_not_split_parameters():
    sig = parse("(a: dict[str, tuple[int, int]], b: str = 'x, y=(z', *args, **kwargs) -> None")
    assert sig.params == (
        Param("a", "dict[str, tuple[int, int]]"),
        Param("b", "str", "'x, y=(z'"),
        Param("*args"),
        Param("**kwargs"),
    )


def test_a_docstring_without_a_signature_is_an_error():
    with pytest.raises(ValueError, match="no pybind11 signature"):
        signatures("f", "Just prose.")
    with pytest.raises(ValueError, match="no pybind11 signature"):
        signatures("f", None)
