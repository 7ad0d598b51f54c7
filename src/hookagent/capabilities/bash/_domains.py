"""The domain allowlist of the Bash sandbox: which hosts a command may reach through the proxy.

Patterns follow Claude Code's `sandbox.network.allowedDomains`: `example.com` is that host
only; `*.example.com` is every host below it (`api.example.com`, `a.b.example.com`) but not
`example.com` itself; an optional `:port` suffix limits a pattern to one port, and a pattern
without one matches every port. Names are compared lower-case, without a trailing dot.
IP addresses are neither patterns nor reachable hosts: the proxy reaches names the user
listed, so an address (which could name any machine) is refused. A bare `*` is refused too:
`network="allow"` says that. A pattern written `!pattern` denies what it matches even when
another pattern allows it (Claude Code's `deniedDomains`, which take precedence).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from typing import Final

from hookagent._record import record

__all__ = ["DomainPattern", "DomainRules", "is_ip_literal", "normal_host"]

_LABEL: Final = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)")
_NUMBER: Final = re.compile(r"0x[0-9a-f]*|[0-9]+", re.IGNORECASE)


@record(kw_only=False)
class DomainPattern:
    """One allowlist entry: `host` (or `*.suffix` when `wildcard`) and an optional port."""

    host: str
    wildcard: bool = False
    port: int | None = None

    @classmethod
    def parse(cls, text: object) -> DomainPattern:
        """The pattern `text` names; `ValueError` says what is wrong with it."""
        if not isinstance(text, str) or not text:
            raise ValueError("a domain pattern must be a non-empty string")
        name, port = text.lower(), None
        if name.count(":") == 1:
            name, digits = name.split(":")
            if not digits.isdigit() or not 0 < int(digits) < 65536:
                raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
            port = int(digits)
        if name in ("*", "*.*"):
            raise ValueError(f"{text!r} allows every host; give network='allow' for that")
        wildcard = name.startswith("*.")
        bare = normal_host(name[2:] if wildcard else name)
        if is_ip_literal(bare) or is_ip_literal(name.strip("[]")):
            raise ValueError(f"{text!r} is an IP address; the proxy reaches domain names only")
        if len(bare) > 253 or not all(_LABEL.fullmatch(label) for label in bare.split(".")):
            raise ValueError(f"{text!r} is not a host name or a *.domain wildcard")
        return cls(bare, wildcard, port)

    def matches(self, host: str, port: int) -> bool:
        """Whether the (normalised) `host` at `port` is allowed by this pattern."""
        if self.port is not None and port != self.port:
            return False
        return host.endswith("." + self.host) if self.wildcard else host == self.host

    def covers(self, other: DomainPattern) -> bool:
        """Whether every host and port `other` allows, this allows too."""
        if self.port is not None and other.port != self.port:
            return False
        if not self.wildcard:
            return not other.wildcard and other.host == self.host
        return other.host.endswith("." + self.host) or (other.wildcard and other.host == self.host)

    def __str__(self) -> str:
        text = f"*.{self.host}" if self.wildcard else self.host
        return text if self.port is None else f"{text}:{self.port}"


@record(kw_only=False)
class DomainRules:
    """A parsed allowlist; `refusal` says why a host may not be reached."""

    patterns: tuple[DomainPattern, ...]
    denied: tuple[DomainPattern, ...] = ()

    @classmethod
    def parse(cls, texts: Sequence[object]) -> DomainRules:
        """The rules of `texts` (`!` marks a denial); `ValueError` names a bad one."""
        allowed: list[DomainPattern] = []
        denied: list[DomainPattern] = []
        for text in texts:
            if isinstance(text, str) and text.startswith("!"):
                denied.append(DomainPattern.parse(text[1:]))
            else:
                allowed.append(DomainPattern.parse(text))
        return cls(tuple(allowed), tuple(denied))

    def texts(self) -> tuple[str, ...]:
        """The rules as written in a profile: allowed patterns, then `!` denials."""
        return (*map(str, self.patterns), *(f"!{pattern}" for pattern in self.denied))

    def refusal(self, host: str, port: int) -> str | None:
        """None when `host:port` is allowed, else the reason it is not."""
        name = normal_host(host)
        if is_ip_literal(name.strip("[]")):
            return "an IP address; only the allowed domain names are reached"
        denial = next((d for d in self.denied if d.matches(name, port)), None)
        if denial is not None:
            return f"denied by !{denial}"
        if any(pattern.matches(name, port) for pattern in self.patterns):
            return None
        if any(pattern.matches(name, pattern.port or port) for pattern in self.patterns):
            return f"port {port} is not allowed for {name}"
        return f"not in the allowed domains ({self.describe()})"

    def wider(self, asked: DomainRules) -> str | None:
        """What of `asked` these rules do not cover (an allowed pattern outside them, or a
        denial of theirs `asked` drops), as a profile writes it; None when it is narrower."""
        for pattern in asked.patterns:
            if not any(own.covers(pattern) for own in self.patterns):
                return str(pattern)
        for own in self.denied:
            if not any(theirs.covers(own) for theirs in asked.denied):
                return f"!{own}"
        return None

    def describe(self) -> str:
        return ", ".join(str(pattern) for pattern in self.patterns) or "none"


def normal_host(host: str) -> str:
    return host.lower().removesuffix(".")


def is_ip_literal(host: str) -> bool:
    """An IPv4 or IPv6 address, or a bare number some resolvers read as one (`2130706433`)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return bool(host) and all(_NUMBER.fullmatch(part) for part in host.split("."))
    return True
