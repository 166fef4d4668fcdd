"""Quack in the Box, per its rulebook and rulings QB1-QB10 (docs/QUACK_RULINGS.md).

The package's files are the game's parts:

- :mod:`~quackbox.core.quack.cards`   what a card does: points, fates, Infamy and fines, targets
- :mod:`~quackbox.core.quack.state`   the State, the options and the words for phases and status
- :mod:`~quackbox.core.quack.moves`   moves and events
- :mod:`~quackbox.core.quack.legal`   the legal moves, and one verifier per kind of move
- :mod:`~quackbox.core.quack.rules`   making moves, the turn's phases, the end: :data:`RULES`
- :mod:`~quackbox.core.quack.view`    what each seat may see
- :mod:`~quackbox.core.quack.text`    the log's sentences
- :mod:`~quackbox.core.quack.sampling` a full State built from one seat's view, and the seat's Memory
- :mod:`~quackbox.core.quack.bot`     the heuristic bot (imported by core.games with the game)
- :mod:`~quackbox.core.quack.balance` the QB10 figures

The names below are the ones the other layers (the TUI, the tests) use.
"""

from quackbox.core.quack.balance import balance_report
from quackbox.core.quack.cards import (
    HARMFUL,
    HELPFUL,
    Fate,
    Points,
    case_fate,
    fine_taken,
    infamy_after,
    mob_comes,
    owed_after,
    signed_amount,
    treatment_points,
)
from quackbox.core.quack.moves import (
    EVENT_TYPES,
    MOVE_TYPES,
    AnytimePlayed,
    CardsDiscarded,
    CardsDrawn,
    DeckReshuffled,
    DieRolled,
    Discard,
    DoctorFled,
    DoctorMobbed,
    EndgameStarted,
    FleeToSwitzerland,
    GameEnded,
    InfamyChanged,
    MoneyLost,
    MoneyPaid,
    Pass,
    PatientAdmitted,
    PatientCured,
    PatientDied,
    PatientDischarged,
    PatientRevealed,
    PlayAnytime,
    PlayTreatment,
    ReminderDiscarded,
    StayHome,
    Timeout,
    TreatmentPlayed,
    TreatmentsOwedChanged,
    TurnStarted,
    WindowOpened,
)
from quackbox.core.quack.rules import CO_PAY, DIE_HIGH, DIE_LOW, DIE_SIDES, HAND_SIZE, RULES, Quack
from quackbox.core.quack.sampling import Memory
from quackbox.core.quack.state import (
    GAME,
    Case,
    Doctor,
    Phase,
    QuackOptions,
    QuackState,
    Status,
    TwoPlayerEndgame,
    clone,
)
from quackbox.core.quack.text import money
from quackbox.core.quack.view import CaseView, DoctorView, QuackView
from quackbox.core.rules import NONE

FLEE, TREAT, SHORT_HAND, WINDOW, OVER = Phase.FLEE, Phase.TREAT, Phase.SHORT_HAND, Phase.WINDOW, Phase.OVER
PRACTISING, SWITZERLAND, MOBBED = Status.PRACTISING, Status.SWITZERLAND, Status.MOBBED
CURED = Fate.CURED
TWO_PLAYER_ENDGAMES = tuple(TwoPlayerEndgame)

sample = RULES.sample
"""``sample(view, rng, memory=None)``: a State consistent with one seat's view (:mod:`.sampling`)."""

__all__ = [
    "AnytimePlayed",
    "balance_report",
    "CardsDiscarded",
    "CardsDrawn",
    "Case",
    "case_fate",
    "CaseView",
    "clone",
    "CO_PAY",
    "CURED",
    "DeckReshuffled",
    "DIE_HIGH",
    "DIE_LOW",
    "DIE_SIDES",
    "DieRolled",
    "Discard",
    "Doctor",
    "DoctorFled",
    "DoctorMobbed",
    "DoctorView",
    "EndgameStarted",
    "EVENT_TYPES",
    "Fate",
    "fine_taken",
    "FLEE",
    "FleeToSwitzerland",
    "GAME",
    "GameEnded",
    "HAND_SIZE",
    "HARMFUL",
    "HELPFUL",
    "infamy_after",
    "InfamyChanged",
    "Memory",
    "mob_comes",
    "MOBBED",
    "money",
    "MoneyLost",
    "MoneyPaid",
    "MOVE_TYPES",
    "NONE",
    "OVER",
    "owed_after",
    "Pass",
    "PatientAdmitted",
    "PatientCured",
    "PatientDied",
    "PatientDischarged",
    "PatientRevealed",
    "Phase",
    "PlayAnytime",
    "PlayTreatment",
    "Points",
    "PRACTISING",
    "Quack",
    "QuackOptions",
    "QuackState",
    "QuackView",
    "ReminderDiscarded",
    "RULES",
    "sample",
    "SHORT_HAND",
    "signed_amount",
    "Status",
    "StayHome",
    "SWITZERLAND",
    "Timeout",
    "TREAT",
    "treatment_points",
    "TreatmentPlayed",
    "TreatmentsOwedChanged",
    "TurnStarted",
    "TWO_PLAYER_ENDGAMES",
    "TwoPlayerEndgame",
    "WINDOW",
    "WindowOpened",
]
