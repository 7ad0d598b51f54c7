"""The Bash tool runs real commands: output shape, exit codes, timeouts, process groups,
bounded memory, the environment it gets. These run unsandboxed (`sandbox="off"`): they test
the command runner itself, which the sandbox wraps (`test_bash_sandbox.py`)."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._canonical import call_key
from hookagent._messages import ToolCall
from hookagent.capabilities.bash import Bash, BashPolicy
from hookagent.capabilities.bash._tool import ENV_FILE_KEY
from hookagent.durable import _codec as codec
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.testing import ScriptedModel, reply, tool_call
from hookagent.tools._base import Tool, ToolContext, ToolResult

FAST = BashPolicy(kill_grace_s=0.2)


def bash_tool(root: Path, policy: BashPolicy = FAST) -> Tool:
    (tool,) = Bash(root, policy, sandbox="off").tools()
    return tool


async def call(
    root: Path, policy: BashPolicy = FAST, metadata: dict[str, Any] | None = None, **args: Any
) -> ToolResult:
    view = RunView(RunState(run_id="run-1", metadata=metadata or {}))
    view.files_root = root / ".hookagent"
    ctx = ToolContext(run=view, call=ToolCall(id="c1", name="Bash", args=args))
    return await bash_tool(root, policy)(args, ctx)


def gone(pid: int, wait: float = 2.0) -> bool:
    """The process has exited: absent, or a zombie (PID 1 here may not reap orphans)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except (FileNotFoundError, ProcessLookupError):
            return True
        state = next(line for line in status.splitlines() if line.startswith("State:"))
        if state.split()[1] in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


def test_the_tool_takes_claude_codes_input_shape(tmp_path: Path) -> None:
    tool = bash_tool(tmp_path)
    assert tool.name == "Bash"
    schema = tool.parameters
    assert schema["required"] == ["command"]
    assert set(schema["properties"]) == {"command", "description", "timeout"}
    assert "millisecond" in schema["properties"]["timeout"]["description"].lower()


async def test_stdout_comes_back_as_content_and_data(tmp_path: Path) -> None:
    result = await call(tmp_path, command="echo hello", description="say hello")
    assert not result.is_error
    assert result.content == "hello"
    assert result.data == {
        "stdout": "hello\n",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "exit_code": 0,
        "sandbox": {
            "active": False,
            "mode": "off",
            "writable": [str(tmp_path.resolve())],
            "deny": result.data["sandbox"]["deny"],
            "network": "off",
            "reason": "the sandbox is off (Bash(sandbox='off'))",
        },
    }


async def test_a_failing_command_shows_exit_code_stdout_and_stderr(tmp_path: Path) -> None:
    result = await call(tmp_path, command="echo out; echo oops >&2; exit 3")
    assert result.is_error
    assert result.content == "Exit code: 3\n\nout\n\nSTDERR:\noops"
    assert result.data["exit_code"] == 3
    assert result.data["stdout"] == "out\n"
    assert result.data["stderr"] == "oops\n"


async def test_no_output_is_said_so(tmp_path: Path) -> None:
    assert (await call(tmp_path, command="true")).content == "(no output)"
    failed = await call(tmp_path, command="exit 7")
    assert failed.content == "Exit code: 7\n\n(no output)"
    assert failed.is_error


async def test_a_command_killed_by_a_signal_reports_128_plus_n(tmp_path: Path) -> None:
    result = await call(tmp_path, command="kill -KILL $$")
    assert result.data["exit_code"] == 137
    assert result.content.startswith("Exit code: 137")


async def test_the_command_runs_in_root_with_empty_stdin(tmp_path: Path) -> None:
    (tmp_path / "marker.txt").write_text("x")
    result = await call(tmp_path, command="pwd; ls; cat; echo end")
    assert result.content.splitlines() == [str(tmp_path), "marker.txt", "end"]


async def test_a_missing_root_is_an_error_result(tmp_path: Path) -> None:
    result = await call(tmp_path / "nope", command="true")
    assert result.is_error
    assert "does not exist" in result.content


@pytest.mark.parametrize(
    ("millis", "expected"),
    [
        (0, "Invalid timeout 0 ms"),
        (-5, "Invalid timeout -5 ms"),
        (600_001, "Invalid timeout 600001 ms"),
        ("soon", "timeout"),
    ],
)
async def test_an_invalid_timeout_is_an_error_result(
    tmp_path: Path, millis: object, expected: str
) -> None:
    result = await call(tmp_path, command="echo never", timeout=millis)
    assert result.is_error
    assert expected in result.content
    assert "never" not in result.content


async def test_unknown_arguments_are_an_error_result(tmp_path: Path) -> None:
    result = await call(tmp_path, command="echo hi", run_in_background=True)
    assert result.is_error
    assert "run_in_background" in result.content


async def test_a_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await call(tmp_path, command="sleep 30 & echo $!; sleep 30", timeout=300)
    assert time.monotonic() - started < 5
    assert result.is_error
    assert result.data["interrupted"] is True
    assert result.data["exit_code"] is None
    child = int(result.data["stdout"])
    assert result.content == f"Command timed out after 0.3s\n\n{child}"
    assert gone(child)


async def test_a_default_timeout_from_the_policy(tmp_path: Path) -> None:
    policy = BashPolicy(default_timeout_s=0.2, kill_grace_s=0.2)
    result = await call(tmp_path, policy, command="sleep 30")
    assert result.data["interrupted"]
    assert result.content.startswith("Command timed out after 0.2s")


