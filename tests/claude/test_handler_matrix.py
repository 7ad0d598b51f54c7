"""Every handler type at every event hookagent fires, in real runs.

Where Claude Code runs a type at an event, a handler of that type loaded from a settings file
runs when a real run fires the event, and leaves an effect the test can see: a command hook's
stdin in a file, an http hook's POST at a local server, a prompt or agent hook's model asked
with the event JSON, an mcp_tool hook's `tools/call` at the real SDK test server. Where Claude
Code does not, loading is a `ConfigError` naming file, JSON path and reason. Each type's failure
is a non-blocking error vote, and fails closed with `on_failure_default="block"` or the
handler's `onFailure: "block"`.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.approvals import Approvals, Rule
from hookagent.capabilities.mcp import MCP, StdioServer
from hookagent.capabilities.planning import TaskPlanning
from hookagent.capabilities.subagents import AgentRegistry, AgentSpec, Subagents
from hookagent.capabilities.summarization import Summarization
from hookagent.claude._commands import Expansion, command_from_file, expand
from hookagent.claude._events import FIRED
from hookagent.claude._instructions import InstructionFile, load_instructions
from hookagent.claude._model import RUN_TYPES
from hookagent.claude._options import ClaudeHookOptions
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call

from .hookscripts import RECORD_STDIN, script, settings

SERVER = str(Path(__file__).parents[1] / "capabilities" / "mcp_server.py")
TYPES = ("command", "http", "prompt", "agent", "mcp_tool")
EVENT_NAME = re.compile(r'"hook_event_name":\s*"(\w+)"')
ALL_FIVE = frozenset(
    {
        *("PermissionDenied", "PermissionRequest", "PostToolBatch", "PostToolUse"),
        *("PostToolUseFailure", "PreToolUse", "Stop", "SubagentStop", "TaskCompleted"),
        *("TaskCreated", "TeammateIdle", "UserPromptExpansion", "UserPromptSubmit"),
    }
)
"""Events where Claude Code runs every type; elsewhere prompt and agent are refused."""
NO_HTTP = frozenset({"SessionStart", "Setup"})
"""Events where Claude Code runs only command and mcp_tool."""


def allowed(event: str, kind: str) -> bool:
    """Which types Claude Code runs at which event (the hooks reference, as of 2.1.142),
    written out here so the matrix checks the loader against the reference."""
    if kind in ("prompt", "agent"):
        return event in ALL_FIVE
    return kind != "http" or event not in NO_HTTP


# -- the tools and models the recipes use ------------------------------------------------------


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    if command == "explode":
        raise h.ToolError("the command failed")
    return f"ran: {command}"


def bash_then_done(command: str = "ls") -> h.Model:
    return ScriptedModel([tool_call("Bash", command=command), reply("done")])


def todos(*items: tuple[str, str]) -> h.ModelResponse:
    listed = [{"content": c, "status": s, "activeForm": f"Doing: {c}"} for c, s in items]
    return tool_call("TodoWrite", todos=listed)


def delegating(request: h.ModelRequest) -> Any:
    """The parent starts a checker subagent, which answers at once."""
    if request.system_prompt == "You check.":
        return "checked"
    if not any(m.role == "assistant" for m in request.messages):
        args = {"description": "check", "prompt": "check x", "subagent_type": "checker"}
        return {"tool_calls": [{"name": "Agent", "args": args, "id": "p1"}]}
    return "all done"


def failing_model(_: h.ModelRequest) -> Any:
    raise h.ModelError("the provider said no", provider="test", model="m", status=401)


def approvals(tmp_path: Path, rule: Rule) -> Approvals:
    return Approvals([rule], project_dir=tmp_path, settings=False, save_to=None)


class HundredTokens:
    """Every message counts 100 tokens, so a few steps cross the compaction threshold."""

    def count(self, message: h.Message, /) -> int:
        return 100


def compacting(_: Path) -> tuple[Any, ...]:
    summarizer = FunctionModel(lambda _: "the summary", name="summarizer")
    return (
        Summarization(
            summarizer=summarizer,
            max_message_tokens=300,
            max_buffer_tokens=500,
            counter=HundredTokens(),
        ),
    )


def deploying() -> MCP:
    """The SDK test server's `deploy` tool asks the user (elicitation) before it answers."""
    return MCP({"ops": StdioServer(command=sys.executable, args=[SERVER])})


