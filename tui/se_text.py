"""Words for the Side Effects table: what a legal move will do, said before it is made.

Everything here reads a :class:`quackbox.core.side_effects.SEView` and moves taken
from its ``legal`` tuple; nothing decides what is legal.
:func:`episode_does_nothing` words the warning ruling SE7 asks the table to
give before an Episode that would do nothing; whether it would is the rules'
own :func:`quackbox.core.side_effects.episode_bites`, asked with public facts of the
view (a hand's size, the Drugs on a Psyche, the next-turn marks).
"""

from __future__ import annotations

from typing import Sequence

from quackbox.cards import side_effects as se_cards
from quackbox.cards.side_effects import SECard
from quackbox.core import side_effects as se
from quackbox.core.rules import Move
from quackbox.core.side_effects import Punishment
from quackbox.core.side_effects.text import punishment_text
from quackbox.tui.names import name_of, possessive

ABBREVIATIONS = {
    "Depression": "Dep",
    "Anxiety": "Anx",
    "Impotence": "Imp",
    "Gambling Addiction": "Gam",
    "Suicidal Thoughts": "Sui",
    "Tremors": "Tre",
    "Anorexia": "Ano",
    "Madness": "Mad",
}

SHORT_PUNISHMENTS: dict[str, str] = {  # by name: a card's punishment is its Punishment's text
    Punishment.DISCARD_DRUGS: "lose Drugs",
    Punishment.DISCARD_HAND: "lose hand",
    Punishment.SKIP_TURN: "skip turn",
    Punishment.TREMORS: "tremors",
    Punishment.RANDOM_STEAL: f"steal {se.STEAL_CARDS}",
    Punishment.REVEAL_AND_TAKE: "show hand",
    Punishment.NO_PLAY: "no play",
    Punishment.NO_DRAW: "no draw",
}

SHORT_WORDS = {
    "Depression": "Depress.",
    "Impotence": "Impoten.",
    "Addiction": "Addict.",
    "Tolerance": "Toleran.",
    "Misdiagnosis": "Misdiag.",
    "Sildenafil": "Sildenaf",
    "Fluoxetine": "Fluoxet.",
    "Lorazepam": "Lorazep.",
    "Clozapine": "Clozapin",
    "Pramipexole": "Pramipex",
    "Chlorpromazine": "Chlorpro",
}
"""The short form of every word of a card's name longer than eight letters, the one used
wherever the whole word does not fit (a card in an eight-card hand at 80 columns is eight
wide inside); the rest of the words of the game are eight letters or fewer."""


def abbr(name: str) -> str:
    """A Disorder in three letters, for lists of them (what a seat is open to)."""
    return ABBREVIATIONS.get(name, name[:3])


def name_versions(name: str) -> tuple[str, ...]:
    """A card's name whole, then with its long words in their short forms (if any)."""
    short = " ".join(SHORT_WORDS.get(word, word) for word in name.split())
    return (name,) if short == name else (name, short)


def card_of_move(move: Move) -> int | None:
    """The card a move plays or discards from the mover's hand (None for EndTurn, trades...)."""
    if isinstance(move, se.Treat):
        return move.drug
    if isinstance(
        move, (se.GiveDisorder, se.PlayTherapy, se.PlayEpisode, se.PlayMisdiagnosis, se.PlayHighTolerance, se.Discard)
    ):
        return move.card
    return None


def cards_by_id(view: se.SEView) -> dict[int, SECard]:
    """Every card the view shows, by id: the hand, each Psyche, a revealed hand, open offers."""
    out: dict[int, SECard] = {c.id: c for c in view.hand}
    for player in view.players:
        for slot in player.psyche:
            out[slot.disorder.id] = slot.disorder
            if slot.drug is not None:
                out[slot.drug.id] = slot.drug
    if view.prompt is not None:
        for c in view.prompt.revealed:
            out[c.id] = c
    for offer in view.offers:
        for c in offer.give:
            out[c.id] = c
    return out


def owner_of_disorder(view: se.SEView, disorder: int) -> int | None:
    for player in view.players:
        for slot in player.psyche:
            if slot.disorder.id == disorder:
                return player.seat
    return None


def slot_of_drug(view: se.SEView, drug: int) -> tuple[int, se.Slot] | None:
    for player in view.players:
        for slot in player.psyche:
            if slot.drug is not None and slot.drug.id == drug:
                return player.seat, slot
    return None


def card_blurb(card: SECard, *, short: bool = False) -> str:
    """One phrase of what a card in hand is for (``short``: at most 11 characters)."""
    if short:
        if card.kind == se_cards.DRUG:
            return f"Rx {card.treats}" if len(card.treats) <= 8 else f"Rx {abbr(card.treats)}"
        return {
            se_cards.DISORDER: "Disorder",
            se_cards.EPISODE: "punish",
            se_cards.THERAPY: "cure own",
            se_cards.MISDIAGNOSIS: "swap",
            se_cards.HIGH_TOLERANCE: "strip Drug",
        }.get(card.kind, card.kind)
    if card.kind == se_cards.DRUG:
        return f"treats {card.treats}"
    if card.kind == se_cards.DISORDER:
        return "give to a rival"
    if card.kind == se_cards.EPISODE:
        return "punish a rival"
    if card.kind == se_cards.THERAPY:
        return "remove your own"
    if card.kind == se_cards.MISDIAGNOSIS:
        return "swap Disorders"
    if card.kind == se_cards.HIGH_TOLERANCE:
        return "strip a Drug"
    return card.kind


