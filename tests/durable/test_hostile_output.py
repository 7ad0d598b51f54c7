"""A durable run keeps whatever the run accepted: replies with lone surrogates, refused calls,
tool output that is not valid Unicode, a hook's reason quoting it. Every row loads back, and
a resumed run shows the model what it saw before the process died."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import hookagent as h
from hookagent._messages import AssistantMessage, ToolCall
from hookagent.durable import _codec as codec
from hookagent.models._base import ModelRequest, ModelResponse
from hookagent.store._sqlite import SQLiteStore
from hookagent.testing import FunctionModel, ScriptedModel

BAD_NAME = os.fsdecode(b"b\x80d.txt")
"""A file name that is not UTF-8, as Python reads it: `b\\udc80d.txt`."""


class Crash(BaseException):
    """Stands for the process dying."""


@h.tool
def listing() -> str:
    """List the directory."""
    return f"a.txt\n{BAD_NAME}"


@h.tool
def echo(text: str) -> str:
    """Return the text."""
    return text


def surrogate_free(text: str) -> bool:
    """No unpaired surrogate in the text, nor escaped in the JSON it holds."""
    with contextlib.suppress(ValueError):
        text = json.dumps(json.loads(text), ensure_ascii=False)
    return not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


async def stored(db: Path, run_id: str) -> list[str]:
    """Every row and journal entry of the run, after checking each loads back."""
    store = SQLiteStore(db)
    await store.open()
    try:
        rows = await store.rows(run_id)
        assert rows is not None
        for kind, texts in (("message", rows.messages), ("step", rows.steps)):
            for text in texts:
                codec.load(kind, text)
        for text in rows.decisions:
            codec.load("decision", text)
        loaded = await store.load(run_id)
        assert loaded is not None
        journal = [entry.data for entry in loaded.journal]
        calls = [c.args + (c.result or "") for c in loaded.calls]
        prompt = rows.run.prompt or ""
        return [prompt, *rows.messages, *rows.steps, *rows.decisions, *journal, *calls]
    finally:
        await store.close()


async def test_a_durable_run_on_sqlite_stores_hostile_output_and_it_loads_back(
    tmp_path: Path,
) -> None:
    model = ScriptedModel(
        [
            {
                "text": "trying\ud800",
                "reasoning": "\udfff",
                "tool_calls": [
                    {"name": "echo", "args": '{"text": "\\ud800"}'},
                    {"name": "echo", "args": "[" * 100_000},
                    {"name": "ech\udc00o", "args": {"text": "x"}},
                    {"name": "echo", "args": '{"text": NaN}'},
                    {"name": "listing"},
                    {"name": "echo", "args": {"text": "blocked"}},
                ],
            },
            {"text": "done\udc00"},
        ]
    )

    def quote(event: h.ToolCallEvent) -> h.HookResult | None:
        if event.args.get("text") == "blocked":
            return h.HookResult.block(f"not with {BAD_NAME} around")
        return None

    db = tmp_path / "runs.db"
    agent = h.AgentBuilder().model(model).tools(echo, listing).store(db)
    result = await agent.on(h.BEFORE_TOOL, quote).build().run("go")
    assert result.status == "completed", result.error
    assert result.output == "done\ufffd"
    refused = [c.result.content for c in result.tool_calls[:4]]
    assert "(\\ud800)" in refused[0] and "nest deeper than 100" in refused[1]
    assert "Unknown tool 'ech\ufffdo'" in refused[2] and "NaN" in refused[3]
    assert result.tool_calls[4].result.content == "a.txt\nb\ufffdd.txt"  # as stored
    texts = await stored(db, result.run_id)
    assert all(surrogate_free(text) for text in texts)
    assert any("b\ufffdd.txt" in text for text in texts)
    assert any("not with b\ufffdd.txt around" in text for text in texts)  # the decision


async def test_a_resumed_run_shows_the_model_what_it_saw_before_the_crash(
    tmp_path: Path,
) -> None:
    seen: list[list[str]] = []

    def answer(request: ModelRequest) -> ModelResponse | str:
        seen.append([getattr(m, "content", "") for m in request.messages])
        replies = sum(isinstance(m, AssistantMessage) for m in request.messages)
        if replies == 2:
            return "done"
        name, args = ("listing", {}) if replies == 0 else ("echo", {"text": "boom"})
        call: dict[str, Any] = {"name": name, "args": args, "id": f"c{replies}"}
        return ModelResponse(message=ScriptedModel([{"tool_calls": [call]}])._turns[0].message)

    crashed: list[bool] = []

    def die(event: h.ToolResultEvent) -> None:
        if event.args.get("text") == "boom" and not crashed:
            crashed.append(True)
            raise Crash

    db = tmp_path / "runs.db"

    def agent() -> h.Agent:
        builder = h.AgentBuilder().model(FunctionModel(answer)).tools(echo, listing).store(db)
        return builder.on(h.AFTER_TOOL, die).build()

    with contextlib.suppress(Crash):
        await agent().run("go", session="s")
    before = seen[-1]  # the history at the step the process died in
    store = SQLiteStore(db)
    await store.open()
    session = await store.session("s")
    assert session is not None
    [run] = await store.runs(session.id)
    await store.close()
    result = await agent().resume(run.id)
    assert result.status == "completed", result.error
    after = seen[-1]
    assert after[: len(before)] == before
    assert "a.txt\nb\ufffdd.txt" in before


async def test_a_prompt_with_a_lone_surrogate_is_kept_as_the_model_saw_it(tmp_path: Path) -> None:
    model = ScriptedModel([{"text": "ok"}])
    db = tmp_path / "runs.db"
    agent = h.AgentBuilder().model(model).store(db).build()
    result = await agent.run(f"look at {BAD_NAME}")
    assert result.status == "completed", result.error
    assert model.calls[0].last_message == "look at b\ufffdd.txt"
    assert any("look at b\ufffdd.txt" in text for text in await stored(db, result.run_id))
    queued = await agent.submit(f"later {BAD_NAME}")
    assert (await stored(db, queued))[0] == "later b\ufffdd.txt"


async def test_a_run_without_a_store_sends_tool_output_the_provider_can_encode() -> None:
    """A file name that is not UTF-8 in a tool's output reaches the next request as U+FFFD,
    in memory as in the store: a provider's request body could not carry the surrogate."""
    seen: list[str] = []

    def model(request: ModelRequest) -> ModelResponse:
        if len(request.messages) == 1:
            call = ToolCall(id="c1", name="listing")
            return ModelResponse(message=AssistantMessage(tool_calls=(call,)))
        seen.append(request.messages[-1].content or "")
        return ModelResponse(message=AssistantMessage(content="done"))

    agent = h.AgentBuilder().model(FunctionModel(model)).tools(listing).build()
    result = await agent.run("list")
    assert result.status == "completed"
    assert seen == ["a.txt\nb\ufffdd.txt"]
    seen[0].encode("utf-8")
