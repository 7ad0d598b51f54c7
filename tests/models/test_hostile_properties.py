"""Properties: no tool name, argument text, reply text or script file fails a run. Each bad call
becomes an error result naming its problem, in memory, through a real driver's parser, and in
a durable run on SQLite whose rows all load back."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import hookagent as h
from hookagent._messages import AssistantMessage, ToolResultMessage
from hookagent._surrogates import replace
from hookagent.durable import _codec as codec
from hookagent.models._anthropic_messages import create as create_anthropic
from hookagent.models._openai_chat import create
from hookagent.models._tool_args import MAX_DEPTH, parse_call
from hookagent.store._sqlite import SQLiteStore
from hookagent.testing import ScriptedModel

from .fake_anthropic import FakeAnthropic
from .fake_anthropic import message as anthropic_message
from .fake_anthropic import text as anthropic_text
from .fake_openai import FakeOpenAI, completion, function_call
from .hostile import FAST, argument_texts, surrogate_free, texts, tool_calls
from .tools import add, echo


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


@settings(FAST, max_examples=300)
@given(arguments=argument_texts)
def test_parsing_never_raises_and_accepts_only_what_every_reader_can_hold(arguments: str) -> None:
    call = parse_call("c1", "echo", arguments)
    if call.parse_error is not None:
        assert not call.args and surrogate_free(call.parse_error)
        assert len(call.parse_error) < 300  # names the problem, never echoes the input
        return
    args = dict(call.args)
    json.dumps(args, ensure_ascii=False, allow_nan=False).encode()  # a provider, the store
    assert depth(args) <= MAX_DEPTH
    assert args == (json.loads(arguments) if arguments.strip() else {})


@settings(FAST, max_examples=100)
@given(text=texts.filter(surrogate_free))
def test_arguments_of_the_tools_own_shape_are_accepted(text: str) -> None:
    assert parse_call("c1", "echo", json.dumps({"text": text})).args == {"text": text}


def script(calls: list[tuple[str, str]], text: str) -> ScriptedModel:
    specs = [
        {"name": name or "?", "args": args, "id": f"c{i}"} for i, (name, args) in enumerate(calls)
    ]
    return ScriptedModel([{"text": text, "reasoning": text, "tool_calls": specs}, {"text": text}])


def check_results(result: h.RunResult[Any], calls: list[tuple[str, str]], text: str) -> None:
    """Completed; one result per call; a call that cannot run says why; no surrogate kept."""
    assert result.status == "completed", result.error
    assert result.output == replace(text)
    assert len(result.tool_calls) == len(calls)
    for (name, arguments), execution in zip(calls, result.tool_calls, strict=True):
        expected = parse_call("x", name or "?", arguments)
        content = execution.result.content
        if expected.name not in ("echo", "add"):
            assert execution.result.is_error and content.startswith("Unknown tool")
        elif expected.parse_error is not None:
            assert execution.result.is_error
            assert (
                content == f"Invalid arguments for tool {expected.name!r}: {expected.parse_error}"
            )
    for message in result.state.messages:
        assert surrogate_free(getattr(message, "content", ""))
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                assert surrogate_free(call.id + call.name)
                assert surrogate_free(json.dumps(dict(call.args)))


@settings(FAST, max_examples=60)
@given(calls=tool_calls, text=texts)
def test_a_scripted_run_with_hostile_calls_completes(
    calls: list[tuple[str, str]], text: str
) -> None:
    agent = h.AgentBuilder().model(script(calls, text)).tools(echo, add).build()
    check_results(agent.run_sync("go"), calls, text)


async def load_every_row(db: Path, run_id: str) -> None:
    store = SQLiteStore(db)
    await store.open()
    try:
        rows = await store.rows(run_id)
        loaded = await store.load(run_id)
        assert rows is not None and loaded is not None
        for kind, stored in (("message", rows.messages), ("step", rows.steps)):
            assert all(codec.load(kind, text) is not None for text in stored)
        assert all(codec.load("decision", text) is not None for text in rows.decisions)
        assert all(surrogate_free(e.data) for e in loaded.journal)
        assert all(surrogate_free(c.args + (c.result or "")) for c in loaded.calls)
    finally:
        await store.close()


@settings(FAST, max_examples=15)
@given(calls=tool_calls, text=texts)
def test_a_durable_run_on_sqlite_completes_and_its_rows_load_back(
    calls: list[tuple[str, str]], text: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "runs.db"
        agent = h.AgentBuilder().model(script(calls, text)).tools(echo, add).store(db).build()
        result = agent.run_sync("go")
        check_results(result, calls, text)
        asyncio.run(load_every_row(db, result.run_id))


def test_the_openai_chat_driver_turns_hostile_calls_into_error_results() -> None:
    """The raw body goes through the SDK's JSON reader and the driver's own parser; the next
    request body, which holds the whole history, must still encode."""
    with FakeOpenAI() as server:

        @settings(FAST, max_examples=25)
        @given(calls=tool_calls, text=texts)
        def check(calls: list[tuple[str, str]], text: str) -> None:
            wire = [function_call(f"c{i}", n or "?", a) for i, (n, a) in enumerate(calls)]
            server.requests.clear()
            server.push(completion(text, *wire))
            server.push(completion(text))

            async def run() -> h.RunResult[Any]:
                model = create("gpt-test", provider="openai-compatible", base_url=server.url)
                try:
                    return await h.AgentBuilder().model(model).tools(echo, add).build().run("go")
                finally:
                    await model.aclose()

            check_results(asyncio.run(run()), calls, text)
            history = server.requests[1]["messages"]
            results = [m for m in history if m["role"] == "tool"]
            assert len(results) == len(calls)

        check()


def json_value(text: str) -> bool:
    """Whether `text` is one JSON value, as a provider's reply can hold (too deep or too long
    for Python's reader included)."""
    try:
        json.loads(text)
    except RecursionError:
        return True
    except ValueError as exc:
        return "Exceeds the limit" in str(exc)
    return True


