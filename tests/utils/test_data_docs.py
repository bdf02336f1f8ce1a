"""genesis.utils.data's public names pass the project's docstring rules (tests/project/
test_docstrings.py: prose, Args with defaults, Returns, an Example:: whose doctest runs), and
the package exports torch.utils.data's names."""

import inspect

import pytest
import test_docstrings as rules  # tests/project, on sys.path through tests/conftest.py

import genesis.utils.data as data
from genesis.utils.data import collate, dataset, distributed, sampler

MODULES = [data, collate, dataset, distributed, sampler]


def _public():
    found = {}
    for module in MODULES:
        for qualname, obj in rules._exported(module):
            if qualname.rsplit(".", 1)[-1] in module.__all__:  # not what a module imports
                found.setdefault(id(obj), (qualname, obj))
    members = [
        m for q, obj in found.values() if inspect.isclass(obj) for m in rules._members(q, obj)
    ]
    return sorted([*found.values(), *members], key=lambda item: item[0])


PUBLIC = _public()
DOCUMENTED = PUBLIC + [(m.__name__, m) for m in MODULES]


def test_public_names_are_found():
    names = {q.rsplit(".", 1)[-1] for q, _ in PUBLIC}
    assert {"DataLoader", "set_epoch", "default_collate", "num_samples", "cumsum"} <= names


@pytest.mark.parametrize("qualname, obj", PUBLIC, ids=[q for q, _ in PUBLIC])
def test_docstring(qualname, obj):
    rules.test_docstring(qualname, obj)


@pytest.mark.parametrize("qualname, obj", DOCUMENTED, ids=[q for q, _ in DOCUMENTED])
def test_examples_run(qualname, obj):
    rules.test_examples_run(qualname, obj)


def test_exports_torch_utils_data_names():
    torch_data = pytest.importorskip("torch.utils.data")
    datapipes = {
        "DFIterDataPipe",
        "DataChunk",
        "IterDataPipe",
        "MapDataPipe",
        "argument_validation",
        "functional_datapipe",
        "guaranteed_datapipes_determinism",
        "non_deterministic",
        "runtime_validation",
        "runtime_validation_disabled",
    }  # the deprecated DataPipes, left out
    wanted = {n for n in torch_data.__all__ if not n.startswith("_")} - datapipes
    assert wanted == set(data.__all__)


def test_signatures_match_torch():
    torch_data = pytest.importorskip("torch.utils.data")
    for name in data.__all__:
        mine, theirs = getattr(data, name), getattr(torch_data, name)
        if inspect.isclass(mine) and "__init__" not in vars(mine):
            continue
        want = inspect.signature(theirs).parameters
        got = inspect.signature(mine).parameters
        assert list(got) == list(want), name
        for p in want.values():
            if p.default is not inspect.Parameter.empty and name != "random_split":
                assert got[p.name].default == p.default, (name, p.name)
            assert got[p.name].kind == p.kind, (name, p.name)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_help_reads_well(module):
    rules.test_help_hides_internal_names(module)
    if any(inspect.isfunction(getattr(module, name)) for name in module.__all__):
        rules.test_help_has_no_method_of_label(module)  # it reads the FUNCTIONS section
