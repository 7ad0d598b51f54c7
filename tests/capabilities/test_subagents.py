"""Subagents: the `Agent` tool runs a child agent with its own state; hooks are inherited as
each says (policy-tier ones always); depth is limited; children of one turn run together."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import hookagent as h
from hookagent.capabilities.subagents import DEPTH, AgentRegistry, AgentSpec, AgentTool, Subagents
from hookagent.hooks._hook import match
from hookagent.testing import FunctionModel, ScriptedModel

REVIEWER = AgentSpec(
    name="reviewer", description="Reviews a change.", system_prompt="You review changes."
)
WRITER = AgentSpec(
    name="writer",
    description="Writes files.",
    system_prompt="You write.",
    tools=("write",),
)


@h.tool
def write(path: str) -> str:
    """Write a file."""
    return f"wrote {path}"


def spawn(kind: str, prompt: str, call_id: str = "a1") -> dict[str, Any]:
    args = {"description": "task", "prompt": prompt, "subagent_type": kind}
    return {"name": "Agent", "args": args, "id": call_id}


class Router:
    """One model for parent and children: answers by the system prompt and the prompt."""

    def __init__(self, **plans: list[Any]) -> None:
        self.plans = {k: list(v) for k, v in plans.items()}
        self.systems: list[str | None] = []

    def __call__(self, request: h.ModelRequest) -> Any:
        self.systems.append(request.system_prompt)
        key = (request.system_prompt or "parent").split()[-1].rstrip(".")
        return self.plans[key].pop(0)


def build(model: Any, *specs: AgentSpec, **options: Any) -> h.AgentBuilder:
    return (
        h.AgentBuilder()
        .model(FunctionModel(model))
        .tools(write)
        .with_(Subagents(AgentRegistry(specs or (REVIEWER, WRITER)), **options))
    )


async def test_a_child_runs_with_its_own_state_and_the_parent_gets_its_answer() -> None:
    router = Router(
        parent=[{"tool_calls": [spawn("reviewer", "review the diff")]}, "Reviewed: fine."],
        changes=["The change looks right."],
    )
    starts: list[tuple[str, str]] = []
    agent = (
        build(router)
        .on(h.SUBAGENT_START, lambda e: starts.append((e.agent_type, e.run.agent_type)))
        .build()
    )
    result = await agent.run("please review")
    assert result.output == "Reviewed: fine."
    [call] = result.tool_calls
    assert call.result.content == "[Subagent: reviewer] The change looks right."
    assert call.result.data["agent_type"] == "reviewer"
    assert starts == [("reviewer", "main")]
    assert router.systems == [None, "You review changes.", None]


async def test_a_policy_tier_guard_of_the_parent_binds_the_child() -> None:
    router = Router(
        parent=[{"tool_calls": [spawn("writer", "write /etc/passwd")]}, "done"],
        write=[{"tool_calls": [{"name": "write", "args": {"path": "/etc/passwd"}}]}, "tried"],
    )
    seen: list[str] = []

    def guard(event: h.ToolCallEvent) -> h.HookResult | None:
        seen.append(event.run.agent_type)
        return (
            h.HookResult.block("system files are off limits")
            if event.args["path"].startswith("/etc")
            else None
        )

    agent = (
        build(router).on(h.BEFORE_TOOL, guard, match="write", tier="policy", inherit="none").build()
    )
    result = await agent.run("go")
    assert seen == ["writer"]  # inherit="none" does not free a child from a policy guard
    assert result.output == "done"


async def test_inherit_none_and_match_choose_which_children_run_a_hook() -> None:
    router = Router(
        parent=[
            {"tool_calls": [spawn("writer", "w", "a1")]},
            {"tool_calls": [spawn("reviewer", "r", "a2")]},
            "ok",
        ],
        write=[{"tool_calls": [{"name": "write", "args": {"path": "x"}}]}, "wrote"],
        changes=[{"tool_calls": [{"name": "write", "args": {"path": "y"}}]}, "reviewed"],
    )
    everyone: list[str] = []
    only_writer: list[str] = []
    nobody: list[str] = []
    agent = (
        build(
            router, REVIEWER, AgentSpec(name="writer", description="w", system_prompt="You write.")
        )
        .on(h.BEFORE_TOOL, lambda e: everyone.append(e.run.agent_type), match="write", name="a")
        .on(
            h.BEFORE_TOOL,
            lambda e: only_writer.append(e.run.agent_type),
            match="write",
            name="b",
            inherit=match(agent_type="writ*"),
        )
        .on(
            h.BEFORE_TOOL,
            lambda e: nobody.append(e.run.agent_type),
            match="write",
            name="c",
            inherit="none",
        )
        .build()
    )
    await agent.run("go")
    assert sorted(everyone) == ["reviewer", "writer"]
    assert only_writer == ["writer"] and nobody == []


async def test_a_depth_bomb_stops_at_the_limit_with_a_clear_result() -> None:
    bomb = AgentSpec(name="bomb", description="Spawns itself.", system_prompt="You are bomb.")

    def model(request: h.ModelRequest) -> Any:
        last = request.messages[-1]
        if isinstance(last, h.ToolResultMessage):
            return f"depth report: {last.content}"
        return {"tool_calls": [spawn("bomb", "go deeper")]}

    capability = Subagents(AgentRegistry([bomb]), max_depth=3)
    agent = h.AgentBuilder().model(FunctionModel(model)).with_(capability).build()
    result = await agent.run("explode")
    assert result.status == "completed"
    assert [s.metadata[DEPTH.name] for s in capability.states] == [3, 2, 1]
    deepest = capability.states[0]
    [refusal] = [d for d in deepest.decisions if d.hook == "subagents:depth_limit"]
    assert refusal.outcome == "block" and "Maximum nesting depth (3)" in (refusal.reason or "")
    assert "Maximum nesting depth (3)" in result.tool_calls[0].result.content  # told up the chain


async def test_subagent_stop_can_keep_a_child_going() -> None:
    router = Router(
        parent=[{"tool_calls": [spawn("reviewer", "review")]}, "ok"],
        changes=["first draft", "second draft with tests"],
    )
    blocked = 0

    def demand_tests(event: h.SubagentEvent) -> h.HookResult | None:
        nonlocal blocked
        if "tests" not in (event.output or ""):
            blocked += 1
            return h.HookResult.block("mention the tests")
        return None

    agent = build(router).on(h.SUBAGENT_STOP, demand_tests).build()
    result = await agent.run("go")
    assert blocked == 1
    assert result.tool_calls[0].result.content == "[Subagent: reviewer] second draft with tests"


async def test_several_agent_calls_in_one_turn_run_at_the_same_time() -> None:
    running = 0
    peak = 0

    async def model(request: h.ModelRequest) -> Any:
        nonlocal running, peak
        if request.system_prompt is None:
            if isinstance(request.messages[-1], h.ToolResultMessage):
                return "both done"
            return {"tool_calls": [spawn("reviewer", "a", "a1"), spawn("reviewer", "b", "a2")]}
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.05)
        running -= 1
        return f"reviewed {request.messages[-1].content}"  # type: ignore[union-attr]

    agent = build(model).build()
    result = await agent.run("go")
    assert peak == 2
    assert [e.result.content for e in result.tool_calls] == [
        "[Subagent: reviewer] reviewed a",
        "[Subagent: reviewer] reviewed b",
    ]
    assert [m.role for m in result.state.messages] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]


async def test_children_of_one_turn_record_their_own_tool_calls_in_their_own_runs() -> None:
    """A child running beside another records its calls in its own run, in order, not in
    its parent's batch of concurrent calls."""

    def model(request: h.ModelRequest) -> Any:
        replies = sum(m.role == "assistant" for m in request.messages)
        if request.system_prompt is None:
            calls = [spawn("writer", "a", "a1"), spawn("writer", "b", "a2")]
            return [{"tool_calls": calls}, "both done"][replies]
        path = request.messages[0].content
        return [{"tool_calls": [{"name": "write", "args": {"path": path}}]}, "wrote"][replies]

    agent = build(model).build()
    result = await agent.run("go")
    assert result.output == "both done"
    tool = agent.tools["Agent"]
    assert isinstance(tool, AgentTool)
    for child in tool.owner.states:
        assert [m.role for m in child.messages] == ["user", "assistant", "tool", "assistant"]
        [step, _] = child.steps
        assert [e.result.content for e in step.executions] == [f"wrote {child.messages[0].content}"]


