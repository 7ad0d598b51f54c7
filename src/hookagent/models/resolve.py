"""Turn a `provider:model` name into a driver."""

from __future__ import annotations

from hookagent.errors import ConfigError
from hookagent.models.base import Model

__all__ = ["resolve_model"]


def resolve_model(name: str) -> Model:
    provider, sep, rest = name.partition(":")
    if not sep or not rest:
        raise ConfigError(
            f"a model is named provider:model, e.g. scripted:turns.json; got {name!r}",
            key="model",
            value=name,
        )
    if provider == "scripted":
        from hookagent.models.scripted import ScriptedModel

        return ScriptedModel.from_file(rest)
    raise ConfigError(
        f"unknown model provider {provider!r} (available: scripted)", key="model", value=name
    )
