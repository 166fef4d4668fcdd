"""A Side Effects bot that plays the way a decent player does.

It reads only its seat's :class:`~quackbox.core.side_effects.view.SEView`. Each legal move
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
from itertools import combinations
from typing import Any

from quackbox.cards import side_effects as se_cards
from quackbox.cards.side_effects import SECard
from quackbox.core import bots
from quackbox.core.bots import Bot
from quackbox.core.rules import Move
from quackbox.core.side_effects import moves as se
from quackbox.core.side_effects.cards import Punishment, therapy_works_on
from quackbox.core.side_effects.rules import RULES
from quackbox.core.side_effects.state import GAME, Phase
from quackbox.core.side_effects.view import SEView

# How much each punishment costs its victim, per card or turn it takes away.
PUNISHMENT_WEIGHT: dict[str, float] = {
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
WINS = 100.0
"""The score of a play that wins the game now."""


class SideEffectsBot(Bot[SEView]):
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
        table = _Table(view)
        for move in legal:
            if isinstance(move, se.PLAY_TYPES):
                score = self._score_play(view, move, table)
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
        """What ``card`` in hand is worth to this seat."""
        return _worth(view, _seat(view), card, _copies(view, card.name))

    def _score_play(self, view: SEView, move: Move, table: _Table | None = None) -> float:
        """What ``move`` is worth now (plays worth WORTH_A_PLAY or less are not made);
        ``table`` is what the scores of every move at this view read (made if not given)."""
        if table is None:
            table = _Table(view)
        me = table.me
        hand = table.hand
        untreated = table.untreated
        disorders = table.disorders
        if isinstance(move, se.Treat):
            target, slot = disorders[move.disorder]
            if target != me:
                return -1.0  # house rule: never cure an opponent
            if len(untreated) == 1:
                return WINS
            return 20.0 + (5.0 if slot.disorder.punishment == Punishment.DISCARD_DRUGS else 0.0)
        if isinstance(move, se.PlayTherapy):
            target, slot = disorders[move.disorder]
            if len(untreated) == 1:
                return WINS
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
            amount: float
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
            return value * table.threat(self, target) / 5.0
        if isinstance(move, se.GiveDisorder):
            return 6.0 + table.threat(self, move.target)
        if isinstance(move, se.PlayHighTolerance):
            for player in view.players:
                for s in player.psyche:
                    if s.drug is not None and s.drug.id == move.drug:
                        return 4.0 + self._threat(view, player.seat)
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
        """Accept an offer that hands us more value than it costs; else decline.
        A card asked for costs what it is worth to us or to the asker, whichever
        is more: a Drug we cannot use may be the one the asker needs to win."""
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
                    cost += max(self._card_value(view, card), _worth(view, offer.seat, card, 1))
                if gain > cost:
                    return accept
            decline = se.DeclineTrade(offer.id)
            if decline in view.legal:
                return decline
        return None

    def trade_offers(self, view: SEView) -> list[se.OfferTrade]:
        """Offers worth making now: our least useful card for a card we need
        (a Drug for an untreated Disorder we hold none for, or Therapy for
        Anorexia), to each seat we may offer to."""
        if not view.trade_partners or not view.hand:
            return []
        me = _seat(view)
        held = {c.name for c in view.hand}
        needs = []
        for disorder in self._untreated(view, me):
            name = DRUG_FOR.get(disorder.name) or ("Therapy" if therapy_works_on(disorder) else "")
            if name and name not in held and name not in needs:
                needs.append(name)
        if not needs:
            return []
        junk = min(view.hand, key=lambda c: (self._card_value(view, c), c.id))
        if self._card_value(view, junk) >= WORTH_A_PLAY * 2:
            return []
        return [se.OfferTrade(to, (junk.id,), (name,)) for name in needs[:2] for to in view.trade_partners]


class _Table:
    """What the scores of every play at one view read, made once per view
    rather than once per move (a search's playouts score millions)."""

    __slots__ = ("view", "me", "hand", "untreated", "disorders", "threats")

    def __init__(self, view: SEView) -> None:
        self.view = view
        self.me = _seat(view)
        self.hand = {c.id: c for c in view.hand}
        self.untreated = [slot.disorder for slot in view.players[self.me].psyche if slot.drug is None]
        self.disorders = {s.disorder.id: (p.seat, s) for p in view.players for s in p.psyche}
        self.threats: dict[int, float] = {}

    def threat(self, bot: SideEffectsBot, seat: int) -> float:
        """``bot``'s threat of ``seat`` (:meth:`SideEffectsBot._threat`), worked out once."""
        known = self.threats.get(seat)
        if known is None:
            known = self.threats[seat] = bot._threat(self.view, seat)
        return known


class TradingBot(SideEffectsBot):
    """The heuristic player that also offers trades: before ending a turn with
    nothing worth playing, it offers its least useful card for a card it needs,
    each offer once a turn. (A yardstick: the normal bot must not be talked out
    of the game by it.)"""

    name = "trader"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._offered: tuple[int, set[se.OfferTrade]] = (-1, set())

    def choose(self, view: SEView) -> Move:
        move = super().choose(view)
        if not isinstance(move, se.EndTurn):
            return move
        turn, made = self._offered
        if turn != view.turn:
            made = set()
            self._offered = (view.turn, made)
        for offer in self.trade_offers(view):
            if offer not in made:
                made.add(offer)
                return offer
        return move


class EasyBot(SideEffectsBot):
    """A weak but sensible player: it treats its own Disorders when it can and
    otherwise plays a play picked at random half the time; it throws away
    cards at random and declines every trade."""

    name = "easy"

    def choose(self, view: SEView) -> Move:
        legal = view.legal
        if view.prompt is not None and view.prompt.kind == Phase.ANXIETY:
            return self._anxiety(view)
        plays = [m for m in legal if isinstance(m, se.PLAY_TYPES)]
        treat = [m for m in plays if isinstance(m, se.Treat) and self._score_play(view, m) > 0]
        if treat:
            return treat[0]
        if view.phase in (Phase.TREMORS, Phase.DISCARD_DOWN):
            return self.rng.choice([m for m in legal if isinstance(m, se.Discard)] or list(legal))
        if plays and self.rng.random() < 0.5:
            return self.rng.choice(plays)
        answer = next((m for m in legal if isinstance(m, se.DeclineTrade)), None)
        return answer or next((m for m in legal if isinstance(m, se.EndTurn)), legal[0])

    def react(self, view: SEView) -> Move | None:
        return next((m for m in view.legal if isinstance(m, se.DeclineTrade)), None)


def _seat(view: SEView) -> int:
    """The seat the bot plays: it is asked only at a seat, never as a spectator."""
    if view.seat is None:
        raise ValueError("a bot plays a seat, not a spectator's view")
    return view.seat


def _copies(view: SEView, name: str) -> int:
    """How many cards called ``name`` the seat holds."""
    return sum(c.name == name for c in view.hand)


WINNING_CARD = 40.0
"""A card that lets its holder treat their last untreated Disorder."""


def _worth(view: SEView, seat: int, card: SECard, copies: int) -> float:
    """What ``card`` is worth to ``seat``, from public facts, when it holds
    ``copies`` cards of that name. A copy beyond what the Psyche can use is
    worth little: hoarding it only keeps it from others (a game can lock when
    one seat holds every Therapy)."""
    untreated = [slot.disorder for slot in view.players[seat].psyche if slot.drug is None]
    names = {d.name for d in untreated}
    if card.kind == se_cards.DRUG:
        if card.treats not in names:
            return 2.0
        if copies > sum(d.name == card.treats for d in untreated):
            return 2.0
        return WINNING_CARD if len(untreated) == 1 else 10.0
    if card.kind == se_cards.THERAPY:
        usable = sum(therapy_works_on(d) for d in untreated)
        if not usable or copies > usable:
            return 3.0 if usable else 1.0
        if len(untreated) == 1:
            return WINNING_CARD
        return 12.0 if "Anorexia" in names else 8.0
    if card.kind == se_cards.EPISODE:
        return 6.0
    if card.kind == se_cards.DISORDER:
        victims = [p for p in view.players if p.seat != seat and p.place == 0 and card.name in p.vulnerable_to]
        return 5.0 if victims else 1.0
    return 5.0


DRUG_FOR: dict[str, str] = {}
"""The Drug that treats each Disorder, by name (from the deck, at the end of the module)."""
KINDS: dict[str, SECard] = {}
"""One card of each name of the deck (from the deck, at the end of the module)."""


OFFERS_PER_TURN = 2
"""The search bot makes at most this many trade offers a turn (and none twice)."""
PLAYS_SEARCHED = 4
"""The search bot weighs the heuristic's best plays, this many at most."""


def search_candidates(view: SEView, bot: SideEffectsBot, memory: Any) -> list[Move]:
    """The moves the search bot weighs at ``view`` (core.search), the
    heuristic's own choice first: every answer to a prompt, else the best
    plays, ending the turn, and trade offers of its own; cards of one name
    count once."""
    legal = view.legal
    own = bot.choose(view)
    if view.phase != Phase.PLAY:
        return _distinct(view, [own, *legal])
    table = _Table(view)
    if isinstance(own, se.PLAY_TYPES) and bot._score_play(view, own, table) >= WINS:
        return [own]  # it wins the game now: nothing to weigh
    plays = sorted((m for m in legal if isinstance(m, se.PLAY_TYPES)), key=lambda m: -bot._score_play(view, m, table))
    moves = [own, *plays[:PLAYS_SEARCHED]]
    moves += [m for m in legal if isinstance(m, (se.EndTurn, se.AcceptTrade))]
    made = memory.offered if memory is not None else set()
    if len(made) < OFFERS_PER_TURN:
        asked = {(to, want) for to, _give, want in made}
        moves += [o for o in fair_offers(view, bot, memory) if (o.to, o.want) not in asked][:OFFERS_SEARCHED]
    return _distinct(view, moves)


OFFERS_SEARCHED = 2
"""The search bot weighs this many trade offers at most at a time."""
GIFT_CARDS = 2
"""A trade offer gives this many cards at most."""


def fair_offers(view: SEView, bot: SideEffectsBot, memory: Any) -> list[se.OfferTrade]:
    """Trade offers for the cards this seat needs that their holder, judging as
    the normal bot does (:meth:`SideEffectsBot._answer_offer`, from public
    facts: what a card is worth to each Psyche), would accept: for each card
    needed, the gift of one or two cards that costs this seat least and is
    worth more to the other than the card asked for (to either of the two),
    and never the card that would let the other win. Those to the seats most
    likely to hold the card come first (``memory``'s marks, else hand sizes)."""
    if not view.trade_partners or not view.hand:
        return []
    me = _seat(view)
    held = {c.name for c in view.hand}
    needs: list[SECard] = []
    for disorder in bot._untreated(view, me):
        name = DRUG_FOR.get(disorder.name) or ("Therapy" if therapy_works_on(disorder) else "")
        kind = KINDS.get(name)
        if kind is not None and name not in held and kind not in needs:
            needs.append(kind)
    own = {c.id: bot._card_value(view, c) for c in view.hand}
    gifts = [(c,) for c in view.hand] + [pair for pair in combinations(view.hand, GIFT_CARDS)]
    found: list[tuple[float, int, se.OfferTrade]] = []
    for need in needs:
        for to in view.trade_partners:
            cost = max(_worth(view, to, need, 1), _worth(view, me, need, 1))
            best: tuple[float, tuple[SECard, ...]] | None = None
            for gift in gifts:
                worth = [_worth(view, to, c, 0) for c in gift]
                if sum(worth) <= cost or max(worth) >= WINNING_CARD:
                    continue
                price = sum(own[c.id] for c in gift)
                if best is None or price < best[0]:
                    best = (price, gift)
            if best is not None:
                odds = memory.holding_odds(to, need.name) if memory is not None else view.players[to].hand_size
                found.append((-odds, len(found), se.OfferTrade(to, tuple(sorted(c.id for c in best[1])), (need.name,))))
    return [offer for _odds, _i, offer in sorted(found, key=lambda f: (f[0], f[1]))]


def _distinct(view: SEView, moves: list[Move]) -> list[Move]:
    """``moves`` without repeats, a card standing for every card of its name."""
    names = {c.id: c.name for c in view.hand}
    if view.prompt is not None:
        names.update({c.id: c.name for c in view.prompt.revealed})
    return bots.distinct(moves, names)


SEARCH_BUDGET = 340
"""The search bot's simulated games per decision: as many as keep a decision
under half a second on the whole (``python -m bench.bots`` times them, and
gives the win rate against normal bots they buy)."""
SEARCH_PLAYOUT_MOVES = 32
"""Playout moves a search decision may make per game of its budget
(core.search). Playouts early in a game run far longer than the usual one:
without a limit the longest decisions took several times the usual."""


def _search_bot(seed: int, budget: int | None = None) -> Bot[Any]:
    from quackbox.core.search import SearchBot

    return SearchBot(
        seed,
        rules=RULES,
        heuristic=SideEffectsBot,
        candidates=search_candidates,
        budget=budget or SEARCH_BUDGET,
        playout_moves=SEARCH_PLAYOUT_MOVES,
    )


DRUG_FOR.update({k.treats: k.name for k in reversed(RULES.deck.kinds) if k.kind == se_cards.DRUG})
KINDS.update({k.name: k for k in RULES.deck.kinds})
bots.register(GAME, "heuristic", SideEffectsBot)
bots.register(GAME, "trader", TradingBot)
bots.register(GAME, bots.EASY, EasyBot)
bots.register(GAME, bots.NORMAL, SideEffectsBot)
bots.register(GAME, bots.HARD, _search_bot)
