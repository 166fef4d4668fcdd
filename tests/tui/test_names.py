"""quackbox.tui.names: one way to name a seat on every screen."""

from quackbox.tui.names import name_of, possessive, seat_name


def test_a_seat_without_a_name_is_numbered_from_one() -> None:
    assert seat_name(("Ann", "Bo"), 1) == "Bo"
    assert seat_name(("Ann", ""), 1) == "Seat 2"  # a seat left open after the game
    assert seat_name(("Ann",), 3) == "Seat 4"


def test_sentences_told_to_a_seat_say_you() -> None:
    names = ("Ann", "Bo")
    assert name_of(names, 0, 0) == "you" and name_of(names, 0, 0, capital=True) == "You"
    assert name_of(names, 1, 0) == "Bo" and possessive(names, 1, 0) == "Bo's"
    assert possessive(names, 0, 0) == "your"
