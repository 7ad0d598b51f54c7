"""`hookagent demo`: four short runs in which hooks decide, with no API key and no network.

The model is a `ScriptedModel` and the tools only pretend (`run_command` executes nothing,
`write_file` writes to a dict), so the demo is deterministic and fast. Every run uses the same
agent configuration; each script steers it into one decision: a guard's block, a transform's
rewrite, a stop hook's refusal, a limit's stop. The demo checks that each run recorded the
decision it is meant to show, so it cannot silently drift from what it claims.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, final

from rich.console import Console
from rich.text import Text

from hookagent.agent import Agent
from hookagent.builder import AgentBuilder
from hookagent.cli.render import LiveRenderer, stream_run
from hookagent.hooks.events import StopEvent, ToolCallEvent
from hookagent.hooks.points import BEFORE_TOOL, STOP
from hookagent.hooks.result import HookResult
from hookagent.kernel.result import RunResult
from hookagent.models.base import ModelResponse
from hookagent.models.scripted import ScriptedModel, reply, turn
from hookagent.tools.function import FunctionTool

__all__ = ["SCENARIOS", "Scenario", "build_agent", "run_demo"]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    title: str
    explain: str
    prompt: str
    turns: tuple[ModelResponse, ...]
    shows: tuple[str, str]
    """The (point, outcome) the run must record: what this scenario demonstrates."""
    stop_reason: str
    max_steps: int | None = None


def _call(text: str, name: str, call_id: str, **args: Any) -> ModelResponse:
    return turn(text, {"name": name, "args": args, "id": call_id})


SCENARIOS: Final = (
    Scenario(
        title="(a) A guard blocks a dangerous call",
        explain="Guard hook user:block_rm_rf at before_tool returns HookResult.block for any "
        "`rm -rf`. The tool never runs; the model reads the error result and adapts.",
        prompt="Free some disk space in the build directory.",
        turns=(
            _call("I'll wipe the build directory.", "run_command", "a1", command="rm -rf build/"),
            _call(
                "That was refused; removing only the stale artefacts.",
                "run_command",
                "a2",
                command="rm build/app.o build/app.tmp",
            ),
            reply("Removed build/app.o and build/app.tmp; the directory itself is kept."),
        ),
        shows=("before_tool", "block"),
        stop_reason="completed",
    ),
    Scenario(
        title="(b) A transform rewrites arguments",
        explain="Transform hook user:dry_run_push at before_tool returns "
        "HookResult.modify(args=...), turning `git push` into `git push --dry-run`. The "
        "tool runs with the rewritten arguments.",
        prompt="Push the release branch.",
        turns=(
            _call("Pushing.", "run_command", "b1", command="git push origin release"),
            reply("The push ran as a dry run: nothing was sent."),
        ),
        shows=("before_tool", "modify"),
        stop_reason="completed",
    ),
    Scenario(
        title="(c) A stop hook forces one more step",
        explain="Stop hook user:tests_before_stop blocks the first attempt to finish (files "
        "changed, tests not run); its reason becomes the model's next instruction. Once "
        "pytest has run, it lets the run stop.",
        prompt="Add a changelog entry for the fix.",
        turns=(
            _call(
                "Adding the entry.",
                "write_file",
                "c1",
                path="CHANGELOG.md",
                content="- Fix: retries no longer double-count steps.\n",
            ),
            reply("Changelog updated."),
            _call("Running the tests first.", "run_command", "c2", command="pytest -q"),
            reply("Changelog updated, and the tests pass (12 passed)."),
        ),
        shows=("stop", "block"),
        stop_reason="completed",
    ),
    Scenario(
        title="(d) A limit ends the run",
        explain="Built with .limits(max_steps=3). The model keeps polling CI, so "
        "limits:step_limit at should_continue stops the run after step 3 "
        "(stop_reason steps_limit).",
        prompt="Wait for CI to finish.",
        turns=tuple(
            _call("Checking CI.", "run_command", f"d{n}", command="gh run view --exit-status")
            for n in (1, 2, 3)
        ),
        shows=("should_continue", "stop"),
        stop_reason="steps_limit",
        max_steps=3,
    ),
)

_CANNED: Final = (
    ("pytest", "12 passed in 0.31s"),
    ("git push --dry-run", "To origin\n * [new branch] release -> release (dry run)"),
    ("gh run view", "status: in_progress"),
)


def simulated_tools() -> tuple[FunctionTool, FunctionTool]:
    """`run_command` and `write_file`, neither touching the machine."""
    files: dict[str, str] = {}

    def run_command(command: str) -> str:
        """Run a shell command (simulated: nothing is executed)."""
        canned = next((out for prefix, out in _CANNED if command.startswith(prefix)), "ok")
        return f"(simulated) $ {command}\n{canned}"

    def write_file(path: str, content: str) -> str:
        """Write a text file (simulated: kept in memory)."""
        files[path] = content
        return f"(simulated) wrote {len(content)} characters to {path}"

    return FunctionTool(run_command), FunctionTool(write_file)


def block_rm_rf(event: ToolCallEvent) -> HookResult | None:
    if "rm -rf" in str(event.args.get("command", "")):
        return HookResult.block("`rm -rf` is never run here; delete specific files instead")
    return None


def dry_run_push(event: ToolCallEvent) -> HookResult | None:
    command = str(event.args.get("command", ""))
    if command.startswith("git push") and "--dry-run" not in command:
        dry = command.replace("git push", "git push --dry-run", 1)
        return HookResult.modify(args={**event.args, "command": dry})
    return None


def tests_before_stop(event: StopEvent) -> HookResult | None:
    """Reads the run's own history, so the hook keeps no state between runs."""
    ran = [e for step in event.run.steps for e in step.executions if not e.blocked]
    wrote = any(e.name == "write_file" for e in ran)
    tested = any(str(e.args.get("command", "")).startswith("pytest") for e in ran)
    if wrote and not tested:
        return HookResult.block("tests have not been run yet: run pytest before finishing")
    return None


