"""`on`, `hook` and `with_settings` are one registration surface: an `AgentBuilder` and a
`ToolGate` take hooks the same way, with the same checks, each firing its own points."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._registration import HookRegistrations
from hookagent.gate import GATE_POINTS, ToolGate
from hookagent.testing import ScriptedModel


def hosts() -> list[Any]:
    return [h.AgentBuilder(), ToolGate()]


@pytest.mark.parametrize("host", hosts(), ids=["builder", "gate"])
def test_both_hosts_register_through_the_same_calls(host: HookRegistrations) -> None:
    assert isinstance(host, HookRegistrations)
    assert type(host).on is HookRegistrations.on
    assert type(host).hook is HookRegistrations.hook
    assert type(host).with_settings is HookRegistrations.with_settings


@pytest.mark.parametrize("host", hosts(), ids=["builder", "gate"])
def test_a_point_that_is_not_one_is_refused_by_both(host: HookRegistrations) -> None:
    with pytest.raises(h.ConfigError, match="on: 'before_tool' is not a hook point"):
        host.on("before_tool", lambda e: None)  # type: ignore[arg-type]


@pytest.mark.parametrize("host", hosts(), ids=["builder", "gate"])
def test_a_hook_that_is_not_one_is_refused_by_both(host: HookRegistrations) -> None:
    with pytest.raises(h.ConfigError, match=r"hook: .* is not a hook"):
        host.hook(lambda e: None)  # type: ignore[arg-type]


def test_the_builder_takes_every_point_and_the_gate_its_own() -> None:
    stop = h.make_hook(h.STOP, lambda e: None, name="stop_check")
    agent = h.AgentBuilder().model(ScriptedModel([])).hook(stop).build()
    assert "stop_check" in {hook.name for hook in agent.registry}
    with pytest.raises(h.ConfigError, match="a tool gate fires only") as caught:
        ToolGate().hook(stop)
    assert caught.value.key == f"hook {stop.id}" and caught.value.value == "stop"
    assert all(point.name in str(caught.value) for point in GATE_POINTS)


def test_settings_give_an_agent_every_event_and_a_gate_the_tool_events(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    handler = {"hooks": [{"type": "command", "command": "true"}]}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [handler], "Stop": [handler]}}))
    agent = h.AgentBuilder().model(ScriptedModel([])).with_settings(settings).build()
    points = {hook.point for hook in agent.registry if hook.source == "claude"}
    assert {h.BEFORE_TOOL, h.STOP} <= points
    gate = ToolGate().with_settings(settings)
    assert h.BEFORE_TOOL in {hook.point for hook in gate.hooks}
    assert h.STOP not in {hook.point for hook in gate.hooks}
