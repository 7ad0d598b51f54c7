"""The inbox pages: signing in with a token sets a signed HttpOnly cookie, the inbox shows a
paused run's question, a form post with the session's CSRF token answers it (the run then
resumes), a wrong or missing CSRF token is 403, and markup from the store is escaped."""

from __future__ import annotations

import re

import hookagent as h
from hookagent.capabilities.audit._capability import AuditTrail
from hookagent.testing import ScriptedModel, turn

from .conftest import World, deploy

MARKUP = "<script>alert('x')</script>"


async def sign_in(world: World, role: str = "approver") -> str:
    """Sign the client in with the token of `role`; the CSRF token of the inbox page."""
    secret = {"viewer": world.viewer, "approver": world.approver, "admin": world.admin}[role]
    response = await world.client.post(
        "/ui/login",
        data={
            "token": secret["Authorization"].removeprefix("Bearer "),
            "csrf": csrf_of((await world.client.get("/ui/login")).text),
        },
    )
    assert response.status_code == 303 and response.headers["location"] == "/ui"
    [cookie] = [c for c in response.headers.get_list("set-cookie") if "_session=" in c]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "hka_" not in cookie
    page = await world.client.get("/ui")
    assert page.status_code == 200
    return csrf_of(page.text)


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found
    return found.group(1)


async def question_id(world: World) -> str:
    [question] = await world.store.questions(world.run_id)
    return question.id


async def test_without_a_session_pages_lead_to_the_login_form(world: World) -> None:
    assert (await world.client.get("/")).headers["location"] == "/ui"
    for path in ("/ui", f"/ui/runs/{world.run_id}"):
        response = await world.client.get(path)
        assert response.status_code == 303 and response.headers["location"] == "/ui/login"
    form = await world.client.get("/ui/login")
    assert form.status_code == 200 and 'name="token"' in form.text
    assert (
        'name="viewport"' in form.text
        and "script-src 'self'" in form.headers["content-security-policy"]
    )
    nonce = csrf_of(form.text)
    wrong = await world.client.post("/ui/login", data={"token": "hka_nope", "csrf": nonce})
    assert wrong.status_code == 401 and "unknown or revoked" in wrong.text
    assert all("_session=" not in c for c in wrong.headers.get_list("set-cookie"))


async def test_the_login_form_needs_its_csrf_token(world: World) -> None:
    """Another site cannot sign a browser in: its post carries no SameSite=Strict nonce."""
    secret = world.approver["Authorization"].removeprefix("Bearer ")
    blind = await world.client.post("/ui/login", data={"token": secret})
    assert blind.status_code == 403 and "CSRF" in blind.json()["detail"]
    nonce = csrf_of((await world.client.get("/ui/login")).text)
    forged = await world.client.post("/ui/login", data={"token": secret, "csrf": nonce + "x"})
    assert forged.status_code == 403 and "set-cookie" not in forged.headers
    world.client.cookies.clear()
    cookieless = await world.client.post("/ui/login", data={"token": secret, "csrf": nonce})
    assert cookieless.status_code == 403


async def test_the_inbox_page_shows_the_question_and_a_form_post_approves_it(
    world: World,
) -> None:
    csrf = await sign_in(world)
    page = (await world.client.get("/ui")).text
    for shown in ("deploy", "Deploy to prod?", "user:ask_prod", "ops", "ship it to prod"):
        assert shown in page
    assert "&quot;env&quot;: &quot;prod&quot;" in page and "/ui/static/inbox.js" in page
    qid = await question_id(world)
    response = await world.client.post(
        f"/ui/questions/{qid}/answer",
        data={"csrf": csrf, "decision": "approve", "scope": "run", "reason": "window"},
    )
    assert response.status_code == 303 and response.headers["location"] == "/ui?done=approve"
    after = (await world.client.get("/ui?done=approve")).text
    assert "Approved." in after and "No run waits on a question." in after
    [answered] = await world.store.questions(world.run_id, pending=False)
    assert answered.answer and '"by": "web:approver-alice"' in answered.answer
    assert (await world.resume()).status == "completed"

    stale = await world.client.post(
        f"/ui/questions/{qid}/answer", data={"csrf": csrf, "decision": "deny"}
    )
    assert stale.status_code == 409 and "answered already" in stale.text


