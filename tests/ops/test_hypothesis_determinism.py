"""A derandomized Hypothesis test draws the same examples whatever the checkout's modules hold
(tests/hypothesis_constants.py says why they could differ)."""

import importlib
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

PROBE = "local_constants_probe"


def drawn():
    values = []

    @settings(derandomize=True, max_examples=200, database=None)
    @given(st.integers(0, 2**32 - 1), st.floats(0, 1), st.text(max_size=4))
    def record(i, f, s):
        values.append((i, f, s))

    record()
    return values


def test_constants_of_a_newly_imported_module_do_not_change_the_examples(tmp_path, monkeypatch):
    before = drawn()
    # A module of the checkout (outside site-packages and tests/) whose constants fit the draws.
    (tmp_path / f"{PROBE}.py").write_text('A = 123457\nB = 987654\nC = 0.375\nD = "genesis"\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module(PROBE)
        assert drawn() == before
    finally:
        sys.modules.pop(PROBE, None)
