"""A Side Effects bot that plays the way a decent player does.

It reads only its seat's :class:`~core.side_effects.view.SEView`. Each legal move
gets a score; the best one is played if it is worth a play, else the turn
ends. The judgement, in order of weight:

- a play that wins now beats everything;
- treat your own Disorders, Madness first (its Episode strips every Drug);
- keep Therapy for Anorexia (no Drug treats it) or to finish the game;
- aim Episodes at whoever is closest to winning, at the punishment that costs
  them most (Madness on a treated Psyche, a big hand for Suicidal Thoughts);
- give Disorders to vulnerable players, the leader first;
- under a prompt, throw away the cards worth least to you.
"""

from __future__ import annotations

import random

from cards import side_effects as se_cards
from cards.side_effects import SECard
from core import bots
from core.rules import Move
from core.side_effects import moves as se
from core.side_effects.cards import Punishment, therapy_works_on
from core.side_effects.state import GAME, Phase
from core.side_effects.view import SEView

# How much each punishment costs its victim, per card or turn it takes away.
PUNISHMENT_WEIGHT = {
    Punishment.DISCARD_DRUGS: 9.0,  # per Drug lost
    Punishment.DISCARD_HAND: 2.0,  # per card
    Punishment.SKIP_TURN: 7.0,
    Punishment.TREMORS: 2.0,  # per card (3, or the whole hand if they are slow)
    Punishment.RANDOM_STEAL: 3.0,  # per card: they lose it and we gain it
    Punishment.REVEAL_AND_TAKE: 4.0,
    Punishment.NO_PLAY: 5.0,
    Punishment.NO_DRAW: 3.0,
}
WORTH_A_PLAY = 2.0


