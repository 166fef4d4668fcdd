"""Each game's ``MOVES``: one kind per move class, each holding its own move class.

The type checker binds a kind's verifier and ``do_*`` to its move and plan
types where the kind is made (tests/test_types.py plants a mismatched pair);
these check what it cannot: every move of a game has its kind, under its own
class, and a kind given another class's move refuses it.
"""

from __future__ import annotations

import pytest

from quackbox.core.quack import moves as quack_moves
from quackbox.core.quack import rules as quack_rules
from quackbox.core.rules import MalformedMove, move_kind, move_table
from quackbox.core.side_effects import RULES, EndTurn, Treat, legal
from quackbox.core.side_effects import moves as se_moves
from quackbox.core.side_effects import rules as se_rules


@pytest.mark.parametrize(
    "table,move_types",
    [(se_rules.MOVES, se_moves.MOVE_TYPES), (quack_rules.MOVES, quack_moves.MOVE_TYPES)],
    ids=["side-effects", "quack"],
)
def test_every_move_has_its_kind_under_its_own_class(table, move_types) -> None:
    assert set(table) == set(move_types)
    assert all(kind.move is cls for cls, kind in table.items())


def test_a_kind_refuses_a_move_of_another_class() -> None:
    """A kind verifies only its own moves (MOVES looks it up by the move's class, so
    this never happens there): another's is malformed, not handed to its verifier."""
    state = RULES.new_game(seats=2, seed=1)
    with pytest.raises(MalformedMove, match="is not a Treat move"):
        se_rules.MOVES[Treat].check(state, state.current, EndTurn())


def test_a_table_takes_one_kind_per_move_class() -> None:
    end_turn = move_kind(EndTurn, legal.verify_end_turn, se_rules.do_end_turn)
    with pytest.raises(ValueError, match="two kinds of move for EndTurn"):
        move_table(end_turn, end_turn)
