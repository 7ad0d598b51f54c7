"""`ask`: answered by the approver given to `run`; refused clearly without one."""

from __future__ import annotations

import asyncio

import hookagent as h
from hookagent.store import MemoryStore
from hookagent.testing import reply, tool_call

from .helpers import builder


def ask_for_echo(event: h.ToolCallEvent) -> h.HookResult:
    return h.HookResult.ask(f"Run echo {event.args['text']!r}?", options=("yes", "no"))


async def test_an_approved_call_runs() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    questions: list[h.Question] = []

    def approver(question: h.Question) -> h.Answer:
        questions.append(question)
        return h.Answer.approve("looks fine")

    result = await b.on(h.BEFORE_TOOL, ask_for_echo).build().run("go", approver=approver)
    [call] = result.tool_calls
    assert call.result.content == "hi" and not call.blocked
    [q] = questions
    assert (q.point, q.tool_name, dict(q.args or {})) == ("before_tool", "echo", {"text": "hi"})
    assert q.options == ("yes", "no")
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert decision.answer == "approved: looks fine"


async def test_a_denied_call_is_blocked_with_the_reason() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("ok"))

    async def deny(question: h.Question) -> bool:
        await asyncio.sleep(0)
        return False

    result = await b.on(h.BEFORE_TOOL, ask_for_echo).build().run("go", approver=deny)
    [call] = result.tool_calls
    assert call.blocked
    assert "denied" in call.result.content


async def test_without_an_approver_an_ask_is_refused_with_a_clear_error() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("ok"))
    result = await b.on(h.BEFORE_TOOL, ask_for_echo).build().run("go")
    [call] = result.tool_calls
    assert call.blocked
    assert "no approver" in call.result.content
    assert "pass approver= to run()" in call.result.content


async def test_an_ask_where_block_is_illegal_stops_the_run_when_denied() -> None:
    b, model = builder(reply("unreached"))
    b.on(h.BEFORE_STEP, lambda e: h.HookResult.ask("start a step?"))
    result = await b.build().run("go")
    assert result.status == "stopped"
    assert result.stop_reason == "guard"
    assert model.calls == []


async def test_an_unanswered_question_takes_its_default_after_the_timeout() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    b.on(h.BEFORE_TOOL, lambda e: h.HookResult.ask("ok?", timeout=0.01, default="approve"))

    async def slow(question: h.Question) -> bool:
        await asyncio.sleep(5)
        return False

    result = await b.build().run("go", approver=slow)
    [call] = result.tool_calls
    assert call.result.content == "hi"
    assert "default" in (result.decisions.at(h.BEFORE_TOOL)[0].answer or "")


async def test_a_later_block_wins_over_an_earlier_ask_and_nobody_is_asked() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("ok"))
    asked: list[h.Question] = []
    b.on(h.BEFORE_TOOL, ask_for_echo, priority=10)
    b.on(h.BEFORE_TOOL, lambda e: h.HookResult.block("policy says no"))
    result = await b.build().run("go", approver=lambda q: asked.append(q) or True)
    assert asked == []
    assert result.tool_calls[0].blocked


async def test_asking_fires_a_permission_prompt_notification() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    notes: list[h.NotificationEvent] = []
    b.on(h.BEFORE_TOOL, ask_for_echo)
    b.on(h.NOTIFICATION, notes.append, kind="observer", match="permission_prompt")
    await b.build().run("go", approver=lambda q: True)
    assert [n.kind for n in notes] == ["permission_prompt"]
    assert "Run echo" in notes[0].message


async def test_a_permission_hook_can_answer_for_the_human_and_rewrite_the_call() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    asked: list[h.Question] = []
    b.on(h.BEFORE_TOOL, ask_for_echo)

    def auto_approve(event: h.PermissionEvent) -> h.HookResult:
        answer = h.Answer(approved=True, reason="safe", updated_args={"text": "HI"})
        return h.HookResult.modify(answer=answer)

    b.on(h.PERMISSION_REQUEST, auto_approve, match="echo", kind="transform", name="auto")
    result = await b.build().run("go", approver=lambda q: asked.append(q) or False)
    assert asked == []  # nobody had to be asked
    assert result.tool_calls[0].result.content == "HI"
    decision = result.decisions.at(h.BEFORE_TOOL)[0]
    assert decision.answer == "approved by user:auto: safe"


async def test_a_permission_hook_can_refuse_for_the_human() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("ok"))
    b.on(h.BEFORE_TOOL, ask_for_echo)
    b.on(h.PERMISSION_REQUEST, lambda e: h.HookResult.block("not in policy"), name="deny")
    result = await b.build().run("go", approver=lambda q: True)
    [call] = result.tool_calls
    assert call.blocked and "not in policy" in call.result.content


async def test_a_permission_hook_that_stops_ends_the_run_as_a_stop_anywhere_does() -> None:
    b, model = builder(tool_call("echo", text="hi"), reply("unreached"))
    b.on(h.BEFORE_TOOL, ask_for_echo)
    b.on(h.PERMISSION_REQUEST, lambda e: h.HookResult.stop("policy breach"), name="halt")
    result = await b.build().run("go", approver=lambda q: True)
    assert (result.status, result.stop_reason) == ("stopped", "hook_stop")
    assert result.stop_message == "policy breach (hook user:halt at before_tool)"
    assert result.output is None and model.remaining == 1  # the model was not asked again
    [call] = result.tool_calls
    assert call.blocked and "policy breach" in call.result.content
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert decision.answer == "stopped by user:halt: policy breach"


async def test_a_permission_hook_stop_keeps_its_stop_reason() -> None:
    b, model = builder(tool_call("echo", text="hi"), reply("unreached"))
    b.on(h.BEFORE_TOOL, ask_for_echo)
    done = h.HookResult.stop("nothing left to do", stop_reason="completed")
    b.on(h.PERMISSION_REQUEST, lambda e: done, name="done")
    result = await b.build().run("go", approver=lambda q: True)
    assert (result.status, result.stop_reason) == ("completed", "completed")
    assert "nothing left to do" in (result.stop_message or "") and model.remaining == 1


async def test_a_permission_hook_stop_ends_a_run_kept_in_a_store() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("unreached"))
    b.on(h.BEFORE_TOOL, ask_for_echo)
    b.on(h.PERMISSION_REQUEST, lambda e: h.HookResult.stop("policy breach"), name="halt")
    result = await b.store(MemoryStore()).build().run("go", session="s")
    assert (result.status, result.stop_reason) == ("stopped", "hook_stop")
    assert result.stop_message == "policy breach (hook user:halt at before_tool)"
