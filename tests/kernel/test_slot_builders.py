"""The objects the kernel builds through their slots (one or more per step) equal what their
constructors build, field by field: a field added to one of these classes and not filled
there fails here."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

import hookagent as h
from hookagent._messages import tool_result_message
from hookagent._slots import filler
from hookagent.kernel._state import RunState
from hookagent.models._base import model_request
from hookagent.tools._base import text_result, tool_context


def fields_of(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def test_a_tool_result_message_equals_the_constructors() -> None:
    image = h.ImagePart(mime_type="image/png", data="AAAA")
    built = tool_result_message("c1", "echo", "text", True, (image,))
    made = h.ToolResultMessage(
        call_id="c1", name="echo", content="text", is_error=True, images=(image,)
    )
    assert fields_of(built) == fields_of(made)
    assert built == made and type(built) is h.ToolResultMessage


def test_a_model_request_equals_the_constructors() -> None:
    spec = h.ToolSpec(name="echo", description="Echo.", parameters={"type": "object"})
    messages = [h.UserMessage(content="hi")]
    built = model_request(messages, (spec,), "be brief", {"temperature": 0}, 3)
    made = h.ModelRequest(
        messages=messages,
        tools=(spec,),
        system_prompt="be brief",
        settings={"temperature": 0},
        step=3,
    )
    assert fields_of(built) == fields_of(made)


def test_a_text_result_equals_of_a_str() -> None:
    made = h.ToolResult(content="out", data="out")
    assert fields_of(text_result("out", "out")) == fields_of(made)
    assert fields_of(h.ToolResult.of("out")) == fields_of(made)


def test_a_usage_sum_adds_every_field() -> None:
    a = h.Usage(input_tokens=1, output_tokens=2, cached_tokens=3, requests=4)
    b = h.Usage(input_tokens=10, output_tokens=20, cached_tokens=30, requests=40)
    total = a + b
    assert fields_of(total) == {name: getattr(a, name) + getattr(b, name) for name in fields_of(a)}
    assert hash(total) == hash(h.Usage(**fields_of(total)))


def test_a_tool_context_stays_read_only() -> None:
    keys: list[str] = []

    def key() -> str:
        keys.append("asked")
        return "k1"

    call = h.ToolCall(id="c1", name="echo")
    context = h.ToolContext(run=None, call=call, idempotency_key=key)  # type: ignore[arg-type]
    assert (context.call, context.idempotency_key, context.idempotency_key) == (call, "k1", "k1")
    assert keys == ["asked"]
    try:
        context.call = call  # type: ignore[misc]
    except AttributeError as exc:
        assert "read-only" in str(exc)
    else:
        raise AssertionError("a ToolContext took an attribute")


def test_a_run_id_is_a_uuid4_hex() -> None:
    ids = {RunState().run_id for _ in range(200)}
    assert len(ids) == 200
    for run_id in ids:
        parsed = uuid.UUID(run_id)
        assert (parsed.hex, parsed.version, parsed.variant) == (run_id, 4, uuid.RFC_4122)


def test_a_run_result_equals_the_constructors() -> None:
    state = RunState(output="done", status="completed", stop_reason="completed")
    built = h.RunResult.of(state)
    made = h.RunResult(
        output="done",
        status="completed",
        stop_reason="completed",
        stop_message=None,
        usage=state.usage,
        steps=built.steps,
        decisions=built.decisions,
        error=None,
        state=state,
    )
    assert fields_of(built) == fields_of(made)


def test_a_tool_context_built_for_a_call_equals_the_constructors() -> None:
    call = h.ToolCall(id="c1", name="echo")
    built = tool_context(None, call, "k1")  # type: ignore[arg-type]
    made = h.ToolContext(run=None, call=call, idempotency_key="k1")  # type: ignore[arg-type]
    assert (built.run, built.call, built.idempotency_key) == (made.run, made.call, "k1")
    assert type(built) is h.ToolContext


def test_a_filler_refuses_a_class_it_would_leave_a_field_of_unset() -> None:
    with pytest.raises(TypeError, match=r"filler\(ToolResult\).*'images'"):
        filler(h.ToolResult, ("content", "data"), {"is_error": False})
    with pytest.raises(TypeError, match=r"filler\(RunState\)"):
        filler(RunState, ("run_id",), {})
