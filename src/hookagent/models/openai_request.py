"""What both OpenAI drivers (Chat Completions and Responses) do alike before a request: find
the account's key and URL, and place the run's settings in the request."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from typing import Any

from hookagent.errors import ConfigError

__all__ = ["add_settings", "keywords", "openai_account"]


def openai_account(
    provider: str, model: str, *, api_key: str | None, base_url: str | None
) -> tuple[str, str | None]:
    """The key and URL of OpenAI's own API: as given, or from `OPENAI_API_KEY` and
    `OPENAI_BASE_URL`. A missing key is a `ConfigError` now, not at the first request."""
    api_key = api_key or os.environ.get("OPENAI_API_KEY")
    if not api_key:
        raise ConfigError(
            f"the {provider} provider needs an API key: set OPENAI_API_KEY (or pass api_key)",
            key="model",
            value=f"{provider}:{model}",
        )
    return api_key, base_url or os.environ.get("OPENAI_BASE_URL") or None


def keywords(create: Callable[..., Any], reserved: frozenset[str]) -> frozenset[str]:
    """The keywords the SDK's `create` takes, but those the driver sets itself."""
    return frozenset(inspect.signature(create).parameters) - reserved


def add_settings(
    params: dict[str, Any],
    settings: Mapping[str, Any],
    *,
    driver: str,
    reserved: frozenset[str],
    accepted: frozenset[str],
) -> None:
    """Put each setting in `params`: as a keyword if the SDK's `create` takes it (`accepted`),
    else in `extra_body` for the server (a server's own options pass through). A setting the
    driver sets itself (`reserved`) is a `ConfigError` naming it, never silently dropped."""
    extra: dict[str, Any] = {}
    for key, value in settings.items():
        if key in reserved:
            raise ConfigError(f"the {driver} driver sets {key!r} itself", key="settings", value=key)
        (params if key in accepted else extra)[key] = value
    if extra:
        params["extra_body"] = {**extra, **params.get("extra_body", {})}
