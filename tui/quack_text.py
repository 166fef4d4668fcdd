"""Words for the Quack in the Box table: what a legal move will do, said before it is made.

Reads a :class:`quackbox.core.quack.QuackView` and moves from its ``legal`` tuple.
Every number a preview states is the rules' own arithmetic from
:mod:`quackbox.core.quack.cards`: the Cure and Harm a Treatment gives
(:func:`~quackbox.core.quack.cards.treatment_points`), what it leaves the Patient to
(:func:`~quackbox.core.quack.cards.case_fate`), the Infamy after a change and whether
the Mob comes, what a fine takes.
"""

from __future__ import annotations

from typing import Callable, Sequence

from quackbox.cards import quack as qc
from quackbox.cards.quack import Anytime, Patient, Treatment
from quackbox.core import quack as q
from quackbox.core.rules import Move
from quackbox.tui.names import name_of, possessive

ILLNESS_SHORT = {
    "Abdominal Surgery": "Abdominal",
    "Allergy": "Allergy",
    "Bleeding": "Bleeding",
    "Cardiac": "Cardiac",
    "GI": "GI",
    "Gynecology": "Gyn",
    "Infectious": "Infectious",
    "Minor Trauma": "Trauma",
    "Neuro": "Neuro",
    "Oncology": "Oncology",
    "Pregnancy": "Pregnancy",
    "Psychiatry": "Psych",
}

TYPE_SHORT = {
    "Advice": "Advice",
    "H&P": "H&P",
    "Laboratory": "Lab",
    "Medicine": "Medicine",
    "Procedure": "Procedure",
    "Transfusion": "Transfus.",
    "Xray": "Xray",
}


money = q.money
"""Money as the log writes it ($1,100): one formatter for core and the table."""


def press(numbers: Sequence[int]) -> str:
    """The keys that pick these cards, as a person says them: ``press 3``,
    ``press 3 or 5``, ``press 1, 2 or 4``, ``press 1-4`` (numbers from 1)."""
    nums = sorted(set(numbers))
    if not nums:
        return ""
    if len(nums) >= 3 and nums[-1] - nums[0] == len(nums) - 1:
        return f"press {nums[0]}-{nums[-1]}"
    words = [str(n) for n in nums]
    return "press " + (words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1])


def first_aim(moves: Sequence[Move], card: Anytime | Treatment | None, me: int | None) -> int:
    """Which of a picked card's legal ``moves`` to aim at first: a rival for
    a card that hurts its target, yourself for one that helps (core says
    which is which); else the first. Only ever an index into ``moves``."""
    if not isinstance(card, Anytime) or me is None or not moves:
        return 0
    if card.effect in q.HARMFUL:
        # Wrong Chart names two seats: neither should be you, if that can be had.
        for test in (lambda m: me not in (m.target, m.other), lambda m: m.target != me):
            for i, move in enumerate(moves):
                if isinstance(move, q.PlayAnytime) and test(move):
                    return i
    elif card.effect in q.HELPFUL:
        for i, move in enumerate(moves):
            if isinstance(move, q.PlayAnytime) and move.target == me:
                return i
    return 0


def illnesses(patient: Patient, *, short: bool = False) -> str:
    return ", ".join(ILLNESS_SHORT.get(i, i) if short else i for i in patient.illnesses)


def points_text(treatment: Treatment, *, short: bool = False) -> str:
    """The card's Cure and Harm tables, e.g. ``cures Trauma 1 · harms Bleeding 2``."""
    name = (lambda i: ILLNESS_SHORT.get(i, i)) if short else (lambda i: i)
    parts = []
    if treatment.cures:
        parts.append("cures " + ", ".join(f"{name(i)} {p}" for i, p in treatment.cures))
    harms = [f"{name(i)} {p}" for i, p in treatment.harms]
    if treatment.harms_all_others:
        harms.append(f"all others {treatment.harms_all_others}")
    if harms:
        parts.append("harms " + ", ".join(harms))
    return " · ".join(parts) or "does nothing medical"


def cards_by_id(view: q.QuackView) -> dict[int, object]:
    out: dict[int, object] = {c.id: c for c in view.hand}
    for d in view.players:
        for r in d.reminders:
            out[r.id] = r
        if d.case is not None:
            if d.case.patient is not None:
                out[d.case.patient.id] = d.case.patient
            for t in d.case.treatments:
                out[t.id] = t
            for r in d.case.reminders:
                out[r.id] = r
    return out


