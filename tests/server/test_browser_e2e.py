"""The inbox in a real browser: headless Chromium (driven by Playwright, installed by
`browser_setup`) against `hookagent serve` run as a subprocess over a SQLite store, while
`hookagent run --session` and `hookagent worker` run in processes of their own.

A question asked in another process appears on an open inbox, an approver approves it with
a click, and the run page, left open, shows the worker completing the run; a viewer sees
no form and watches the question go, a tampered CSRF field is refused, and a second answer
from a page that missed the first shows the 409's message. The first test saves a
screenshot of the inbox (desktop and phone width side by side) to `$HOOKAGENT_SCREENSHOT`
when set: the README's `docs/inbox.png` is made so."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from cli.run_cli import hookagent
from cli.test_serve_cli import serve, tokens
from cli.test_sessions_cli import PLUGIN, SCRIPT, deployed, start
from hookagent.store._sqlite import SQLiteStore
from hookagent.testing import turn

from . import browser_setup
from .conftest import agent

pytestmark = pytest.mark.browser

playwright_sync = pytest.importorskip(
    "playwright.sync_api",
    reason="the Python package playwright is not installed: install the dev extra "
    "(pip install -e '.[dev]', as make does)",
)
Browser = playwright_sync.Browser
BrowserContext = playwright_sync.BrowserContext
Page = playwright_sync.Page
expect = playwright_sync.expect

SCREENSHOT_ENV = "HOOKAGENT_SCREENSHOT"
CHROMIUM_ARGS = [
    # no GPU, no sandbox (root in a container), nothing fetched from the network on start
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 30_000
"""How long a page may take to show what a process recorded (streams poll every 0.5 s)."""
DESKTOP = {"width": 1000, "height": 640}
PHONE = {"width": 390, "height": 640}
expect.set_options(timeout=WAIT_MS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    path = browser_setup.ensure_chromium()
    if path is None:
        pytest.skip(f"no Chromium for the browser tests: {browser_setup.reason()}")
    with playwright_sync.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@dataclass
class Served:
    project: Path
    url: str
    approver: str
    viewer: str


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """`hookagent serve` over the project's store (made by a first token), an approver
    token `oncall` and a viewer token `auditor`; stopped with Ctrl-C afterwards."""
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    approver = tokens(tmp_path, "create", "--role", "approver", "--name", "oncall")["token"]
    viewer = tokens(tmp_path, "create", "--role", "viewer", "--name", "auditor")["token"]
    server, url = serve(tmp_path)
    try:
        yield Served(tmp_path, url, approver, viewer)
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=30)
    assert server.returncode == 0, stderr
    assert "Traceback" not in stderr


class Contexts:
    """Browser contexts (each a browser profile of its own) that note every script error,
    Content-Security-Policy violation included, of their pages."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.opened: list[BrowserContext] = []
        self.errors: list[str] = []

    def open(self, viewport: Any) -> BrowserContext:
        made = self.browser.new_context(viewport=viewport)
        made.set_default_timeout(WAIT_MS)
        made.on("weberror", lambda error: self.errors.append(str(error.error)))
        made.on("console", self._console)
        self.opened.append(made)
        return made

    def _console(self, message: playwright_sync.ConsoleMessage) -> None:
        # a page answered 403 or 409, or a stream cut on purpose, is logged as a failed load
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.errors.append(message.text)


@pytest.fixture
def contexts(browser: Browser) -> Iterator[Contexts]:
    made = Contexts(browser)
    yield made
    for context in made.opened:
        context.close()
    assert made.errors == [], "the pages' scripts failed"


@pytest.fixture
def context(contexts: Contexts) -> BrowserContext:
    return contexts.open(DESKTOP)


def sign_in(context: BrowserContext, url: str, token: str) -> Page:
    """A page of `context` on the inbox, signed in with `token` through the login form."""
    page = context.new_page()
    page.goto(f"{url}/ui")
    expect(page).to_have_url(f"{url}/ui/login")  # no sign-in: the login form
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{url}/ui")
    return page


def card(page: Page) -> playwright_sync.Locator:
    return page.locator("article[data-question]")


