"""The live view writes streamed text as it arrives and does not print it twice."""

from __future__ import annotations

import io

from rich.console import Console

import hookagent as h
from hookagent.cli._render import LiveRenderer


def render(*events: h.StreamEvent) -> str:
    out = io.StringIO()
    renderer = LiveRenderer(Console(file=out, width=200, color_system=None))
    for event in events:
        renderer.show(event)
    return out.getvalue()


def replied(text: str) -> h.ModelReplied:
    return h.ModelReplied(1, h.ModelResponse(message=h.AssistantMessage(content=text)))


def test_streamed_text_is_one_line_and_the_reply_does_not_repeat_it() -> None:
    out = render(
        h.StepStarted(1),
        h.TextDelta(1, "\nHello"),
        h.TextDelta(1, ", world"),
        replied("Hello, world"),
    )
    assert out == "step 1\n  model: Hello, world\n"


def test_thinking_and_answer_get_their_own_lines() -> None:
    out = render(
        h.StepStarted(1),
        h.ReasoningDelta(1, "Six times "),
        h.ReasoningDelta(1, "seven."),
        h.TextDelta(1, "42"),
        replied("42"),
    )
    assert out == "step 1\n  thinking: Six times seven.\n  model: 42\n"


def test_a_reply_rewritten_by_a_hook_after_streaming_is_shown_again() -> None:
    out = render(h.StepStarted(1), h.TextDelta(1, "key sk-123"), replied("key ***"))
    assert out == "step 1\n  model: key sk-123\n  model (after hooks): key ***\n"


def test_a_reply_that_did_not_stream_is_printed_whole() -> None:
    assert render(h.StepStarted(1), replied("plain")) == "step 1\n  model: plain\n"
