"""The long-lived sandboxes of one Bash tool (`persistent.py`), one per profile.

`Servers` keeps a tool's server per profile (an idle one of another profile is stopped when
a new one starts) and hands it to one call at a time. A call it cannot serve gets None and
runs in a one-shot sandbox: the server is busy with another call, cannot start, or its
sandbox is out of date (a deny or writable path changed since it started, or the mounts
did). A server that died is started again on the next call; a call in flight when it died
gets `ServerLost`. `close()`, also run when the tool is garbage collected and at exit,
stops every server and its sandbox.
"""

from __future__ import annotations

import logging
import weakref
from typing import Final, final

from hookagent.capabilities.bash._persistent import CommandServer
from hookagent.capabilities.bash._sandbox import SandboxProfile

__all__ = ["Servers"]

log = logging.getLogger("hookagent.bash")

_START_FAILURES: Final = 3
"""Failed starts after which a tool stops trying and runs every call one-shot."""


@final
class Servers:
    """The command servers of one capability, one per profile."""

    def __init__(self) -> None:
        self._servers: dict[SandboxProfile, CommandServer] = {}
        self._starting: set[SandboxProfile] = set()
        self._failures = 0
        self._closes = 0
        weakref.finalize(self, _close_all, self._servers)

    async def take(self, bwrap: str, profile: SandboxProfile, cwd: str) -> CommandServer | None:
        """A server ready for a call under `profile`, started if needed; None when there is
        none to be had now (busy, or it cannot start). It is marked busy for the caller's
        `run`."""
        server = self._servers.get(profile)
        if (server is not None and server.busy) or profile in self._starting:
            return None
        if server is not None and not server.current(profile):
            server.close()
            server = None
        if server is None:
            if self._failures >= _START_FAILURES:
                return None
            for other in [key for key, idle in self._servers.items() if not idle.busy]:
                self._servers.pop(other).close()  # a profile no call has now
            self._starting.add(profile)
            closes = self._closes
            try:
                server = await CommandServer.start(bwrap, profile, cwd)
            except OSError as exc:
                self._failures += 1
                log.warning("Bash calls run in a one-shot sandbox: %s", exc)
                return None
            finally:
                self._starting.discard(profile)
            self._failures = 0
            if closes != self._closes:  # closed while it started
                server.close()
                return None
            self._servers[profile] = server
        server.busy = True
        return server

    @property
    def running(self) -> tuple[CommandServer, ...]:
        return tuple(server for server in self._servers.values() if not server.closed)

    def close(self) -> None:
        """Kill every server and its sandbox; calls after this start new ones."""
        self._closes += 1
        _close_all(self._servers)


def _close_all(servers: dict[SandboxProfile, CommandServer]) -> None:
    for server in servers.values():
        server.close()
    servers.clear()
