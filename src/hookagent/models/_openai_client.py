"""What both OpenAI drivers (Chat Completions and Responses) share: OpenAI's account, the
client of one provider and model, with SDK retries off (retrying is the run's `ErrorPolicy`'s
decision) and its failures as `ProviderError`, and the run's settings placed in a request."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import openai

from hookagent._errors import ConfigError
from hookagent.models._openai_errors import ProviderError, from_sdk
from hookagent.models._resolve import account

__all__ = ["OpenAIClient", "add_settings", "keywords", "openai_account"]


def openai_account(
    provider: str, model: str, *, api_key: str | None, base_url: str | None
) -> tuple[str, str | None]:
    """The key and URL of OpenAI's own API: as given, or from `OPENAI_API_KEY` and
    `OPENAI_BASE_URL`."""
    return account(
        provider,
        model,
        api_key=api_key,
        base_url=base_url,
        key_env="OPENAI_API_KEY",
        url_env="OPENAI_BASE_URL",
    )


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


class OpenAIClient:
    """A driver's `AsyncOpenAI` client for one provider and model."""

    def __init__(self, model: str, *, provider: str, base_url: str | None, api_key: str) -> None:
        self._model = model
        self._provider = provider
        self.client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0)

    @property
    def name(self) -> str:
        return f"{self._provider}:{self._model}"

    async def aclose(self) -> None:
        await self.client.close()

    def _error(self, exc: openai.OpenAIError) -> ProviderError:
        endpoint = str(self.client.base_url)
        return from_sdk(exc, provider=self._provider, model=self._model, endpoint=endpoint)

    def _fail(
        self,
        message: str,
        status: int | None = None,
        retry_after: float | None = None,
        *,
        transient: bool | None = None,
    ) -> ProviderError:
        return ProviderError(
            message,
            provider=self._provider,
            model=self._model,
            status=status,
            retry_after=retry_after,
            transient=transient,
        )