class SideEffectsBot:
    """The heuristic Side Effects player."""

    name = "heuristic"
    reacts = True

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    # the two bot calls ----------------------------------------------------

    def choose(self, view: SEView) -> Move:
        legal = view.legal
        prompt = view.prompt
        if prompt is not None and prompt.kind == Phase.ANXIETY:
            return self._anxiety(view)
        if view.phase in (Phase.TREMORS, Phase.DISCARD_DOWN):
            discards = [m for m in legal if isinstance(m, se.Discard)]
            if discards:
                return self._cheapest_discard(view, discards)
        best, best_score = None, WORTH_A_PLAY
        for move in legal:
            if isinstance(move, se.PLAY_TYPES):
                score = self._score_play(view, move)
                if score > best_score:
                    best, best_score = move, score
        if best is not None:
            return best
        answer = self._answer_offer(view)
        if answer is not None:
            return answer
        for move in legal:
            if isinstance(move, se.EndTurn):
                return move
        return legal[0]

    def react(self, view: SEView) -> Move | None:
        return self._answer_offer(view)

    # judgement ------------------------------------------------------------

    def _untreated(self, view: SEView, seat: int) -> list[SECard]:
        return [slot.disorder for slot in view.players[seat].psyche if slot.drug is None]

    def _threat(self, view: SEView, seat: int) -> float:
        """How close ``seat`` is to winning: higher is closer."""
        player = view.players[seat]
        untreated = sum(1 for s in player.psyche if s.drug is None)
        return 10.0 / (1 + untreated) + 0.3 * player.hand_size

    def _card_value(self, view: SEView, card: SECard) -> float:
        """What ``card`` in hand is worth to this seat. A copy beyond what the
        Psyche can use is worth little: hoarding it only keeps it from others
        (a game can lock when one seat holds every Therapy)."""
        me = view.seat
        untreated = self._untreated(view, me)
        names = {d.name for d in untreated}
        if card.kind == se_cards.DRUG:
            if card.treats not in names:
                return 2.0
            return 10.0 if _copies(view, card.name) <= sum(d.name == card.treats for d in untreated) else 2.0
        if card.kind == se_cards.THERAPY:
            usable = sum(therapy_works_on(d) for d in untreated)
            if usable and _copies(view, card.name) <= usable:
                return 12.0 if "Anorexia" in names else 8.0
            return 3.0 if usable else 1.0
        if card.kind == se_cards.EPISODE:
            return 6.0
        if card.kind == se_cards.DISORDER:
            victims = [p for p in view.players if p.seat != me and p.place == 0 and card.name in p.vulnerable_to]
            return 5.0 if victims else 1.0
        return 5.0

    def _score_play(self, view: SEView, move: Move) -> float:
        me = view.seat
        hand = {c.id: c for c in view.hand}
        untreated = self._untreated(view, me)
        disorders = {s.disorder.id: (p.seat, s) for p in view.players for s in p.psyche}
        if isinstance(move, se.Treat):
            target, slot = disorders[move.disorder]
            if target != me:
                return -1.0  # house rule: never cure an opponent
            if len(untreated) == 1:
                return 100.0
            return 20.0 + (5.0 if slot.disorder.punishment == Punishment.DISCARD_DRUGS else 0.0)
        if isinstance(move, se.PlayTherapy):
            target, slot = disorders[move.disorder]
            if len(untreated) == 1:
                return 100.0
            if slot.disorder.name == "Anorexia":
                return 15.0
            drugs_in_hand = {c.treats for c in view.hand if c.kind == se_cards.DRUG}
            if slot.disorder.name in drugs_in_hand:
                return -1.0
            # Spend Therapy on a Disorder with no Drug in sight near the end,
            # or when there is Therapy to spare (one kept back for Anorexia).
            has_anorexia = any(d.name == "Anorexia" for d in untreated)
            spare = _copies(view, "Therapy") - (1 if has_anorexia else 0)
            return 9.0 if (len(untreated) <= 2 and not has_anorexia) or spare > 0 else 0.0
        if isinstance(move, se.PlayEpisode):
            target, slot = disorders[move.disorder]
            victim = view.players[target]
            p = slot.disorder.punishment
            if p == Punishment.DISCARD_DRUGS:
                amount = sum(1 for s in victim.psyche if s.drug is not None)
            elif p == Punishment.DISCARD_HAND:
                amount = victim.hand_size
            elif p in (Punishment.TREMORS, Punishment.RANDOM_STEAL):
                amount = min(3, victim.hand_size)
            elif p == Punishment.REVEAL_AND_TAKE:
                amount = 1 if victim.hand_size else 0
            elif p == Punishment.SKIP_TURN:
                # Each skip stacks, but one more on a long wait is worth little,
                # and a victim who never plays again keeps what it hoards.
                amount = 1.0 / (1 + victim.skips) ** 2
            elif p in (Punishment.NO_PLAY, Punishment.NO_DRAW):
                amount = 0 if (victim.no_play if p == Punishment.NO_PLAY else victim.no_draw) else 1
            else:
                amount = 1
            value = PUNISHMENT_WEIGHT.get(p, 1.0) * amount
            return value * self._threat(view, target) / 5.0
        if isinstance(move, se.GiveDisorder):
            return 6.0 + self._threat(view, move.target)
        if isinstance(move, se.PlayHighTolerance):
            for p in view.players:
                for s in p.psyche:
                    if s.drug is not None and s.drug.id == move.drug:
                        return 4.0 + self._threat(view, p.seat)
            return 0.0
        if isinstance(move, se.PlayMisdiagnosis):
            target, theirs = disorders[move.theirs]
            _, mine = disorders[move.mine]
            # Worth it when we swap away something we cannot treat for something we can.
            can_treat = {c.treats for c in hand.values() if c.kind == se_cards.DRUG}
            gain = (theirs.disorder.name in can_treat) - (mine.disorder.name in can_treat)
            return 4.0 * gain + (3.0 if mine.disorder.therapy_proof else 0.0)
        return 0.0

    def _cheapest_discard(self, view: SEView, discards: list[se.Discard]) -> Move:
        cards = {c.id: c for c in view.hand}
        return min(discards, key=lambda m: (self._card_value(view, cards[m.card]), m.card))

    def _anxiety(self, view: SEView) -> Move:
        shown = view.prompt.revealed if view.prompt else ()
        takes = [m for m in view.legal if isinstance(m, se.TakeCard)]
        if not takes:
            return next(m for m in view.legal if isinstance(m, se.TakeNothing))
        by_id = {c.id: c for c in shown}
        return max(takes, key=lambda m: (self._card_value(view, by_id[m.card]) if m.card in by_id else 0, -m.card))

    def _answer_offer(self, view: SEView) -> Move | None:
        """Accept an offer that hands us more value than it costs; else decline."""
        for offer in view.offers:
            if offer.to != view.seat:
                continue
            accept = se.AcceptTrade(offer.id)
            if accept in view.legal:
                gain = sum(self._card_value(view, c) for c in offer.give)
                pool = list(view.hand)
                cost = 0.0
                for name in offer.want:
                    card = next(c for c in pool if c.name == name)
                    pool.remove(card)
                    cost += self._card_value(view, card)
                if gain > cost:
                    return accept
            decline = se.DeclineTrade(offer.id)
            if decline in view.legal:
                return decline
        return None


def _copies(view: SEView, name: str) -> int:
    """How many cards called ``name`` the seat holds."""
    return sum(c.name == name for c in view.hand)


bots.register(GAME, "heuristic", SideEffectsBot)
