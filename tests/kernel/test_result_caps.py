"""Tool results longer than their tool's limit: a preview for the model, the whole in a file.

Real runs with `ScriptedModel`: a tool returning megabytes, with and without a store; per-tool
limits (none, smaller) and the agent's default; what the run records keeps the preview and the
file's path, never the text itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.spill import INHERIT
from hookagent.store._sqlite import SQLiteStore
from hookagent.testing import ScriptedModel, reply, tool_call, turn

HUGE = "".join(f"row {n:08d}\n" for n in range(1_500_000))  # 19.5 MB, every line distinct


@h.tool
def dump() -> str:
    """Return a huge text."""
    return HUGE


@h.tool
def rows() -> list[str]:
    """Return a huge list."""
    return HUGE.splitlines()[:200_000]


class Sized:
    """A tool with its own `max_result_chars`."""

    description = "Return `size` characters."
    parameters: Mapping[str, Any] = {"type": "object", "properties": {"size": {"type": "integer"}}}

    def __init__(self, name: str, limit: object) -> None:
        self.name = name
        self.max_result_chars = limit

    async def __call__(self, args: Mapping[str, Any], ctx: h.ToolContext, /) -> h.ToolResult:
        return h.ToolResult(content="z" * args["size"], data={"size": args["size"]})


def saved_path(text: str) -> Path:
    match = re.search(r"Full output saved to: (\S+)", text)
    assert match is not None, text[:300]
    return Path(match.group(1))


async def test_a_huge_result_is_a_preview_for_the_model_and_saved_whole(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("dump"), reply("done")])
    agent = h.AgentBuilder().model(model).tools(dump).outputs(folder=tmp_path).build()
    result = await agent.run("dump it")
    [call] = result.tool_calls
    text = call.result.content
    assert model.calls[1].last_message == text
    assert len(text) <= 2_000 + 400
    assert text.startswith(f"<persisted-output>\nOutput too large ({len(HUGE):,} characters).")
    assert HUGE[:2_000] in text
    saved = saved_path(text)
    assert saved.parent == tmp_path / "runs" / result.run_id
    assert saved.name.startswith("dump-")
    assert saved.stat().st_size == len(HUGE) and saved.read_text() == HUGE
    assert call.result.data == text  # the same text: the blob is not kept twice


async def test_a_durable_run_keeps_the_reference_not_the_blob(tmp_path: Path) -> None:
    db = tmp_path / ".hookagent" / "sessions.db"
    store = SQLiteStore(db)
    model = ScriptedModel([tool_call("dump"), reply("done")])
    agent = h.AgentBuilder().model(model).tools(dump).store(store).build()
    try:
        result = await agent.run("dump it", session="s")
        rows = await store.load(result.run_id)  # with the journal
    finally:
        await store.close()
    assert result.status == "completed"
    saved = saved_path(result.tool_calls[0].result.content)
    assert saved.parent == tmp_path / ".hookagent" / "runs" / result.run_id
    assert saved.read_text() == HUGE
    stored = sum(f.stat().st_size for f in db.parent.glob("sessions.db*"))
    assert stored < len(HUGE) / 50, f"{stored:,} bytes of store for {len(HUGE):,} of result"
    assert rows is not None
    texts = [*rows.messages, *rows.steps, *(e.data for e in rows.journal)]
    assert max(len(t) for t in texts) < 20_000


async def test_data_made_from_the_same_value_becomes_the_preview_too(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("rows"), reply("done")])
    agent = h.AgentBuilder().model(model).tools(rows).outputs(folder=tmp_path).build()
    [call] = (await agent.run("list")).tool_calls
    assert call.result.data == call.result.content
    assert saved_path(call.result.content).read_text().startswith('["row 00000000", ')


async def test_a_tool_sets_its_own_limit_and_the_agent_sets_the_default(tmp_path: Path) -> None:
    tools = [Sized("open", None), Sized("tight", 100), Sized("plain", INHERIT)]
    model = ScriptedModel(
        [
            tool_call("open", size=80_000),
            tool_call("tight", size=101),
            tool_call("plain", size=1_001),
            tool_call("plain", size=1_000),
            reply("done"),
        ]
    )
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(*tools)
        .outputs(max_result_chars=1_000, folder=tmp_path)
        .build()
    )
    result = await agent.run("go")
    whole, tight, over, under = (c.result for c in result.tool_calls)
    assert whole.content == "z" * 80_000  # no limit
    assert "(first 100 characters):\n" + "z" * 100 + "\n</persisted-output>" in tight.content
    assert saved_path(tight.content).read_text() == "z" * 101
    assert tight.data == {"size": 101}  # other data is the tool's own
    assert "Output too large (1,001 characters)" in over.content
    assert under.content == "z" * 1_000
    assert len(list((tmp_path / "runs" / result.run_id).iterdir())) == 2


@pytest.mark.parametrize("limit", [0, -5, 2.5, "big", True])
def test_a_bad_limit_is_a_config_error_naming_the_tool(limit: object) -> None:
    builder = h.AgentBuilder().model(ScriptedModel([])).tools(Sized("bad", limit))
    with pytest.raises(h.ConfigError, match="tool 'bad': max_result_chars: must be a whole"):
        builder.build()
    with pytest.raises(h.ConfigError, match=r"outputs\(max_result_chars\): must be a whole"):
        h.AgentBuilder().outputs(max_result_chars=limit)  # type: ignore[arg-type]


async def test_a_folder_that_cannot_be_written_costs_the_file_not_the_run(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    model = ScriptedModel([tool_call("dump"), reply("done")])
    agent = h.AgentBuilder().model(model).tools(dump).outputs(folder=blocked).build()
    result = await agent.run("dump it")
    assert result.status == "completed"
    text = result.tool_calls[0].result.content
    assert len(text) <= 2_000 + 400
    assert "The full output could not be saved (" in text and str(blocked) in text


async def test_read_shows_its_whole_window_so_a_saved_output_can_be_read(tmp_path: Path) -> None:
    from hookagent.capabilities.files import FileTools

    model = ScriptedModel([tool_call("dump"), reply("read it")])
    agent = h.AgentBuilder().model(model).tools(dump).outputs(folder=tmp_path).build()
    saved = saved_path((await agent.run("dump it")).tool_calls[0].result.content)
    model = ScriptedModel([tool_call("Read", file_path=str(saved), limit=2_000), reply("ok")])
    reader = h.AgentBuilder().model(model).with_(FileTools(tmp_path))
    reader.outputs(max_result_chars=1_000, folder=tmp_path)  # Read has its own bound
    [read] = (await reader.build().run("read")).tool_calls
    assert not read.result.is_error
    assert len(read.result.content) > 2_000 * 13  # 2,000 numbered lines, not a preview
    assert "<persisted-output>" not in read.result.content


async def test_a_function_tool_takes_its_limit_from_the_decorator(tmp_path: Path) -> None:
    @h.tool(max_result_chars=None)
    def whole() -> str:
        """Return a huge text, all of which the model reads."""
        return HUGE[:80_000]

    @h.tool(max_result_chars=500)
    def short() -> str:
        """Return 501 characters."""
        return "s" * 501

    assert (whole.max_result_chars, short.max_result_chars, dump.max_result_chars) == (
        None,
        500,
        INHERIT,
    )
    model = ScriptedModel([tool_call("whole"), tool_call("short"), reply("done")])
    agent = h.AgentBuilder().model(model).tools(whole, short).outputs(folder=tmp_path).build()
    first, second = (c.result for c in (await agent.run("go")).tool_calls)
    assert first.content == HUGE[:80_000]
    assert "Output too large (501 characters)" in second.content
    assert "(first 500 characters):\n" + "s" * 500 + "\n</persisted-output>" in second.content


async def test_a_result_a_hook_puts_in_place_is_bounded_too(tmp_path: Path) -> None:
    def replace(event: h.ToolResultEvent) -> h.HookResult:
        return h.HookResult.modify(result=h.ToolResult(content=HUGE))

    model = ScriptedModel([tool_call("add_one"), reply("done")])

    @h.tool
    async def add_one() -> str:
        """Return a short text."""
        return "short"

    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(add_one)
        .on(h.AFTER_TOOL, replace)
        .outputs(folder=tmp_path)
        .build()
    )
    [call] = (await agent.run("go")).tool_calls
    assert model.calls[1].last_message == call.result.content
    assert len(call.result.content) <= 2_000 + 400
    assert saved_path(call.result.content).read_text() == HUGE


async def test_a_durable_run_journals_a_replaced_result_bounded(tmp_path: Path) -> None:
    """The fold that replaced the result is journaled as the run acts on it: cut. A second
    call of the turn pauses on a question, so the journal is in the store mid-turn."""

    @h.tool
    async def small(n: int) -> str:
        """Return a short text."""
        return "short"

    def replace(event: h.ToolResultEvent) -> h.HookResult | None:
        return h.HookResult.modify(result=h.ToolResult(content=HUGE)) if event.args["n"] else None

    def ask(event: h.ToolCallEvent) -> h.HookResult | None:
        return None if event.args["n"] else h.HookResult.ask("go on?")

    calls = [{"name": "small", "args": {"n": n}, "id": f"c{n}"} for n in (1, 0)]
    model = ScriptedModel([turn("", *calls), reply("done")])
    db = tmp_path / "sessions.db"
    store = SQLiteStore(db)
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(small)
        .on(h.AFTER_TOOL, replace)
        .on(h.BEFORE_TOOL, ask)
        .store(store)
        .build()
    )
    try:
        result = await agent.run("go", session="s")
        rows = await store.load(result.run_id)  # with the journal
    finally:
        await store.close()
    assert result.status == "waiting"
    assert rows is not None
    folds = [e.data for e in rows.journal if e.kind == "fold"]
    assert max(len(data) for data in folds) < 20_000
    assert any("Output too large" in data for data in folds)
    [saved] = (tmp_path / "runs" / result.run_id).iterdir()
    assert saved.read_text() == HUGE
    stored = sum(f.stat().st_size for f in tmp_path.glob("sessions.db*"))
    assert stored < len(HUGE) / 50, f"{stored:,} bytes of store for {len(HUGE):,} of result"