async def test_a_group_ignoring_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    command = "trap '' TERM; sleep 30 & echo $!; wait"
    started = time.monotonic()
    result = await call(tmp_path, command=command, timeout=200)
    assert time.monotonic() - started < 5
    assert result.data["interrupted"]
    assert gone(int(result.data["stdout"]))


async def test_a_background_child_does_not_outlive_the_call(tmp_path: Path) -> None:
    """The shell exits at once; the child holding its pipes is stopped, not waited for."""
    started = time.monotonic()
    result = await call(tmp_path, command="sleep 30 & echo $!", timeout=10_000)
    assert time.monotonic() - started < 5
    assert not result.is_error
    assert not result.data["interrupted"]
    assert gone(int(result.content))


async def test_a_detached_child_that_closed_its_pipes_is_stopped_too(tmp_path: Path) -> None:
    result = await call(tmp_path, command="sleep 30 >/dev/null 2>&1 & echo $!")
    assert gone(int(result.content))


async def test_huge_output_is_read_in_bounded_memory_and_truncated(tmp_path: Path) -> None:
    total = 100_000_000
    tracemalloc.start()
    try:
        result = await call(tmp_path, command=f"head -c {total} /dev/zero | tr '\\0' a")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000
    assert not result.is_error
    [saved] = (tmp_path / ".hookagent" / "runs" / "run-1").glob("bash-c1-stdout-*.txt")
    assert saved.stat().st_size == total  # the whole stream, written as it was read
    shown = 8 * 1024 + 24 * 1024
    marker = f"\n... [{total - shown} bytes truncated; the whole output is in {saved}] ...\n"
    assert marker in result.content
    head, _, tail = result.content.partition("\n... [")
    assert head == "a" * 8 * 1024
    assert tail.endswith("a" * 24 * 1024)
    kept = 32 * 1024 + 96 * 1024
    hooks_see = result.data["stdout"]
    assert f"[{total - kept} bytes truncated; the whole output is in {saved}]" in hooks_see
    assert len(result.data["stdout"]) < kept + 200


async def test_stderr_is_truncated_on_its_own(tmp_path: Path) -> None:
    policy = BashPolicy(max_output=10, output_head=4, output_tail=6, keep_head=4, keep_tail=6)
    result = await call(tmp_path, policy, command="echo short; printf 0123456789abcdef >&2")
    [saved] = (tmp_path / ".hookagent" / "runs" / "run-1").glob("bash-c1-stderr-*.txt")
    assert saved.read_text() == "0123456789abcdef"
    cut = f"0123\n... [6 bytes truncated; the whole output is in {saved}] ...\nabcdef"
    assert result.content == "short\n\nSTDERR:\n" + cut
    assert result.data["stderr"] == cut


async def test_output_at_the_limit_is_not_truncated(tmp_path: Path) -> None:
    policy = BashPolicy(max_output=10, output_head=4, output_tail=6, keep_head=4, keep_tail=6)
    result = await call(tmp_path, policy, command="printf 0123456789")
    assert result.content == "0123456789"
    assert not (tmp_path / ".hookagent").exists()  # nothing cut, nothing saved


async def test_secrets_and_loader_variables_are_scrubbed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value")
    monkeypatch.setenv("LD_PRELOAD", "/nonexistent/evil.so")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-value")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-token-value")
    monkeypatch.setenv("BASH_ENV", str(tmp_path / "evil.sh"))
    monkeypatch.setenv("HOOKAGENT_HARMLESS", "kept-value")
    result = await call(tmp_path, command="env")
    for leaked in ("aws-secret-value", "evil", "sk-openai-value", "ghp-token-value"):
        assert leaked not in result.content
    assert "HOOKAGENT_HARMLESS=kept-value" in result.content


async def test_the_policy_keeps_and_adds_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value")
    policy = BashPolicy(env_allow=["AWS_REGION"], extra_env={"GREETING": "hi there"})
    result = await call(tmp_path, policy, command="env")
    assert "AWS_REGION=eu-west-1" in result.content
    assert "GREETING=hi there" in result.content
    assert "aws-secret-value" not in result.content


async def test_each_command_gets_its_calls_idempotency_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOKAGENT_IDEMPOTENCY_KEY", "a stale key from the host")
    command = 'printf %s "$HOOKAGENT_IDEMPOTENCY_KEY"'
    model = ScriptedModel([tool_call("Bash", "c1", command=command), reply("ok")])
    agent = h.AgentBuilder().model(model).with_(Bash(tmp_path, FAST, sandbox="off")).build()
    result = await agent.run("go")
    expected = call_key(result.run_id, "c1", codec.canonical({"command": command}))
    assert result.tool_calls[0].result.content == expected


async def test_the_claude_env_file_is_sourced_first(tmp_path: Path) -> None:
    env_file = tmp_path / "env.sh"
    env_file.write_text("export FROM_SESSION_START='yes it is'\n")
    metadata = {ENV_FILE_KEY: str(env_file)}
    result = await call(tmp_path, metadata=metadata, command='echo "$FROM_SESSION_START"')
    assert result.content == "yes it is"
    missing = {ENV_FILE_KEY: str(tmp_path / "missing.sh")}
    assert (await call(tmp_path, metadata=missing, command="echo ok")).content == "ok"


async def test_sh_stands_in_when_bash_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bash on this PATH
    result = await call(tmp_path, command='echo "${BASH_VERSION:-no bash}"')
    assert result.content == "no bash"