async def test_unknown_type_lists_the_agents_and_a_task_matcher_matches_agent() -> None:
    router = Router(parent=[{"tool_calls": [spawn("ghost", "boo")]}, "ok"])
    seen: list[str] = []
    agent = (
        build(router).on(h.BEFORE_TOOL, lambda e: seen.append(e.tool_name), match="Task").build()
    )
    result = await agent.run("go")
    error = result.tool_calls[0].result
    assert error.is_error and "Unknown subagent type 'ghost'" in error.content
    assert "- reviewer: Reviews a change." in error.content
    assert seen == ["Agent"]


async def test_a_long_answer_is_cut_to_the_summary_limit() -> None:
    router = Router(parent=[{"tool_calls": [spawn("reviewer", "x")]}, "ok"], changes=["y" * 500])
    result = await build(router, summary_max_chars=100).build().run("go")
    content = result.tool_calls[0].result.content
    assert content.endswith("\n...") and len(content) == len("[Subagent: reviewer] ") + 100 + 4


def test_specs_from_markdown_files(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "tester.md").write_text(
        "---\nname: tester\ndescription: Runs the tests.\ntools: Read, Bash\n"
        "model: inherit\n---\nYou run tests.\n"
    )
    (folder / "plain.md").write_text("---\ndescription: No name given.\n---\nBody.\n")
    registry = AgentRegistry.discover(tmp_path)
    tester = registry.get("tester")
    assert (
        tester is not None
        and tester.tools == ("Read", "Bash")
        and tester.system_prompt == "You run tests."
    )
    assert registry.get("plain") is not None
    (folder / "Code_Reviewer.md").write_text("---\nname: Code Reviewer\ndescription: x\n---\nB\n")
    shown = AgentRegistry.discover(tmp_path).get("code-reviewer")
    assert shown is not None and shown.title == "Code Reviewer"
    (folder / "bad.md").write_text("---\nname: open\ndescription: never closed\n")
    registry = AgentRegistry.discover(tmp_path)
    assert sorted(registry.specs) == ["code-reviewer", "plain", "tester"]
    (warning,) = registry.warnings
    assert warning.startswith(f"{folder / 'bad.md'}: ") and "never closed" in warning


def test_a_tool_the_parent_lacks_is_left_out_with_a_notice() -> None:
    spec = AgentSpec(name="odd", description="x", system_prompt="You odd.", tools=("nope",))
    capability = Subagents(AgentRegistry([spec]))
    h.AgentBuilder().model(ScriptedModel([])).with_(capability).build()
    assert capability.child_agent(spec).tools == {}
    assert capability.warnings == (
        "python: agent 'odd' names tools this agent does not have: nope; it runs without them",
    )
    assert DEPTH.name == "subagents.depth"


def test_an_agent_description_with_colons_reads_as_claude_code_writes_it(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "helper.md").write_text(
        '---\nname: helper\ndescription: Use when asked. Examples: user: "fix it"\n---\nYou help.\n'
    )
    spec = AgentRegistry.discover(tmp_path).get("helper")
    assert spec is not None and spec.description == 'Use when asked. Examples: user: "fix it"'
