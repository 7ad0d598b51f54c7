"""`@hook` methods on a `HookProvider` become hooks sourced by the capability's name."""

from __future__ import annotations

import hookagent as h
from hookagent.testing import ScriptedModel, reply, tool_call

SEEN = h.MetadataKey[int]("seen", default=0)


class Guardrails(h.HookProvider):
    name = "guardrails"

    @h.hook(h.BEFORE_TOOL, match="echo", priority=100)
    def no_secrets(self, event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.block("secret") if "secret" in str(event.args) else None

    @h.hook(h.AFTER_TOOL, kind="transform")
    def count(self, event: h.ToolResultEvent) -> h.HookResult:
        return SEEN.set((SEEN.get(event.run) or 0) + 1)


@h.tool
def echo(text: str) -> str:
    """Echo."""
    return text


async def test_decorated_methods_are_installed_as_hooks() -> None:
    model = ScriptedModel(
        [tool_call("echo", text="a"), tool_call("echo", text="secret"), reply("ok")]
    )
    agent = h.AgentBuilder().model(model).tools(echo).with_(Guardrails()).build()
    ids = {hook.id for hook in agent.registry}
    assert {"guardrails:no_secrets", "guardrails:count"} <= ids
    result = await agent.run("go")
    assert result.tool_calls[1].blocked
    assert result.decisions.by("no_secrets")[0].reason == "secret"
    assert result.state.metadata["seen"] == 1
    assert SEEN(3) == {"seen": 3}