# -- how each event fires: one recipe per event --------------------------------------------------


def claude_md(tmp_path: Path) -> tuple[InstructionFile, ...]:
    """The project's CLAUDE.md, read as a session reads it (no user or managed files)."""
    (tmp_path / "CLAUDE.md").write_text("Be brief.\n")
    return load_instructions(
        tmp_path, home=tmp_path / "home", managed_dir=tmp_path / "managed"
    ).files


def review(tmp_path: Path) -> Expansion:
    """The run's prompt is `/review src/app.py`, expanded from the project's command."""
    path = tmp_path / ".claude" / "commands" / "review.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("Review $ARGUMENTS carefully.\n")
    return expand(command_from_file(path, "review", "project"), "src/app.py", cwd=str(tmp_path))


@dataclass(frozen=True)
class Recipe:
    model: Callable[[], h.Model]
    capabilities: Callable[[Path], tuple[Any, ...]] = lambda _: ()
    options: Callable[[Path], dict[str, Any]] = lambda _: {}
    """`ClaudeHookOptions` fields the event needs, given the project folder."""
    opened: Callable[[], MCP] | None = None
    """A capability connected for the run's length (MCP servers)."""
    approver: Callable[[Any], h.Answer] | None = None


ONE_CALL = Recipe(bash_then_done)
RECIPES: dict[str, Recipe] = {
    "PreToolUse": ONE_CALL,
    "PostToolUse": ONE_CALL,
    "PostToolUseFailure": Recipe(lambda: bash_then_done("explode")),
    "PermissionRequest": Recipe(
        bash_then_done,
        lambda tmp: (approvals(tmp, Rule("Bash(ls:*)", "ask")),),
        approver=lambda _: h.Answer.approve(),
    ),
    "PermissionDenied": Recipe(
        bash_then_done, lambda tmp: (approvals(tmp, Rule("Bash(ls:*)", "deny")),)
    ),
    "UserPromptSubmit": ONE_CALL,
    "Stop": ONE_CALL,
    "SubagentStart": Recipe(
        lambda: FunctionModel(delegating),
        lambda _: (
            Subagents(
                AgentRegistry(
                    [AgentSpec(name="checker", description="Checks.", system_prompt="You check.")]
                )
            ),
        ),
    ),
    "SessionStart": ONE_CALL,
    "SessionEnd": ONE_CALL,
    "PostToolBatch": ONE_CALL,
    "StopFailure": Recipe(lambda: FunctionModel(failing_model)),
    "TaskCreated": Recipe(
        lambda: ScriptedModel(
            [
                todos(("Write tests", "in_progress")),
                todos(("Write tests", "completed")),
                reply("ok"),
            ]
        ),
        lambda _: (TaskPlanning(nudge=False),),
    ),
    "Setup": Recipe(bash_then_done, options=lambda _: {"setup": "init"}),
    "InstructionsLoaded": Recipe(
        bash_then_done, options=lambda tmp: {"instructions": claude_md(tmp)}
    ),
    "UserPromptExpansion": Recipe(bash_then_done, options=lambda tmp: {"expansion": review(tmp)}),
    "PreCompact": Recipe(
        lambda: ScriptedModel([*(tool_call("Bash", command="ls") for _ in range(8)), reply("ok")]),
        compacting,
    ),
    "Elicitation": Recipe(
        lambda: ScriptedModel([tool_call("mcp__ops__deploy"), reply("done")]),
        opened=deploying,
        approver=lambda _: h.Answer.approve(),
    ),
}
RECIPES["SubagentStop"] = RECIPES["SubagentStart"]
RECIPES["TaskCompleted"] = RECIPES["TaskCreated"]
RECIPES["PostCompact"] = RECIPES["PreCompact"]
RECIPES["ElicitationResult"] = RECIPES["Elicitation"]
RECIPES["Notification"] = RECIPES["PermissionRequest"]  # the approver asks a human

# -- what each handler type leaves behind --------------------------------------------------------


