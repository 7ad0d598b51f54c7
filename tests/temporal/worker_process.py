"""A worker process for the kill tests: an agent whose `append` tool writes a line to a file
and then, while a hold file exists, waits (so the test can kill it mid-call).

    python worker_process.py ADDRESS TASK_QUEUE FOLDER NAME plain|reconciles|idempotent
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import hookagent as h
from hookagent.temporal import agent_worker, connect
from hookagent.testing import ScriptedModel, reply, turn


class Append:
    name = "append"
    description = "Append a line to the log."

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.idempotent = False
        self.parameters = {"type": "object", "properties": {"line": {"type": "string"}}}

    async def __call__(self, args: Any, ctx: Any, /) -> h.ToolResult:
        (self.folder / "keys").write_text(ctx.idempotency_key)
        with open(self.folder / "log", "a") as log:  # noqa: ASYNC230  # one short line
            log.write(args["line"] + "\n")
        while (self.folder / "hold").exists():  # noqa: ASYNC110  # another process lifts it
            await asyncio.sleep(0.05)
        return h.ToolResult(content=f"appended {args['line']}")


class Reconciling(Append):
    """Tells a call in doubt done when its line is in the log."""

    def reconcile(self, args: Any, key: str, /) -> h.Reconciled:
        (self.folder / "reconciled-key").write_text(key)
        if args["line"] in (self.folder / "log").read_text().split():
            return h.Reconciled.done(h.ToolResult(content=f"appended {args['line']} (found)"))
        return h.Reconciled.not_done("not in the log")


def build(folder: Path, kind: str = "plain") -> h.Agent:
    """`kind`: plain, reconciles (the tool reconciles) or idempotent (the tool says so)."""
    model = ScriptedModel(
        [turn("", {"name": "append", "args": {"line": "L0"}, "id": "c0"}), reply("done")],
        by_history=True,
    )
    tool = Reconciling(folder) if kind == "reconciles" else Append(folder)
    tool.idempotent = kind == "idempotent"
    return h.AgentBuilder().model(model).tools(tool).build()


async def main(address: str, queue: str, folder: Path) -> None:
    agent = build(folder, sys.argv[5])
    async with agent_worker(await connect(address), agent, queue, heartbeat=1.0):
        (folder / f"ready-{sys.argv[4]}").touch()
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
