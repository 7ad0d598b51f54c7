"""Hook output the model reads is bounded on every channel, and saved whole with the run.

Real hooks in real runs: a hook flooding stderr and exiting 2, JSON reasons, contexts and
messages far over the 10,000-character cap. The model gets a preview and the path of a file
in the run's folder holding the whole text; memory stays bounded while the flood is read.
"""

from __future__ import annotations

import json
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.claude._model import HandlerSpec, ProcessOutcome, SettingsSource
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._output import read_verdict
from hookagent.claude._runner import run_handler
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import group, script, settings

CAP = 10_000
OVERHEAD = 600
"""The preview's frame: what was cut, its size and the file's path."""
BIG = "".join(f"{n:07d}\n" for n in range(25_000))  # 200,000 characters, every line distinct
FLOOD = 24 * 1024 * 1024


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


def agent(tmp_path: Path, file: Path, *turns: h.ModelResponse) -> tuple[h.Agent, ScriptedModel]:
    model = ScriptedModel(list(turns))
    options = ClaudeHookOptions(project_dir=str(tmp_path))
    built = (
        h.AgentBuilder()
        .model(model)
        .tools(Bash)
        .with_settings(file, project_dir=tmp_path, options=options)
        .outputs(folder=tmp_path / ".hookagent")
        .build()
    )
    return built, model


def run_folder(tmp_path: Path, result: h.RunResult[Any]) -> Path:
    return tmp_path / ".hookagent" / "runs" / result.run_id


def saved_path(text: str) -> Path:
    match = re.search(r"Full output saved to: (\S+)", text)
    assert match is not None, text[:300]
    return Path(match.group(1))


async def test_a_stderr_flood_with_exit_2_reaches_the_model_as_a_bounded_preview(
    tmp_path: Path,
) -> None:
    flood = f"head -c {FLOOD} /dev/zero | tr '\\0' e >&2; exit 2"
    file = settings(tmp_path, {"PreToolUse": [group(flood, "Bash")]})
    built, model = agent(tmp_path, file, tool_call("Bash", command="ls"), reply("done"))
    tracemalloc.start()
    try:
        result = await built.run("list the files")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    model.assert_consumed()
    [call] = result.tool_calls
    text = call.result.content
    assert call.blocked and model.calls[1].last_message == text
    assert len(text) <= CAP + OVERHEAD
    assert f"PreToolUse hook stderr too large ({FLOOD:,} bytes)" in text
    saved = saved_path(text)
    assert saved.parent == run_folder(tmp_path, result)
    assert saved.stat().st_size == FLOOD
    with saved.open("rb") as whole:
        assert set(whole.read(1 << 20)) == {ord("e")}
    assert peak < FLOOD / 8, f"{peak:,} bytes at peak while reading {FLOOD:,}"


async def test_a_json_deny_reason_is_capped_before_the_model_reads_it(tmp_path: Path) -> None:
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": BIG,
        }
    }
    cmd = script(tmp_path, "deny", f"sys.stdin.read(); print(json.dumps({deny!r}))")
    file = settings(tmp_path, {"PreToolUse": [group(cmd, "Bash")]})
    built, model = agent(tmp_path, file, tool_call("Bash", command="ls"), reply("done"))
    result = await built.run("list the files")
    [call] = result.tool_calls
    assert call.blocked and len(call.result.content) <= CAP + OVERHEAD
    assert f"PreToolUse hook reason too large ({len(BIG):,} characters)" in call.result.content
    assert BIG[:2_000] in call.result.content
    saved = saved_path(call.result.content)
    assert saved.parent == run_folder(tmp_path, result)
    assert saved.read_text() == BIG
    assert model.calls[1].last_message == call.result.content


async def test_additional_context_and_plain_stdout_reach_the_model_capped(
    tmp_path: Path,
) -> None:
    context = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": BIG}}
    post = script(tmp_path, "post", f"sys.stdin.read(); print(json.dumps({context!r}))")
    prompt = script(tmp_path, "prompt", f"sys.stdin.read(); sys.stdout.write({BIG!r} * 3)")
    file = settings(
        tmp_path,
        {"PostToolUse": [group(post, "Bash")], "UserPromptSubmit": [group(prompt)]},
    )
    built, _ = agent(tmp_path, file, tool_call("Bash", command="ls"), reply("done"))
    result = await built.run("list the files")
    [call] = result.tool_calls
    assert call.result.content.startswith("ran: ls\n\n<system-reminder>\n")
    assert len(call.result.content) <= CAP + OVERHEAD
    assert saved_path(call.result.content).read_text() == BIG
    cut = f"UserPromptSubmit hook stdout too large ({3 * len(BIG):,} characters)"
    [reminder] = [m.content for m in result.state.messages if cut in str(m.content)]
    assert isinstance(reminder, str) and len(reminder) <= CAP + OVERHEAD + 100
    assert saved_path(reminder).read_text() == BIG * 3
    files = sorted(p.name for p in run_folder(tmp_path, result).iterdir())
    assert [name.rsplit("-", 1)[0] for name in files] == [
        "hook-PostToolUse-additionalContext",
        "hook-UserPromptSubmit-stdout",
    ]


