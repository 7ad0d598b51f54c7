"""MCP servers as tools, against a real SDK server (`mcp_server.py`) on stdio and over HTTP.

The stdio servers of most tests are started once for the module (two names, one fast and one
with a short call timeout, started side by side); tests of the lifecycle start their own.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import hookagent as h
from hookagent._messages import ToolCall, ToolResultMessage
from hookagent.capabilities.mcp import MCP, HttpServer, MCPTool, StdioServer
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.spill import INHERIT
from hookagent.testing import ScriptedModel, reply, tool_call, turn
from hookagent.tools._base import ToolContext

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = str(Path(__file__).with_name("mcp_server.py"))


def stdio(**options: Any) -> StdioServer:
    return StdioServer(command=sys.executable, args=[SERVER], **options)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def mcp() -> AsyncIterator[MCP]:
    servers = {
        "math": stdio(env={"HOOKAGENT_MCP_TEST": "from the config"}),
        "slow.poke": stdio(timeout=0.3),
    }
    async with MCP(servers) as connected:
        yield connected


def by_name(mcp: MCP) -> dict[str, MCPTool]:
    return {tool.name: tool for tool in mcp.tools()}


async def call(tool: MCPTool, **args: Any) -> h.ToolResult:
    ctx = ToolContext(run=RunView(RunState(run_id="r")), call=ToolCall(id="c", name=tool.name))
    return await tool(args, ctx)


# --- listing -----------------------------------------------------------------------------


async def test_every_tool_of_every_server_is_listed_under_its_claude_code_name(mcp: MCP) -> None:
    remote = {"add", "echo", "fail", "slow", "picture", "text", "page", "env_get", "header"}
    remote |= {"deploy"}
    remote.add("crash")
    assert set(by_name(mcp)) == {f"mcp__{s}__{t}" for s in ("math", "slow_poke") for t in remote}
    env_get = by_name(mcp)["mcp__math__env_get"]
    assert (env_get.server, env_get.remote_name) == ("math", "env.get")  # sanitised, not renamed
    assert by_name(mcp)["mcp__slow_poke__add"].server == "slow.poke"


async def test_descriptions_and_schemas_come_from_the_server(mcp: MCP) -> None:
    add = by_name(mcp)["mcp__math__add"]
    assert add.description == "Add two integers."
    assert add.parameters["type"] == "object"
    assert add.parameters["required"] == ["a", "b"]
    assert add.parameters["properties"]["a"]["type"] == "integer"
    assert isinstance(add, h.Tool)
    assert "mcp__math__add" in repr(add) and "math" in repr(add)


# --- calls -------------------------------------------------------------------------------


async def test_a_call_returns_text_for_the_model_and_structured_content_for_hooks(
    mcp: MCP,
) -> None:
    result = await call(by_name(mcp)["mcp__math__add"], a=2, b=3)
    assert not result.is_error
    assert result.data == {"total": 5}
    assert '"total": 5' in result.content


async def test_without_structured_content_hooks_see_the_content_blocks(mcp: MCP) -> None:
    result = await call(by_name(mcp)["mcp__math__picture"])
    assert result.content == "a red dot"  # the image rides beside the text, not in it
    [image] = result.images
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == b"\x89PNG-not-really"
    assert [block["type"] for block in result.data] == ["text", "image"]
    assert result.data[1]["mimeType"] == "image/png"


@pytest.mark.parametrize("accepts", [True, False])
async def test_an_image_reaches_a_model_that_accepts_images_as_an_image(
    mcp: MCP, accepts: bool
) -> None:
    model = ScriptedModel([tool_call("mcp__math__picture"), reply("seen")])
    model.accepts_images = accepts  # type: ignore[attr-defined]
    result = await h.AgentBuilder().model(model).with_(mcp).build().run("look")
    [message] = [m for m in result.state.messages if isinstance(m, ToolResultMessage)]
    if accepts:
        assert message.content == "a red dot"
        assert [i.mime_type for i in message.images] == ["image/png"]
        again = h.RunState.from_json(result.state.to_json())  # as a store keeps it
        assert [m for m in again.messages if isinstance(m, ToolResultMessage)] == [message]
        assert result.tool_calls[0].result.images == message.images
    else:
        assert message.images == ()
        assert message.content == (
            "a red dot\n[image: image/png, 15 bytes; not shown: this model does not accept images]"
        )
    assert result.tool_calls[0].result.content == message.content


async def test_the_server_gets_the_configured_environment(mcp: MCP) -> None:
    result = await call(by_name(mcp)["mcp__math__env_get"], name="HOOKAGENT_MCP_TEST")
    assert result.content == "from the config"


async def test_a_tool_error_is_an_error_result(mcp: MCP) -> None:
    result = await call(by_name(mcp)["mcp__math__fail"], message="disk on fire")
    assert result.is_error
    assert "disk on fire" in result.content


async def test_bad_arguments_are_an_error_result(mcp: MCP) -> None:
    result = await call(by_name(mcp)["mcp__math__add"], a="two")
    assert result.is_error


async def test_a_call_past_its_timeout_is_an_error_naming_server_and_tool(mcp: MCP) -> None:
    slow = by_name(mcp)["mcp__slow_poke__slow"]
    started = time.monotonic()
    result = await call(slow, seconds=5)
    assert time.monotonic() - started < 4
    assert result.is_error
    assert "'slow.poke'" in result.content and "'slow'" in result.content
    assert "no answer within 0.3 s" in result.content
    assert result.data == {"server": "slow.poke", "tool": "slow", "error": result.data["error"]}
    # the session survives a timed-out call
    assert (await call(by_name(mcp)["mcp__slow_poke__echo"], text="still here")).content == (
        "still here"
    )


# --- in a run ----------------------------------------------------------------------------


async def test_a_before_tool_hook_blocks_an_mcp_tool_in_a_real_run(mcp: MCP) -> None:
    model = ScriptedModel(
        [
            turn(
                "",
                {"name": "mcp__math__add", "args": {"a": 1, "b": 2}},
                {"name": "mcp__slow_poke__add", "args": {"a": 1, "b": 2}},
            ),
            reply("done"),
        ]
    )
    seen: list[h.ToolResultEvent] = []

    def no_math(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.block(f"{event.tool_name} is not allowed")

    agent = (
        h.AgentBuilder()
        .model(model)
        .with_(mcp)
        .on(h.BEFORE_TOOL, no_math, match="/^mcp__math__.*/")  # a regex, as in Claude Code
        .on(h.AFTER_TOOL, seen.append, match="mcp__*", kind="observer")  # a glob
        .build()
    )
    result = await agent.run("add them")
    model.assert_consumed()
    blocked, allowed = result.tool_calls
    assert blocked.blocked and blocked.result.is_error
    assert "mcp__math__add is not allowed" in blocked.result.content
    assert not allowed.blocked and allowed.result.data == {"total": 3}
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert decision.outcome == "block"
    assert [(e.tool_name, e.result.data) for e in seen][-1] == ("mcp__slow_poke__add", {"total": 3})


async def test_a_claude_code_pre_tool_use_hook_matching_the_server_blocks_its_tools(
    mcp: MCP, tmp_path: Path
) -> None:
    record = tmp_path / "post.json"
    hooks = {
        "PreToolUse": [
            {"matcher": "mcp__math__.*", "hooks": [command("echo 'no math today' >&2; exit 2")]}
        ],
        "PostToolUse": [{"matcher": "mcp__slow_poke__.*", "hooks": [command(f"cat > '{record}'")]}],
    }
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    model = ScriptedModel(
        [
            tool_call("mcp__math__add", a=1, b=2),
            tool_call("mcp__slow_poke__add", a=4, b=5),
            reply("done"),
        ]
    )
    agent = (
        h.AgentBuilder()
        .model(model)
        .with_(mcp)
        .with_settings(settings, project_dir=tmp_path)
        .build()
    )
    result = await agent.run("add")
    blocked, allowed = result.tool_calls
    assert blocked.blocked and "no math today" in blocked.result.content
    assert allowed.result.data == {"total": 9}
    payload = json.loads(record.read_text())
    assert payload["tool_name"] == "mcp__slow_poke__add"
    assert payload["tool_input"] == {"a": 4, "b": 5}
    assert payload["tool_response"] == {"total": 9}


def command(line: str) -> dict[str, str]:
    return {"type": "command", "command": line}


async def test_after_tool_hooks_see_the_structured_result(mcp: MCP) -> None:
    model = ScriptedModel([tool_call("mcp__math__echo", text="hello"), reply("ok")])
    seen: list[Any] = []
    agent = (
        h.AgentBuilder()
        .model(model)
        .with_(mcp)
        .on(h.AFTER_TOOL, lambda e: seen.append(e.result.data), match="mcp__math__echo")
        .build()
    )
    result = await agent.run("say hello")
    assert result.status == "completed"
    assert seen == [{"result": "hello"}]
    assert model.calls[1].last_message == "hello"


async def test_a_long_result_is_a_preview_unless_the_server_declares_a_larger_limit(
    mcp: MCP, tmp_path: Path
) -> None:
    tools = by_name(mcp)
    assert tools["mcp__math__page"].max_result_chars == 120_000  # `anthropic/maxResultSizeChars`
    assert tools["mcp__math__text"].max_result_chars is INHERIT
    model = ScriptedModel(
        [
            tool_call("mcp__math__text", size=60_000),
            tool_call("mcp__math__page", size=100_000),
            reply("done"),
        ]
    )
    agent = h.AgentBuilder().model(model).with_(mcp).outputs(folder=tmp_path).build()
    result = await agent.run("read")
    cut, whole = (c.result for c in result.tool_calls)
    assert cut.content.startswith("<persisted-output>\nOutput too large (60,000 characters).")
    assert len(cut.content) < 2_000 + 400
    text = Path(cut.content.split("Full output saved to: ")[1].split("\n")[0])
    assert text.parent == tmp_path / "runs" / result.run_id
    assert text.read_text() == "".join(f"{n:07d}\n" for n in range(7_501))[:60_000]
    assert cut.data["chars"] > 60_000  # the blocks, saved beside the text
    assert json.loads(Path(cut.data["file"]).read_text())[0]["text"] == text.read_text()
    assert whole.content == "p" * 100_000


# --- lifecycle ---------------------------------------------------------------------------


async def test_tools_before_connecting_is_a_config_error_showing_the_pattern() -> None:
    unconnected = MCP({"math": stdio()})
    with pytest.raises(h.ConfigError, match="async with MCP"):
        unconnected.tools()
    with pytest.raises(h.ConfigError, match="async with MCP"):
        h.AgentBuilder().model(ScriptedModel([reply("x")])).with_(unconnected)


async def test_closed_or_dead_tools_answer_with_errors_and_work_again_once_reopened(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pid"
    mcp = await MCP.connect({"math": stdio(env={"MCP_TEST_PIDFILE": str(pidfile)})})
    echo = by_name(mcp)["mcp__math__echo"]
    assert (await call(echo, text="one")).content == "one"
    await mcp.aclose()
    await mcp.aclose()  # twice is fine
    assert not alive(int(pidfile.read_text()))
    closed = await call(echo, text="two")
    assert closed.is_error and "not connected" in closed.content and "'math'" in closed.content
    async with mcp:
        assert (await call(echo, text="three")).content == "three"
        # a server dying mid-run: error results naming server and tool, then a clean close
        crashed = await call(by_name(mcp)["mcp__math__crash"])
        assert crashed.is_error and "MCP server 'math', tool 'crash': " in crashed.content
        after = await call(echo, text="anyone?")
        assert after.is_error and "MCP server 'math', tool 'echo': " in after.content


async def test_a_server_that_cannot_start_is_a_config_error_naming_it() -> None:
    servers = {"ghost": StdioServer(command="/nonexistent/mcp-server")}
    with pytest.raises(h.ConfigError, match="MCP server 'ghost' failed to connect"):
        await MCP.connect(servers)


async def test_a_server_that_exits_at_once_is_a_config_error_naming_it() -> None:
    dies = StdioServer(command=sys.executable, args=["-c", "raise SystemExit(3)"])
    with pytest.raises(h.ConfigError, match="MCP server 'dies' failed to connect"):
        await MCP.connect({"dies": dies})


async def test_a_server_that_never_answers_times_out_and_the_others_are_closed(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pid"
    mute = StdioServer(
        command=sys.executable, args=["-c", "import sys; sys.stdin.read()"], connect_timeout=0.5
    )
    mcp = MCP({"math": stdio(env={"MCP_TEST_PIDFILE": str(pidfile)}), "mute": mute})
    with pytest.raises(h.ConfigError, match=r"'mute' failed to connect: did not start .* 0\.5 s"):
        await mcp.open()
    assert not alive(int(pidfile.read_text()))
    with pytest.raises(h.ConfigError):
        mcp.tools()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# --- streamable HTTP ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[str]:
    """The test server on streamable HTTP, up and accepting connections (within 15 s)."""
    with serving("http") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@contextlib.contextmanager
def serving(transport: str) -> Iterator[int]:
    """The test server on `transport` ("http" or "sse") at a free loopback port."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [sys.executable, SERVER, transport, str(port)], stdout=log, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 15
            while not _accepts(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    pytest.fail(f"the {transport} MCP server did not start:\n{log.read().decode()}")
                time.sleep(0.05)
            yield port
        finally:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.1):
            return True
    except OSError:
        return False


async def test_a_streamable_http_server_is_listed_and_called_with_its_headers(
    http_server: str,
) -> None:
    server = HttpServer(url=http_server, headers={"X-Hookagent-Test": "yes"})
    async with MCP({"remote": server}) as mcp:
        tools = by_name(mcp)
        assert "mcp__remote__add" in tools
        assert (await call(tools["mcp__remote__add"], a=20, b=22)).data == {"total": 42}
        assert (await call(tools["mcp__remote__header"], name="x-hookagent-test")).content == "yes"


async def test_an_http_server_that_is_not_there_is_a_config_error_naming_it() -> None:
    server = HttpServer(url=f"http://127.0.0.1:{free_port()}/mcp", connect_timeout=5)
    with pytest.raises(h.ConfigError, match="MCP server 'nowhere' failed to connect"):
        await MCP.connect({"nowhere": server})
