"""AgentBuilder composes tools and hooks from capabilities without losing any."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

import hookagent as h
from hookagent.testing import ScriptedModel, reply, tool_call


@h.tool
def read(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


class Audit:
    """A capability with one observer hook and no tools."""

    name = "audit"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def tools(self) -> Iterable[h.Tool]:
        return ()

    def hooks(self) -> Iterable[h.Hook[Any]]:
        yield h.make_hook(
            h.AFTER_TOOL, self.record, source=self.name, tier="audit", kind="observer", always=True
        )

    def record(self, event: h.ToolResultEvent) -> None:
        self.calls.append(event.tool_name)


class Reader:
    """A capability with a tool and a guard on it."""

    name = "reader"

    def tools(self) -> Iterable[h.Tool]:
        yield read

    def hooks(self) -> Iterable[h.Hook[Any]]:
        yield h.make_hook(h.BEFORE_TOOL, self.guard, match="read", source=self.name)

    def guard(self, event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.block("secret") if ".env" in event.args["path"] else None


async def test_capabilities_install_tools_and_hooks_together_and_keep_each_others() -> None:
    audit = Audit()
    model = ScriptedModel(
        [tool_call("read", path="a.txt"), tool_call("read", path=".env"), reply("done")]
    )
    agent = h.AgentBuilder().model(model).with_(audit).with_(Reader()).build()
    result = await agent.run("go")
    assert audit.calls == ["read"]  # the blocked call never reached after_tool
    assert result.tool_calls[1].blocked
    [decision] = result.decisions.at(h.BEFORE_TOOL)  # the first call cast no vote
    assert decision.hook == "reader:guard"


def test_two_owners_of_one_tool_name_is_a_config_error_naming_both() -> None:
    with pytest.raises(h.ConfigError, match="registered twice: by user and by reader"):
        h.AgentBuilder().tools(read).with_(Reader())


def test_build_without_a_model_is_a_config_error() -> None:
    with pytest.raises(h.ConfigError, match="no model"):
        h.AgentBuilder().build()


def test_unknown_model_provider_is_a_config_error() -> None:
    with pytest.raises(h.ConfigError, match="unknown model provider 'nope'"):
        h.AgentBuilder().model("nope:thing")


def test_on_rejects_something_that_is_not_a_point() -> None:
    with pytest.raises(h.ConfigError, match="not a hook point"):
        h.AgentBuilder().on("before_tool", lambda e: None)  # type: ignore[arg-type]


def test_with_rejects_something_that_is_not_a_capability() -> None:
    with pytest.raises(h.ConfigError, match="not a capability"):
        h.AgentBuilder().with_(object())  # type: ignore[arg-type]


def test_default_policy_hooks_are_installed() -> None:
    agent = h.AgentBuilder().model(ScriptedModel([])).build()
    ids = {hook.id: hook.tier for hook in agent.registry}
    assert ids == {  # limits last, always: they see whether the run would go on
        "limits:step_limit": "audit",
        "limits:token_limit": "audit",
        "limits:time_limit": "audit",
        "limits:tool_call_presence": "policy",
        "policies:error_policy": "policy",
    }


def test_budgets_are_validated() -> None:
    with pytest.raises(h.ConfigError, match=r"Budgets\.stop_blocks"):
        h.AgentBuilder().budgets(stop_blocks=-1)
