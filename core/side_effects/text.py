"""Side Effects events as plain sentences for the log, one small function each.

Told from one seat's side: that seat reads "You", everyone else their name
(:class:`quackbox.core.text.Teller`). Cards hidden from the reader were
already emptied by ``redact``, so a sentence names a card only when the
reader may know it. The words of each Episode's punishment are here once
(:func:`punishment_text`), for the log, the table's warning before an
Episode and the rules page alike.
"""

from __future__ import annotations

from typing import Sequence

from quackbox.core.rules import NONE, Event
from quackbox.core.side_effects import moves as se
from quackbox.core.side_effects.cards import Punishment
from quackbox.core.side_effects.moves import DiscardReason, HandDiscardReason, Taking, TradeEnd
from quackbox.core.side_effects.state import STEAL_CARDS, TREMORS_CARDS
from quackbox.core.text import Named, Sentences, Teller, counted

__all__ = ["PUNISHMENTS", "describe", "punishment_text"]

PUNISHMENTS: dict[str, str] = {
    Punishment.DISCARD_DRUGS: "{target} {discard} every Drug on {their} Psyche",
    Punishment.DISCARD_HAND: "{target} {discard} {their} whole hand",
    Punishment.SKIP_TURN: "{target} {sit} out {their} next turn",
    Punishment.TREMORS: f"{{target}} must discard {TREMORS_CARDS} cards in time or lose {{their}} hand",
    Punishment.RANDOM_STEAL: f"{{inflictor}} {{take}} up to {STEAL_CARDS} cards from {{their}} hand at random",
    Punishment.REVEAL_AND_TAKE: "{target} {show} {their} hand to {inflictor_object}, who may take a card",
    Punishment.NO_PLAY: "{target} may not play cards on {their} next turn",
    Punishment.NO_DRAW: "{target} {draw} nothing on {their} next turn",
}
"""SE7: what each Episode's punishment does, with the target and the one who
played it (the inflictor) to be named; the counts are the rules' own."""


def punishment_text(
    punishment: str,
    *,
    target: str,
    their: str,
    inflictor: str,
    inflictor_object: str,
    target_plural: bool,
    inflictor_plural: bool,
) -> str:
    """The punishment in words: ``target`` (a name, "You" or "they") and
    ``their`` its possessive, ``inflictor`` and ``inflictor_object`` the one
    who played the Episode; the ``*_plural`` flags pick the verbs that agree
    with "you" or "they" rather than a name."""
    text = PUNISHMENTS.get(punishment)
    if text is None:
        return punishment

    def verb(plain: str, plural: bool) -> str:
        return plain if plural else plain + "s"

    return text.format(
        target=target,
        their=their,
        inflictor=inflictor,
        inflictor_object=inflictor_object,
        discard=verb("discard", target_plural),
        sit=verb("sit", target_plural),
        show=verb("show", target_plural),
        draw=verb("draw", target_plural),
        take=verb("take", inflictor_plural),
    )


WHY_HAND_DISCARDED = {HandDiscardReason.WON: " on leaving the game", HandDiscardReason.TREMORS: " (Tremors)"}
WHY_CARD_DISCARDED = {DiscardReason.HAND_LIMIT: " to keep six", DiscardReason.TREMORS: " (Tremors)"}

LOG = Sentences(unknown=lambda event: type(event).__name__)


def describe(event: Event, names: Sequence[str], seat: int | None, cards: Sequence[Named]) -> str:
    """``event`` as a sentence for ``seat``'s log; ``names`` are the players'
    names by seat, ``cards`` the cards by id."""
    return LOG.describe(event, names, seat, cards)


@LOG.of(se.GameStarted)
def _game_started(e: se.GameStarted, t: Teller) -> str:
    return f"A game for {e.seats} begins. {t.name(e.first)} {t.verb(e.first, 'go', 'goes')} first."


@LOG.of(se.TurnStarted, turn=True)
def _turn_started(e: se.TurnStarted, t: Teller) -> str:
    return f"Turn {e.turn}: {t.name(e.seat)} to play."