def save_screenshot(page: Page, browser: Browser, folder: Path) -> Path:
    """The inbox at desktop and phone width, side by side, as one PNG in `folder`; copied
    to `$HOOKAGENT_SCREENSHOT` when set."""
    shots = []
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        shots.append(base64.b64encode(page.screenshot(full_page=True)).decode())
    page.set_viewport_size(DESKTOP)
    sheet = browser.new_page(
        viewport={"width": DESKTOP["width"] + PHONE["width"] + 48, "height": 100}
    )
    sheet.set_content(
        '<body style="margin:0;padding:16px;background:#d9dcd6;display:flex;gap:16px;'
        'align-items:flex-start;width:max-content">'
        + "".join(
            f'<img style="box-shadow:0 1px 6px #0004" src="data:image/png;base64,{shot}">'
            for shot in shots
        )
        + "</body>"
    )
    path = folder / "inbox.png"
    sheet.screenshot(path=path, full_page=True)
    sheet.close()
    target = os.environ.get(SCREENSHOT_ENV, "").strip()
    if target:
        shutil.copyfile(path, target)
    return path


def test_a_question_from_another_process_is_approved_with_a_click_and_a_worker_completes_it(
    served: Served, context: BrowserContext, browser: Browser, tmp_path: Path
) -> None:
    inbox = sign_in(context, served.url, served.approver)
    expect(inbox.locator("nav .who")).to_have_text("oncall (approver)")
    expect(inbox.locator("#inbox")).to_have_text("No run waits on a question.")

    paused = start(served.project, "release", prompt="Ship build 1432 to prod")
    expect(card(inbox)).to_have_count(1)  # the open page follows the inbox stream
    question = card(inbox)
    expect(question.locator("h2")).to_have_text("deploy")
    expect(question).to_contain_text("Deploy to prod?")
    expect(question.locator("dd").nth(0)).to_have_text("release: Ship build 1432 to prod")
    expect(question.locator("dd").nth(1)).to_have_text(paused["run_id"])
    expect(question.locator("dd").nth(2)).to_have_text("user:ask_prod at before_tool")
    expect(question.locator("dd").nth(4)).to_have_text("never, then deny")
    assert json.loads(question.locator("pre").inner_text()) == {"env": "prod"}

    shot = save_screenshot(inbox, browser, tmp_path)
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    run = context.new_page()  # the run page, open while the worker resumes the run
    run.goto(f"{served.url}/ui/runs/{paused['run_id']}")
    expect(run.locator("#status")).to_have_text("waiting")
    expect(run.locator("#timeline")).to_contain_text('deploy {"env":"prod"}: planned')

    question.get_by_label("Scope").select_option("run")
    question.get_by_label("Reason").fill("release window")
    question.get_by_role("button", name="Approve").click()
    expect(inbox).to_have_url(f"{served.url}/ui?done=approve")
    expect(inbox.get_by_role("alert")).to_have_text("Approved.")
    expect(card(inbox)).to_have_count(0)
    assert deployed(served.project) == []  # answered, not yet resumed

    worked = hookagent(served.project, "worker", "--once")
    assert worked.returncode == 0, worked.stderr
    assert f"run {paused['run_id']} · session release · completed" in worked.stdout
    expect(run.locator("#status")).to_have_text("completed")
    timeline = run.locator("#timeline")
    expect(timeline).to_contain_text('deploy {"env":"prod"}: done')
    expect(timeline.locator("li").last).to_contain_text("completed (completed)")
    expect(timeline).to_contain_text("approved by web:oncall")  # who answered, in its decision
    assert deployed(served.project) == ["deployed prod"]
    shown = json.loads(hookagent(served.project, "sessions", "show", "release", "--json").stdout)
    assert any("web:oncall" in (d["answer"] or "") for d in shown["decisions"])