def card_lines(card: SECard) -> tuple[str, ...]:
    """What a card is for, in versions from long to short (the hand picks the one that fits)."""
    if card.kind == se_cards.DRUG:
        return tuple(
            dict.fromkeys(
                f"Rx {name}" for name in (*name_versions(card.treats), card.treats.split()[0], abbr(card.treats))
            )
        )
    return (card_blurb(card), card_blurb(card, short=True))


def card_words(card: SECard) -> str:
    """What a card in hand is and does, in full words, for a card tall enough to say it
    (the short forms of :func:`card_lines` otherwise)."""
    if card.kind == se_cards.DRUG:
        side = "⚠ " + ", ".join(card.side_effects) if card.side_effects else "no side effects"
        return f"Rx {card.treats}\n{side}"
    return f"{card_blurb(card)}\n{card.text}" if card.text else card_blurb(card)


def card_sentence(card: SECard) -> str:
    """A card in a sentence, for the prompt when it is picked."""
    if card.kind == se_cards.DRUG:
        side = f"; side effects: {', '.join(card.side_effects)}" if card.side_effects else ""
        return f"a Drug that treats {card.treats}{side}."
    if card.kind == se_cards.DISORDER:
        return f"a Disorder to give to a rival who is open to it. {card.text}"
    text = card.text or card_blurb(card)
    return text if text.endswith(".") else text + "."


def why_not(card: SECard, view: se.SEView) -> str:
    """Why a card has no play now, in general terms (the rules decided; this only explains)."""
    if view.plays_left <= 0:
        return "No plays left this turn."
    return {
        se_cards.DRUG: f"You have no untreated {card.treats} to treat.",
        se_cards.DISORDER: f"Nobody is open to {card.name} right now.",
        se_cards.EPISODE: "No rival has an untreated Disorder to aim at.",
        se_cards.THERAPY: "You have no untreated Disorder it can remove.",
    }.get(card.kind, "Nothing to play it on now.")


def describe_move(view: se.SEView, move: Move, names: Sequence[str]) -> str:
    """What ``move`` will do, as a sentence told to the mover."""
    me = view.seat
    cards = cards_by_id(view)

    def card(cid: int) -> str:
        c = cards.get(cid)
        return c.name if c is not None else f"card {cid}"

    if isinstance(move, se.Treat):
        owner = owner_of_disorder(view, move.disorder)
        whose = possessive(names, owner, me) if owner is not None else "the"
        drug = cards.get(move.drug)
        opened = newly_open(view, owner, drug) if owner is not None and drug is not None else ()
        causes = ""
        if opened and owner is not None:
            who = name_of(names, owner, me)
            causes = f"; {who} {'become' if owner == me else 'becomes'} open to {', '.join(opened)}"
        return f"Treat {whose} {card(move.disorder)} with {card(move.drug)}{causes}."
    if isinstance(move, se.GiveDisorder):
        return f"Give {name_of(names, move.target, me)} {card(move.card)}."
    if isinstance(move, se.PlayTherapy):
        return f"Therapy: remove your {card(move.disorder)} (both cards are discarded)."
    if isinstance(move, se.PlayEpisode):
        owner = owner_of_disorder(view, move.disorder)
        disorder = cards.get(move.disorder)
        if owner is None or disorder is None:
            return f"Play an Episode on {card(move.disorder)}."
        they = name_of(names, owner, me)
        # Told to the one who plays it (the target is always someone else).
        text = punishment_text(
            disorder.punishment,
            target=they,
            their="their",
            inflictor="you",
            inflictor_object="you",
            target_plural=False,
            inflictor_plural=True,
        )
        return f"Episode on {possessive(names, owner, me)} {disorder.name}: {text}."
    if isinstance(move, se.PlayMisdiagnosis):
        owner = owner_of_disorder(view, move.theirs)
        whose = possessive(names, owner, me) if owner is not None else "their"
        return f"Misdiagnosis: swap your {card(move.mine)} for {whose} {card(move.theirs)}."
    if isinstance(move, se.PlayHighTolerance):
        found = slot_of_drug(view, move.drug)
        if found is None:
            return f"High Tolerance: discard {card(move.drug)}."
        seat, slot = found
        return (
            f"High Tolerance: discard {possessive(names, seat, me)} {card(move.drug)} "
            f"(their {slot.disorder.name} is untreated again)."
        )
    if isinstance(move, se.Discard):
        return f"Discard {card(move.card)}."
    if isinstance(move, se.EndTurn):
        return "End your turn."
    if isinstance(move, se.TakeCard):
        return f"Take {card(move.card)}."
    if isinstance(move, se.TakeNothing):
        return "Take nothing."
    if isinstance(move, (se.AcceptTrade, se.DeclineTrade, se.WithdrawTrade)):
        offer = next((o for o in view.offers if o.id == move.offer), None)
        verb = {se.AcceptTrade: "Accept", se.DeclineTrade: "Decline", se.WithdrawTrade: "Withdraw"}[type(move)]
        if offer is None:
            return f"{verb} offer {move.offer}."
        return f"{verb}: {offer_text(view, offer, names)}."
    return type(move).__name__


