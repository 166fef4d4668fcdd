"""Drive a :class:`quackbox.net.table.Table` with made-up connections and a made-up clock.

No sockets and no event loop: frames go straight into the table, and every
frame it sends is decoded as a client would and kept per connection.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

from quackbox.net.protocol import PROTOCOL_VERSION, Hello, View, Welcome, Wire
from quackbox.net.table import Close, Send, Table


class Driver:
    def __init__(self, table: Table, *, on_frame: Callable[[int, Any], None] | None = None) -> None:
        """``on_frame(conn, message)`` sees each decoded frame as the table sends it."""
        self.table = table
        self.now = 1000.0
        self.wire = Wire(table.rules)
        self.inbox: dict[int, list[Any]] = defaultdict(list)
        self.closed: dict[int, Close] = {}
        self.records: list[Any] = []
        self.on_frame = on_frame

    # sending ---------------------------------------------------------------

    def connect(self, conn: int, remote: str = "127.0.0.1") -> None:
        self.take(self.table.connect(conn, remote, self.now))

    def send(self, conn: int, message: Any) -> list[Any]:
        """Send ``message`` from ``conn``; the messages ``conn`` received because of it."""
        return self.send_raw(conn, self.wire.encode(message))

    def send_raw(self, conn: int, data: Any) -> list[Any]:
        before = len(self.inbox[conn])
        self.take(self.table.receive(conn, data, self.now))
        return self.inbox[conn][before:]

    def disconnect(self, conn: int) -> None:
        self.take(self.table.disconnect(conn, self.now))

    def join(self, conn: int, name: str = "", **fields: Any) -> Any:
        """Connect and say hello; the first reply (a Welcome or an Error), or
        None if the answer is held back."""
        self.connect(conn)
        replies = self.send(conn, Hello(version=PROTOCOL_VERSION, name=name or f"P{conn}", **fields))
        return replies[0] if replies else None

    # time ------------------------------------------------------------------

    def advance(self, seconds: float = 0.0, *, limit: int = 100_000) -> None:
        """Move the clock on, running every tick that falls due on the way."""
        end = self.now + seconds
        for _ in range(limit):
            wake = self.table.next_wakeup()
            if wake is None or wake > end:
                break
            self.now = max(self.now, wake)
            self.take(self.table.tick(self.now))
        else:
            raise RuntimeError("the table kept asking for ticks")
        self.now = end

    # reading ---------------------------------------------------------------

    def of(self, conn: int, kind: type) -> list[Any]:
        return [m for m in self.inbox[conn] if isinstance(m, kind)]

    def view(self, conn: int) -> View:
        views = self.of(conn, View)
        assert views, f"connection {conn} has no view"
        return views[-1]

    def welcome(self, conn: int) -> Welcome:
        return self.of(conn, Welcome)[-1]

    def take(self, actions: list) -> None:
        """Carry out ``actions`` as the host would: frames into each connection's inbox,
        records kept, closes noted."""
        for action in actions:
            if isinstance(action, Send):
                message = self.wire.decode_from_host(action.data)
                if self.on_frame is not None:
                    self.on_frame(action.conn, message)
                self.inbox[action.conn].append(message)
            elif isinstance(action, Close):
                self.closed[action.conn] = action
            else:  # a journal record: kept in order, for the journal tests
                self.records.append(action)
