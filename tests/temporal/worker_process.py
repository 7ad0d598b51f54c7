"""The agent of the crash scenarios, and a worker process serving it for the kill tests.

Its `append` tool writes a line to a file; then, at the hold point (`where`: in the tool,
or in the model call after it), it waits while a `hold` file exists, so that a test can kill
the process there; or, if a `crash` file exists, it raises `Crash` once (a process dying
in-process, for the store backends).

With kind `subagent`, a parent's `logger` subagent runs the scenario (its model holds).

    python worker_process.py ADDRESS TASK_QUEUE FOLDER NAME KIND tool|model

KIND: plain, reconciles, idempotent or subagent.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import hookagent as h
from hookagent.capabilities.subagents import AgentRegistry, AgentSpec, Subagents
from hookagent.temporal import agent_worker, connect
from hookagent.testing import ScriptedModel, reply, turn


class Crash(BaseException):
    """Stands for the process dying: nothing below the kernel catches it."""


async def hold(folder: Path) -> None:
    """The hold point: crash once if asked to, else wait while `hold` exists."""
    if (folder / "crash").exists():
        (folder / "crash").unlink()
        raise Crash
    (folder / "held").touch()
    while (folder / "hold").exists():  # noqa: ASYNC110  # another process lifts it
        await asyncio.sleep(0.05)


class Append:
    name = "append"
    description = "Append a line to the log."

    def __init__(self, folder: Path, where: str) -> None:
        self.folder = folder
        self.where = where
        self.idempotent = False
        self.parameters = {"type": "object", "properties": {"line": {"type": "string"}}}

    async def __call__(self, args: Any, ctx: Any, /) -> h.ToolResult:
        (self.folder / "keys").write_text(ctx.idempotency_key)
        with open(self.folder / "log", "a") as log:  # noqa: ASYNC230  # one short line
            log.write(args["line"] + "\n")
        if self.where == "tool":
            await hold(self.folder)
        return h.ToolResult(content=f"appended {args['line']}")


class Reconciling(Append):
    """Tells a call in doubt done when its line is in the log."""

    def reconcile(self, args: Any, key: str, /) -> h.Reconciled:
        (self.folder / "reconciled-key").write_text(key)
        if args["line"] in (self.folder / "log").read_text().split():
            return h.Reconciled.done(h.ToolResult(content=f"appended {args['line']} (found)"))
        return h.Reconciled.not_done("not in the log")


class HoldingModel:
    """The script, holding (once the call's result is in) at the hold point `model`."""

    def __init__(self, folder: Path, where: str) -> None:
        self.script = ScriptedModel(
            [turn("", {"name": "append", "args": {"line": "L0"}, "id": "c0"}), reply("done")],
            by_history=True,
        )
        self.name = self.script.name
        self.folder, self.where = folder, where

    async def request(self, request: Any, /) -> Any:
        if self.where == "model" and any(m.role == "tool" for m in request.messages):
            await hold(self.folder)
        return await self.script.request(request)


def build(folder: Path, kind: str = "plain", where: str = "tool") -> h.Agent:
    """`kind`: plain, reconciles (the tool reconciles), idempotent (the tool says so) or
    subagent (a subagent runs the scenario)."""
    if kind == "subagent":
        return with_subagent(folder, where)
    tool = Reconciling(folder, where) if kind == "reconciles" else Append(folder, where)
    tool.idempotent = kind == "idempotent"
    return h.AgentBuilder().model(HoldingModel(folder, where)).tools(tool).build()


def with_subagent(folder: Path, where: str) -> h.Agent:
    """A parent that asks its `logger` subagent to append, and answers `logged`."""
    logger = AgentSpec(
        name="logger", description="Logs.", system_prompt="You log.", model="logger-model"
    )
    args = {"description": "log", "prompt": "log L0", "subagent_type": "logger"}
    return (
        h.AgentBuilder()
        .model(
            ScriptedModel(
                [turn("", {"name": "Agent", "args": args, "id": "a1"}), reply("logged")],
                by_history=True,
            )
        )
        .model_alias("logger-model", HoldingModel(folder, where))
        .tools(Append(folder, where))
        .with_(Subagents(AgentRegistry([logger])))
        .build()
    )


async def main(address: str, queue: str, folder: Path, name: str, kind: str, where: str) -> None:
    agent = build(folder, kind, where)
    client = await connect(address)
    async with agent_worker(client, agent, queue, heartbeat=1.0, sticky_timeout=1.0):
        (folder / f"ready-{name}").touch()
        await asyncio.Event().wait()


if __name__ == "__main__":
    address, queue, folder, name, kind, where = sys.argv[1:7]
    asyncio.run(main(address, queue, Path(folder), name, kind, where))
