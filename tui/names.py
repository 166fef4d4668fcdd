"""Seats in words: every screen names seats the same way."""

from __future__ import annotations

from typing import Sequence


def seat_name(names: Sequence[str], seat: int) -> str:
    """The seat's name from the host, or ``Seat N`` (counting from 1) if it has none."""
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"Seat {seat + 1}"


def name_of(names: Sequence[str], seat: int, me: int | None, *, capital: bool = False) -> str:
    """How a sentence told to ``me`` names ``seat``: "you" for their own."""
    if seat == me:
        return "You" if capital else "you"
    return seat_name(names, seat)


def possessive(names: Sequence[str], seat: int, me: int | None) -> str:
    return "your" if seat == me else f"{seat_name(names, seat)}'s"
