"""POST one notification, retried with exponential backoff; the URL checked and shown
without its secrets.

A webhook's path or query often is its secret (a Slack incoming webhook is
`https://hooks.slack.com/services/T…/B…/SECRET`), so whatever is logged or reported names
the URL by its scheme, host and port only, and never a header.
"""

from __future__ import annotations

import asyncio
import math
import ssl
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict
from typing import Final
from urllib.parse import urlsplit

import httpx2

from hookagent._errors import ConfigError
from hookagent._record import record

__all__ = ["Retry", "check_retry", "check_url", "post", "shown", "tls_for"]

_RETRIED: Final = frozenset({408, 425, 429})
"""Statuses worth another attempt besides 5xx: the receiver may take it later."""


@record
class Retry:
    """How hard one notification is tried: at most `attempts` POSTs, each within `timeout`
    seconds; the n-th retry waits `backoff * 2**(n-1)` seconds, at most `max_backoff` (or
    what a 429/503's numeric `Retry-After` asks, within the same cap)."""

    attempts: int = 4
    backoff: float = 0.5
    max_backoff: float = 8.0
    timeout: float = 5.0

    def __post_init__(self) -> None:
        check_retry(asdict(self), where="Retry")

    def delay(self, retry: int) -> float:
        """Seconds before retry number `retry` (1 for the second attempt)."""
        return float(min(self.backoff * 2 ** (retry - 1), self.max_backoff))

    @property
    def longest(self) -> float:
        """The most seconds one notification can take, every attempt timing out."""
        waits = sum(self.delay(n) for n in range(1, self.attempts))
        return self.attempts * self.timeout + waits


def check_retry(values: Mapping[str, object], *, where: str) -> None:
    """A `ConfigError` naming `where(option)` for a `Retry` option out of range."""
    attempts = values["attempts"]
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise ConfigError(f"must be at least 1, not {attempts!r}", key=f"{where}(attempts)")
    for name in ("backoff", "max_backoff", "timeout"):
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            key = f"{where}({name})"
            raise ConfigError(f"must be a number of seconds ≥ 0, not {value!r}", key=key)
    if values["timeout"] == 0:
        raise ConfigError("must be more than 0 seconds", key=f"{where}(timeout)")


def check_url(value: object, *, key: str) -> str:
    """`value` if it is an http(s) URL with a host; a `ConfigError` naming `key` otherwise."""
    if not isinstance(value, str):
        raise ConfigError(f"must be an http:// or https:// URL, not {value!r}", key=key)
    try:
        parts = urlsplit(value.strip())
        host, _ = parts.hostname, parts.port  # a bad port raises here
    except ValueError as exc:
        raise ConfigError(f"not a URL: {shown(value)} ({exc})", key=key) from None
    if parts.scheme not in ("http", "https") or not host:
        raise ConfigError(
            f"must be an http:// or https:// URL with a host, not {shown(value)}", key=key
        )
    return value.strip()


def shown(url: str) -> str:
    """The URL as logs may show it: scheme, host and port; the path, query and any
    user:password left out, as they may hold the webhook's secret."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return "<a malformed URL>"
    if not parts.scheme or not host:
        return "<not a URL>"
    netloc = f"[{host}]" if ":" in host else host
    rest = "/…" if parts.path.strip("/") or parts.query else ""
    return f"{parts.scheme}://{netloc}{f':{port}' if port else ''}{rest}"


Sleep = Callable[[float], Awaitable[None]]


def tls_for(urls: Sequence[str]) -> ssl.SSLContext | bool:
    """What clients verify https with: one context, made now, since making it loads the
    CA certificates (tens of ms that would otherwise hold the event loop at each message);
    False when every URL is plain http, which needs none."""
    if not any(url.lower().startswith("https:") for url in urls):
        return False
    return httpx2.create_ssl_context()


async def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    retry: Retry,
    *,
    verify: ssl.SSLContext | bool = True,
    sleep: Sleep = asyncio.sleep,
    attempting: Callable[[int], None] | None = None,
) -> tuple[int, str | None]:
    """POST `body` until a 2xx or the attempts run out: (attempts made, None) on success,
    else (attempts made, why the last one failed). A 4xx other than 408/425/429 is not
    retried: asking again would be refused again. Redirects are not followed. `attempting`
    is told the number of each attempt as it starts."""
    sent = {**headers, "Content-Type": "application/json"}
    error = "not attempted"
    client = httpx2.AsyncClient(timeout=retry.timeout, follow_redirects=False, verify=verify)
    async with client:
        for attempt in range(1, retry.attempts + 1):
            wait = None
            if attempting is not None:
                attempting(attempt)
            try:
                response = await client.post(url, content=body, headers=sent)
            except httpx2.HTTPError as exc:
                error = f"{type(exc).__name__}{_detail(exc)}"
            else:
                status = response.status_code
                if 200 <= status < 300:
                    return attempt, None
                error = f"HTTP {status}"
                if status not in _RETRIED and status < 500:
                    return attempt, error
                wait = _retry_after(response.headers.get("retry-after"), retry.max_backoff)
            if attempt < retry.attempts:
                await sleep(retry.delay(attempt) if wait is None else wait)
    return retry.attempts, error


def _detail(exc: Exception) -> str:
    """The error's text, unless it repeats the URL (which may hold the secret)."""
    text = str(exc)
    return f": {text}" if text and "://" not in text else ""


def _retry_after(value: str | None, cap: float) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:  # an HTTP date: the usual backoff serves
        return None
    return min(max(seconds, 0.0), cap) if math.isfinite(seconds) else None
