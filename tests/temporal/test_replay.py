"""`hookagent replay RUN --temporal`: a run on Temporal, read from its workflow history,
replayed through other hooks; the decisions that changed are reported as for a stored run."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest
from temporalio.client import Client

from cli.run_cli import hookagent
from hookagent.sessions import Recording, replay
from hookagent.temporal import TemporalRuns, agent_worker
from temporal.test_runs import build, queue

pytestmark = pytest.mark.temporal

PLUGIN = textwrap.dedent(
    """
    from hookagent import AFTER_TOOL, BEFORE_TOOL, HookResult, tool

    @tool
    def deploy(env: str) -> str:
        '''Deploy to an environment.'''
        return f"deployed to {env}"

    def note(event):
        return HookResult.context(f"{event.tool_name} ran")

    def freeze(event):
        return HookResult.block("deploys are frozen")

    def configure(builder):
        builder.tools(deploy)
        builder.on(AFTER_TOOL, note, name="note")
        {more}
    """
)


async def test_a_temporal_run_replays_through_changed_hooks_from_its_history(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    agent = build("staging")
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        ran = await runs.run("go")
    run_id = ran.run_id
    entry, state, _ = await runs.inspect(run_id)
    recorded = Recording.of(run_id, entry.prompt, state.messages, state.steps, state.decisions)
    same = await replay(recorded, build("staging"))
    assert same.changes == [] and same.decisions_before == len(ran.decisions)
    (tmp_path / "frozen.py").write_text(
        PLUGIN.replace("{more}", 'builder.on(BEFORE_TOOL, freeze, name="freeze")')
    )
    replayed = await asyncio.to_thread(
        hookagent,
        tmp_path,
        "replay",
        run_id,
        "--temporal",
        temporal_address,
        "--plugin",
        "frozen.py",
        "--json",
        "--fail-on-change",
    )
    assert replayed.returncode == 1, replayed.stderr
    changes = json.loads(replayed.stdout)["changes"]
    assert [(c["point"], c["before"], c["after"]) for c in changes] == [
        ("before_tool", "none", "block by user:freeze"),
        ("after_tool", "context by user:note", "none"),
    ]
    missing = await asyncio.to_thread(
        hookagent, tmp_path, "replay", "nope", "--temporal", temporal_address
    )
    assert missing.returncode == 2 and "run nope" in missing.stderr