async def test_a_form_post_needs_the_sessions_csrf_token(world: World) -> None:
    csrf = await sign_in(world)
    qid = await question_id(world)
    for data in ({"decision": "approve"}, {"decision": "approve", "csrf": csrf + "x"}):
        response = await world.client.post(f"/ui/questions/{qid}/answer", data=data)
        assert response.status_code == 403
        assert response.headers["content-type"] == "application/problem+json"
        assert "CSRF" in response.json()["detail"]
    assert (await world.store.questions(world.run_id))[0].answer is None
    world.client.cookies.clear()
    unsigned = await world.client.post(
        f"/ui/questions/{qid}/answer", data={"decision": "approve", "csrf": csrf}
    )
    assert unsigned.status_code == 403 and "sign in" in unsigned.json()["detail"]


async def test_a_signed_in_viewer_reads_but_cannot_answer(world: World) -> None:
    csrf = await sign_in(world, "viewer")
    page = (await world.client.get("/ui")).text
    assert "Deploy to prod?" in page and 'value="approve"' not in page
    qid = await question_id(world)
    response = await world.client.post(
        f"/ui/questions/{qid}/answer", data={"decision": "approve", "csrf": csrf}
    )
    assert response.status_code == 403 and "viewer" in response.json()["detail"]
    # the cookie reads the JSON endpoints (a page's EventSource sends no header) ...
    assert (await world.client.get("/inbox")).status_code == 200
    # ... and never changes anything
    posted = await world.client.post(f"/questions/{qid}/answer", json={"decision": "approve"})
    assert posted.status_code == 401


async def test_the_run_page_and_signing_out(world: World) -> None:
    csrf = await sign_in(world)
    page = await world.client.get(f"/ui/runs/{world.run_id}")
    assert (
        page.status_code == 200 and world.run_id in page.text and "/ui/static/run.js" in page.text
    )
    assert (await world.client.get("/ui/runs/nope")).status_code == 404
    for name, kind in (("run.js", "javascript"), ("style.css", "css")):
        static = await world.client.get(f"/ui/static/{name}")
        assert static.status_code == 200 and kind in static.headers["content-type"]
    assert (await world.client.get("/ui/static/../app.py")).status_code == 404
    assert (await world.client.post("/ui/logout", data={})).status_code == 403
    out = await world.client.post("/ui/logout", data={"csrf": csrf})
    assert out.status_code == 303 and out.headers["location"] == "/ui/login"
    assert (await world.client.get("/ui")).headers["location"] == "/ui/login"


def ask_always(event: h.ToolCallEvent) -> h.HookResult:
    return h.HookResult.ask(f"Run {event.args['env']}?")


async def test_markup_from_the_store_is_escaped(world: World) -> None:
    paused = await (
        h.AgentBuilder()
        .model(ScriptedModel([turn("ok", {"name": "deploy", "args": {"env": MARKUP}, "id": "x"})]))
        .tools(deploy)
        .store(world.store)
        .on(h.BEFORE_TOOL, ask_always, name="ask_all")
        .with_(AuditTrail(world.audit))
        .build()
        .run(f"title {MARKUP}", session="xss")
    )
    assert paused.status == "waiting"
    await sign_in(world)
    page = (await world.client.get("/ui")).text
    assert MARKUP not in page and "<script>alert" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    run_page = (await world.client.get(f"/ui/runs/{paused.run_id}")).text
    assert MARKUP not in run_page and "&lt;script&gt;" in run_page
