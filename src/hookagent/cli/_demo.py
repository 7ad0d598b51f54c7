"""`hookagent demo`: four short runs in which hooks decide, with no API key and no network.

The model is a `ScriptedModel`; the tools are the real `Bash` and file tools, confined to a
fresh temporary folder, and the scripted commands are harmless there even if a hook failed.
Every run uses the same agent configuration; each script steers it into one decision: a
guard's block, a transform's rewrite, a stop hook's refusal, a limit's stop. The demo checks
that each run recorded the decision it is meant to show, so it cannot silently drift from
what it claims.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.text import Text

from hookagent._agent import Agent
from hookagent._builder import AgentBuilder
from hookagent._record import record
from hookagent.capabilities.bash import Bash
from hookagent.capabilities.files import FileTools
from hookagent.cli._render import LiveRenderer, stream_run
from hookagent.hooks._events import StopEvent, ToolCallEvent
from hookagent.hooks._points import BEFORE_TOOL, STOP
from hookagent.hooks._result import HookResult
from hookagent.kernel._result import RunResult
from hookagent.models._base import ModelResponse
from hookagent.models._scripted import ScriptedModel, reply, turn

__all__ = ["SCENARIOS", "Scenario", "build_agent", "run_demo"]


@record
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
        "`rm -rf`. The Bash tool never runs it; the model reads the error result and adapts. "
        "(Bash's own policy-tier deny list would also stop `rm -rf /` and friends.)",
        prompt="Free some disk space in the build directory.",
        turns=(
            _call("I'll wipe the build directory.", "Bash", "a1", command="rm -rf build/"),
            _call(
                "That was refused; removing only the stale artefacts.",
                "Bash",
                "a2",
                command="rm build/app.o build/app.tmp && ls build",
            ),
            reply("Removed build/app.o and build/app.tmp; the directory itself is kept."),
        ),
        shows=("before_tool", "block"),
        stop_reason="completed",
    ),
    Scenario(
        title="(b) A transform rewrites arguments",
        explain="Transform hook user:redact_secrets at before_tool returns "
        "HookResult.modify(args=...), replacing a live API key in what the Write tool is "
        "about to save. The file on disk holds the redacted text.",
        prompt="Save the service configuration.",
        turns=(
            _call(
                "Saving it.",
                "Write",
                "b1",
                file_path="service.env",
                content="API_KEY=sk-live-4f9a2c\nREGION=eu-west-1\n",
            ),
            _call("Checking the file.", "Read", "b2", file_path="service.env"),
            reply("Saved service.env; the key was redacted before it reached the disk."),
        ),
        shows=("before_tool", "modify"),
        stop_reason="completed",
    ),
    Scenario(
        title="(c) A stop hook forces one more step",
        explain="Stop hook user:check_before_stop blocks the first attempt to finish (a file "
        "was written and nothing checked it); its reason becomes the model's next "
        "instruction. Once the model has looked at its work, the run may stop.",
        prompt="Add a changelog entry for the fix.",
        turns=(
            _call(
                "Adding the entry.",
                "Write",
                "c1",
                file_path="CHANGELOG.md",
                content="- Fix: retries no longer double-count steps.\n",
            ),
            reply("Changelog updated."),
            _call("Checking the entry first.", "Bash", "c2", command="grep -c Fix CHANGELOG.md"),
            reply("Changelog updated and checked: one entry."),
        ),
        shows=("stop", "block"),
        stop_reason="completed",
    ),
    Scenario(
        title="(d) A limit ends the run",
        explain="Built with .limits(max_steps=3). The model keeps polling a status file, so "
        "limits:step_limit at should_continue stops the run after step 3 "
        "(stop_reason steps_limit).",
        prompt="Wait for the deployment to finish.",
        turns=tuple(
            _call("Checking the deployment.", "Bash", f"d{n}", command="cat deploy.status")
            for n in (1, 2, 3)
        ),
        shows=("should_continue", "stop"),
        stop_reason="steps_limit",
        max_steps=3,
    ),
)


def workspace(root: Path) -> None:
    """The files the scenarios work on, in a fresh temporary folder."""
    (root / "build").mkdir()
    for name in ("app.o", "app.tmp", "keep.txt"):
        (root / "build" / name).write_text(name + "\n")
    (root / "deploy.status").write_text("status: in_progress\n")


def block_rm_rf(event: ToolCallEvent) -> HookResult | None:
    if "rm -rf" in str(event.args.get("command", "")):
        return HookResult.block("`rm -rf` is never run here; delete specific files instead")
    return None


def redact_secrets(event: ToolCallEvent) -> HookResult | None:
    content = str(event.args.get("content", ""))
    redacted = _SECRET.sub(r"\1=***", content)
    if redacted != content:
        return HookResult.modify(args={**event.args, "content": redacted})
    return None


_SECRET: Final = re.compile(r"\b([A-Z_]*(?:KEY|TOKEN|SECRET))=\S+")


def check_before_stop(event: StopEvent) -> HookResult | None:
    """Reads the run's own history, so the hook keeps no state between runs."""
    ran = [e for step in event.run.steps for e in step.executions if not e.blocked]
    last_write = max((i for i, e in enumerate(ran) if e.name == "Write"), default=None)
    if last_write is not None and not any(
        e.name in ("Bash", "Read") for e in ran[last_write + 1 :]
    ):
        return HookResult.block("nothing has checked the file you wrote: look at it first")
    return None