@dataclass
class Seen:
    """Everything handlers of every type reached, by event."""

    http: list[dict[str, Any]] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    record: Path = Path()
    mcp_log: Path = Path()

    def events(self, kind: str) -> list[str]:
        if kind == "command":
            lines = self.record.read_text().splitlines() if self.record.exists() else []
            return [json.loads(line)["hook_event_name"] for line in lines if line]
        if kind == "http":
            return [body["hook_event_name"] for body in self.http]
        if kind in ("prompt", "agent"):
            return [m for text in self.asked for m in EVENT_NAME.findall(text)]
        log = self.mcp_log.read_text() if self.mcp_log.exists() else ""
        calls = [json.loads(line) for line in log.splitlines() if '"tools/call"' in line]
        return [c["params"]["arguments"]["text"].removeprefix("mcp-saw ") for c in calls]


@dataclass
class Http:
    url: str
    bodies: list[dict[str, Any]]


@pytest.fixture(scope="module")
def http_server() -> Iterator[Http]:
    """One loopback server for the module: /ok answers 200 empty, /fail answers 500."""
    state = Http("", [])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the name http.server calls
            body = self.rfile.read(int(self.headers["Content-Length"])).decode()
            state.bodies.append(json.loads(body))
            self.send_response(500 if self.path == "/fail" else 200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def seen(tmp_path: Path, http_server: Http, monkeypatch: pytest.MonkeyPatch) -> Iterator[Seen]:
    record = tmp_path / "stdin.jsonl"
    monkeypatch.setenv("RECORD_TO", str(record))
    monkeypatch.delenv("CLAUDE_ENV_FILE", raising=False)
    http_server.bodies.clear()
    yield Seen(http=http_server.bodies, record=record, mcp_log=tmp_path / "mcp.log")


def handler(kind: str, tmp_path: Path, url: str, *, fail: bool = False) -> dict[str, Any]:
    """A handler of `kind` that leaves its effect, or (`fail`) fails as that type can."""
    if kind == "command":
        body = "sys.exit(1)\n" if fail else RECORD_STDIN
        return {"type": "command", "command": script(tmp_path, "hook", body)}
    if kind == "http":
        return {"type": "http", "url": f"{url}/{'fail' if fail else 'ok'}"}
    if kind == "prompt":
        return {"type": "prompt", "prompt": "fail" if fail else "Judge: $ARGUMENTS"}
    if kind == "agent":
        entry = {"type": "agent", "prompt": "Check: $ARGUMENTS"}
        return {**entry, "prompt": "slow", "timeout": 0.3} if fail else entry
    if fail:
        return {"type": "mcp_tool", "server": "probe", "tool": "fail", "input": {"message": "x"}}
    text = "mcp-saw ${hook_event_name}"
    return {"type": "mcp_tool", "server": "probe", "tool": "echo", "input": {"text": text}}


def judge(asked: list[str]) -> FunctionModel:
    """The prompt and agent hooks' model: records what it is asked; fails when told to."""

    def answer(request: h.ModelRequest) -> Any:
        text = "\n".join(str(getattr(m, "content", "")) for m in request.messages)
        asked.append(text)
        if text.startswith("fail"):
            raise RuntimeError("judge unavailable")
        if text.startswith("slow"):
            return asyncio.sleep(5, "{}")
        return json.dumps({"ok": True})

    return FunctionModel(answer, name="judge")


def build(
    tmp_path: Path,
    event: str,
    entry: dict[str, Any],
    recipe: Recipe,
    seen: Seen,
    *extra: Any,
    **options: Any,
) -> h.Agent:
    file = settings(tmp_path, {event: [{"hooks": [entry]}]})
    tee = f"tee -a {shlex.quote(str(seen.mcp_log))} | {shlex.quote(sys.executable)} {SERVER}"
    opts = ClaudeHookOptions(
        project_dir=str(tmp_path),
        prompt_model=judge(seen.asked),
        mcp_servers={"probe": StdioServer(command="sh", args=["-c", tee])},
        **{**recipe.options(tmp_path), **options},
    )
    builder = h.AgentBuilder().model(recipe.model()).tools(Bash)
    for capability in (*recipe.capabilities(tmp_path), *extra):
        builder = builder.with_(capability)
    return builder.with_settings(file, project_dir=tmp_path, options=opts).build()


# -- the matrix ---------------------------------------------------------------------------------


def cells(want_allowed: bool) -> list[Any]:
    params = []
    for event in FIRED:
        for kind in TYPES:
            if allowed(event, kind) != want_allowed:
                continue
            params.append(pytest.param(event, kind, id=f"{event}-{kind}"))
    return params


def test_the_matrix_covers_every_fired_event_and_type() -> None:
    assert set(TYPES) == RUN_TYPES
    assert set(RECIPES) == set(FIRED)


@pytest.mark.parametrize(("event", "kind"), cells(want_allowed=True))
async def test_an_allowed_handler_runs_when_its_event_fires(
    tmp_path: Path, http_server: Http, seen: Seen, event: str, kind: str
) -> None:
    recipe = RECIPES[event]
    entry = handler(kind, tmp_path, http_server.url)
    async with AsyncExitStack() as stack:
        extra = [await stack.enter_async_context(recipe.opened())] if recipe.opened else []
        agent = build(tmp_path, event, entry, recipe, seen, *extra)
        expansion = recipe.options(tmp_path).get("expansion")
        result = await agent.run(expansion.prompt if expansion else "go", approver=recipe.approver)
    assert result.status == ("failed" if event == "StopFailure" else "completed"), result.error
    assert event in seen.events(kind)


@pytest.mark.parametrize(("event", "kind"), cells(want_allowed=False))
def test_a_type_claude_code_does_not_run_at_an_event_is_refused(
    tmp_path: Path, http_server: Http, seen: Seen, event: str, kind: str
) -> None:
    entry = handler(kind, tmp_path, http_server.url)
    file = settings(tmp_path, {event: [{"hooks": [entry]}]})
    with pytest.raises(h.ConfigError) as caught:
        h.AgentBuilder().model(bash_then_done()).tools(Bash).with_settings(
            file, project_dir=tmp_path
        )
    key = f"hooks.{event}[0].hooks[0].type"
    assert (caught.value.file, caught.value.key, caught.value.value) == (str(file), key, kind)
    assert f'Claude Code does not run "{kind}" handlers on {event}' in str(caught.value)


# -- failure modes ------------------------------------------------------------------------------

FAILING_AT = {"PreToolUse": h.BEFORE_TOOL, "PostToolUse": h.AFTER_TOOL}
"""A blocking event and one whose block can only tell the model (the call already ran)."""
ERRORS = {
    "command": "exit code 1",
    "http": "HTTP hook answered 500",
    "prompt": "judge unavailable",
    "agent": "timed out after 0.3 s",
    "mcp_tool": "MCP tool probe/fail returned an error",
}
"""How each type's failure reads in its vote."""


def only_vote(result: h.RunResult[Any], event: str) -> h.Vote:
    [vote] = [v for d in result.decisions.at(FAILING_AT[event]) for v in d.votes]
    return vote


@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize("event", FAILING_AT)
async def test_a_failing_handler_is_a_non_blocking_error_with_a_vote(
    tmp_path: Path, http_server: Http, seen: Seen, event: str, kind: str
) -> None:
    entry = handler(kind, tmp_path, http_server.url, fail=True)
    result = await build(tmp_path, event, entry, ONE_CALL, seen).run("go")
    [call] = result.tool_calls
    assert call.result.content == "ran: ls" and not call.blocked
    assert result.status == "completed" and result.output == "done"
    vote = only_vote(result, event)
    assert vote.decision == "proceed" and ERRORS[kind] in (vote.error or "")
    assert f"settings.json:hooks.{event}[0].hooks[0]" in (vote.error or "")


@pytest.mark.parametrize("where", ["run", "handler"])
@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize("event", FAILING_AT)
async def test_a_failing_handler_fails_closed_when_told_to(
    tmp_path: Path, http_server: Http, seen: Seen, event: str, kind: str, where: str
) -> None:
    entry = handler(kind, tmp_path, http_server.url, fail=True)
    options: dict[str, Any] = {"on_failure_default": "block"} if where == "run" else {}
    if where == "handler":
        entry["onFailure"] = "block"
    result = await build(tmp_path, event, entry, ONE_CALL, seen, **options).run("go")
    vote = only_vote(result, event)
    assert ERRORS[kind] in (vote.error or "")
    [call] = result.tool_calls
    if event == "PreToolUse":
        assert vote.decision == "block" and call.blocked
        assert ERRORS[kind] in call.result.content
    else:  # the call ran: the failure goes back to the model, as a PostToolUse block does
        assert vote.decision == "context" and call.result.content.startswith("ran: ls")
        assert ERRORS[kind] in call.result.content
