"""`Notify` on real runs: the kernel asks (an `ask` hook) and a loopback webhook receives
the question, from a run answered in-process by its approver and from a run kept in a store
that pauses (with the question's id, expiry and inbox link); nothing is sent when nobody is
asked, and a resumed run does not send its answered question again."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.notify import Notify
from hookagent.capabilities.notify._payload import inbox_link
from hookagent.durable import _sessions as sessions
from hookagent.store._sqlite import SQLiteStore
from hookagent.testing import ScriptedModel, reply, turn

from .webhook_server import webhook

INBOX = "http://inbox.example:8765/ui"


@h.tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


def ask_prod(event: h.ToolCallEvent) -> h.HookResult | None:
    if event.args["env"] == "prod":
        return h.HookResult.ask("Deploy to prod?", timeout=3600)
    return None


def builder(notify: Notify, *turns: object) -> h.AgentBuilder:
    return (
        h.AgentBuilder()
        .model(ScriptedModel(list(turns)))
        .tools(deploy)
        .on(h.BEFORE_TOOL, ask_prod, name="ask_prod")
        .with_(notify)
    )


def deploying(env: str = "prod") -> Any:
    return turn("Deploying.", {"name": "deploy", "args": {"env": env}, "id": "c1"})


def deploying_again() -> Any:
    return turn("Again.", {"name": "deploy", "args": {"env": "prod"}, "id": "c2"})


async def test_a_question_answered_in_process_is_posted_with_its_fields() -> None:
    with webhook() as hook:
        notify = Notify(hook.url, inbox_url=INBOX, backoff=0.01)
        agent = builder(notify, deploying(), reply("Done.")).build()
        result = await agent.run("ship it", approver=lambda q: h.Answer.approve("ok"))
        await notify.drain()
    assert result.status == "completed"
    [body] = hook.bodies
    assert body["event"] == "question.asked"
    assert body["run_id"] == result.run_id and body["session_id"] is None
    assert body["question_id"] is None  # asked in this process: no stored question
    assert (body["tool"], body["args"], body["call_id"]) == ("deploy", {"env": "prod"}, "c1")
    assert (body["hook"], body["reason"], body["point"]) == (
        "user:ask_prod",
        "Deploy to prod?",
        "before_tool",
    )
    assert (body["default"], body["timeout"]) == ("deny", 3600)
    assert body["expires_at"] == body["asked_at"] + 3600
    assert body["link"] == INBOX
    assert body["text"] == (
        'Approval needed: deploy(env="prod") · user:ask_prod: Deploy to prod? · '
        f"run {result.run_id} · {INBOX}"
    )
    assert hook.received[0]["headers"]["content-type"] == "application/json"
    assert [d.error for d in notify.deliveries] == [None]


async def test_a_run_that_pauses_posts_its_stored_question_and_inbox_link(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "sessions.db")
    await store.open()
    try:
        with webhook() as hook:
            notify = Notify(hook.url, inbox_url=INBOX + "/", backoff=0.01)
            paused = await (
                builder(notify, deploying()).store(store).build().run("ship it", session="ops")
            )
            await notify.drain()
            assert paused.status == "waiting"
            [question] = await store.questions(paused.run_id)
            [body] = hook.bodies
            assert body["question_id"] == question.id
            assert body["expires_at"] == question.expires_at is not None
            assert body["session_id"] == paused.state.session_id
            assert (body["session_name"], body["session_title"]) == ("ops", "ship it")
            assert body["link"] == f"{INBOX}/#q-{question.id}"
            assert "· session ops ·" in body["text"]
            assert body["text"].endswith(f"#q-{question.id}")

            # answered, and resumed by an agent built the same way: nothing new is asked
            await sessions.answer(store, "ops", approved=True)
            resumed = await builder(notify, reply("Done.")).store(store).build().resume("ops")
            await notify.drain()
            assert resumed.status == "completed"
            assert len(hook.bodies) == 1
    finally:
        await store.close()


async def test_a_paused_run_asked_again_posts_the_new_question(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "sessions.db")
    await store.open()
    try:
        with webhook() as hook:
            notify = Notify(hook.url, backoff=0.01)
            await builder(notify, deploying()).store(store).build().run("ship it", session="ops")
            await sessions.answer(store, "ops", approved=True)
            again = await builder(notify, deploying_again()).store(store).build().resume("ops")
            await notify.drain()
            assert again.status == "waiting"
            ids = [q.id for q in await store.questions(again.run_id, pending=False)]
            assert [b["question_id"] for b in hook.bodies] == ids
            assert [b["call_id"] for b in hook.bodies] == ["c1", "c2"]
            assert all(b["link"] is None for b in hook.bodies)  # no inbox_url given
    finally:
        await store.close()


async def test_a_run_kept_in_a_store_that_asks_its_approver_posts_at_once(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "sessions.db")
    await store.open()
    try:
        with webhook() as hook:
            notify = Notify(hook.url, backoff=0.01, find_within=60)
            agent = builder(notify, deploying(), reply("Done.")).store(store).build()
            result = await agent.run("ship it", session="ops", approver=lambda q: True)
            started = time.monotonic()
            await notify.drain()
            assert time.monotonic() - started < 30  # not left looking for a stored question
    finally:
        await store.close()
    assert result.status == "completed"
    [body] = hook.bodies
    assert body["question_id"] is None and body["session_id"] == result.state.session_id
    assert body["expires_at"] == body["asked_at"] + 3600


async def test_nothing_is_posted_when_a_permission_hook_answers_or_nobody_asks() -> None:
    def answer_for_them(event: h.PermissionEvent) -> h.HookResult:
        return h.HookResult.modify(answer=h.Answer.approve("policy"))

    with webhook() as hook:
        notify = Notify(hook.url, backoff=0.01)
        agent = (
            builder(notify, deploying(), reply("Done."), deploying("dev"), reply("Done."))
            .on(h.PERMISSION_REQUEST, answer_for_them, name="auto")
            .build()
        )
        first = await agent.run("ship it")
        second = await agent.run("ship it to dev")
        await notify.drain()
    assert (first.status, second.status) == ("completed", "completed")
    assert hook.bodies == [] and notify.deliveries == ()


async def test_text_escapes_what_slack_would_read_as_markup() -> None:
    with webhook() as hook:
        notify = Notify(hook.url, backoff=0.01)
        agent = (
            h.AgentBuilder()
            .model(ScriptedModel([deploying("<!channel> & prod"), reply("Done.")]))
            .tools(deploy)
            .on(h.BEFORE_TOOL, lambda e: h.HookResult.ask("Go <@U1>?"), name="always")
            .with_(notify)
            .build()
        )
        await agent.run("ship it", approver=lambda q: True)
        await notify.drain()
    [body] = hook.bodies
    assert "&lt;!channel&gt; &amp; prod" in body["text"] and "<!channel>" not in body["text"]
    assert "Go &lt;@U1&gt;?" in body["text"]
    assert body["args"] == {"env": "<!channel> & prod"}  # the fields stay as they are


def test_the_link_leads_to_the_question_card_on_the_inbox_page() -> None:
    pages = pytest.importorskip("hookagent.server._pages")
    item = {"id": "765bf8b2f9e9", "run_id": "r1", "session_id": "s1", "args": {}}
    page = pages.inbox_page([item], csrf="c", who="alice", can_answer=False, message=None)
    link = inbox_link(INBOX, "765bf8b2f9e9")
    assert link is not None and link.startswith(INBOX + "#")
    assert f'<article class="card" id="{link.split("#")[1]}"' in page