def test_the_anthropic_driver_refuses_hostile_inputs_call_by_call() -> None:
    """A tool input is JSON inside the reply's body, read by the driver; one too deep or odd
    for any reader refuses its call, never the reply, and the next request still encodes."""
    with FakeAnthropic() as server:

        @settings(FAST, max_examples=25)
        @given(calls=tool_calls, text=texts)
        def check(calls: list[tuple[str, str]], text: str) -> None:
            calls = [(name, args) for name, args in calls if json_value(args)]
            assume(calls)  # a reply with calls: the run asks twice, as its replies are queued
            blocks = [
                {"type": "tool_use", "id": f"c{i}", "name": name or "?", "input": f"@{i}@"}
                for i, (name, _) in enumerate(calls)
            ]
            body = json.dumps(anthropic_message(anthropic_text(text), *blocks))
            for i, (_, args) in enumerate(calls):
                body = body.replace(f'"@{i}@"', args)
            server.requests.clear()
            server.reply(body.encode())
            server.reply(anthropic_message(anthropic_text(text)))

            async def run() -> h.RunResult[Any]:
                model = create_anthropic("claude-test", base_url=server.url, api_key="k")
                try:
                    return await h.AgentBuilder().model(model).tools(echo, add).build().run("go")
                finally:
                    await model.aclose()

            result = asyncio.run(run())
            assert result.status == "completed", result.error
            assert len(result.tool_calls) == len(calls) and len(server.requests) == 2
            for (name, args), execution in zip(calls, result.tool_calls, strict=True):
                problem = parse_call("x", name or "?", args).parse_error or ""
                if "nest deeper" in problem or "digits" in problem or "surrogate" in problem:
                    assert execution.result.is_error

        check()


_SCRIPT_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["text", "tool_calls", "name", "args", "id", "usage", "x"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=10,
)


@st.composite
def script_files(draw: st.DrawFn) -> bytes:
    """Random bytes, or JSON of roughly a script's shape: encoded oddly, or cut, or spliced."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=64))
    text = json.dumps(draw(st.lists(_SCRIPT_VALUES, max_size=3)))
    data = text.encode(draw(st.sampled_from(["utf-8", "utf-16", "latin-1"])), "surrogatepass")
    cut = draw(st.integers(0, len(data)))
    return data[:cut] + draw(st.binary(max_size=4)) + data[cut:] if draw(st.booleans()) else data


@settings(FAST, max_examples=150)
@given(content=script_files())
def test_any_script_file_is_a_model_or_a_config_error(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "turns.json"
        path.write_bytes(content)
        try:
            model = ScriptedModel.from_file(path)
        except h.ConfigError as exc:
            assert str(path) in str(exc)
            return
    result = h.AgentBuilder().model(model).tools(echo).build().run_sync("go")
    assert result.status in ("completed", "failed")  # failed: the script ran out of turns
    assert all(
        surrogate_free(m.content) for m in result.state.messages if isinstance(m, ToolResultMessage)
    )