def build_agent(model: ScriptedModel, *, max_steps: int | None = None) -> Agent:
    builder = (
        AgentBuilder()
        .model(model)
        .tools(*simulated_tools())
        .on(BEFORE_TOOL, block_rm_rf, match="run_command", name="block_rm_rf")
        .on(BEFORE_TOOL, dry_run_push, match="run_command", name="dry_run_push", kind="transform")
        .on(STOP, tests_before_stop, name="tests_before_stop")
    )
    if max_steps is not None:
        builder.limits(max_steps=max_steps)
    return builder.build()


def run_demo(console: Console, scenarios: Sequence[Scenario] = SCENARIOS) -> int:
    """Play the scenarios; 0 if each showed what it claims, 1 (with the reasons) if not."""
    problems = asyncio.run(_play(console, scenarios))
    console.print()
    if problems:
        for problem in problems:
            console.print(Text(f"demo check failed: {problem}", style="bold red"))
        return 1
    console.print(
        Text(
            "Each decision above names the hook that made it. "
            "`hookagent run --json` prints the same record as JSON."
        ),
        soft_wrap=False,
    )
    return 0


async def _play(console: Console, scenarios: Sequence[Scenario]) -> list[str]:
    renderer = LiveRenderer(console)
    problems: list[str] = []
    for scenario in scenarios:
        console.print()
        console.rule(Text(scenario.title, style="bold"))
        console.print(Text(scenario.explain, style="dim"), soft_wrap=False)
        model = ScriptedModel(scenario.turns, source=scenario.title)
        result = await stream_run(
            build_agent(model, max_steps=scenario.max_steps), scenario.prompt, renderer
        )
        try:
            model.assert_consumed()
        except AssertionError as exc:
            problems.append(str(exc))
        problems.extend(_check(scenario, result))
    return problems


def _check(scenario: Scenario, result: RunResult) -> list[str]:
    point, outcome = scenario.shows
    problems = []
    if not any(d.point == point and d.outcome == outcome for d in result.decisions):
        problems.append(f"{scenario.title}: no {outcome} decision at {point}")
    if result.stop_reason != scenario.stop_reason:
        problems.append(
            f"{scenario.title}: stop reason {result.stop_reason}, expected {scenario.stop_reason}"
        )
    return problems
