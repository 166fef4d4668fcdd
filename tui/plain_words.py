"""Each game in lines of words, for the plain seat (:mod:`quackbox.tui.plain`).

What the table screen shows at a glance, said as sentences: what the game asks
of you now, your hand, every seat's public cards, a card's rules by its name.
The choices themselves are the table's own preview sentences
(:func:`quackbox.tui.se_text.describe_move`, :func:`quackbox.tui.quack_text.describe_move`).
Nothing here draws or imports Textual: these are lines, nothing more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from quackbox.core.rules import Move
from quackbox.tui import rules_text
from quackbox.tui.names import name_of, possessive, seat_name

__all__ = ["Offered", "GameWords", "QuackWords", "SideEffectsWords", "words_for"]


@dataclass(frozen=True)
class Offered:
    """Something the game lets you do though it does not wait for you, said once as it
    comes up: a sentence, and the moves that answer it (a trade offer made to you)."""

    key: object
    """What it is about (an offer's id): said once however many views show it."""
    sentence: str
    moves: tuple[Move, ...]


class GameWords(Protocol):
    """One game's words for the plain seat."""

    def describe(self, view: Any, move: Move, names: Sequence[str]) -> str:
        """What ``move`` will do, as the table's preview says it."""

    def asked(self, view: Any, names: Sequence[str]) -> str:
        """What the game waits for you to do, as the first line of its question."""

    def offered(self, view: Any, names: Sequence[str]) -> list[Offered]:
        """What the game lets you do unasked that deserves a question of its own."""

    def hand(self, view: Any, names: Sequence[str]) -> list[str]:
        """Your hand, one card a line."""

    def table(self, view: Any, names: Sequence[str]) -> list[str]:
        """Every seat's public cards, one seat a line, then the game's own state."""

    def card(self, name: str) -> list[str] | None:
        """The rules of the card called ``name`` (any case), or None if the game has none."""

    def card_names(self) -> list[str]:
        """Every card's name, once each."""

    def rules(self) -> str:
        """The rules of the game, as the table's rules page has them."""

    def anytime(self, view: Any) -> tuple[Move, ...]:
        """The Anytime cards you may play now though the game does not wait for you (none
        in a game without them)."""

    def passing(self, move: Move) -> bool:
        """Whether ``move`` lets a chance go by (Quack in the Box's Pass)."""

    def trade_answers(self, view: Any) -> tuple[Move, ...]:
        """The answers to trade offers you may give now (none in a game without trading)."""

    def partners(self, view: Any) -> tuple[int, ...]:
        """The seats you may offer a trade to now (none in a game without trading)."""

    def wants(self, view: Any, text: str) -> tuple[str, ...] | str:
        """The card names asked for in ``text`` (commas between them), or why they cannot be."""

    def offer_move(self, to: int, give: Sequence[int], want: Sequence[str]) -> Move:
        """The move that offers ``to`` the cards ``give`` (ids) for cards named ``want``."""

    def offer_sentence(self, view: Any, to: int, give: Sequence[int], want: Sequence[str], names: Sequence[str]) -> str:
        """That offer, as a question to confirm it."""


def _listed(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _seconds(seconds: float) -> str:
    whole = max(0, round(seconds))
    return _plural(whole, "second")


def plain_markdown(text: str) -> list[str]:
    """The rules pages' light markup (``**bold**``, ``*emphasis*``, ``# Title``) as plain lines."""
    out = []
    for line in text.splitlines():
        line = re.sub(r"\*\*(.+?)\*\*", r"\1", line)
        line = re.sub(r"\*(.+?)\*", r"\1", line)
        out.append(line.lstrip("# ").rstrip())
    return out


# --- Side Effects ------------------------------------------------------------------------------


class SideEffectsWords:
    """Side Effects in lines."""

    def __init__(self) -> None:
        from quackbox.core import side_effects as se
        from quackbox.tui import se_text

        self.se = se
        self.text = se_text

    def describe(self, view: Any, move: Move, names: Sequence[str]) -> str:
        sentence = self.text.describe_move(view, move, names)
        warning = self.text.episode_does_nothing(view, move, names)
        return f"{sentence} (It would do nothing: {warning})" if warning else sentence

    def asked(self, view: Any, names: Sequence[str]) -> str:
        se = self.se
        prompt = view.prompt
        me = view.seat
        if prompt is not None and prompt.seat == me:
            if prompt.kind == se.TREMORS:
                return (
                    f"Tremors! Discard {_plural(prompt.count, 'card')}, one at a time, within "
                    f"{_seconds(prompt.seconds)}, or lose your whole hand."
                )
            if prompt.kind == se.DISCARD_DOWN:
                return f"You hold too many cards: discard {_plural(prompt.count, 'card')}."
            if prompt.kind == se.ANXIETY:
                shown = _listed([c.name for c in prompt.revealed]) or "no cards"
                return (
                    f"Anxiety: {possessive(names, prompt.target, me)} hand is shown to you: {shown}. "
                    "You may take one card."
                )
        if view.impotent:
            return "Your turn, but Impotence blocks every play this turn: discard or end your turn."
        plays = "no plays left" if view.plays_left <= 0 else _plural(view.plays_left, "play") + " left"
        return f"Your turn, {plays}."

    def offered(self, view: Any, names: Sequence[str]) -> list[Offered]:
        se = self.se
        out = []
        for offer in view.offers:
            if offer.to != view.seat:
                continue
            moves = tuple(
                m for m in view.legal if isinstance(m, (se.AcceptTrade, se.DeclineTrade)) and m.offer == offer.id
            )
            if not moves:
                continue
            sentence = self.text.offer_text(view, offer, names, opening=True) + ": accept or decline?"
            if se.AcceptTrade(offer.id) not in moves:
                sentence += f" (You cannot accept: {self.text.cannot_accept(view, offer)}.)"
            out.append(Offered(("offer", offer.id), sentence, moves))
        return out

    def hand(self, view: Any, names: Sequence[str]) -> list[str]:
        if not view.hand:
            return ["Your hand is empty."]
        lines = [f"Your hand, {_plural(len(view.hand), 'card')}:"]
        for i, card in enumerate(view.hand, 1):
            lines.append(f"{i}. {card.name}: {self.text.card_sentence(card)}")
        return lines

    def table(self, view: Any, names: Sequence[str]) -> list[str]:
        me = view.seat
        lines = []
        for player in view.players:
            who = name_of(names, player.seat, me, capital=True)
            cards = _plural(player.hand_size, "card")
            slots = []
            for slot in player.psyche:
                if slot.drug is not None:
                    slots.append(f"{slot.disorder.name} treated with {slot.drug.name}")
                else:
                    slots.append(f"{slot.disorder.name} untreated")
            psyche = "; ".join(slots) if slots else "an empty Psyche"
            open_to = _listed(list(player.vulnerable_to)) if player.vulnerable_to else "nothing"
            marks = self.text.status_marks(player, over=view.outcome is not None)
            tail = f" Marks: {', '.join(marks)}." if marks else ""
            lines.append(f"{who}, {cards} in hand: {psyche}. Open to {open_to}.{tail}")
        turn = f"Turn {view.turn}: {name_of(names, view.current, me, capital=True)} to play"
        if view.phase == self.se.PLAY:
            turn += f", {_plural(view.plays_left, 'play')} left"
        top = f" (on top: {view.discard_top.name})" if view.discard_top is not None else ""
        lines.append(f"{turn}. Draw pile {view.draw_count}, discard pile {view.discard_count}{top}.")
        return lines

    def card(self, name: str) -> list[str] | None:
        from quackbox.cards import side_effects as se_cards
        from quackbox.core.side_effects.text import punishment_text

        wanted = name.strip().lower()
        for card in self.se.RULES.deck.kinds:
            if card.name.lower() != wanted:
                continue
            lines = [f"{card.name}: {self.text.card_sentence(card)}"]
            if card.kind == se_cards.DISORDER:
                episode = punishment_text(
                    card.punishment,
                    target="they",
                    their="their",
                    inflictor="you",
                    inflictor_object="you",
                    target_plural=True,
                    inflictor_plural=True,
                )
                lines.append(f"An Episode on an untreated {card.name}: {episode}.")
            return lines
        return None

    def card_names(self) -> list[str]:
        return list(dict.fromkeys(card.name for card in self.se.RULES.deck.kinds))

    def rules(self) -> str:
        return rules_text.side_effects_rules()

    def anytime(self, view: Any) -> tuple[Move, ...]:
        return ()

    def passing(self, move: Move) -> bool:
        return False

    # --- trading (SE10) ---------------------------------------------------------------------

    def trade_answers(self, view: Any) -> tuple[Move, ...]:
        return tuple(m for m in view.legal if isinstance(m, self.se.TRADE_ANSWERS))

    def partners(self, view: Any) -> tuple[int, ...]:
        return tuple(view.trade_partners)

    def wants(self, view: Any, text: str) -> tuple[str, ...] | str:
        known = {name.lower(): name for name in view.trade_wants}
        out = []
        for part in text.split(","):
            part = part.strip()
            if not part:
                continue
            if part.lower() not in known:
                return f"No card is called {part!r}."
            out.append(known[part.lower()])
        return tuple(out)

    def offer_move(self, to: int, give: Sequence[int], want: Sequence[str]) -> Move:
        return self.se.OfferTrade(to, tuple(give), tuple(want))

    def offer_sentence(self, view: Any, to: int, give: Sequence[int], want: Sequence[str], names: Sequence[str]) -> str:
        cards = {c.id: c.name for c in view.hand}
        given = _listed([cards.get(c, f"card {c}") for c in give]) or "nothing"
        asked = _listed(list(want))
        who = seat_name(names, to)
        if not give:
            return f"Ask {who} for {asked} as a gift"
        return f"Offer {who} {given} " + (f"for their {asked}" if want else "as a gift")


# --- Quack in the Box --------------------------------------------------------------------------


class QuackWords:
    """Quack in the Box in lines."""

    def __init__(self) -> None:
        from quackbox.core import quack as q
        from quackbox.tui import quack_text

        self.q = q
        self.text = quack_text

    def describe(self, view: Any, move: Move, names: Sequence[str]) -> str:
        return self.text.describe_move(view, move, names)

    def asked(self, view: Any, names: Sequence[str]) -> str:
        q = self.q
        me = view.seat
        if view.phase == q.WINDOW:
            return "Your chance to play an Anytime card, or pass."
        if view.phase == q.FLEE:
            return f"Your turn, round {view.round}: stay and practise, or flee to Switzerland for good."
        if view.phase == q.TREAT:
            case = self._case(view, me, names)
            return f"Your turn: play {_plural(view.owed, 'more Treatment')} on your Patient ({case})."
        if view.phase == q.SHORT_HAND:
            return "You are out of Treatments: play or throw away an Anytime card."
        return "Your move."

    def offered(self, view: Any, names: Sequence[str]) -> list[Offered]:
        return []  # Anytime cards are always there: the anytime command lists them

    def anytime(self, view: Any) -> tuple[Move, ...]:
        return tuple(m for m in view.legal if isinstance(m, self.q.PlayAnytime))

    def passing(self, move: Move) -> bool:
        return isinstance(move, self.q.Pass)

    def trade_answers(self, view: Any) -> tuple[Move, ...]:
        return ()

    def partners(self, view: Any) -> tuple[int, ...]:
        return ()

    def wants(self, view: Any, text: str) -> tuple[str, ...] | str:
        return "Quack in the Box has no trading."

    def offer_move(self, to: int, give: Sequence[int], want: Sequence[str]) -> Move:
        raise ValueError("Quack in the Box has no trading")

    def offer_sentence(self, view: Any, to: int, give: Sequence[int], want: Sequence[str], names: Sequence[str]) -> str:
        return ""

    def _case(self, view: Any, seat: int, names: Sequence[str]) -> str:
        doctor = view.players[seat]
        case = doctor.case
        if case is None:
            return "no Patient"
        if case.patient is None or case.cure_points is None or case.harm_points is None:
            return f"a face-down Patient, {_plural(case.received, 'Treatment')} received"
        patient = case.patient
        mortal = f", dies anyway after {patient.mortal} Treatments" if patient.mortal else ""
        return (
            f"{patient.name}, {', '.join(patient.illnesses)}: Cure {case.cure_points} of {patient.cure}, "
            f"Harm {case.harm_points} of {patient.kill}, {_plural(case.received, 'Treatment')} received{mortal}"
        )

    def hand(self, view: Any, names: Sequence[str]) -> list[str]:
        if not view.hand:
            return ["Your hand is empty."]
        from quackbox.cards.quack import Treatment

        lines = [f"Your hand, {_plural(len(view.hand), 'card')}:"]
        for i, card in enumerate(view.hand, 1):
            if isinstance(card, Treatment):
                lines.append(
                    f"{i}. {card.name}, a {card.treatment_type} Treatment for "
                    f"{self.text.money(card.price)}: {self.text.points_text(card)}."
                )
            else:
                lines.append(f"{i}. {card.name}, an Anytime card: {card.description}")
        return lines

    def table(self, view: Any, names: Sequence[str]) -> list[str]:
        q = self.q
        me = view.seat
        lines = []
        for doctor in view.players:
            who = name_of(names, doctor.seat, me, capital=True)
            status = {
                q.PRACTISING: "practising",
                q.SWITZERLAND: "in Switzerland",
                q.MOBBED: "run out of town by the Mob",
            }.get(doctor.status, str(doctor.status))
            line = (
                f"{who}: {self.text.money(doctor.money)}, Infamy {doctor.infamy} of {view.threshold}, "
                f"{_plural(doctor.hand_size, 'card')} in hand, {status}. "
                f"Patient: {self._case(view, doctor.seat, names)}."
            )
            waiting = [r.name for r in doctor.reminders]
            if doctor.case is not None:
                waiting += [r.name for r in doctor.case.reminders]
            if waiting:
                line += f" Waiting on them: {_listed(waiting)}."
            if doctor.final_turn:
                line += " One more turn to take."
            lines.append(line)
        current = name_of(names, view.current, me, capital=True)
        state = {
            q.FLEE: "deciding whether to stay",
            q.TREAT: f"treating, {view.owed} Treatments owed",
            q.SHORT_HAND: "out of Treatments",
            q.WINDOW: "between Treatments: a window for Anytime cards",
        }
        doing = state.get(view.phase, "")
        die = f", rolled {view.die}" if view.die else ""
        lines.append(
            f"Round {view.round}: {current}'s turn{die}{', ' + doing if doing else ''}. "
            f"Doc deck {view.doc_deck_count}, Patient deck {view.patient_deck_count}."
            + (" The endgame has begun." if view.endgame else "")
        )
        return lines

    def card(self, name: str) -> list[str] | None:
        deck = self.q.RULES.deck
        wanted = name.strip().lower()
        for patient in deck.patients:
            if patient.name.lower() == wanted:
                mortal = f", dies anyway after {patient.mortal} Treatments" if patient.mortal else ""
                return [
                    f"{patient.name}, a Patient ({', '.join(patient.illnesses)}): Cure {patient.cure}, "
                    f"Kill {patient.kill}, Infamy {patient.infamy}{mortal}.",
                    patient.description,
                ]
        for treatment in deck.treatments:
            if treatment.name.lower() == wanted:
                return [
                    f"{treatment.name}, a {treatment.treatment_type} Treatment for "
                    f"{self.text.money(treatment.price)}: {self.text.points_text(treatment)}.",
                    treatment.description,
                ]
        for card in deck.anytimes:
            if card.name.lower() == wanted:
                return [f"{card.name}, an Anytime card: {card.description}"]
        return None

    def card_names(self) -> list[str]:
        deck = self.q.RULES.deck
        names = [c.name for c in deck.patients] + [c.name for c in deck.treatments] + [c.name for c in deck.anytimes]
        return list(dict.fromkeys(names))

    def rules(self) -> str:
        return rules_text.quack_rules()


def words_for(game: str) -> SideEffectsWords | QuackWords:
    """The words of ``game`` (its command-line name)."""
    from quackbox.core import games

    if game == games.QUACK:
        return QuackWords()
    return SideEffectsWords()
