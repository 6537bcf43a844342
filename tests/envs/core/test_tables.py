"""The tables' bookkeeping declared once (`envs.core.tables`): every compiled game's `Tables` keeps the shared
fields with the declared dtypes and shapes after its own, documents them, and a misdeclared table is refused."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import tables
from envs.lama import fast as lama_fast
from envs.primi_composti import fast as primi_fast
from envs.roborally import fast as roborally_fast
from envs.the_game import fast as the_game_fast

N, P = 3, 2
#: Each game's `Tables` built by its `new_tables`, with the seats and parameters a seat it was built for.
BUILT = {
    "lama": (lambda: lama_fast.new_tables(N, 4, P), 4, P),
    "the_game": (lambda: the_game_fast.new_tables(N, 3, 6, P), 3, P),
    "primi_composti": (lambda: primi_fast.new_tables(N, 2, 12), 2, 0),
    "roborally": (lambda: roborally_fast.new_tables(N, 2, 13), 2, 0),
}


@pytest.mark.parametrize("game", sorted(BUILT))
def test_every_game_keeps_the_shared_fields_as_declared(game):
    make, n, p = BUILT[game]
    T = make()
    sizes = {"N": N, "n": n, "P": p}
    own = type(T).game_fields
    shared = T._fields[len(own):]
    assert T._fields[:len(own)] == own
    assert set(tables.SHARED) <= set(shared) <= set(tables.SHARED) | set(tables.OPTIONAL)
    for name in shared:
        field = {**tables.SHARED, **tables.OPTIONAL}[name]
        array = getattr(T, name)
        assert array.dtype == np.dtype(field.dtype), name
        assert array.shape == tuple(sizes[s] for s in field.shape), name
        assert not array.any(), name
        assert f"`{name}`" in type(T).__doc__, name


def test_the_shared_fields_are_documented_once_each():
    doc = lama_fast.Tables.__doc__
    for name, field in {**tables.SHARED, **tables.OPTIONAL}.items():
        assert field.doc in doc, name
    assert "params" not in roborally_fast.Tables._fields and "params" in lama_fast.Tables._fields
    # an optional shared name a game does not keep is its own: Primi Composti's `before` is scratch, one per seat
    assert "before" in primi_fast.Tables.game_fields and primi_fast.new_tables(N, 3, 4).before.shape == (3,)


def test_a_table_type_refuses_an_unknown_optional_field_or_a_clash():
    with pytest.raises(ValueError, match=r"unknown optional table fields \['scores'\]; allowed: \['before', "):
        tables.tables_type(__name__, "A game.", ("hands",), optional=("scores",))
    with pytest.raises(ValueError, match=r"game table fields \['seed'\] are shared bookkeeping fields"):
        tables.tables_type(__name__, "A game.", ("hands", "seed"))
    with pytest.raises(ValueError, match=r"game table fields \['turns'\] are shared"):
        tables.tables_type(__name__, "A game.", ("turns",), optional=("turns",))


def test_new_tables_needs_exactly_the_games_own_fields():
    Tables = tables.tables_type(__name__, "A game.", ("hands", "before"))
    T = tables.new_tables(Tables, 2, 3, hands=np.ones((2, 3), np.int64), before=np.zeros(3))
    assert T.hands.sum() == 6 and T.before.shape == (3,) and T.codes.shape == (2, 3)
    with pytest.raises(ValueError, match=r"needs its game fields \['before', 'hands'\], got \['hands'\]"):
        tables.new_tables(Tables, 2, 3, hands=np.ones((2, 3), np.int64))
    with pytest.raises(ValueError, match=r"got \['before', 'hands', 'seed'\]"):
        tables.new_tables(Tables, 2, 3, hands=np.ones((2, 3)), before=np.zeros(3), seed=np.zeros(2))


@pytest.mark.parametrize("module", [lama_fast, the_game_fast, primi_fast, roborally_fast])
def test_every_game_settings_end_with_the_line_up_fields(module):
    """A game's kernel `Settings` keeps the line-up fields after its own, `line_params` where its kernels read
    opponent parameters (the games whose `Tables` keep `params`), and pickles by name."""
    import pickle

    S = module.Settings
    has_params = "params" in module.Tables._fields
    shared = [f for f in tables.SETTINGS if has_params or f != "line_params"]
    assert list(S._fields[-len(shared):]) == shared
    assert not set(S._fields[:-len(shared)]) & set(tables.SETTINGS)
    assert S.__module__ == module.__name__ and pickle.loads(pickle.dumps(S)) is S
