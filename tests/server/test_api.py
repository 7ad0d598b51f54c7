"""The HTTP API over a real store: lists and pages, the inbox, answering a question (the run
then resumes and completes), denying one; every answer names the approver's token."""

from __future__ import annotations

import json
from typing import Any

from .conftest import SECRET_METADATA, World

ROWS = ("messages", "steps", "tool-calls", "decisions")


async def get(world: World, path: str, **params: Any) -> Any:
    response = await world.client.get(path, params=params, headers=world.viewer)
    assert response.status_code == 200, response.text
    return response.json()


async def test_sessions_are_listed_in_pages_filtered_by_status_and_searched(world: World) -> None:
    first = await get(world, "/sessions", limit=2)
    assert [s["name"] for s in first["items"]] == ["ops", "beta"]
    assert (first["limit"], first["offset"], first["next_offset"]) == (2, 0, 2)
    second = await get(world, "/sessions", limit=2, offset=2)
    assert [s["name"] for s in second["items"]] == ["alpha"] and second["next_offset"] is None

    waiting = await get(world, "/sessions", status="waiting")
    assert [(s["name"], s["title"]) for s in waiting["items"]] == [("ops", "ship it to prod")]
    assert [s["name"] for s in (await get(world, "/sessions", search="HI BE"))["items"]] == ["beta"]


async def test_a_session_its_runs_and_a_runs_rows(world: World) -> None:
    detail = await get(world, "/sessions/ops")
    assert detail["session"]["status"] == "waiting"
    [run] = detail["runs"]
    assert run["id"] == world.run_id and run["prompt"] == "ship it to prod"

    shown = await get(world, f"/runs/{world.run_id}")
    assert shown["status"] == "waiting" and "input_tokens" in shown["usage"]
    [question] = shown["questions"]
    assert question["tool"] == "deploy" and question["args"] == {"env": "prod"}

    messages = await get(world, f"/runs/{world.run_id}/messages", limit=1)
    assert [m["role"] for m in messages["items"]] == ["user"] and messages["next_offset"] == 1
    later = await get(world, f"/runs/{world.run_id}/messages", offset=1)
    assert [m["role"] for m in later["items"]] == ["assistant"]
    assert (await get(world, f"/runs/{world.run_id}/steps"))["items"] == []  # not finished
    calls = (await get(world, f"/runs/{world.run_id}/tool-calls"))["items"]
    assert [(c["call_id"], c["name"], c["args"]) for c in calls] == [
        ("c1", "deploy", {"env": "prod"})
    ]
    assert isinstance((await get(world, f"/runs/{world.run_id}/decisions"))["items"], list)


async def test_the_inbox_shows_each_waiting_question_with_its_session_hook_call_and_expiry(
    world: World,
) -> None:
    inbox = await get(world, "/inbox")
    [item] = inbox["items"]
    assert item["session"]["name"] == "ops" and item["session"]["title"] == "ship it to prod"
    assert (item["hook"], item["point"], item["question"]) == (
        "user:ask_prod",
        "before_tool",
        "Deploy to prod?",
    )
    assert (item["tool"], item["args"], item["call_id"]) == ("deploy", {"env": "prod"}, "c1")
    assert item["expires_at"] is None and item["default"] == "deny"
    assert item["expired"] is False and item["answer"] is None and item["fingerprint"]
    assert inbox["next_offset"] is None


async def test_an_approval_lets_the_run_resume_and_names_the_approver(world: World) -> None:
    [item] = (await get(world, "/inbox"))["items"]
    response = await world.client.post(
        f"/questions/{item['id']}/answer",
        json={
            "decision": "approve",
            "scope": "run",
            "ttl": 600,
            "reason": "release window",
            "fingerprint": item["fingerprint"],
        },
        headers=world.approver,
    )
    assert response.status_code == 200, response.text
    answer = response.json()["question"]["answer"]
    assert answer == {
        "approved": True,
        "reason": "release window",
        "by": "api:approver-alice",
        "scope": "run",
        "ttl": 600,
        "updated_args": None,
    }
    assert (await get(world, "/inbox"))["items"] == []

    resumed = await world.resume()
    assert resumed.status == "completed" and resumed.output == "Deployed."
    assert resumed.steps[0].executions[0].result.content == "deployed to prod"
    decisions = (await get(world, f"/runs/{world.run_id}/decisions"))["items"]
    asked = [d for d in decisions if d.get("outcome") == "ask"]
    assert asked and "api:approver-alice" in asked[0]["answer"]
    trail = [json.loads(line) for line in world.audit.read_text().splitlines()]
    assert any("api:approver-alice" in str(r.get("answer")) for r in trail)
    assert (await get(world, f"/runs/{world.run_id}"))["status"] == "completed"
    steps = (await get(world, f"/runs/{world.run_id}/steps"))["items"]
    assert [s["index"] for s in steps] == [1, 2]


async def test_a_denial_blocks_the_call_with_its_reason(world: World) -> None:
    [item] = (await get(world, "/inbox"))["items"]
    response = await world.client.post(
        f"/questions/{item['id']}/answer",
        json={"decision": "deny", "reason": "not on a Friday"},
        headers=world.admin,
    )
    assert response.status_code == 200, response.text
    assert response.json()["question"]["answer"]["by"] == "api:admin-alice"
    resumed = await world.resume()
    blocked = resumed.steps[0].executions[0].result
    assert blocked.is_error and "not on a Friday" in blocked.content


async def test_no_response_holds_the_runs_metadata(world: World) -> None:
    seen = [
        await get(world, "/sessions"),
        await get(world, "/sessions/ops"),
        await get(world, f"/runs/{world.run_id}"),
        await get(world, "/inbox"),
        *[await get(world, f"/runs/{world.run_id}/{rows}") for rows in ROWS],
    ]
    text = json.dumps(seen)
    assert SECRET_METADATA["api_key"] not in text and "metadata" not in text


async def test_the_openapi_schema_lists_the_endpoints(world: World) -> None:
    response = await world.client.get("/openapi.json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in ("/sessions", "/inbox", "/questions/{question_id}/answer", "/runs/{run_id}/steps"):
        assert path in paths
    components = response.json()["components"]
    assert "HTTPBearer" in components["securitySchemes"]
    assert {"QuestionOut", "Page_QuestionOut_", "RunDetail", "ProblemOut"} <= set(
        components["schemas"]
    )
    answer = paths["/questions/{question_id}/answer"]["post"]["responses"]
    assert {"200", "401", "403", "409", "413", "422"} <= set(answer)
