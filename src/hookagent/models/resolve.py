"""Turn a `provider:model` name into a driver.

Provider drivers live in optional extras and are imported only when named, so `import
hookagent` never loads an SDK. Each driver module exposes `create(model, *, base_url,
api_key) -> Model`, which checks its key before any run starts.
"""

from __future__ import annotations

import importlib
from typing import Final

from hookagent.errors import ConfigError
from hookagent.models.base import Model

__all__ = ["PROVIDERS", "resolve_model"]

PROVIDERS: Final = {
    "openai": ("hookagent.models.openai_chat", "openai"),
    "openai-compatible": ("hookagent.models.openai_chat", "openai"),
    "openai-responses": ("hookagent.models.openai_responses", "openai"),
    "anthropic": ("hookagent.models.anthropic_messages", "anthropic"),
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
        from hookagent.models.scripted import ScriptedModel

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
