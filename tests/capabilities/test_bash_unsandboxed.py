"""Commands outside the sandbox: `excluded_commands` (Claude Code's `excludedCommands`), a
call's `dangerouslyDisableSandbox` when `allow_unsandboxed`, and `auto_allow`
(`autoAllowBashIfSandboxed`): `Approvals` allows a sandboxed call it would ask about, and
asks about one outside. Each escape writes only to a sentinel folder the test makes outside
the root, under /var/tmp (the sandbox's /tmp is private)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._errors import ConfigError
from hookagent.capabilities.approvals import AUTO_ALLOWED, HOOK_ID, Approvals, Rule
from hookagent.capabilities.bash import Bash, BashPolicy
from hookagent.kernel._records import ToolExecution
from hookagent.testing import ScriptedModel, reply, tool_call

FAST = BashPolicy(kill_grace_s=0.2)


@pytest.fixture
def place(bwrap: str, tmp_path: Path) -> Iterator[Path]:
    """A folder holding `root` and `outside`, the sentinel folder no sandboxed call can write."""
    base = Path("/var/tmp")
    folder = Path(
        tempfile.mkdtemp(prefix="hookagent-unsandboxed-", dir=base if base.is_dir() else tmp_path)
    )
    (folder / "root").mkdir()
    (folder / "outside").mkdir()
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


class Approver:
    """Approves every question, recording it."""

    def __init__(self) -> None:
        self.questions: list[h.Question] = []

    def __call__(self, question: h.Question) -> h.Answer:
        self.questions.append(question)
        return h.Answer.approve(choice="once")


async def run(
    bash: Bash,
    command: str,
    *,
    approvals: Approvals | None = None,
    hook: Any = None,
    **extra: Any,
) -> tuple[ToolExecution, h.RunResult, Approver]:
    model = ScriptedModel([tool_call("Bash", "c1", command=command, **extra), reply("ok")])
    builder = h.AgentBuilder().model(model).with_(bash)
    if approvals is not None:
        builder.with_(approvals)
    if hook is not None:
        builder.on(h.BEFORE_TOOL, hook)
    approver = Approver()
    result = await builder.build().run("go", approver=approver)
    bash.close()
    return result.tool_calls[0], result, approver


def approvals(root: Path, *rules: Rule) -> Approvals:
    return Approvals(rules, project_dir=root, settings=False, save_to=None)


# -- excludedCommands ----------------------------------------------------------------------------


async def test_an_excluded_command_runs_outside_the_sandbox(place: Path) -> None:
    bash = Bash(place / "root", FAST, excluded_commands=["touch *", "git push"])
    made = place / "outside" / "made"
    call, _, _ = await run(bash, f"true && touch {made}")  # any subcommand, as Claude Code
    assert not call.result.is_error, call.result.content
    assert made.exists()
    record = call.result.data["sandbox"]
    assert record["active"] is False
    assert record["unsandboxed"] == "excludedCommands"
    assert record["reason"] == "excluded command (matches 'touch *')"
    assert call.args["sandbox"]["sandboxed"] is False  # hooks saw where it would run


@pytest.mark.parametrize(
    "command",
    [
        "cp /dev/null {out}/made",  # no pattern matches
        "touchy {out}/made; cp /dev/null {out}/made",  # a pattern is a word, not a prefix
        "git push --force; cp /dev/null {out}/made",  # 'git push' is exact: no match
    ],
)
async def test_a_command_not_excluded_cannot_write_outside(place: Path, command: str) -> None:
    bash = Bash(place / "root", FAST, excluded_commands=["touch *", "git push"])
    call, _, _ = await run(bash, command.format(out=place / "outside"))
    assert call.result.is_error
    assert list((place / "outside").iterdir()) == []
    assert call.result.data["sandbox"]["active"] is True
    assert "unsandboxed" not in call.result.data["sandbox"]


async def test_a_hook_keeps_an_excluded_command_in_the_sandbox(place: Path) -> None:
    seen: list[dict[str, Any]] = []

    def keep_in(event: h.ToolCallEvent) -> h.HookResult:
        seen.append(dict(event.args["sandbox"]))
        return h.HookResult.modify(args={**event.args, "sandbox": {**seen[0], "sandboxed": True}})

    bash = Bash(place / "root", FAST, excluded_commands=["touch *"])
    call, _, _ = await run(bash, f"touch {place / 'outside' / 'made'}", hook=keep_in)
    assert seen[0]["reason"] == "excluded command (matches 'touch *')"
    assert call.result.is_error
    assert list((place / "outside").iterdir()) == []
    record = call.result.data["sandbox"]
    assert record["active"] is True
    assert (
        record["kept"]
        == "kept in the sandbox by a hook, though excluded command (matches 'touch *')"
    )


async def test_a_hook_cannot_take_a_call_out_of_the_sandbox(place: Path) -> None:
    def take_out(event: h.ToolCallEvent) -> h.HookResult:
        profile = {**event.args["sandbox"], "sandboxed": False}
        return h.HookResult.modify(args={**event.args, "sandbox": profile})

    bash = Bash(place / "root", FAST, excluded_commands=["touch *"])
    call, _, _ = await run(bash, f"cp /dev/null {place / 'outside' / 'made'}", hook=take_out)
    assert call.result.is_error
    assert call.result.content == "Sandbox cannot be loosened: this command runs in the sandbox"
    assert list((place / "outside").iterdir()) == []


async def test_a_hook_cannot_turn_auto_allow_on(place: Path) -> None:
    def turn_on(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.modify(args={**event.args, "sandbox": {"auto_allow": True}})

    call, _, _ = await run(Bash(place / "root", FAST, auto_allow=False), "true", hook=turn_on)
    assert call.result.is_error
    assert "auto_allow cannot be turned on" in call.result.content


# -- dangerouslyDisableSandbox -------------------------------------------------------------------


def schema_of(bash: Bash) -> dict[str, Any]:
    (tool,) = bash.tools()
    return dict(tool.parameters["properties"])


async def test_a_call_may_ask_to_leave_the_sandbox_when_allowed(place: Path) -> None:
    bash = Bash(place / "root", FAST, allow_unsandboxed=True)
    assert "dangerouslyDisableSandbox" in schema_of(bash)
    made = place / "outside" / "made"
    call, _, _ = await run(bash, f"touch {made}", dangerouslyDisableSandbox=True)
    assert not call.result.is_error, call.result.content
    assert made.exists()
    assert call.result.data["sandbox"]["unsandboxed"] == "dangerouslyDisableSandbox"
    assert call.result.data["sandbox"]["active"] is False


async def test_the_request_is_ignored_and_said_when_not_allowed(place: Path) -> None:
    bash = Bash(place / "root", FAST)
    assert "dangerouslyDisableSandbox" not in schema_of(bash)
    call, _, _ = await run(
        bash, f"touch {place / 'outside' / 'made'}", dangerouslyDisableSandbox=True
    )
    assert list((place / "outside").iterdir()) == []
    record = call.result.data["sandbox"]
    assert record["active"] is True
    assert "allowUnsandboxedCommands is false" in record["ignored"]
    assert call.result.content.startswith("Note: dangerouslyDisableSandbox was ignored")


async def test_without_a_sandbox_the_field_is_not_offered(tmp_path: Path) -> None:
    bash = Bash(tmp_path, FAST, sandbox="off", allow_unsandboxed=True)
    assert "dangerouslyDisableSandbox" not in schema_of(bash)
    call, _, _ = await run(bash, "true", dangerouslyDisableSandbox=True)
    assert call.result.data["sandbox"]["ignored"] == (
        "dangerouslyDisableSandbox was ignored: commands run without a sandbox here"
    )


# -- autoAllowBashIfSandboxed with Approvals -----------------------------------------------------


async def test_a_sandboxed_call_is_allowed_without_asking_and_recorded(place: Path) -> None:
    root = place / "root"
    call, result, approver = await run(Bash(root, FAST), "echo hi", approvals=approvals(root))
    assert call.result.content == "hi"
    assert approver.questions == []
    [decision] = [d for d in result.decisions.at(h.BEFORE_TOOL) if d.hook == HOOK_ID]
    assert (decision.outcome, decision.by) == ("proceed", AUTO_ALLOWED)


async def test_a_rule_for_all_of_bash_that_asks_is_auto_allowed(place: Path) -> None:
    root = place / "root"
    rules = approvals(root, Rule("Bash", "ask"))
    _, _, approver = await run(Bash(root, FAST), "echo hi", approvals=rules)
    assert approver.questions == []


@pytest.mark.parametrize(
    ("bash", "command", "extra"),
    [
        ({"excluded_commands": ["echo *"]}, "echo hi", {}),  # outside: never auto-allowed
        ({"allow_unsandboxed": True}, "echo hi", {"dangerouslyDisableSandbox": True}),
        ({"auto_allow": False}, "echo hi", {}),
    ],
)
async def test_approvals_ask_about_a_call_outside_the_sandbox_or_without_auto_allow(
    place: Path, bash: dict[str, Any], command: str, extra: dict[str, Any]
) -> None:
    root = place / "root"
    call, result, approver = await run(
        Bash(root, FAST, **bash), command, approvals=approvals(root), **extra
    )
    assert [q.question for q in approver.questions] == [f"Allow Bash({command})?"]
    assert call.result.content == "hi"
    by = [d.by for d in result.decisions.at(h.BEFORE_TOOL) if d.hook == HOOK_ID]
    assert by == ["unmatched destructive tool"]


async def test_deny_and_content_scoped_ask_rules_still_apply(place: Path) -> None:
    root = place / "root"
    rules = approvals(root, Rule("Bash(rm *)", "deny"), Rule("Bash(git push *)", "ask"))
    denied, _, approver = await run(Bash(root, FAST), "rm -f x", approvals=rules)
    assert denied.blocked
    assert approver.questions == []
    asked, _, approver = await run(Bash(root, FAST), "git push --dry-run", approvals=rules)
    assert [q.question for q in approver.questions] == ["Allow Bash(git push --dry-run)?"]
    assert not asked.blocked


async def test_a_rule_with_a_predicate_still_asks(place: Path) -> None:
    root = place / "root"
    rules = approvals(root, Rule("Bash", "ask", when=lambda args: "deploy" in args["command"]))
    _, _, approver = await run(Bash(root, FAST), "echo deploy", approvals=rules)
    assert len(approver.questions) == 1


# -- options checked -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"excluded_commands": "docker"}, r"Bash\(excluded_commands\): must be a list"),
        ({"excluded_commands": ["docker (x)"]}, r"Bash\(excluded_commands\): is not a command"),
        ({"excluded_commands": [3]}, r"Bash\(excluded_commands\): is not a command"),
        ({"allow_unsandboxed": "yes"}, r"Bash\(allow_unsandboxed\): must be True or False"),
        ({"auto_allow": 1}, r"Bash\(auto_allow\): must be True or False"),
    ],
)
def test_bad_options_are_refused(tmp_path: Path, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Bash(tmp_path, **kwargs)


async def test_a_tightened_profile_keeps_an_excluded_command_in_the_sandbox(place: Path) -> None:
    def narrow(event: h.ToolCallEvent) -> h.HookResult:
        profile = {**event.args["sandbox"], "network": "off", "writable": []}
        return h.HookResult.modify(args={**event.args, "sandbox": profile})

    bash = Bash(place / "root", FAST, network="allow", excluded_commands=["touch *"])
    call, _, _ = await run(bash, f"touch {place / 'outside' / 'made'}", hook=narrow)
    assert list((place / "outside").iterdir()) == []
    record = call.result.data["sandbox"]
    assert (record["active"], record["network"], record["writable"]) == (True, "off", [])
    assert record["kept"].startswith("kept in the sandbox as a hook tightened its profile")
