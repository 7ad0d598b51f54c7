"""The inbox shows what hooks before the asking one rewrote in a call's arguments: the
arguments as the model gave them and a per-argument diff, in `GET /inbox` and on the page
(escaped); a call no hook rewrote shows none."""

from __future__ import annotations

from typing import Any

import hookagent as h
from hookagent.testing import ScriptedModel, turn

from .conftest import World
from .test_pages import MARKUP, sign_in

GIVEN = {"env": "staging", "note": MARKUP, "force": True}


@h.tool
def deploy(env: str, note: str = "", force: bool = False, dry_run: bool = False) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


def retarget(event: h.ToolCallEvent) -> h.HookResult:
    args = {k: v for k, v in event.args.items() if k != "force"}
    return h.HookResult.modify(args={**args, "env": "prod", "dry_run": True})


def ask(event: h.ToolCallEvent) -> h.HookResult:
    return h.HookResult.ask("Deploy to prod?")


async def rewritten_run(world: World) -> str:
    """A run paused on a question about a call an earlier hook retargeted."""
    call = {"name": "deploy", "args": GIVEN, "id": "c9"}
    agent = (
        h.AgentBuilder()
        .model(ScriptedModel([turn("Deploying.", call)]))
        .tools(deploy)
        .store(world.store)
        .on(h.BEFORE_TOOL, retarget, name="retarget")
        .on(h.BEFORE_TOOL, ask, name="ask_all")
        .build()
    )
    paused = await agent.run("ship it to staging", session="rw")
    assert paused.status == "waiting"
    return paused.run_id


async def inbox(world: World) -> dict[str, Any]:
    response = await world.client.get("/inbox", headers=world.viewer)
    assert response.status_code == 200, response.text
    return {item["run_id"]: item for item in response.json()["items"]}


async def test_the_inbox_shows_the_arguments_given_and_what_hooks_changed(world: World) -> None:
    run_id = await rewritten_run(world)
    items = await inbox(world)
    item = items[run_id]
    assert item["args"] == {"env": "prod", "note": MARKUP, "dry_run": True}
    assert item["original_args"] == GIVEN
    assert item["rewritten"] == [
        {"key": "dry_run", "before": None, "after": True, "change": "added"},
        {"key": "env", "before": "staging", "after": "prod", "change": "changed"},
        {"key": "force", "before": True, "after": None, "change": "removed"},
    ]
    untouched = items[world.run_id]
    assert untouched["original_args"] == untouched["args"] and untouched["rewritten"] == []


async def test_the_inbox_page_shows_the_rewrites_as_a_diff_escaped(world: World) -> None:
    run_id = await rewritten_run(world)
    await sign_in(world)
    page = (await world.client.get("/ui")).text
    card = page[page.index(f'href="/ui/runs/{run_id}"') :]
    card = card[: card.index("</article>")]
    assert "Rewritten by earlier hooks (3 arguments)" in card
    assert "<ins>+ dry_run: true</ins>" in card
    assert "<del>- env: &quot;staging&quot;</del>\n<ins>+ env: &quot;prod&quot;</ins>" in card
    assert "<del>- force: true</del>" in card
    assert "<script>" not in page and "&lt;script&gt;" in card
    other = page[page.index(f'href="/ui/runs/{world.run_id}"') :]
    assert "Rewritten" not in other[: other.index("</article>")]


async def test_one_question_carries_the_same_rewrites_as_its_inbox_item(world: World) -> None:
    run_id = await rewritten_run(world)
    item = (await inbox(world))[run_id]
    response = await world.client.get(f"/questions/{item['id']}", headers=world.viewer)
    assert response.status_code == 200, response.text
    one = response.json()
    assert (one["original_args"], one["rewritten"]) == (item["original_args"], item["rewritten"])
