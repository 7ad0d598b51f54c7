"""The long-lived sandbox: calls whose profile is the policy's run in one `bwrap` per tool,
and each still ends with every process it started gone and /tmp empty; a tightened profile,
a busy server or one out of date runs one-shot; a server that dies is started again."""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._messages import ToolCall
from hookagent.capabilities.bash import Bash, BashPolicy
from hookagent.capabilities.bash import _tool as tool_module
from hookagent.capabilities.bash._persistent import CommandServer
from hookagent.capabilities.bash._tool import BashTool
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.testing import ScriptedModel, reply, tool_call
from hookagent.tools._base import ToolContext, ToolResult

FAST = BashPolicy(kill_grace_s=0.2)
COMMS = "cat /proc/[0-9]*/comm"
"""The names of every process in the sandbox's PID namespace."""


@pytest.fixture
def folder(bwrap: str, tmp_path: Path) -> Iterator[Path]:
    """Outside /tmp, which the sandbox's own /tmp would hide."""
    base = Path("/var/tmp")
    made = Path(
        tempfile.mkdtemp(prefix="hookagent-persistent-", dir=base if base.is_dir() else tmp_path)
    )
    try:
        yield made
    finally:
        shutil.rmtree(made)


@pytest.fixture
def tool(folder: Path) -> Iterator[BashTool]:
    (made,) = Bash(folder / "root", FAST, sandbox="required").tools()
    assert isinstance(made, BashTool)
    made.root.mkdir()
    yield made
    made.close()


