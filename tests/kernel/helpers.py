"""Small builders shared by the kernel tests."""

from __future__ import annotations

from typing import Any

from hookagent import AgentBuilder, tool
from hookagent.testing import ScriptedModel


@tool
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def builder(*turns: Any) -> tuple[AgentBuilder, ScriptedModel]:
    model = ScriptedModel(list(turns))
    return AgentBuilder().model(model).tools(echo, add), model


class Recorder:
    """A hook that remembers every event it saw, in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def at(self, name: str) -> Any:
        def record(event: Any) -> None:
            self.seen.append((name, event))

        record.__qualname__ = f"record_{name}"
        return record

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.seen]
