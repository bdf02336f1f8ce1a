"""Sequential, ModuleList, ModuleDict, ParameterList and ParameterDict against torch.nn: indexing,
slicing, mutation, naming, iteration, repr and state_dict keys."""

from collections import OrderedDict

import pytest

import genesis
import genesis.nn as nn

torch = pytest.importorskip("torch")


def _names(module):
    return [k for k, _ in module.named_parameters()]


def _same_structure(g, t):
    assert _names(g) == _names(t)
    assert list(g.state_dict()) == list(t.state_dict())
    assert repr(g).replace("genesis.", "torch.") == repr(t)


def test_sequential_matches_torch():
    def build(lib):
        return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Identity(), lib.nn.Linear(3, 1))

    g, t = build(genesis), build(torch)
    _same_structure(g, t)
    assert len(g) == 3 and isinstance(g[-1], nn.Linear) and g[-1] is g[2]
    sliced = g[1:]
    assert isinstance(sliced, nn.Sequential) and len(sliced) == 2 and sliced[1] is g[2]
    assert list(sliced._modules) == list(t[1:]._modules)
    with pytest.raises(IndexError, match="out of range"):
        g[3]
    for ops in (
        lambda s, lib: s.append(lib.nn.Identity()),
        lambda s, lib: s.insert(1, lib.nn.Identity()),
        lambda s, lib: s.__delitem__(0),
        lambda s, lib: s.extend([lib.nn.Identity()]),
        lambda s, lib: s.pop(-1),
    ):
        ops(g, genesis)
        ops(t, torch)
        _same_structure(g, t)
    named = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Identity())]))
    assert _names(named) == ["fc.weight", "fc.bias"] and named.fc is named[0]
    assert len(g + named) == len(g) + 2
    assert len(nn.Sequential(nn.Identity()) * 3) == 3
    with pytest.raises(ValueError, match="only objects of Sequential"):
        g + nn.Identity()
    x = genesis.randn(4, 2)
    fc = nn.Linear(2, 5)
    genesis.testing.assert_close(nn.Sequential(fc, nn.Identity())(x), fc(x))
    assert nn.Sequential()(x) is x


def test_module_list_matches_torch():
    def build(lib):
        return lib.nn.ModuleList([lib.nn.Linear(2, 2) for _ in range(3)])

    g, t = build(genesis), build(torch)
    _same_structure(g, t)
    g.append(nn.Linear(2, 3))
    t.append(torch.nn.Linear(2, 3))
    _same_structure(g, t)
    g.insert(0, nn.Identity())
    t.insert(0, torch.nn.Identity())
    _same_structure(g, t)
    del g[1]
    del t[1]
    _same_structure(g, t)
    g[0] = nn.Linear(2, 4)
    t[0] = torch.nn.Linear(2, 4)
    _same_structure(g, t)
    assert isinstance(g[1:], nn.ModuleList) and len(g[1:]) == len(g) - 1
    g += [nn.Identity()]
    t += [torch.nn.Identity()]
    _same_structure(g, t)
    assert len(g + g) == 2 * len(g)
    assert [type(m).__name__ for m in g] == [type(m).__name__ for m in t]
    with pytest.raises(TypeError, match="should be called with an iterable"):
        g.extend(nn.Linear(1, 1))
    with pytest.raises(IndexError):
        g[10]


def test_module_list_repr_folds_repeats_like_torch():
    g = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.Identity()])
    t = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)] + [torch.nn.Identity()])
    assert repr(g) == repr(t)
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())


def test_module_dict_matches_torch():
    def build(lib):
        return lib.nn.ModuleDict({"b": lib.nn.Linear(2, 2), "a": lib.nn.Identity()})

    g, t = build(genesis), build(torch)
    _same_structure(g, t)
    assert list(g.keys()) == list(t.keys()) and "a" in g and len(g) == 2
    g["c"] = nn.Linear(1, 1)
    t["c"] = torch.nn.Linear(1, 1)
    _same_structure(g, t)
    assert type(g.pop("b")).__name__ == "Linear"
    t.pop("b")
    _same_structure(g, t)
    g.update([("d", nn.Identity())])
    t.update([("d", torch.nn.Identity())])
    _same_structure(g, t)
    with pytest.raises(ValueError, match="should be a pair"):
        g.update([1])
    g.clear()
    assert len(g) == 0


def test_parameter_list_and_dict_match_torch():
    gl = nn.ParameterList([genesis.zeros(2), nn.Parameter(genesis.ones(3, 2))])
    tl = torch.nn.ParameterList([torch.zeros(2), torch.nn.Parameter(torch.ones(3, 2))])
    assert _names(gl) == _names(tl) and len(gl) == 2
    assert all(isinstance(p, nn.Parameter) for p in gl)
    assert repr(gl).replace("genesis.", "torch.") == repr(tl)
    gl.append(genesis.zeros(1))
    assert len(gl) == 3 and _names(gl) == ["0", "1", "2"]
    gd = nn.ParameterDict({"w": genesis.zeros(2), "a": genesis.ones(1)})
    td = torch.nn.ParameterDict({"w": torch.zeros(2), "a": torch.ones(1)})
    assert list(gd.keys()) == list(td.keys()) and _names(gd) == _names(td)
    # torch names the legacy tensor type here (torch.FloatTensor); genesis names the dtype
    assert repr(gd).replace("genesis.", "torch.") == repr(td).replace("FloatTensor", "float32")
    assert isinstance(gd["w"], nn.Parameter) and "w" in gd and gd.get("zz") is None
    del gd["w"]
    assert list(gd.keys()) == ["a"] and _names(gd) == ["a"]
    with pytest.raises(KeyError):
        gd["w"]

    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([genesis.zeros(2)])

    assert _names(Holder()) == ["ps.0"]
