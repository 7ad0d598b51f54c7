"""What the API refuses, each as an RFC 9457 problem and never a traceback: no or a bad
token (401), a role too low (403), a stale answer (409), a bad body (422), a body too large
(413), something missing (404), a store that fails (503)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from hookagent.server._limits import BodyLimit
from hookagent.store import _tokens as tokens

from .conftest import World, bearer


def problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["title"] and body["type"] == "about:blank"
    assert "Traceback" not in response.text
    return body


async def question_id(world: World) -> str:
    [question] = await world.store.questions(world.run_id, pending=False)
    return question.id


async def answer(world: World, body: Any, headers: dict[str, str] | None = None) -> Any:
    qid = await question_id(world)
    return await world.client.post(
        f"/questions/{qid}/answer", json=body, headers=headers or world.approver
    )


@pytest.mark.parametrize(
    "path", ["/sessions", "/sessions/ops", "/inbox", "/runs/x", "/runs/x/messages"]
)
async def test_no_token_is_401_with_a_challenge(world: World, path: str) -> None:
    body = problem(await world.client.get(path), 401)
    assert "hookagent tokens create" in body["detail"]
    response = await world.client.get(path)
    assert response.headers["www-authenticate"].startswith("Bearer")


async def test_an_unknown_malformed_or_revoked_token_is_401(world: World) -> None:
    for secret in ("hka_nope", "not-a-token"):
        problem(await world.client.get("/inbox", headers=bearer(secret)), 401)
    record, secret = await tokens.issue(world.store, "viewer", name="leaver")
    assert (await world.client.get("/inbox", headers=bearer(secret))).status_code == 200
    await tokens.revoke(world.store, record.id)
    body = problem(await world.client.get("/inbox", headers=bearer(secret)), 401)
    assert "unknown or revoked" in body["detail"]
    basic = {"Authorization": "Basic dXNlcjpwYXNz"}
    problem(await world.client.get("/inbox", headers=basic), 401)


async def test_a_viewer_cannot_answer(world: World) -> None:
    body = problem(await answer(world, {"decision": "approve"}, world.viewer), 403)
    assert "viewer-alice" in body["detail"] and "approver" in body["detail"]
    assert await world.store.questions(world.run_id)  # still unanswered


async def test_a_stale_answer_is_409_and_changes_nothing(world: World) -> None:
    first = await answer(world, {"decision": "deny", "reason": "no"})
    assert first.status_code == 200
    body = problem(await answer(world, {"decision": "approve"}), 409)
    assert "answered already" in body["detail"]
    [question] = await world.store.questions(world.run_id, pending=False)
    assert '"approved": false' in (question.answer or "")


async def test_an_answer_about_another_call_than_the_one_reviewed_is_409(world: World) -> None:
    body = problem(await answer(world, {"decision": "approve", "fingerprint": "other"}), 409)
    assert "another call" in body["detail"]
    assert await world.store.questions(world.run_id)


async def test_an_answer_to_a_finished_run_is_409(world: World) -> None:
    qid = await question_id(world)
    await world.client.post(
        f"/questions/{qid}/answer", json={"decision": "approve"}, headers=world.approver
    )
    await world.resume()
    again = await world.client.post(
        f"/questions/{qid}/answer", json={"decision": "approve"}, headers=world.approver
    )
    problem(again, 409)


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"decision": "maybe"}, "body.decision"),
        ({"decision": "approve", "scope": "forever"}, "body.scope"),
        ({"decision": "approve", "ttl": 0}, "body.ttl"),
        ({"decision": "approve", "ttl": "Infinity"}, "body.ttl"),
        ({"decision": "deny", "scope": "session"}, "a denial answers this question only"),
        ({"decision": "approve", "extra": 1}, "body.extra"),
        ({}, "body.decision"),
    ],
)
async def test_a_bad_body_is_422_naming_the_field(world: World, body: Any, where: str) -> None:
    found = problem(await answer(world, body), 422)
    assert where in found["detail"] and found["errors"]
    assert await world.store.questions(world.run_id)  # nothing answered


async def test_a_body_that_is_not_json_is_422(world: World) -> None:
    qid = await question_id(world)
    response = await world.client.post(
        f"/questions/{qid}/answer",
        content=b"{not json",
        headers={**world.approver, "Content-Type": "application/json"},
    )
    problem(response, 422)


async def test_a_body_over_the_limit_is_413_declared_or_streamed(world: World) -> None:
    qid = await question_id(world)
    big = {"decision": "deny", "reason": "x" * 5000}
    problem(await answer(world, big), 413)

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b" " * 1000

    streamed = await world.client.post(
        f"/questions/{qid}/answer",
        content=chunks(),
        headers={**world.approver, "Content-Type": "application/json"},
    )
    assert "content-length" not in {k.lower() for k in streamed.request.headers}
    problem(streamed, 413)
    assert await world.store.questions(world.run_id)


@pytest.mark.parametrize(
    "path", ["/sessions/nope", "/runs/nope", "/runs/nope/steps", "/questions/nope", "/nowhere"]
)
async def test_what_is_missing_is_404(world: World, path: str) -> None:
    body = problem(await world.client.get(path, headers=world.viewer), 404)
    assert "nope" in body["detail"] or "GET /nowhere" in body["detail"]


async def test_a_bad_query_is_422(world: World) -> None:
    for params in ({"limit": 0}, {"offset": -1}, {"status": "sleeping"}):
        problem(await world.client.get("/sessions", params=params, headers=world.viewer), 422)


async def test_a_failing_store_is_503_and_its_log_says_why(world: World) -> None:
    headers = world.viewer
    await world.store.close()
    body = problem(await world.client.get("/inbox", headers=headers), 503)
    assert "the store failed" in body["detail"]
    assert world.store.url not in body["detail"]  # the caller may not be anyone yet


async def test_a_content_length_that_is_not_a_number_is_400() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the request reached the app")

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "headers": [(b"content-length", b"12x")], "method": "POST"}
    await BodyLimit(app, 100)(scope, receive, send)
    assert sent[0]["status"] == 400
    assert b"Content-Length header is not a number" in sent[1]["body"]


async def test_of_two_answers_given_at_once_one_is_recorded_and_the_other_is_409(
    world: World,
) -> None:
    qid = await question_id(world)
    responses = await asyncio.gather(
        *(
            world.client.post(
                f"/questions/{qid}/answer", json={"decision": decision}, headers=world.approver
            )
            for decision in ("approve", "deny")
        )
    )
    assert sorted(r.status_code for r in responses) == [200, 409]
    [won] = [r.json()["question"]["answer"] for r in responses if r.status_code == 200]
    [question] = await world.store.questions(world.run_id, pending=False)
    assert json.loads(question.answer or "{}") == won
