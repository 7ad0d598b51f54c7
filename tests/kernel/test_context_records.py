"""A decision that only adds context names the hook(s) that added it."""

from __future__ import annotations

import hookagent as h
from hookagent.testing import reply, tool_call

from .helpers import builder


def _notes(text: str) -> object:
    return lambda event: h.HookResult.context(text)


async def test_a_context_only_decision_names_the_hook_that_added_it() -> None:
    b, _ = builder(tool_call("echo", text="x"), reply("done"))
    b.on(h.BEFORE_TOOL, _notes("the repo is read-only"), name="remind")
    result = await b.build().run("go")
    [decision] = [d for d in result.decisions if d.point == "before_tool"]
    assert decision.outcome == "context"
    assert decision.hook == "user:remind"
    assert decision.contexts == ("the repo is read-only",)


async def test_several_hooks_adding_context_are_all_named_in_order() -> None:
    b, _ = builder(tool_call("echo", text="x"), reply("done"))
    b.on(h.BEFORE_TOOL, _notes("one"), name="first", priority=2)
    b.on(h.BEFORE_TOOL, lambda e: None, name="silent", priority=1)
    b.on(h.BEFORE_TOOL, _notes("two"), name="second")
    result = await b.build().run("go")
    [decision] = [d for d in result.decisions if d.point == "before_tool"]
    assert decision.hook == "user:first, user:second"


async def test_a_hook_that_voted_is_named_even_when_nothing_changed() -> None:
    b, _ = builder(reply("done"))
    b.on(h.AFTER_INFERENCE, lambda e: h.HookResult(reason="looked, fine"), name="look")
    result = await b.build().run("go")
    voted = [d for d in result.decisions if d.votes]
    assert voted and all(d.hook for d in voted)