def treatment_effect(view: q.QuackView, treatment: Treatment, seat: int) -> tuple[str, str]:
    """(short effect, style) of ``treatment`` on the Patient of ``seat``: ``+1 cure +2 harm``."""
    doctor = view.players[seat]
    case = doctor.case
    if case is None:
        return "no Patient", "dim"
    if case.patient is None or case.cure_points is None or case.harm_points is None:
        return "face down: unknown", "italic"
    cure, harm = q.treatment_points(treatment, case.patient)
    total_harm = case.harm_points + harm
    total_cure = case.cure_points + cure
    bits = []
    if cure:
        bits.append(f"+{cure} cure")
    if harm:
        bits.append(f"+{harm} harm")
    text = " ".join(bits) or "no effect"
    fate = q.case_fate(case.patient, total_cure, total_harm, case.received + 1)
    if fate == q.Fate.HARM:
        return f"{text}: KILLS", "bold red"
    if fate == q.Fate.CURED:
        return f"{text}: CURES", "bold green"
    if fate == q.Fate.MORTAL:
        return f"{text}: dies (Mortal)", "bold red"
    return text, "red" if harm and not cure else "green" if cure and not harm else "yellow" if cure else "dim"


def describe_move(view: q.QuackView, move: Move, names: Sequence[str]) -> str:
    """What ``move`` will do, as a sentence told to the mover."""
    me = view.seat
    cards = cards_by_id(view)

    def name(cid: int) -> str:
        c = cards.get(cid)
        return getattr(c, "name", f"card {cid}")

    if isinstance(move, q.StayHome):
        return "Stay and practise: draw, admit a Patient if needed, roll for Treatments."
    if isinstance(move, q.FleeToSwitzerland):
        return "Flee to Switzerland for good."
    if isinstance(move, q.Pass):
        return "Pass: no Anytime card this time."
    if isinstance(move, q.Discard):
        return f"Throw away {name(move.card)} (out of Treatments)."
    if isinstance(move, q.PlayTreatment):
        seat = me if move.target == q.NONE else move.target
        card = cards.get(move.card)
        if seat is None or not isinstance(card, Treatment):
            return f"Play {name(move.card)}."
        effect, _ = treatment_effect(view, card, seat)
        case = view.players[seat].case
        patient = case.patient.name if case is not None and case.patient is not None else "the Patient"
        return f"{card.name} on {possessive(names, seat, me)} {patient}: {effect} ({money(card.price)} if it survives)."
    if isinstance(move, q.PlayAnytime):
        return describe_anytime(view, move, names)
    return type(move).__name__


def face_up(case: q.CaseView | None) -> tuple[Patient, int, int, int] | None:
    """A Patient whose points are shown: (its card, its Cure, its Harm, Treatments received);
    None for no Patient or a face-down one (its card and points are hidden together)."""
    if case is None or case.patient is None or case.cure_points is None or case.harm_points is None:
        return None
    return case.patient, case.cure_points, case.harm_points, case.received


def _patient_name(view: q.QuackView, seat: int) -> str:
    case = view.players[seat].case
    if case is None:
        return "no Patient"
    return case.patient.name if case.patient is not None else "a face-down Patient"


class Aim:
    """One Anytime card as its preview reads it: the view, the players' names,
    the cards the view shows by id, and the seats the move names (``target``,
    ``other``), told to the view's seat (``me``)."""

    def __init__(self, view: q.QuackView, move: q.PlayAnytime, names: Sequence[str], cards: dict[int, object]) -> None:
        self.view = view
        self.move = move
        self.names = names
        self.cards = cards
        self.me = view.seat
        self.target = move.target
        self.other = move.other
        self.doctor = view.players[move.target]
        """The targeted doctor as the view shows them."""

    def who(self, seat: int) -> str:
        """``seat`` named to the reader: "you", "Ana"."""
        return name_of(self.names, seat, self.me)

    def whose(self, seat: int) -> str:
        """Whose: "your", "Ana's"."""
        return possessive(self.names, seat, self.me)

    def patient(self, seat: int) -> str:
        """The Patient of ``seat`` as far as the view tells it."""
        return _patient_name(self.view, seat)


AnytimePreview = Callable[[Aim, Anytime], str]

_PREVIEWS: dict[str, AnytimePreview] = {}
"""What each Anytime effect will do, said before it is played: one small
function per effect (registered with :func:`preview`), as the log keeps one
per event (:class:`quackbox.core.text.Sentences`)."""


def preview(*effects: str) -> Callable[[AnytimePreview], AnytimePreview]:
    """Register the decorated function as the preview of the cards with these ``effects``."""

    def register(words: AnytimePreview) -> AnytimePreview:
        for effect in effects:
            _PREVIEWS[effect] = words
        return words

    return register


