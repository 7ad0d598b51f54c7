"""An MCP server asking the user for input (`elicitation/create`, the test server's `deploy`
tool) goes through the run's hooks and approver: a hook may answer or decline, else a human
is asked through the approver (no approver: declined, with the reason recorded), and
`elicitation_result` hooks see and may change the answer."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import hookagent as h
from hookagent.capabilities.mcp import MCP, StdioServer
from hookagent.hooks._events import ElicitationEvent
from hookagent.hooks._points import ELICITATION, ELICITATION_RESULT
from hookagent.kernel._approval import Answer, Question
from hookagent.testing import ScriptedModel, reply, tool_call

SERVER = str(Path(__file__).with_name("mcp_server.py"))
pytestmark = pytest.mark.asyncio(loop_scope="module")  # the server's loop


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def mcp() -> AsyncIterator[MCP]:
    async with MCP({"ops": StdioServer(command=sys.executable, args=[SERVER])}) as opened:
        yield opened


def builder(mcp: MCP) -> h.AgentBuilder:
    model = ScriptedModel([tool_call("mcp__ops__deploy"), reply("done")])
    return h.AgentBuilder().model(model).with_(mcp)


def deployed(result: h.RunResult[Any]) -> str:
    return result.tool_calls[0].result.content


async def test_the_approver_is_asked_and_approval_accepts_with_the_forms_defaults(
    mcp: MCP,
) -> None:
    asked: list[Question] = []

    def approver(question: Question) -> Answer:
        asked.append(question)
        return Answer.approve()

    result = await builder(mcp).build().run("ship it", approver=approver)
    assert deployed(result) == "accept: target=staging confirm=False"
    [question] = asked
    assert question.point == "elicitation" and question.hook == "mcp:ask-user"
    assert question.question == "MCP server 'ops' asks (during mcp__ops__deploy): Deploy the build?"


async def test_a_denial_declines(mcp: MCP) -> None:
    result = await builder(mcp).build().run("ship it", approver=lambda q: Answer.deny("no"))
    assert deployed(result) == "decline"


async def test_with_no_approver_the_request_is_declined_with_the_reason_recorded(
    mcp: MCP,
) -> None:
    result = await builder(mcp).build().run("ship it")
    assert deployed(result) == "decline"
    [decision] = result.decisions.at(ELICITATION)
    assert decision.outcome == "block"
    assert "no approver" in (decision.reason or "")


async def test_a_hook_answers_for_the_user_and_nobody_is_asked(mcp: MCP) -> None:
    seen: list[ElicitationEvent] = []

    def answer(event: ElicitationEvent) -> h.HookResult:
        seen.append(event)
        return h.HookResult.modify(action="accept", content={"target": "prod", "confirm": True})

    agent = builder(mcp).on(ELICITATION, answer, match="ops").build()
    result = await agent.run("ship it", approver=lambda q: Answer.deny("never asked"))
    assert deployed(result) == "accept: target=prod confirm=True"
    [event] = seen
    assert (event.server, event.message, event.mode) == ("ops", "Deploy the build?", "form")
    assert event.tool_name == "mcp__ops__deploy"
    assert event.call_id == result.tool_calls[0].call_id
    assert set(event.requested_schema["properties"]) == {"target", "confirm"}


async def test_a_hook_that_blocks_declines(mcp: MCP) -> None:
    agent = builder(mcp).on(ELICITATION, lambda e: h.HookResult.block("not from CI")).build()
    result = await agent.run("ship it", approver=lambda q: Answer.approve())
    assert deployed(result) == "decline"


async def test_an_elicitation_result_hook_sees_and_changes_the_answer(mcp: MCP) -> None:
    seen: list[tuple[str | None, Any]] = []

    def second_thoughts(event: ElicitationEvent) -> h.HookResult:
        seen.append((event.action, event.content))
        return h.HookResult.modify(action="cancel", content=None)

    agent = builder(mcp).on(ELICITATION_RESULT, second_thoughts).build()
    result = await agent.run("ship it", approver=lambda q: Answer.approve())
    assert deployed(result) == "cancel"
    assert seen == [("accept", {"target": "staging", "confirm": False})]
