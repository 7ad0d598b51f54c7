"""The sandbox profile as data: hooks read it in a Bash call's `sandbox` argument before the
call, may tighten it and never loosen it, and the run records the profile the call ran with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.audit import AuditTrail
from hookagent.capabilities.bash import Bash, BashPolicy
from hookagent.kernel._records import ToolExecution
from hookagent.testing import ScriptedModel, reply, tool_call

FAST = BashPolicy(kill_grace_s=0.2)


async def run_with(
    bash: Bash, command: str, change: dict[str, Any] | None = None
) -> tuple[ToolExecution, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []

    def tighten(event: h.ToolCallEvent) -> h.HookResult | None:
        seen.append(dict(event.args["sandbox"]))
        if change is None:
            return None
        return h.HookResult.modify(args={**event.args, "sandbox": {**seen[0], **change}})

    model = ScriptedModel([tool_call("Bash", "c1", command=command), reply("ok")])
    agent = h.AgentBuilder().model(model).with_(bash).on(h.BEFORE_TOOL, tighten).build()
    result = await agent.run("go")
    return result.tool_calls[0], seen


@pytest.fixture
def root(bwrap: str, tmp_path: Path) -> Path:
    made = tmp_path / "root"
    (made / "build").mkdir(parents=True)
    return made


async def test_hooks_see_the_profile_and_the_run_records_it(root: Path) -> None:
    call, seen = await run_with(Bash(root, FAST, network="allow"), "true")
    assert seen == [
        {
            "writable": [str(root.resolve())],
            "deny": seen[0]["deny"],
            "network": "allow",
            "auto_allow": True,
        }
    ]
    record = call.result.data["sandbox"]
    assert record["active"] is True
    assert record["network"] == "allow"
    assert record["writable"] == [str(root.resolve())]


async def test_a_hook_narrows_writable_paths_and_turns_the_network_off(root: Path) -> None:
    build = str((root / "build").resolve())
    command = "echo a > build/ok; echo b > top"
    call, _ = await run_with(
        Bash(root, FAST, network="allow"), command, {"writable": [build], "network": "off"}
    )
    assert (root / "build" / "ok").read_text() == "a\n"
    assert not (root / "top").exists()  # the root is read-only (or, under /tmp, private)
    assert call.result.data["sandbox"]["writable"] == [build]
    assert call.result.data["sandbox"]["network"] == "off"
    assert call.args["sandbox"]["writable"] == [build]  # the rewritten arguments are kept


async def test_a_hook_adds_a_deny_path(root: Path) -> None:
    (root / "build" / "secret").write_text("s3cret")
    deny = str((root / "build").resolve())
    _, seen = await run_with(Bash(root, FAST), "true")
    call, _ = await run_with(
        Bash(root, FAST), "cat build/secret", {"deny": [*seen[0]["deny"], deny]}
    )
    assert "s3cret" not in call.result.content
    assert deny in call.result.data["sandbox"]["deny"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"network": "allow"}, "Sandbox network cannot be loosened from 'off' to 'allow'"),
        ({"writable": ["/"]}, "Sandbox writable path / is not inside the writable paths"),
        ({"writable": ["build"]}, "Sandbox writable path 'build' is not absolute"),
        ({"deny": []}, "Sandbox deny path /"),
    ],
)
async def test_a_hook_cannot_loosen_the_policy(
    root: Path, change: dict[str, Any], message: str
) -> None:
    call, _ = await run_with(Bash(root, FAST), "touch made", change)
    assert call.result.is_error
    assert call.result.content.startswith(message)
    assert not (root / "made").exists()


async def test_no_profile_is_offered_when_commands_run_unsandboxed(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("Bash", "c1", command="true"), reply("ok")])
    seen: list[Any] = []
    bash = Bash(tmp_path, FAST, sandbox="off")
    agent = h.AgentBuilder().model(model).with_(bash).on(h.BEFORE_TOOL, seen.append).build()
    result = await agent.run("go")
    assert "sandbox" not in seen[0].args
    assert result.tool_calls[0].result.data["sandbox"]["active"] is False


async def test_a_profile_given_without_a_sandbox_is_an_error(tmp_path: Path) -> None:
    model = ScriptedModel(
        [tool_call("Bash", "c1", command="touch made", sandbox={"network": "off"}), reply("ok")]
    )
    agent = h.AgentBuilder().model(model).with_(Bash(tmp_path, FAST, sandbox="off")).build()
    result = await agent.run("go")
    call = result.tool_calls[0]
    assert call.result.is_error
    assert call.result.content.startswith("A sandbox profile was given, but commands run")
    assert not (tmp_path / "made").exists()


async def test_the_audit_trail_shows_the_profile(root: Path, tmp_path: Path) -> None:
    trail = tmp_path / "audit.jsonl"
    model = ScriptedModel([tool_call("Bash", "c1", command="true"), reply("ok")])
    bash = Bash(root, FAST, deny_paths=[tmp_path / "secret"])
    await h.AgentBuilder().model(model).with_(bash).with_(AuditTrail(trail)).build().run("go")
    text = trail.read_text()
    assert '"sandbox"' in text
    assert json.dumps(str((tmp_path / "secret").resolve())) in text
