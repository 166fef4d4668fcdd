"""Quack in the Box log sentences: every change of Cure, Harm, money or Infamy gives the numbers.

The events carry the figures (AnytimePlayed's points, MoneyPaid's ``billed``
and ``reminder``, MoneyLost's ``total``) and :func:`quackbox.core.quack.text.describe`
says them, from the reader's side.
"""

from __future__ import annotations

import pytest

from quackbox.core import quack as q
from quackbox.core.quack import RULES
from quackbox.core.quack.moves import PayReason
from tests.core.test_quack_rules import anytime, ids, of, table, treat

NAMES = ["Ann", "Ben", "Cy"]


def said(events, reader: int = 0) -> list[str]:
    """What ``reader``'s log shows for ``events``."""
    return [RULES.describe(RULES.redact(e, reader), NAMES, reader) for e in events]


@pytest.mark.parametrize("value", [0, 50, 1100, 1_234_567])
def test_money_is_written_one_way(value: int) -> None:
    """$1,100, never $1100: the one formatter the log and the table share."""
    assert q.money(value) == "$" + f"{value:,}"
    assert q.money(-300) == "-$300"


@pytest.mark.parametrize(
    ("card", "paid", "line"),
    [
        ("Claim Denied", 0, "Claim Denied: your pay this round is cancelled: $0 instead of $325."),
        ("Upcoding", 650, "Upcoding: your pay this round is doubled: $650 instead of $325."),
    ],
)
def test_payday_reminders_say_what_the_pay_would_have_been(card: str, paid: int, line: str) -> None:
    """QR15: Claim Denied and Upcoding act on the sum; the payday line says both figures,
    and a Claim Denied that takes everything still has a payday line."""
    state = table(
        hands={1: [card], 0: ["Thorough H&P", "Drink More Water", "Get Some Rest", "Knee Tap", "Yoga", "Xray"]},
        patients={0: "Retired Hypochondriac"},
        faces=[2],
    )
    played = anytime(state, 1, card, 0)
    assert said(played)[0].startswith(f"Ben played {card} on you: your next pay for Treatments is ")
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Thorough H&P")
    events = treat(state, 0, "Drink More Water")
    pay = [e for e in of(events, q.MoneyPaid) if e.reason == "treatments"]
    assert [(e.amount, e.billed, e.reminder) for e in pay] == [(paid, 325, ids(card)[0])]
    assert line in said(events)
    assert f"{card}: Ann's pay this round" in " ".join(said(events, 1))


def test_upcoding_nothing_says_so_not_zero_instead_of_zero() -> None:
    """Issue 25: Upcoding on a pay of $0 read "doubled: $0 instead of $0"."""
    upcoding = ids("Upcoding")[0]
    pay = q.MoneyPaid(seat=2, amount=0, reason=PayReason.TREATMENTS, cards=(), billed=0, reminder=upcoding)
    assert RULES.describe(pay, NAMES, 0) == "Upcoding: Cy's pay this round would have been doubled, but it came to $0."


def test_plain_payday_has_no_reminder() -> None:
    state = table(
        hands={0: ["Thorough H&P", "Drink More Water", "Get Some Rest", "Knee Tap", "Yoga", "Xray"]},
        patients={0: "Retired Hypochondriac"},
        faces=[2],
    )
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Thorough H&P")
    events = treat(state, 0, "Drink More Water")
    pay = [e for e in of(events, q.MoneyPaid) if e.reason == "treatments"]
    assert [(e.amount, e.billed, e.reminder) for e in pay] == [(325, 325, q.NONE)]
    assert "You were paid $325 for Thorough H&P, Drink More Water." in said(events)


def test_nurse_night_off_gives_the_harm_and_the_kill() -> None:
    """An Anytime card that kills says the Harm it gave, the totals, and the Kill reached."""
    state = table(hands={2: ["Nurse Has the Night Off"]}, patients={0: ("Weekend Warrior", 1, 4, 0)})
    events = anytime(state, 2, "Nurse Has the Night Off", 0)
    played = of(events, q.AnytimePlayed)[0]
    assert (played.cure, played.harm, played.total_cure, played.total_harm) == (0, 2, 1, 6)
    lines = said(events)
    assert lines[0] == "Cy played Nurse Has the Night Off on your Patient: +2 Harm (now 1 Cure, 6 Harm)."
    assert "Weekend Warrior died in your office of the Harm (Kill 6)." in lines
    assert "You gained 1 Infamy (now 1)." in lines


def test_placebo_and_miraculous_recovery_give_their_points() -> None:
    state = table(hands={2: ["Placebo", "Miraculous Recovery"]}, patients={1: ("Mystery Rash", 1, 3, 0)})
    assert said(anytime(state, 2, "Placebo", 1), 1) == [
        "Cy played Placebo on your Patient: +2 Cure (now 3 Cure, 3 Harm)."
    ]
    events = anytime(state, 2, "Miraculous Recovery", 1)
    assert (events[0].harm, events[0].total_harm) == (-3, 0)
    assert said(events, 0) == [
        "Cy played Miraculous Recovery on Ben's Patient: its 3 Harm is gone (now 3 Cure, 0 Harm)."
    ]


def test_points_on_a_face_down_patient_stay_hidden() -> None:
    """QR18: an Anytime card's points on a face-down Patient reach nobody, its doctor included."""
    state = table(hands={2: ["Placebo"]}, patients={1: ("Mystery Rash", 1, 3, 0)})
    state.doctors[1].case.face_down = True
    played = anytime(state, 2, "Placebo", 1)[0]
    assert played.face_down and played.total_cure == 3  # the truth, for the host only
    for reader in (None, 0, 1, 2):
        seen = RULES.redact(played, reader)
        assert (seen.cure, seen.harm, seen.total_cure, seen.total_harm) == (q.NONE,) * 4
        assert "nobody can tell" in RULES.describe(seen, NAMES, reader)


def test_tax_audit_says_what_is_left() -> None:
    state = table(hands={2: ["Tax Audit"]}, money={1: 1400})
    events = anytime(state, 2, "Tax Audit", 1)
    assert of(events, q.MoneyLost) == [q.MoneyLost(seat=1, amount=300, reason="fine", total=1100)]
    assert said(events, 1) == ["Cy played Tax Audit on you.", "You paid a $300 fine, leaving $1,100."]


def test_every_anytime_card_says_what_it_does() -> None:
    """Each Anytime card in the deck gets its own explanation, not just "played X on Y"."""
    bare = {"Malpractice Suit", "Glowing Online Review", "Tax Audit", "Paper Shredder"}  # the next line says it
    for card in RULES.deck.anytimes:
        played = q.AnytimePlayed(
            seat=1,
            card=ids(card.name)[0],
            target=0,
            other=2,
            discard=q.NONE,
            face_down=False,
            cure=0,
            harm=0,
            total_cure=0,
            total_harm=0,
        )
        line = RULES.describe(played, NAMES, 0)
        assert line.startswith(f"Ben played {card.name}"), line
        if card.name not in bare:
            assert ": " in line, f"{card.name} is not explained: {line}"