@LOG.of(se.TurnSkipped)
def _turn_skipped(e: se.TurnSkipped, t: Teller) -> str:
    return f"{t.name(e.seat)} {t.verb(e.seat, 'sit', 'sits')} this turn out (Depression)."


@LOG.of(se.CardsDrawn)
def _cards_drawn(e: se.CardsDrawn, t: Teller) -> str:
    if e.cards:
        return f"{t.name(e.seat)} drew {t.cards(e.cards)}."
    if e.count == 0:
        return f"{t.name(e.seat)} had nothing left to draw."
    return f"{t.name(e.seat)} drew {counted(e.count, 'card')}."


@LOG.of(se.DeckReshuffled)
def _deck_reshuffled(e: se.DeckReshuffled, t: Teller) -> str:
    return f"The discard pile was shuffled into a new draw pile of {e.count}."


@LOG.of(se.DrawPrevented)
def _draw_prevented(e: se.DrawPrevented, t: Teller) -> str:
    return f"{t.name(e.seat)} {t.verb(e.seat, 'draw', 'draws')} nothing this turn (Anorexia)."


@LOG.of(se.PlaysPrevented)
def _plays_prevented(e: se.PlaysPrevented, t: Teller) -> str:
    return f"{t.name(e.seat)} may play no cards this turn (Impotence)."


@LOG.of(se.DisorderTreated)
def _disorder_treated(e: se.DisorderTreated, t: Teller) -> str:
    whose = "" if e.target == e.seat else f" on {t.poss(e.target)} Psyche"
    return f"{t.name(e.seat)} treated {t.card(e.disorder)} with {t.card(e.drug)}{whose}."


@LOG.of(se.DisorderGiven)
def _disorder_given(e: se.DisorderGiven, t: Teller) -> str:
    return f"{t.name(e.seat)} gave {t.obj(e.target)} {t.card(e.card)}."


@LOG.of(se.TherapyUsed)
def _therapy_used(e: se.TherapyUsed, t: Teller) -> str:
    return f"{t.name(e.seat)} used Therapy to remove {t.card(e.disorder)}."


@LOG.of(se.EpisodePlayed)
def _episode_played(e: se.EpisodePlayed, t: Teller) -> str:
    line = punishment_text(
        e.punishment,
        target=t.name(e.target),
        their=t.their(e.target),
        inflictor=t.name(e.seat),
        inflictor_object=t.obj(e.seat),
        target_plural=e.target == t.reader,
        inflictor_plural=e.seat == t.reader,
    )
    nothing = "" if e.effective else " It does nothing."
    return f"{t.name(e.seat)} played an Episode on {t.poss(e.target)} {t.card(e.disorder)}: {line}.{nothing}"


@LOG.of(se.DrugsDiscarded)
def _drugs_discarded(e: se.DrugsDiscarded, t: Teller) -> str:
    return f"{t.name(e.seat)} lost {t.cards(e.cards)} from {t.their(e.seat)} Psyche."


@LOG.of(se.HandDiscarded)
def _hand_discarded(e: se.HandDiscarded, t: Teller) -> str:
    why = WHY_HAND_DISCARDED.get(e.reason, "")
    return f"{t.name(e.seat)} discarded {t.their(e.seat)} whole hand{why}: {t.cards(e.cards)}."


@LOG.of(se.SkipAdded)
def _skip_added(e: se.SkipAdded, t: Teller) -> str:
    return f"{t.name(e.seat)} will sit out {counted(e.skips, 'turn')}."


@LOG.of(se.PlaysBlocked)
def _plays_blocked(e: se.PlaysBlocked, t: Teller) -> str:
    return f"{t.name(e.seat)} may not play cards next turn."


@LOG.of(se.DrawBlocked)
def _draw_blocked(e: se.DrawBlocked, t: Teller) -> str:
    return f"{t.name(e.seat)} will not draw next turn."