def newly_open(view: se.SEView, seat: int, drug: SECard) -> tuple[str, ...]:
    """The Disorders ``seat`` would be open to once ``drug`` lies on its Psyche and is not
    open to now (SE6): a side effect the seat's Drugs already cause, or a Disorder it holds
    and may not be given twice, is no news. The rules' own words for it (``se.vulnerability``,
    ``se.open_to``), asked with the public Psyche."""
    psyche = view.players[seat].psyche
    before = se.vulnerability(slot.drug.side_effects for slot in psyche if slot.drug is not None)
    after = se.vulnerability([*(slot.drug.side_effects for slot in psyche if slot.drug is not None), drug.side_effects])
    holding = {slot.disorder.name for slot in psyche}
    duplicates = view.options.duplicate_disorders
    now = se.open_to(before, holding, duplicates=duplicates)
    return tuple(name for name in se.open_to(after, holding, duplicates=duplicates) if name not in now)


def cannot_accept(view: se.SEView, offer: se.Offer) -> str:
    """Why this seat cannot accept ``offer`` (made to it, with no Accept among its legal
    moves): the cards asked for that its own hand lacks. Said from this seat's hand alone,
    so it tells nobody anything of anyone else's."""
    lacking = se.cards_lacking([c.name for c in view.hand], offer.want)
    if not lacking:
        return "the rules do not allow it now"
    words = []
    for name in dict.fromkeys(lacking):
        asked, short = offer.want.count(name), lacking.count(name)
        words.append(name if short == asked else f"{asked} {name} (you hold {asked - short})")
    return "you do not hold " + " or ".join(words)


def offer_text(view: se.SEView, offer: se.Offer, names: Sequence[str], *, opening: bool = False) -> str:
    """``offer`` as a person would say it, from this seat's side ("Ann offers you Lorazepam as a
    gift"); ``opening`` a sentence, "you" is "You" (a name is always as its owner wrote it)."""
    me = view.seat
    give = _listed([c.name for c in offer.give])
    want = _listed(list(offer.want))
    if offer.seat == me:
        to = name_of(names, offer.to, me)
        you = "You" if opening else "you"
        if not offer.give:
            return f"{you} ask {to} for {want} as a gift"
        return f"{you} offer {to} {give} " + (f"for their {want}" if offer.want else "as a gift")
    who = name_of(names, offer.seat, me)
    if not offer.give:
        return f"{who} asks you for {want} as a gift"
    return f"{who} offers you {give} " + (f"for your {want}" if offer.want else "as a gift")


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items) or "nothing"
    return ", ".join(items[:-1]) + " and " + items[-1]


def episode_does_nothing(view: se.SEView, move: Move, names: Sequence[str]) -> str | None:
    """Why this Episode would do nothing (SE7), or None if it bites."""
    if not isinstance(move, se.PlayEpisode):
        return None
    owner = owner_of_disorder(view, move.disorder)
    if owner is None:
        return None
    disorder = cards_by_id(view).get(move.disorder)
    player = view.players[owner]
    they = name_of(names, owner, view.seat)
    punishment = disorder.punishment if disorder is not None else ""
    drugs = sum(1 for s in player.psyche if s.drug is not None)
    if se.episode_bites(punishment, drugs=drugs, hand=player.hand_size, no_play=player.no_play, no_draw=player.no_draw):
        return None
    if punishment == Punishment.DISCARD_DRUGS:
        return f"{they} has no Drugs on their Psyche, so Madness would strip nothing."
    if punishment == Punishment.NO_PLAY:
        return f"{they} already may not play next turn; a second Impotence adds nothing."
    if punishment == Punishment.NO_DRAW:
        return f"{they} already draws nothing next turn; a second Anorexia adds nothing."
    return f"{they} holds no cards, so this punishment would do nothing."


def status_marks(player: se.PlayerView, *, over: bool = False) -> list[str]:
    """Short words for a player's pending punishments and place (after the game, only the winners')."""
    marks = []
    if player.place == 1:
        marks.append("winner")
    elif player.place and not over:
        marks.append(f"recovered #{player.place}")
    if player.skips:
        marks.append(f"skips {player.skips}")
    if player.no_play:
        marks.append("no play")
    if player.no_draw:
        marks.append("no draw")
    return marks