@pytest.fixture
def one_shots(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The command lines run one-shot, counted (and still run)."""
    seen: list[list[str]] = []
    original = tool_module.run_command

    async def counted(argv: list[str], **options: Any) -> Any:
        seen.append(argv)
        return await original(argv, **options)

    monkeypatch.setattr(tool_module, "run_command", counted)
    return seen


async def call(tool: BashTool, command: str, timeout_ms: int = 10_000, **extra: Any) -> ToolResult:
    view = RunView(RunState(run_id="run-1"))
    view.files_root = tool.root / ".hookagent"
    args = {"command": command, "timeout": timeout_ms, **extra}
    call = ToolCall(id="c1", name="Bash", args=args)
    ctx = ToolContext(run=view, call=call, idempotency_key="key-1")
    return await tool(tool.prepare(args), ctx)


def alive(pid: int) -> bool:
    """Running: a zombie (an init left to the host's init to reap) is not."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def gone(pids: set[int]) -> bool:
    """Whether every one of `pids` has ended within two seconds (the sandbox's init dies
    when its bwrap does, a moment later)."""
    for _ in range(200):
        if not any(alive(pid) for pid in pids):
            return True
        await asyncio.sleep(0.01)
    return False


def sandbox_pids(bwrap_pid: int) -> set[int]:
    """`bwrap_pid` and every process below it, seen from outside."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [bwrap_pid]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += children.get(pid, [])
    return found


async def test_calls_share_one_sandbox_and_never_run_one_shot(
    tool: BashTool, one_shots: list[list[str]]
) -> None:
    first = await call(tool, "echo one; echo two >&2; exit 3")
    assert first.content == "Exit code: 3\n\none\n\nSTDERR:\ntwo"
    assert (first.data["stdout"], first.data["stderr"], first.data["exit_code"]) == (
        "one\n",
        "two\n",
        3,
    )
    second = await call(tool, "echo $HOOKAGENT_IDEMPOTENCY_KEY; pwd")
    assert second.content.splitlines()[1] == str(tool.root)
    assert second.content.splitlines()[0] == "key-1"
    assert one_shots == []
    assert len(tool.servers.running) == 1


async def test_a_background_child_is_gone_before_the_next_call_starts(tool: BashTool) -> None:
    started = await call(
        tool,
        "sleep 100 & setsid sleep 101 & nohup sleep 102 >/dev/null 2>&1 & "
        "( ( sleep 103 & ) & ); sleep 0.3; " + COMMS,
    )
    assert started.content.count("sleep") >= 4, started.content
    after = await call(tool, COMMS)
    assert "sleep" not in after.content, after.content
    assert len(after.content.split()) == 3, after.content  # bwrap, the server, cat


async def test_a_child_cannot_write_after_its_call(tool: BashTool) -> None:
    """Each idiom would write a sentinel in the root half a second after its call."""
    late = tool.root / "late"
    idioms = [
        f"(sleep 0.5; echo late > {late}-1) &",
        f"setsid sh -c 'sleep 0.5; echo late > {late}-2' >/dev/null 2>&1 < /dev/null &",
        f"( ( sleep 0.5; echo late > {late}-3 ) & ) ; disown -a",
        f"nohup sh -c 'sleep 0.5; echo late > {late}-4' >/dev/null 2>&1 &",
    ]
    for idiom in idioms:
        result = await call(tool, idiom)
        assert not result.is_error, result.content
    await asyncio.sleep(1.5)
    assert sorted(tool.root.glob("late-*")) == []
    assert len(tool.servers.running) == 1


SCRATCH = "ls -A /tmp; ls -A /dev/shm; ls -lA /dev | md5sum; cat /proc/sysvipc/* | wc -l"


async def test_tmp_dev_and_ipc_start_afresh_for_each_call_of_the_same_sandbox(
    tool: BashTool,
) -> None:
    fresh = await call(tool, SCRATCH)
    assert len(fresh.content.splitlines()) == 2  # nothing in /tmp or /dev/shm
    assert fresh.content.splitlines()[1] == "3"  # the headings, no IPC object
    made = await call(
        tool,
        "echo x > /tmp/a && mkdir -p /tmp/d/e && touch /tmp/d/e/f && chmod 0 /tmp/d/e /tmp/d"
        " && touch /dev/shm/s /dev/x && ln -s /tmp/a /dev/y"
        + (" && ipcmk -M 4096 -Q -S 2 >/dev/null" if shutil.which("ipcmk") else ""),
    )
    assert not made.is_error, made.content
    assert (await call(tool, SCRATCH)).content == fresh.content
    assert len(tool.servers.running) == 1


async def test_a_changed_dev_entry_gets_a_fresh_sandbox(tool: BashTool) -> None:
    await call(tool, "true")
    (first,) = tool.servers.running
    await call(tool, "ln -sf /tmp/elsewhere /dev/stdout")
    assert (await call(tool, "readlink /dev/stdout")).content == "/proc/self/fd/1"
    (second,) = tool.servers.running
    assert second.pid != first.pid


async def test_a_timeout_kills_the_whole_tree(tool: BashTool) -> None:
    late = tool.root / "late"
    command = (
        f"trap '' TERM; (setsid sh -c 'sleep 1; echo late > {late}-1') & "
        f"(sleep 1; echo late > {late}-2) & sleep 30"
    )
    result = await call(tool, command, timeout_ms=300)
    assert result.data["interrupted"] is True
    assert result.data["exit_code"] is None
    assert result.content.startswith("Command timed out after 0.3s")
    assert "sleep" not in (await call(tool, COMMS)).content
    await asyncio.sleep(1.2)
    assert sorted(tool.root.glob("late-*")) == []


async def test_a_cancelled_call_kills_its_processes(tool: BashTool) -> None:
    task = asyncio.ensure_future(call(tool, "setsid sleep 100 & sleep 101"))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    after = await call(tool, COMMS)
    assert "sleep" not in after.content
    assert len(tool.servers.running) == 1


async def test_a_server_killed_from_outside_is_started_again(tool: BashTool) -> None:
    await call(tool, "true")
    (server,) = tool.servers.running
    os.kill(server.pid, signal.SIGKILL)
    for _ in range(500):  # until the kill has landed
        if not alive(server.pid):
            break
        await asyncio.sleep(0.01)
    result = await call(tool, "echo back")
    assert result.content == "back"
    (again,) = tool.servers.running
    assert again.pid != server.pid


async def test_a_call_in_flight_when_its_server_dies_is_an_error_not_a_hang(
    tool: BashTool,
) -> None:
    await call(tool, "true")
    (server,) = tool.servers.running
    task = asyncio.ensure_future(call(tool, "sleep 30"))
    await asyncio.sleep(0.5)
    inside = sandbox_pids(server.pid) - {server.pid}
    assert inside
    os.kill(server.pid, signal.SIGKILL)
    result = await asyncio.wait_for(task, 10)
    assert result.is_error
    assert "command server stopped during the call" in result.content
    assert await gone(inside)
    assert (await call(tool, "echo back")).content == "back"


async def test_a_tightened_profile_runs_one_shot(
    tool: BashTool, one_shots: list[list[str]], folder: Path
) -> None:
    hidden = folder / "hidden"
    hidden.mkdir()
    (hidden / "secret").write_text("s3cret")
    args = dict(tool.prepare({"command": "x"}))
    tightened = {**args["sandbox"], "deny": [*args["sandbox"]["deny"], str(hidden)]}
    result = await call(tool, f"cat {hidden}/secret; ls -A {hidden}", sandbox=tightened)
    assert "s3cret" not in result.content
    assert str(hidden) in result.data["sandbox"]["deny"]
    assert len(one_shots) == 1
    assert tool.servers.running == ()
    assert (await call(tool, f"cat {hidden}/secret")).content == "s3cret"
    assert len(one_shots) == 1


async def test_concurrent_calls_beyond_the_first_run_one_shot(
    tool: BashTool, one_shots: list[list[str]]
) -> None:
    results = await asyncio.gather(*(call(tool, f"sleep 0.3; echo {i}") for i in range(3)))
    assert [r.content for r in results] == ["0", "1", "2"]
    assert len(one_shots) == 2
    assert len(tool.servers.running) == 1


async def test_a_deny_path_made_after_the_sandbox_started_is_hidden(
    tool: BashTool, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = folder / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (tool,) = Bash(tool.root, FAST, sandbox="required").tools()  # ~ is read when built
    assert isinstance(tool, BashTool)
    try:
        await call(tool, "true")
        (first,) = tool.servers.running
        (home / ".ssh").mkdir()
        (home / ".ssh" / "id_ed25519").write_text("s3cret")
        result = await call(tool, "cat ~/.ssh/id_ed25519; ls -A ~/.ssh | wc -l")
        assert "s3cret" not in result.content
        assert result.data["stdout"] == "0\n"
        (second,) = tool.servers.running
        assert second.pid != first.pid
    finally:
        tool.close()


async def test_closing_stops_the_sandbox_and_every_process_in_it(tool: BashTool) -> None:
    await call(tool, "true")
    (server,) = tool.servers.running
    task = asyncio.ensure_future(call(tool, "sleep 100 & setsid sleep 100"))
    await asyncio.sleep(0.5)
    inside = sandbox_pids(server.pid)
    assert len(inside) >= 4  # bwrap, its init, the server, the shell and more
    tool.close()
    result = await asyncio.wait_for(task, 10)
    assert result.is_error
    assert await gone(inside)
    assert tool.servers.running == ()


async def test_the_env_file_is_sourced_inside(tool: BashTool, tmp_path: Path) -> None:
    env_file = tmp_path / "env.sh"
    env_file.write_text("export FROM_FILE=yes\n")
    view = RunView(RunState(run_id="run-1", metadata={"claude_env_file": str(env_file)}))
    view.files_root = tool.root / ".hookagent"
    args = {"command": "echo $FROM_FILE; echo no > /tmp/.hookagent-env.sh"}
    ctx = ToolContext(run=view, call=ToolCall(id="c1", name="Bash", args=args))
    result = await tool(tool.prepare(args), ctx)
    assert result.data["stdout"] == "yes\n"
    assert "Permission denied" in result.data["stderr"]  # shown read-only, as one-shot
    assert env_file.read_text() == "export FROM_FILE=yes\n"
    again = await tool(tool.prepare(args), ctx)
    assert again.data["stdout"] == "yes\n"
    assert len(tool.servers.running) == 1


async def test_an_agent_runs_its_calls_in_one_sandbox_until_closed(
    folder: Path, one_shots: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[CommandServer] = []
    start = CommandServer.start

    async def counted(*args: Any) -> CommandServer:
        started.append(await start(*args))
        return started[-1]

    monkeypatch.setattr(CommandServer, "start", counted)
    (folder / "root").mkdir()
    bash = Bash(folder / "root", FAST, sandbox="required")
    model = ScriptedModel(
        [
            tool_call("Bash", "c1", command="echo one > /tmp/x; sleep 100 &"),
            tool_call("Bash", "c2", command="cat /tmp/x; " + COMMS),
            reply("done"),
        ]
    )
    agent = h.AgentBuilder().model(model).with_(bash).build()
    result = await agent.run("go")
    first, second = (call.result for call in result.tool_calls)
    assert not first.is_error, first.content
    assert "No such file" in second.content and "sleep" not in second.content
    assert one_shots == []
    (server,) = started
    inside = sandbox_pids(server.pid)
    bash.close()
    assert server.closed
    assert await gone(inside)


def test_a_tool_dropped_unclosed_stops_its_sandbox_without_warnings(folder: Path) -> None:
    """filterwarnings=error: an unclosed socket or a running Popen would fail this test."""
    (folder / "root").mkdir()

    async def use() -> int:
        (made,) = Bash(folder / "root", FAST, sandbox="required").tools()
        assert isinstance(made, BashTool)
        assert (await call(made, "echo hi")).content == "hi"
        (server,) = made.servers.running
        return server.pid

    pid = asyncio.run(use())
    gc.collect()
    assert not alive(pid)


async def test_no_descriptor_is_left_open(folder: Path) -> None:
    """Calls that end, time out, are cancelled, or lose their server, then close()."""
    (folder / "root").mkdir()
    before = sorted(os.listdir("/proc/self/fd"))
    (made,) = Bash(folder / "root", FAST, sandbox="required").tools()
    assert isinstance(made, BashTool)
    await call(made, "echo hi; sleep 100 &")
    await call(made, "sleep 30", timeout_ms=200)
    task = asyncio.ensure_future(call(made, "sleep 30"))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (server,) = made.servers.running
    lost = asyncio.ensure_future(call(made, "sleep 30"))
    await asyncio.sleep(0.3)
    os.kill(server.pid, signal.SIGKILL)
    assert (await lost).is_error
    await call(made, "true")
    made.close()
    assert sorted(os.listdir("/proc/self/fd")) == before
