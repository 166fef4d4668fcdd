"""The host keeps order at its table: removing a person, muting a person's chat.

Only the host's own seat may (the seat whose token the host holds; a headless
table has none). A removed seat's person is shown out, their seat token never
sits at the table again, and a bot plays their seat in a game (in the lobby
it opens); a removed spectator is shown out. A muted person's chat reaches
nobody. Both are journalled (:class:`~quackbox.net.actions.JournalNote`) so a
resumed table keeps them. No IO and no clock.
"""

from __future__ import annotations

from typing import Protocol

from quackbox.net.actions import Action, Close, JournalNote
from quackbox.net.lobby import CLOSE_NORMAL, LOBBY, Lobby, Peer
from quackbox.net.protocol import BOT, OPEN, Bye, ErrorCode, Notice
from quackbox.net.seats import Seat, Seats
from quackbox.net.text import clean_name, name_keys


class Table(Protocol):
    """What keeping order reads of its table (:class:`quackbox.net.table.Table`)."""

    @property
    def phase(self) -> str: ...

    @property
    def seats(self) -> Seats: ...

    @property
    def lobby(self) -> Lobby: ...

    @property
    def host_token(self) -> str | None: ...


__all__ = ["Order"]


class Order:
    """What the host's seat may do to keep order at ``table``."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def is_host(self, peer: Peer) -> bool:
        """Whether ``peer`` is the host's own seat (a headless table has none)."""
        return (
            self.table.host_token is not None
            and peer.seat is not None
            and self.table.seats[peer.seat].token == self.table.host_token
        )

    def _person(self, name: str) -> Seat | Peer | None:
        """The seat whose person goes by ``name`` (as names are told apart), or the spectator."""
        wanted = name_keys(clean_name(name))
        for seat in self.table.seats:
            if seat.kind != OPEN and not wanted.isdisjoint(name_keys(seat.name)):
                return seat
        for peer in self.table.lobby.audience():
            if peer.spectator and not wanted.isdisjoint(name_keys(peer.name)):
                return peer
        return None

    def _refuse_unless_host(self, peer: Peer, what: str) -> list[Action] | None:
        if self.is_host(peer):
            return None
        return self.table.lobby.error(peer, ErrorCode.NOT_HOST, f"Only the host may {what}.", what.split()[0])

    def remove(self, peer: Peer, name: str) -> list[Action]:
        """The host removes the person called ``name``: a seat's person is replaced by a bot
        (in the lobby the seat opens) and their token never sits here again; a spectator
        is shown out. Everyone is told."""
        refused = self._refuse_unless_host(peer, "remove people from the table")
        if refused is not None:
            return refused
        target = self._person(name)
        lobby = self.table.lobby
        if target is None:
            return lobby.error(peer, ErrorCode.BAD_MESSAGE, f"Nobody called {name} is at this table.", "remove")
        out: list[Action] = []
        if isinstance(target, Peer):
            told = f"The host asked {target.name} to leave."
            out += self._show_out(target)
        else:
            if target.kind == BOT:
                return lobby.error(
                    peer, ErrorCode.BAD_MESSAGE, f"{target.name} is a bot: there is nobody to remove.", "remove"
                )
            if target.index == peer.seat:
                return lobby.error(
                    peer, ErrorCode.BAD_MESSAGE, "You cannot remove yourself; close the table instead.", "remove"
                )
            gone = lobby.peers.get(target.conn) if target.conn is not None else None
            if target.token_hash:
                lobby.removed.add(target.token_hash)
                out.append(
                    JournalNote("removed", target.index if self.table.phase != LOBBY else None, target.token_hash)
                )
            name = target.name
            if self.table.phase == LOBBY:
                self.table.seats.free(target)
                told = f"The host removed {name} from the table."
            else:
                self.table.seats.revoke(target)
                told = f"The host removed {name} from the table; a bot plays their seat."
            if gone is not None:
                gone.seat = None
                out += self._show_out(gone)
            out += lobby.announce(self.table.phase)
        return out + self._notice(told)

    def _show_out(self, peer: Peer) -> list[Action]:
        peer.closing = True
        return self.table.lobby.send(
            peer, Bye(reason="removed", message="The host removed you from the table."), free=True
        ) + [Close(peer.conn, CLOSE_NORMAL, "removed", free=True)]

    def mute(self, peer: Peer, name: str, muted: bool) -> list[Action]:
        """The host mutes (or lets go) the chat of the person called ``name``: the table stops
        seeing it; that person is told."""
        refused = self._refuse_unless_host(peer, "mute people's chat")
        if refused is not None:
            return refused
        target = self._person(name)
        lobby = self.table.lobby
        if target is None or (not isinstance(target, Peer) and target.kind == BOT):
            return lobby.error(peer, ErrorCode.BAD_MESSAGE, f"Nobody called {name} chats at this table.", "mute")
        if not isinstance(target, Peer) and target.index == peer.seat:
            return lobby.error(peer, ErrorCode.BAD_MESSAGE, "You cannot mute yourself.", "mute")
        out: list[Action] = []
        if isinstance(target, Peer):
            target.muted = muted
            who, listeners = target.name, [target]
        else:
            if muted:
                lobby.muted.add(target.index)
            else:
                lobby.muted.discard(target.index)
            out.append(JournalNote("muted", target.index, muted=muted))
            out += lobby.announce(self.table.phase)
            who, listeners = target.name, [p for p in lobby.audience() if p.seat == target.index]
        own = (
            "The host muted your chat: the table no longer sees what you say."
            if muted
            else "The host lets you chat again."
        )
        for listener in listeners:
            out += lobby.send(listener, Notice(text=own), free=True)
        said = f"{who}'s chat is muted: nobody sees it." if muted else f"{who} may chat again."
        return out + lobby.send(peer, Notice(text=said), free=True)

    def _notice(self, text: str) -> list[Action]:
        """``text`` for everyone's log."""
        return self.table.lobby.broadcast(Notice(text=text))
