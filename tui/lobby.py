"""The lobby of a hosted or joined table: room code, seats, ready marks, start, chat."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input, Static

from quackbox.net.protocol import BOT, OPEN, ChatLine, Lobby, SeatInfo
from quackbox.tui.modals import ConfirmScreen
from quackbox.tui.screens_app import ScreensApp, screens_app
from quackbox.tui.widgets import GameLog, KeyBar, StatusBar, refresh_keys

# A 5x5 pixel font for room codes (consonants, as net.table makes them, and digits),
# drawn two pixel rows per text row with half blocks.
_FONT = {
    "B": "11110 10001 11110 10001 11110",
    "C": "01111 10000 10000 10000 01111",
    "D": "11110 10001 10001 10001 11110",
    "F": "11111 10000 11110 10000 10000",
    "G": "01111 10000 10011 10001 01111",
    "H": "10001 10001 11111 10001 10001",
    "J": "00111 00010 00010 10010 01100",
    "K": "10010 10100 11000 10100 10010",
    "L": "10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10001 10001",
    "N": "10001 11001 10101 10011 10001",
    "P": "11110 10001 11110 10000 10000",
    "Q": "01110 10001 10101 10010 01101",
    "R": "11110 10001 11110 10100 10010",
    "S": "01111 10000 01110 00001 11110",
    "T": "11111 00100 00100 00100 00100",
    "V": "10001 10001 10001 01010 00100",
    "W": "10001 10001 10101 11011 10001",
    "X": "10001 01010 00100 01010 10001",
    "Z": "11111 00010 00100 01000 11111",
    "0": "01110 10011 10101 11001 01110",
    "1": "00100 01100 00100 00100 01110",
    "2": "11110 00001 01110 10000 11111",
    "3": "11110 00001 00110 00001 11110",
    "4": "10010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 11110",
    "6": "01110 10000 11110 10001 01110",
    "7": "11111 00001 00010 00100 00100",
    "8": "01110 10001 01110 10001 01110",
    "9": "01110 10001 01111 00001 01110",
    "A": "01110 10001 11111 10001 10001",
    "E": "11111 10000 11110 10000 11111",
    "I": "01110 00100 00100 00100 01110",
    "O": "01110 10001 10001 10001 01110",
    "U": "10001 10001 10001 10001 01110",
    "Y": "10001 01010 00100 00100 00100",
}


def big_text(text: str) -> str:
    """``text`` in block letters three rows high (characters without a glyph
    show as themselves; a dash between groups is a narrow gap, so a
    twelve-letter room code fits in 80 columns)."""
    rows = ["", "", ""]
    for ch in text.upper():
        if ch == "-":
            rows = [row + " " for row in rows]
            continue
        glyph = _FONT.get(ch)
        if glyph is None:
            cells = [f"  {ch}  " if r == 1 else "     " for r in range(3)]
        else:
            pix = [row for row in glyph.split()] + ["00000"]
            cells = []
            for r in range(3):
                top, bottom = pix[2 * r], pix[2 * r + 1]
                cells.append(
                    "".join(
                        "█" if t == "1" and b == "1" else "▀" if t == "1" else "▄" if b == "1" else " "
                        for t, b in zip(top, bottom)
                    )
                )
        for r in range(3):
            rows[r] += cells[r] + " "
    return "\n".join(row.rstrip() for row in rows)


@dataclass
class LobbyInfo:
    title: str
    mode: str
    address: str
    room_code: str | None
    """Shown in block letters: None for someone who only watches (see QuackboxApp._show_lobby)."""
    seat: int | None
    starter: bool
    host_key: str | None = None
    """The SSH host key's fingerprint, for players who come in over SSH to check."""
    ssh_door: str | None = None
    """What friends type to come in over SSH (``ssh -p 2222 10.0.0.5``), on a table hosted with one."""
    web_link: str | None = None
    """What friends open in a browser (``http://10.0.0.5:7118/#KQXZ``), on a table hosted with a browser door."""


def join_markdown(info: LobbyInfo, *, resumed: bool = False) -> str:
    """How friends come to a table hosted here, as a page to read (the lobby's lines, for a
    table that opens straight into its game: a resumed one)."""
    command = f"quackbox join {info.address}" + (f" --code {info.room_code}" if info.room_code else "")
    parts = ["**Friends join with:**", f"    {command}"]
    if info.ssh_door:
        parts += ["or, nothing installed:", f"    {info.ssh_door}"]
    if info.web_link:
        parts += ["or in a browser:", f"    {info.web_link}"]
    if info.room_code:
        parts.append(f"The room code is **{info.room_code}**.")
    if info.host_key:
        parts.append(f"SSH host key `{info.host_key}`")
    if resumed:
        parts.append(
            "This game was resumed: everyone takes their seat back the way they came in (the same "
            "command, link or SSH key); a bot plays an empty seat meanwhile."
        )
    return "\n\n".join(parts)


