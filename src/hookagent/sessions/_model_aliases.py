"""`--model-alias ALIAS=PROVIDER:MODEL`: the models agent files name (`sonnet`, `opus`,
`haiku`, a full Claude id…) mapped to models the run can use, as `AgentBuilder.model_alias`
maps them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from hookagent._errors import ConfigError

if TYPE_CHECKING:
    from hookagent._builder import AgentBuilder

__all__ = ["apply_model_aliases", "parse_model_aliases", "saved_model_aliases"]


def parse_model_aliases(values: Iterable[str]) -> dict[str, str]:
    """Each `ALIAS=PROVIDER:MODEL`; a `ConfigError` naming `--model-alias` and the value
    otherwise. A later value for one alias replaces an earlier one."""
    aliases: dict[str, str] = {}
    for value in values:
        alias, sep, target = (part.strip() for part in value.partition("="))
        provider, colon, name = target.partition(":")
        if not (sep and alias and provider and colon and name) or alias == "inherit":
            raise ConfigError(
                "must be ALIAS=PROVIDER:MODEL, the model an agent file's `model:` names and "
                f"the model to run it on (e.g. sonnet=openai:gpt-4.1), not {value!r}",
                key="--model-alias",
                value=value,
            )
        aliases[alias] = target
    return aliases


def saved_model_aliases(values: Iterable[str], cwd: str) -> list[str]:
    """The values with a scripted model's file made absolute, to rebuild the run elsewhere."""
    saved: list[str] = []
    for value in values:
        alias, _, target = value.partition("=")
        provider, _, path = target.strip().partition(":")
        if provider == "scripted" and path:
            full = os.path.abspath(os.path.join(cwd, os.path.expanduser(path)))
            saved.append(f"{alias.strip()}=scripted:{full}")
        else:
            saved.append(value)
    return saved


def apply_model_aliases(builder: AgentBuilder, values: Iterable[str]) -> None:
    """Each `--model-alias` value as `AgentBuilder.model_alias`."""
    for alias, target in parse_model_aliases(values).items():
        builder.model_alias(alias, target)
