"""A model's reply as a run may keep it, whatever the model (or driver) sent.

The kernel passes every reply through `received` before anything reads or stores it, so no
model output can fail a run: unpaired surrogates in its text, reasoning, call ids and tool
names become U+FFFD (a provider, a terminal or the store would refuse them later), and a call
whose arguments no tool should get is refused with a `parse_error` (see `tool_args`). Streamed
pieces get the same text rule on their way to whoever watches.
"""

from __future__ import annotations

import dataclasses

from hookagent._surrogates import replace
from hookagent.models._base import (
    Delta,
    ModelResponse,
    OnDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
)
from hookagent.models._tool_args import check_call, problem

__all__ = ["received", "safe_deltas"]


def received(response: ModelResponse) -> ModelResponse:
    """`response` made safe to keep; the same object when it already was (the usual case).

    Every reply passes here, so the usual one is told apart first, with no copy and no
    call per text: all its text ASCII (which holds no surrogate) and each call's arguments
    fine (`check_call`'s own test). Anything else takes the whole way, which returns the
    same object too when nothing needed changing."""
    message = response.message
    name, finish = response.model_name, response.finish_reason
    if (
        message.content.isascii()
        and message.reasoning.isascii()
        and (not name or name.isascii())
        and (not finish or finish.isascii())
    ):
        for call in message.tool_calls:
            if not (
                call.id.isascii()
                and call.name.isascii()
                and (call.parse_error is not None or problem(call.args) is None)
            ):
                break
        else:
            return response
    return _made_safe(response)


def _made_safe(response: ModelResponse) -> ModelResponse:
    message = response.message
    content, reasoning = replace(message.content), replace(message.reasoning)
    calls = tuple(map(check_call, message.tool_calls))
    model_name = replace(response.model_name) if response.model_name else response.model_name
    finish = replace(response.finish_reason) if response.finish_reason else response.finish_reason
    if (
        content is message.content
        and reasoning is message.reasoning
        and calls == message.tool_calls  # equal tuples of the same objects: `is` first
        and model_name is response.model_name
        and finish is response.finish_reason
    ):
        return response
    return dataclasses.replace(
        response,
        message=dataclasses.replace(
            message, content=content, reasoning=reasoning, tool_calls=calls
        ),
        model_name=model_name,
        finish_reason=finish,
    )


def safe_deltas(on_delta: OnDelta) -> OnDelta:
    """`on_delta`, given each streamed piece with unpaired surrogates as U+FFFD."""

    def forward(delta: Delta) -> None:
        on_delta(_safe(delta))

    return forward


def _safe(delta: Delta) -> Delta:
    if isinstance(delta, TextDelta | ReasoningDelta):
        text = replace(delta.text)
        return delta if text is delta.text else dataclasses.replace(delta, text=text)
    call_id = replace(delta.call_id) if delta.call_id else delta.call_id
    name = replace(delta.name) if delta.name else delta.name
    arguments = replace(delta.arguments)
    if call_id is delta.call_id and name is delta.name and arguments is delta.arguments:
        return delta
    return ToolCallDelta(delta.step, delta.index, call_id, name, arguments)
