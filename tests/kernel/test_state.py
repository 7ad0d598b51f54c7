"""RunState round-trips through JSON; hooks read it through a live, read-only view."""

from __future__ import annotations

import pytest

import hookagent as h
from hookagent.kernel._view import RunView
from hookagent.testing import reply, tool_call

from .helpers import builder


async def test_state_round_trips_through_json() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    b.on(h.BEFORE_TOOL, lambda e: h.HookResult.modify(args={"text": "HI"}), kind="transform")
    result = await b.build().run("go", metadata={"ticket": 42})
    state = result.state
    again = h.RunState.from_json(state.to_json())
    assert again == state
    assert again.to_json() == state.to_json()
    assert again.decisions[0].votes[0].changes["args"]["text"]["after"] == "HI"


def test_views_are_live_and_read_only() -> None:
    state = h.RunState()
    view = RunView(state)
    messages = view.messages
    state.messages.append(h.UserMessage(content="hi"))
    assert len(messages) == 1 and messages[0].content == "hi"
    with pytest.raises(TypeError):
        view.metadata["x"] = 1  # type: ignore[index]
    with pytest.raises(AttributeError):
        messages.append(h.UserMessage(content="sneaky"))  # type: ignore[attr-defined]


async def test_hooks_see_the_same_view_object_every_step() -> None:
    b, _ = builder(tool_call("echo", text="a"), tool_call("echo", text="b"), reply("done"))
    views: list[object] = []
    b.on(h.BEFORE_STEP, lambda e: views.append(e.run), kind="observer")
    await b.build().run("go")
    assert len(views) == 3 and all(v is views[0] for v in views)


async def test_state_with_read_only_arguments_round_trips() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    b.on(h.BEFORE_TOOL, lambda e: h.HookResult.context("seen"), kind="observer")
    state = (await b.build().run("go")).state
    again = h.RunState.from_json(state.to_json())
    assert dict(again.steps[0].executions[0].args) == {"text": "hi"}
    assert again.to_json() == state.to_json()
