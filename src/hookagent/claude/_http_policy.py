"""`allowedHttpHookUrls` and `httpHookAllowedEnvVars`: the bounds settings put on every http
handler, as Claude Code applies them.

Defined in any file (of any level), a key's lists are merged. An http handler whose url
matches no pattern of the merged `allowedHttpHookUrls` does not run (`[]` stops them all;
managed handlers too), and is named in a warning; a handler's `allowedEnvVars` are cut to
the names the merged `httpHookAllowedEnvVars` lists. A pattern's `*` matches any run of
characters; scheme and host compare without case, a host's trailing dot ignored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

from hookagent.claude._model import HandlerSpec

__all__ = ["apply_http_bounds", "url_allowed"]


class _Bounds(Protocol):
    @property
    def allowed_http_hook_urls(self) -> tuple[str, ...] | None: ...
    @property
    def http_hook_allowed_env_vars(self) -> tuple[str, ...] | None: ...


def url_allowed(url: str, patterns: Sequence[str]) -> bool:
    target = _normal(url)
    return any(_pattern(p).fullmatch(target) for p in patterns)


def apply_http_bounds(
    handlers: Sequence[HandlerSpec], files: Sequence[_Bounds]
) -> tuple[list[HandlerSpec], list[str]]:
    """The handlers that may run under `files`' bounds, and a warning per handler stopped."""
    urls = _merged([f.allowed_http_hook_urls for f in files])
    names = _merged([f.http_hook_allowed_env_vars for f in files])
    kept: list[HandlerSpec] = []
    warnings: list[str] = []
    for spec in handlers:
        if spec.type != "http":
            kept.append(spec)
            continue
        if urls is not None and not url_allowed(spec.url or "", urls):
            warnings.append(
                f"{spec.source.path}, {spec.where}.url: {spec.url} matches no "
                "allowedHttpHookUrls pattern; not run"
            )
            continue
        if names is not None:
            allowed = tuple(n for n in spec.allowed_env_vars if n in names)
            kept.append(replace(spec, allowed_env_vars=allowed))
        else:
            kept.append(spec)
    return kept, warnings


def _merged(lists: Sequence[tuple[str, ...] | None]) -> tuple[str, ...] | None:
    defined = [items for items in lists if items is not None]
    if not defined:
        return None
    return tuple(dict.fromkeys(item for items in defined for item in items))


def _normal(url: str) -> str:
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().rstrip(".")
    if ":" in host and host.rsplit(":", 1)[0].endswith("."):
        name, port = host.rsplit(":", 1)
        host = f"{name.rstrip('.')}:{port}"
    return urlunsplit((parts.scheme.lower(), host, parts.path, parts.query, parts.fragment))


def _pattern(pattern: str) -> re.Pattern[str]:
    text = _normal(pattern)
    return re.compile(".*".join(re.escape(piece) for piece in text.split("*")), re.DOTALL)
