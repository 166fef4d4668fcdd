"""The errors of quackbox.net: one base, and what each error means. ``str()`` of every one is
a plain sentence for people (who started the host, or who tried to join).

    NetError                       the base
     +-- ProtocolError             a frame or message refused; .code is its ErrorCode    protocol
     +-- DecodeError (ValueError)  a value does not have its field's type; .where        codec
     +-- JournalError              a journal that cannot be used; names the file         journal
     +-- HostError                 the host cannot run                                   (here)
     |    +-- TextDataError        the confusables data cannot be read                   text
     |    +-- DoorError            a door cannot open                                    (here)
     |         +-- SshError        the SSH door                                          ssh
     |         +-- SshKeyError     the SSH host key or allow file                        ssh_keys
     |         +-- WebError        the browser door                                      web
     +-- NoHost                    nothing answered at the address                       client
     +-- Refused                   the host would not seat us; .code says why            client
     |    +-- WrongCode, TableFull, GameStarted, VersionMismatch, BadToken, Removed
     +-- HostClosed                the host said goodbye; .reason                        client
     +-- ConnectionLost            the connection dropped and reconnecting failed        client
     +-- NotConnected              a send while the connection is down                   client

Each is defined in the module named at its right; this module holds the base, and the two
that several modules raise (HostError, DoorError; :mod:`quackbox.net.host` and
:mod:`quackbox.net.door` offer them too).
"""

from __future__ import annotations

__all__ = ["DoorError", "HostError", "NetError"]


class NetError(Exception):
    """Something quackbox.net could not do; ``str()`` is a plain sentence."""

    code = "net_error"


class HostError(NetError):
    """The host cannot run; the message is a sentence for the person who started it."""


class DoorError(HostError):
    """A door cannot open; the message is a sentence for the person who started the host."""