class LobbyScreen(Screen[None]):
    """Waiting for the table to fill up and the starter to start."""

    @property
    def quackbox(self) -> ScreensApp:
        """The app this screen runs in, as the screens see it (:mod:`quackbox.tui.screens_app`)."""
        return screens_app(self)

    DEFAULT_CSS = """
    LobbyScreen { layout: vertical; }
    LobbyScreen #top { height: auto; padding: 0 1; }
    LobbyScreen #code { width: auto; min-width: 26; height: 5; border: round $accent; padding: 0 1;
                        color: $accent; text-style: bold; }
    LobbyScreen #how { width: 1fr; height: auto; padding: 0 0 0 2; }
    LobbyScreen #top.stacked { layout: vertical; }
    LobbyScreen #top.stacked #how { padding: 0; }
    LobbyScreen #host-key { height: auto; padding: 0 1; color: $text-muted; }
    LobbyScreen #seats { height: auto; padding: 0 1; margin-top: 1; }
    LobbyScreen #lobby-log { height: 1fr; min-height: 3; border-top: solid $panel-lighten-2; }
    LobbyScreen #lobby-chat { height: 1; border: none; padding: 0 1; }
    """

    AUTO_FOCUS = "#lobby-chat"
    _ready = False
    """Mounted: its widgets can be reached."""
    """Whatever is typed here is chat: no sentence can press a key by accident (an "s"
    would start the game), so the lobby's own keys are ones no sentence holds."""

    BINDINGS = [
        Binding("ctrl+r", "ready", "ready"),
        Binding("ctrl+s", "start", "start"),
        Binding("ctrl+o", "people", "people"),
        Binding("f1", "help", "rules"),
        Binding("escape", "leave", "leave"),
    ]

    lobby: reactive[Lobby | None] = reactive(None)
    """The latest lobby message from the host."""
    connection: reactive[str] = reactive("online")
    """The link to the host: online, reconnecting or closed."""
    ready_sent: reactive[bool] = reactive(False)
    """What this seat last told the host about being ready."""
    paused: reactive[str] = reactive("")
    """Why the host has paused play ("" while it goes on)."""

    def __init__(self, info: LobbyInfo) -> None:
        super().__init__()
        self.info = info
        self._command_width = 0
        """Columns of the widest line of how to join that holds a command (kept whole)."""

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="top"):
            if self.info.room_code:
                yield Static(big_text(self.info.room_code), id="code")
            yield Static("", id="how")
        if self.info.host_key:
            # A line of its own, the whole width: a fingerprint broken across lines is hard to check.
            yield Static(f"SSH host key {self.info.host_key}", id="host-key", markup=False)
        yield Static("", id="seats")
        yield GameLog(id="lobby-log")
        yield Input(placeholder="Say something to the table: type, then Enter", id="lobby-chat", max_length=300)
        yield KeyBar(palette=True)

    def on_mount(self) -> None:
        self._ready = True
        if self.info.room_code:
            self.query_one("#code", Static).border_title = Text("room code")
        self.query_one("#lobby-chat", Input).cursor_blink = self.quackbox.cursor_blink_enabled
        self._render_all()

    def on_resize(self, event: events.Resize) -> None:
        self._place_how()

    def _place_how(self) -> None:
        """How to join goes beside the room code where its lines fit whole, else
        under it: a twelve-letter code in block letters takes nearly all of 80
        columns, and a command broken across lines is hard to copy."""
        if not self.info.room_code:
            return
        code_width = max(len(row) for row in big_text(self.info.room_code).splitlines()) + 6  # border, padding
        needed = self._command_width + 2  # #how's left padding
        self.query_one("#top").set_class(self.app.size.width - code_width < needed, "stacked")

    def watch_lobby(self) -> None:
        self._render_all()

    def watch_connection(self) -> None:
        self._render_all()

    def table_closed(self, why: str) -> None:
        """The table has closed: say why in the log, and how to go."""
        self.connection = "closed"
        self.query_one("#lobby-log", GameLog).notice(f"{why} Press Esc to leave.", style="italic red")

    def receive_paused(self, reason: str) -> None:
        """Play is paused (``reason``), or goes on again (empty): said in the lobby's log,
        and in the status line for as long as it lasts."""
        if reason == self.paused:
            return
        self.paused = reason
        log = self.query_one("#lobby-log", GameLog)
        if reason:
            log.notice(reason, style="bold yellow")
        else:
            log.notice("The host can save the game again: play goes on.", style="italic")

    def watch_paused(self) -> None:
        self._render_all()

    def receive_chat(self, line: ChatLine, names: tuple[str, ...]) -> None:
        self.query_one("#lobby-log", GameLog).chat(
            line.name or "Someone", line.text, me=line.seat is not None and line.seat == self.info.seat
        )

    def _me(self) -> SeatInfo | None:
        lobby = self.lobby
        if lobby is None or self.info.seat is None:
            return None
        return next((s for s in lobby.seats if s.seat == self.info.seat), None)

    def _render_all(self) -> None:
        if not self._ready:
            return
        info = self.info
        lobby = self.lobby
        status = Text(no_wrap=True, overflow="ellipsis")
        status.append(info.title, style="bold")
        status.append(" · hosting" if info.mode == "host" else f" · at {info.address}")
        right = Text(
            f"● {self.connection}" if self.connection == "online" else f"◌ {self.connection}",
            style="green" if self.connection == "online" else "bold yellow",
        )
        if self.paused and self.connection == "online":
            right = Text("⏸ paused: cannot save", style="bold yellow")
        self.query_one("#status", StatusBar).update(status, right)

        how = Text()
        # Lines that hold a command must stay whole (sentences may wrap): (lead-in, command).
        commands: list[tuple[str, str]] = []
        if info.mode == "host":
            how.append("Friends join with:\n", style="bold")
            cmd = f"quackbox join {info.address}"
            if info.room_code:
                cmd += f" --code {info.room_code}"
            commands.append(("", cmd))
            if info.ssh_door:
                commands.append(("\nor, nothing installed: ", info.ssh_door))
            if info.web_link:
                commands.append(("\nor in a browser: ", info.web_link))
            for lead_in, command in commands:
                how.append(lead_in)
                how.append(command, style="bold cyan")
            how.append("\nSeats nobody takes are played by bots. Press Ctrl+S to start.")
        elif lobby is not None and lobby.starter == info.seat:
            how.append("You start this table.\n", style="bold")
            how.append("Press Ctrl+S to start when everyone is ready; empty seats get bots.")
        else:
            how.append("Waiting for the host to start the game.\n")
            how.append("Press Ctrl+R when you are ready.", style="bold")
        self._command_width = max((len(lead_in.strip("\n")) + len(command) for lead_in, command in commands), default=0)
        self.query_one("#how", Static).update(how)
        self._place_how()

        seats = Text()
        if lobby is not None:
            seats.append("Seats\n", style="bold underline")
            for s in lobby.seats:
                you = s.seat == info.seat
                seats.append(f" {s.seat + 1}  ")
                if s.kind == OPEN:
                    seats.append("(open)".ljust(26), style="dim")
                    seats.append("a bot sits here if nobody comes", style="dim")
                else:
                    name = s.name + (" (you)" if you else "")
                    seats.append(name[:25].ljust(26), style="bold" if you else "")
                    if s.kind == BOT:
                        seats.append("bot", style="cyan")
                    else:
                        starter = lobby.starter == s.seat
                        seats.append("host  " if starter else "player", style="magenta" if starter else "")
                        if s.muted:
                            seats.append("  muted", style="italic")
                        if not s.connected:
                            seats.append("  away", style="italic red")
                        elif s.ready or starter:
                            seats.append("  ✓ ready", style="bold green")
                        else:
                            seats.append("  not ready", style="yellow")
                seats.append("\n")
            if lobby.spectators:
                seats.append(f" and {lobby.spectators} watching\n", style="dim")
            if lobby.over:
                seats.append("The last game is over; the starter can deal another.\n", style="italic")
        self.query_one("#seats", Static).update(seats)
        # Working out the keys again walks every binding of the screen: only when start or
        # ready changes, not at every lobby message (each arrival, each ready).
        refresh_keys(self, ("start", "ready"))

    def action_people(self) -> None:
        """Ctrl+O (the host): the people at the table, to remove one or mute their chat."""
        self.quackbox.keep_order()

    def notice(self, text: str) -> None:
        """A sentence from the host, for the log."""
        self.query_one("#lobby-log", GameLog).notice(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "people":
            return self.info.mode == "host"
        if action == "start":
            return True if self.lobby is not None and self.lobby.starter == self.info.seat else False
        if action == "ready":
            return self.info.seat is not None and (self.lobby is None or self.lobby.starter != self.info.seat)
        return True

    def action_ready(self) -> None:
        me = self._me()
        now = not (me.ready if me is not None else self.ready_sent)
        self.ready_sent = now
        self.quackbox.send_ready(now)

    def action_start(self) -> None:
        self.quackbox.send_start()

    def action_help(self) -> None:
        from quackbox.core import games
        from quackbox.tui.games import rules_screen

        game = self.quackbox.session.game if self.quackbox.session is not None else games.SIDE_EFFECTS
        self.app.push_screen(rules_screen(game))

    @on(Input.Submitted, "#lobby-chat")
    def _chat(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        event.input.value = ""
        if text:
            self.quackbox.send_chat(text)

    def action_leave(self, then_quit: bool = False) -> None:
        """Esc: leave the table, asking first (``then_quit``: the app quits once it is left)."""
        if self.connection == "closed":
            self.quackbox.leave_table(then_quit)
            return
        question = "Close the table? Everyone at it goes home." if self.info.mode == "host" else "Leave the table?"

        def answered(yes: bool | None) -> None:
            if yes:
                self.quackbox.leave_table(then_quit)

        self.app.push_screen(ConfirmScreen(question, yes="Leave", no="Stay"), answered)