def test_a_viewer_sees_no_form_a_bad_csrf_is_refused_and_a_stale_answer_shows_the_409(
    served: Served, contexts: Contexts, context: BrowserContext
) -> None:
    start(served.project, "ops")
    viewing = contexts.open(PHONE)
    viewer = sign_in(viewing, served.url, served.viewer)
    expect(card(viewer)).to_have_count(1)
    expect(card(viewer).locator("form")).to_have_count(0)
    expect(card(viewer)).to_contain_text("Your token may read only")

    fresh = sign_in(context, served.url, served.approver)
    stale = context.new_page()  # a second tab whose inbox stream is cut: it keeps its form
    stale.route("**/inbox/events", lambda route: route.abort())
    stale.goto(f"{served.url}/ui")
    expect(card(stale)).to_have_count(1)

    card(fresh).locator("input[name=csrf]").evaluate("field => { field.value = 'forged'; }")
    card(fresh).get_by_role("button", name="Approve").click()
    expect(fresh.locator("body")).to_contain_text("CSRF token is missing or wrong")
    fresh.goto(f"{served.url}/ui")  # nothing was recorded: the question still waits
    card(fresh).get_by_label("Reason").fill("not in the release window")
    card(fresh).get_by_role("button", name="Deny").click()
    expect(fresh.get_by_role("alert")).to_have_text("Denied.")

    expect(card(viewer)).to_have_count(0)  # the viewer's page follows the answer
    expect(viewer.locator("#inbox")).to_have_text("No run waits on a question.")

    asked = card(stale).get_attribute("data-question")
    with stale.expect_response(lambda r: r.request.method == "POST") as posted:
        card(stale).get_by_role("button", name="Approve").click()
    assert posted.value.status == 409
    expect(stale.get_by_role("alert")).to_contain_text(f"question {asked} was answered already")
    headers = {"Authorization": f"Bearer {served.viewer}"}
    answered = httpx2.get(f"{served.url}/questions/{asked}", headers=headers, timeout=10).json()
    answer = answered["answer"]  # the denial, by whoever gave it; nothing of the forged post
    assert (answer["approved"], answer["reason"], answer["by"]) == (
        False,
        "not in the release window",
        "web:oncall",
    )


def test_a_question_past_its_expiry_is_marked_on_the_page_which_does_not_reload(
    served: Served, context: BrowserContext
) -> None:
    """The inbox stream tells every client that connects of a question already expired (its
    run waits for a worker to take the default): the page marks it in place, where reloading
    for it would reload forever."""
    plugin = served.project / "plugin.py"
    plugin.write_text(PLUGIN.replace('ask("Deploy to prod?")', 'ask("Deploy to prod?", timeout=1)'))
    start(served.project, "ops")
    inbox = sign_in(context, served.url, served.approver)
    expect(card(inbox)).to_have_count(1)
    inbox.wait_for_load_state("load")
    loads: list[str] = []
    inbox.on("load", lambda page: loads.append(page.url))
    expect(card(inbox).locator(".message")).to_have_text(
        "Expired: its run takes the default (deny) when it resumes."
    )
    expect(card(inbox)).to_have_class("card expired")
    inbox.wait_for_timeout(3_000)  # six polls of the stream
    assert loads == []
    expect(card(inbox)).to_have_count(1)


async def pause_runs(project: Path, count: int) -> None:
    """`count` runs of sessions of their own, each paused on a question, in the project's
    store: made by the real kernel, in this process."""
    store = SQLiteStore(project / ".hookagent" / "sessions.db")
    await store.open()
    try:
        for index in range(count):
            call = turn("Deploying.", {"name": "deploy", "args": {"env": "prod"}, "id": "c1"})
            paused = await agent(store, project / "audit.jsonl", call).run(
                "ship it", session=f"ship-{index}"
            )
            assert paused.status == "waiting"
    finally:
        await store.close()


def test_an_inbox_longer_than_the_page_does_not_reload_it(
    served: Served, context: BrowserContext
) -> None:
    """The page shows the newest questions, as many as the inbox stream follows: a question
    the stream names is one the page shows (or one asked since), never one it leaves out."""
    with ThreadPoolExecutor(1) as thread:  # Playwright's loop holds this thread
        thread.submit(asyncio.run, pause_runs(served.project, 201)).result()
    inbox = sign_in(context, served.url, served.approver)
    inbox.wait_for_load_state("load")
    expect(card(inbox)).to_have_count(200)
    loads: list[str] = []
    inbox.on("load", lambda page: loads.append(page.url))
    inbox.wait_for_timeout(3_000)  # six polls of the stream
    assert loads == []
