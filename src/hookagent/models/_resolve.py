"""Turn a `provider:model` name into a driver.

Provider drivers live in optional extras and are imported only when named, so `import
hookagent` never loads an SDK. Each driver module exposes `create(model, *, base_url,
api_key) -> Model`, which checks its key before any run starts.
"""

from __future__ import annotations

import importlib
import os
from typing import Final

from hookagent._errors import ConfigError
from hookagent.models._base import Model

__all__ = ["PROVIDERS", "account", "resolve_model"]

PROVIDERS: Final = {
    "openai": ("hookagent.models._openai_chat", "openai"),
    "openai-compatible": ("hookagent.models._openai_chat", "openai"),
    "openai-responses": ("hookagent.models._openai_responses", "openai"),
    "anthropic": ("hookagent.models._anthropic_messages", "anthropic"),
}
"""provider → (driver module, extra that installs its SDK)."""


def resolve_model(name: str, *, base_url: str | None = None, api_key: str | None = None) -> Model:
    provider, sep, rest = name.partition(":")
    if not sep or not rest:
        raise ConfigError(
            f"a model is named provider:model, e.g. scripted:turns.json or "
            f"openai:gpt-4.1-mini; got {name!r}",
            key="model",
            value=name,
        )
    if provider == "scripted":
        from hookagent.models._scripted import ScriptedModel

        return ScriptedModel.from_file(rest)
    if provider not in PROVIDERS:
        known = ", ".join(["scripted", *PROVIDERS])
        raise ConfigError(
            f"unknown model provider {provider!r} (available: {known})", key="model", value=name
        )
    module_name, extra = PROVIDERS[provider]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"the {provider} provider needs its SDK: pip install 'hookagent[{extra}]' ({exc})",
            key="model",
            value=name,
        ) from exc
    model: Model = module.create(rest, provider=provider, base_url=base_url, api_key=api_key)
    return model


def account(
    provider: str,
    model: str,
    *,
    api_key: str | None,
    base_url: str | None,
    key_env: str,
    url_env: str,
) -> tuple[str, str | None]:
    """A provider's key and URL: as given, or from the environment variables `key_env` and
    `url_env`. A missing key is a `ConfigError` now, not at the first request."""
    api_key = api_key or os.environ.get(key_env)
    if not api_key:
        raise ConfigError(
            f"the {provider} provider needs an API key: set {key_env} (or pass api_key)",
            key="model",
            value=f"{provider}:{model}",
        )
    return api_key, base_url or os.environ.get(url_env) or None