def previewed_effects() -> frozenset[str]:
    """The Anytime effects that have a preview of their own."""
    return frozenset(_PREVIEWS)


def describe_anytime(view: q.QuackView, move: q.PlayAnytime, names: Sequence[str]) -> str:
    """What playing an Anytime card will do, told to the view's seat: the
    card's name, then its effect's preview (the card's own text for an effect
    with none)."""
    cards = cards_by_id(view)
    card = cards.get(move.card)
    if not isinstance(card, Anytime):
        return f"Play card {move.card}."
    words = _PREVIEWS.get(card.effect)
    head = f"{card.name}: "
    if words is None:
        return head + card.description
    return head + words(Aim(view, move, names, cards), card)


@preview(qc.SHRED)
def _shred(a: Aim, card: Anytime) -> str:
    gone = a.cards.get(a.move.discard)
    return f"throw away {getattr(gone, 'name', 'a card')} and draw one."


@preview(qc.FACE_DOWN)
def _face_down(a: Aim, card: Anytime) -> str:
    return f"{a.whose(a.target)} next Patient arrives face down."


@preview(qc.REDIRECT)
def _redirect(a: Aim, card: Anytime) -> str:
    return f"{a.whose(a.target)} next Treatment goes to {a.whose(a.other)} {a.patient(a.other)}."


@preview(qc.TRANSFER)
def _transfer(a: Aim, card: Anytime) -> str:
    return f"{a.who(a.target)} and {a.who(a.other)} swap Patients ({a.patient(a.target)} ⇄ {a.patient(a.other)})."


@preview(qc.CURE_POINTS)
def _cure_points(a: Aim, card: Anytime) -> str:
    extra = ""
    known = face_up(a.doctor.case)
    if known is not None:
        shown, cure, harm, received = known
        total = cure + card.amount
        fate = q.case_fate(shown, total, harm, received)
        extra = f" (now {total}/{shown.cure})" + (": CURED" if fate == q.Fate.CURED else "")
    return f"{a.whose(a.target)} {a.patient(a.target)} gains {card.amount} Cure{extra}."


@preview(qc.HARM_POINTS)
def _harm_points(a: Aim, card: Anytime) -> str:
    extra = ""
    known = face_up(a.doctor.case)
    if known is not None:
        shown, cure, harm, received = known
        total = harm + card.amount
        fate = q.case_fate(shown, cure, total, received)
        extra = f" (now {total}/{shown.kill})" + (": DIES" if fate == q.Fate.HARM else "")
    return f"{a.whose(a.target)} {a.patient(a.target)} gains {card.amount} Harm{extra}."


@preview(qc.RESET_HARM)
def _reset_harm(a: Aim, card: Anytime) -> str:
    return f"{a.whose(a.target)} {a.patient(a.target)} loses all its Harm."


@preview(qc.NULLIFY_TYPE, qc.BOOST_TYPE)
def _type_reminder(a: Aim, card: Anytime) -> str:
    what = "does nothing" if card.effect == qc.NULLIFY_TYPE else "counts double"
    return f"the next {card.treatment_type} Treatment on {a.whose(a.target)} {a.patient(a.target)} {what}."


@preview(qc.INFAMY_UP, qc.INFAMY_DOWN)
def _infamy(a: Aim, card: Anytime) -> str:
    total = q.infamy_after(a.doctor.infamy, q.signed_amount(card))
    mob = ": the Mob comes!" if q.mob_comes(total, a.view.threshold) else ""
    up = card.effect == qc.INFAMY_UP
    if a.target == a.me:
        verb = "gain" if up else "lose"
    else:
        verb = "gains" if up else "loses"
    return f"{a.who(a.target)} {verb} {card.amount} Infamy (now {total}/{a.view.threshold}){mob}."


@preview(qc.FINE)
def _fine(a: Aim, card: Anytime) -> str:
    lost = q.fine_taken(a.doctor.money, card.amount)
    return f"{a.who(a.target)} {'lose' if a.target == a.me else 'loses'} {money(lost)}."


@preview(qc.EXTRA_TREATMENT, qc.FEWER_TREATMENT)
def _treatments_owed(a: Aim, card: Anytime) -> str:
    more = "more" if card.effect == qc.EXTRA_TREATMENT else "fewer"
    return f"{a.who(a.target)} must play {card.amount} {more} Treatment{'s' if card.amount != 1 else ''}."


@preview(qc.NO_PAY, qc.DOUBLE_PAY)
def _payday(a: Aim, card: Anytime) -> str:
    paid = "nothing" if card.effect == qc.NO_PAY else "double"
    return f"{a.who(a.target)} {'are' if a.target == a.me else 'is'} paid {paid} at the next payday."