def build_agent(model: ScriptedModel, root: Path, *, max_steps: int | None = None) -> Agent:
    builder = (
        AgentBuilder()
        .model(model)
        .with_(FileTools(root))
        .with_(Bash(root))
        .on(BEFORE_TOOL, block_rm_rf, match="Bash", name="block_rm_rf")
        .on(
            BEFORE_TOOL, redact_secrets, match="Write|Edit", name="redact_secrets", kind="transform"
        )
        .on(STOP, check_before_stop, name="check_before_stop")
    )
    if max_steps is not None:
        builder.limits(max_steps=max_steps)
    return builder.build()


def run_demo(
    console: Console, scenarios: Sequence[Scenario] = SCENARIOS, *, json_output: bool = False
) -> int:
    """Play the scenarios; 0 if each showed what it claims, 1 (with the reasons) if not.
    `json_output`: no live view; one JSON object with each scenario's run record."""
    problems, results = asyncio.run(_play(None if json_output else console, scenarios))
    if json_output:
        shown = [
            {
                "title": scenario.title,
                "prompt": scenario.prompt,
                "shows": {"point": scenario.shows[0], "outcome": scenario.shows[1]},
                "result": result.to_dict(),
            }
            for scenario, result in zip(scenarios, results, strict=True)
        ]
        data = {"ok": not problems, "problems": problems, "scenarios": shown}
        sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
        return 1 if problems else 0
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


async def _play(
    console: Console | None, scenarios: Sequence[Scenario]
) -> tuple[list[str], list[RunResult]]:
    """Each scenario's run, shown live on `console` (None: not shown), and what went wrong."""
    renderer = LiveRenderer(console) if console is not None else None
    problems: list[str] = []
    results: list[RunResult] = []
    for scenario in scenarios:
        if console is not None:
            console.print()
            console.rule(Text(scenario.title, style="bold"))
            console.print(Text(scenario.explain, style="dim"), soft_wrap=False)
        model = ScriptedModel(scenario.turns, source=scenario.title)
        with tempfile.TemporaryDirectory(prefix="hookagent-demo-") as folder:
            root = Path(folder)
            workspace(root)
            agent = build_agent(model, root, max_steps=scenario.max_steps)
            if renderer is not None:
                result = await stream_run(agent, scenario.prompt, renderer)
            else:
                result = await agent.run(scenario.prompt)
        try:
            model.assert_consumed()
        except AssertionError as exc:
            problems.append(str(exc))
        problems.extend(_check(scenario, result))
        results.append(result)
    return problems, results


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
