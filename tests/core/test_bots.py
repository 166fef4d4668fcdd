"""The one "choose or react" rule (core.bots.decide) and the order a table of bots is asked in (next_move)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from quackbox.core.bots import Bot, GameStalled, decide, first_reaction, next_move


@dataclass(frozen=True)
class FakeView:
    seat: int | None
    legal: tuple = ("a", "b")
    waiting_for: tuple = (0,)
    outcome: object = None


class Recorder(Bot):
    """A bot that says which call it got."""

    name = "recorder"

    def __init__(self, reacts: bool = True, reaction: object = "reacted") -> None:
        self.reacts = reacts
        self.reaction = reaction
        self.calls: list[str] = []

    def choose(self, view):
        self.calls.append("choose")
        return "chosen"

    def react(self, view):
        self.calls.append("react")
        return self.reaction


def test_a_seat_waited_for_chooses():
    bot = Recorder()
    assert decide(bot, FakeView(seat=0)) == "chosen" and bot.calls == ["choose"]


def test_a_seat_not_waited_for_may_react():
    bot = Recorder()
    assert decide(bot, FakeView(seat=1)) == "reacted" and bot.calls == ["react"]


def test_a_bot_that_never_reacts_is_not_asked_to():
    bot = Recorder(reacts=False)
    assert decide(bot, FakeView(seat=1)) is None and bot.calls == []


@pytest.mark.parametrize(
    "view",
    [FakeView(seat=None), FakeView(seat=0, outcome="over"), FakeView(seat=0, legal=())],
    ids=["spectator", "game over", "no legal move"],
)
def test_nothing_to_decide(view):
    bot = Recorder()
    assert decide(bot, view) is None and bot.calls == []


class FakeRules:
    """Just enough of the rules interface for the order of asking: seat 0 is
    waited for; ``legal`` says which seats have a legal move."""

    def __init__(self, waiting=(0,), legal=(0, 1, 2)) -> None:
        self.waiting = waiting
        self.legal = legal

    def waiting_for(self, state):
        return self.waiting

    def legal_moves(self, state, seat):
        return ("m",) if seat in self.legal else ()

    def view(self, state, seat):
        return FakeView(seat=seat, legal=self.legal_moves(state, seat), waiting_for=self.waiting)

    def views(self, state, seats):
        return tuple(self.view(state, seat) for seat in seats)


def test_a_reaction_goes_before_the_seat_waited_for():
    bots = [Recorder(), Recorder(reaction=None), Recorder()]
    assert next_move(FakeRules(), None, bots) == (2, "reacted")
    assert bots[0].calls == [] and bots[1].calls == ["react"]


def test_without_a_reaction_the_first_seat_waited_for_chooses():
    bots = [Recorder(), Recorder(reaction=None), Recorder(reacts=False)]
    assert next_move(FakeRules(waiting=(0, 1)), None, bots) == (0, "chosen")


def test_seats_with_no_legal_move_are_not_asked_to_react():
    bots = {0: Recorder(), 1: Recorder()}
    assert first_reaction(FakeRules(legal=(0,)), None, bots) is None
    assert bots[1].calls == []


def test_a_game_waiting_for_nobody_has_stalled():
    with pytest.raises(GameStalled):
        next_move(FakeRules(waiting=()), None, [Recorder()])
    with pytest.raises(GameStalled, match="seat 1"):
        next_move(FakeRules(legal=()), None, [Recorder()])


def test_heuristic_bots_do_not_lock_the_hoarding_seed():
    """Issue 17: with this seed four heuristic bots once played past turn 7,878:
    one seat hoarded all five Therapy cards while the rest kept it sitting out
    under a pile of Depression skips, and two seats whose last Disorder was
    Anorexia could never get a Therapy. The game must end."""
    from quackbox.core import side_effects as se
    from quackbox.core.play import play_game
    from quackbox.core.side_effects.bot import SideEffectsBot

    gs = 2429950868
    record = play_game(se.RULES, [SideEffectsBot(gs * 16 + s) for s in range(4)], seed=gs, max_moves=5_000)
    assert record.outcome is not None and record.outcome.winners
    assert record.state.turn < 500


def test_a_spare_therapy_is_played_and_a_long_skip_not_stacked():
    """The two habits behind that lock: Therapy kept back when there is more than
    the Psyche needs held in hand, and Depression piled on a seat that already sits out."""
    from quackbox.core import side_effects as se
    from quackbox.core.side_effects.bot import SideEffectsBot
    from tests.core.se_helpers import table

    state = table(
        2,
        hands={0: ["Therapy", "Therapy", "Therapy", "Therapy", "Therapy"], 1: []},
        psyches={0: ["Anxiety", "Impotence", "Madness", "Depression"], 1: ["Tremors"]},
    )
    move = SideEffectsBot(1).choose(se.RULES.view(state, 0))
    assert isinstance(move, se.PlayTherapy)
    state = table(2, hands={0: ["Episode"], 1: []}, psyches={0: ["Tremors", "Anorexia"], 1: ["Depression"]})
    assert isinstance(SideEffectsBot(1).choose(se.RULES.view(state, 0)), se.PlayEpisode)
    state.skips[1] = 5
    assert not isinstance(SideEffectsBot(1).choose(se.RULES.view(state, 0)), se.PlayEpisode)
