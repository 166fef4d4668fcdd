"""Card data for both games, and the typed loaders that validate it.

The decks are TOML files beside this module, so a house deck is a data edit.
Loaders parse text into frozen dataclasses and refuse bad data with a
:class:`CardDataError` that names the file and the card. Standard library only.
"""

from quackbox.cards.data import CardDataError

__all__ = ["CardDataError"]