@LOG.of(se.TremorsStarted)
def _tremors_started(e: se.TremorsStarted, t: Teller) -> str:
    timed = f" within {e.seconds:g} seconds" if e.seconds else ""
    return f"Tremors! {t.name(e.seat)} must discard {e.count} cards{timed}."


@LOG.of(se.CardDiscarded)
def _card_discarded(e: se.CardDiscarded, t: Teller) -> str:
    return f"{t.name(e.seat)} discarded {t.card(e.card)}{WHY_CARD_DISCARDED.get(e.reason, '')}."


@LOG.of(se.CardsTaken)
def _cards_taken(e: se.CardsTaken, t: Teller) -> str:
    what = t.cards(e.cards) if e.cards else counted(e.count, "card")
    how = " at random" if e.how == Taking.RANDOM else ""
    return f"{t.name(e.seat)} took {what} from {t.poss(e.target)} hand{how}."


@LOG.of(se.HandShown)
def _hand_shown(e: se.HandShown, t: Teller) -> str:
    if e.cards:
        return f"{t.poss_first(e.target)} hand: {t.cards(e.cards)}."
    if e.count == 0:
        return f"{t.name(e.target)} had no cards to show."
    return f"{t.name(e.target)} showed {t.their(e.target)} hand to {t.obj(e.seat)}."


@LOG.of(se.MisdiagnosisPlayed)
def _misdiagnosis_played(e: se.MisdiagnosisPlayed, t: Teller) -> str:
    return f"Misdiagnosis! {t.name(e.seat)} swapped {t.card(e.mine)} for {t.poss(e.target)} {t.card(e.theirs)}."


@LOG.of(se.HighTolerancePlayed)
def _high_tolerance_played(e: se.HighTolerancePlayed, t: Teller) -> str:
    return f"High Tolerance: {t.poss(e.target)} {t.card(e.drug)} was discarded."


@LOG.of(se.TradeOffered)
def _trade_offered(e: se.TradeOffered, t: Teller) -> str:
    if e.give or e.want:
        give = t.cards(e.give) or "nothing"
        want = ", ".join(e.want) or "nothing"
        return f"{t.name(e.seat)} offered {t.obj(e.to)} {give} for {want} (offer {e.offer})."
    return f"{t.name(e.seat)} made {t.obj(e.to)} a trade offer."


@LOG.of(se.TradeAccepted)
def _trade_accepted(e: se.TradeAccepted, t: Teller) -> str:
    if e.gave or e.got:
        return f"{t.name(e.to)} accepted: {t.cards(e.gave) or 'nothing'} for {t.cards(e.got) or 'nothing'}."
    return f"{t.name(e.seat)} and {t.name(e.to)} traded {counted(e.count, 'card')}."


@LOG.of(se.TradeClosed)
def _trade_closed(e: se.TradeClosed, t: Teller) -> str:
    if e.how == TradeEnd.DECLINED:
        return f"{t.name(e.to)} declined {t.poss(e.seat)} offer."
    if e.how == TradeEnd.WITHDRAWN:
        return f"{t.name(e.seat)} withdrew an offer to {t.obj(e.to)}."
    return f"An offer from {t.name(e.seat)} to {t.obj(e.to)} lapsed: a hand changed."


@LOG.of(se.TurnEnded)
def _turn_ended(e: se.TurnEnded, t: Teller) -> str:
    return f"{t.name(e.seat)} ended the turn."


@LOG.of(se.PlayerWon)
def _player_won(e: se.PlayerWon, t: Teller) -> str:
    if e.place == 1:
        return f"{t.name(e.seat)} treated every Disorder and {t.verb(e.seat, 'win', 'wins')}!"
    return f"{t.name(e.seat)} recovered in place {e.place}."


@LOG.of(se.GameEnded)
def _game_ended(e: se.GameEnded, t: Teller) -> str:
    if e.loser != NONE:
        return f"The game is over. {t.name(e.loser)} {t.verb(e.loser, 'are', 'is')} the last one left."
    return "The game is over."