# every channel, one verdict at a time -----------------------------------------------------


def emit_json(tmp_path: Path, obj: dict[str, Any]) -> str:
    return script(tmp_path, "emit", f"sys.stdin.read(); print(json.dumps({obj!r}))")


CHANNELS: list[tuple[str, dict[str, Any] | None, str, str]] = [
    (
        "PreToolUse",
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": BIG,
            }
        },
        "reason",
        "reason",
    ),
    ("PreToolUse", {"decision": "block", "reason": BIG}, "reason", "reason"),
    ("Stop", {"decision": "block", "reason": BIG}, "reason", "reason"),
    (
        "UserPromptSubmit",
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": BIG}},
        "additional_context",
        "additionalContext",
    ),
    ("Stop", {"systemMessage": BIG}, "system_message", "systemMessage"),
    ("Stop", {"continue": False, "stopReason": BIG}, "stop_reason", "stopReason"),
    ("SessionStart", None, "additional_context", "stdout"),
]


@pytest.mark.parametrize(("event", "obj", "field", "name"), CHANNELS)
async def test_every_channel_is_capped_and_saved_whole(
    tmp_path: Path, event: str, obj: dict[str, Any] | None, field: str, name: str
) -> None:
    if obj is None:
        command = script(tmp_path, "plain", f"sys.stdin.read(); sys.stdout.write({BIG!r})")
    else:
        command = emit_json(tmp_path, obj)
    handler = spec(event, command)
    folder = tmp_path / "runs" / "r1"
    outcome = await run_handler(
        handler, {"hook_event_name": event}, cwd=str(tmp_path), project_dir=str(tmp_path)
    )
    verdict = read_verdict(event, outcome, handler, spill_dir=str(folder))
    text = getattr(verdict, field)
    assert isinstance(text, str) and len(text) <= CAP + OVERHEAD
    assert f"{event} hook {name} too large ({len(BIG):,} characters)" in text
    saved = verdict.extra["overflow_files"][name]
    assert Path(saved).parent == folder and saved in text
    assert Path(saved).read_text() == BIG


async def test_stderr_of_a_failing_hook_is_capped_as_its_error_and_its_block_reason(
    tmp_path: Path,
) -> None:
    command = script(tmp_path, "fail", f"sys.stdin.read(); sys.stderr.write({BIG!r}); sys.exit(1)")
    handler = spec("PreToolUse", command, on_failure="block")
    folder = tmp_path / "runs" / "r1"
    outcome = await run_handler(
        handler, {}, cwd=str(tmp_path), project_dir=str(tmp_path), spill_dir=str(folder)
    )
    assert outcome.stderr_file is not None  # over the 64 KiB kept: saved by the runner
    verdict = read_verdict("PreToolUse", outcome, handler, spill_dir=str(folder))
    assert verdict.decision == "deny"
    assert verdict.reason is not None and len(verdict.reason) <= CAP + OVERHEAD
    assert f"({len(BIG):,} bytes). Full output saved to: {outcome.stderr_file}" in verdict.reason
    assert verdict.error == "0000000"  # the first line
    assert Path(outcome.stderr_file).read_text() == BIG


def test_without_a_folder_the_preview_says_the_text_was_not_saved() -> None:
    handler = spec("PreToolUse", "true")
    outcome = ProcessOutcome(exit_code=2, stderr=BIG, stderr_bytes=len(BIG))
    verdict = read_verdict("PreToolUse", outcome, handler)
    assert verdict.reason is not None and len(verdict.reason) <= CAP + OVERHEAD
    assert "could not be saved (no folder to save it in)" in verdict.reason
    assert "overflow_files" not in verdict.extra


def test_stdout_too_long_to_read_as_json_is_a_failure_naming_its_file() -> None:
    handler = spec("PreToolUse", "true")
    head = json.dumps({"decision": "block", "reason": "x" * 50})[:40]
    outcome = ProcessOutcome(
        exit_code=0, stdout=head, stdout_bytes=20_000_000, stdout_file="/runs/r1/out.txt"
    )
    verdict = read_verdict("PreToolUse", outcome, handler)
    assert verdict.failed and verdict.error is not None
    assert "20,000,000 bytes, more than the 40 read as JSON" in verdict.error
    assert "/runs/r1/out.txt" in verdict.error


def spec(event: str, command: str, **fields: Any) -> HandlerSpec:
    return HandlerSpec(
        event=event,
        matcher=None,
        type="command",
        command=command,
        source=SettingsSource(path="settings.json", kind="project"),
        where=f"hooks.{event}[0].hooks[0]",
        **fields,
    )
