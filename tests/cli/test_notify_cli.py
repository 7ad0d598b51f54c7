"""`--notify` of `hookagent run` and `hookagent worker`, run for real as subprocesses: a run
that pauses posts its question (with the stored id and the inbox link) to a loopback
webhook before the command exits; a worker that takes the run up posts the next question;
a webhook that refuses shows as a warning without its secret path, and the run's exit code
is its own; bad URLs are exit 2 naming the option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from capabilities.webhook_server import webhook  # tests/ is on the path, as the root of both

from .run_cli import hookagent
from .test_sessions_cli import PLUGIN, assert_error

INBOX = "http://inbox.example:8765/ui"

SCRIPT = [
    {"text": "Deploying.", "tool_calls": [{"name": "deploy", "args": {"env": "prod"}, "id": "c1"}]},
    {"text": "Again.", "tool_calls": [{"name": "deploy", "args": {"env": "prod"}, "id": "c2"}]},
    {"text": "Done with prod."},
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    return tmp_path


def run(project: Path, *extra: str) -> tuple[int, dict[str, object], str]:
    done = hookagent(
        project,
        "run",
        "ship it",
        "-m",
        "scripted:turns.json",
        "-p",
        "plugin.py",
        "--session",
        "release",
        "--json",
        *extra,
    )
    return done.returncode, json.loads(done.stdout), done.stderr


def test_run_and_worker_post_each_question_with_its_inbox_link(project: Path) -> None:
    with webhook() as hook:
        code, out, stderr = run(project, "--notify", hook.url, "--notify-inbox", INBOX)
        assert code == 3, stderr
        [asked] = out["questions"]  # type: ignore[misc]
        [body] = hook.bodies
        assert body["question_id"] == asked["id"]
        assert (body["tool"], body["args"], body["session_name"]) == (
            "deploy",
            {"env": "prod"},
            "release",
        )
        assert body["link"] == f"{INBOX}#q-{asked['id']}"
        assert body["text"].startswith('Approval needed: deploy(env="prod") · ')

        approved = hookagent(project, "approve", "release")
        assert approved.returncode == 0, approved.stderr
        worker = hookagent(project, "worker", "--once", "--notify", hook.url, "--json")
        assert worker.returncode == 0, worker.stderr
        events = [json.loads(line) for line in worker.stdout.splitlines()]
        assert [e["status"] for e in events if e["event"] == "run"] == ["waiting"]
        assert [b["call_id"] for b in hook.bodies] == ["c1", "c2"]
        assert hook.bodies[1]["question_id"] not in (None, asked["id"])
        assert hook.bodies[1]["link"] is None  # this worker was given no inbox


def test_a_refusing_webhook_is_a_warning_and_the_run_keeps_its_exit_code(project: Path) -> None:
    with webhook([404], path="/services/T0/B0/SECRET-PATH") as hook:
        code, out, stderr = run(project, "--notify", hook.url)
    assert code == 3 and out["status"] == "waiting"
    port = hook.url.split(":")[2].split("/")[0]
    assert (
        f"warning: notification of question {out['questions'][0]['id']} of run "  # type: ignore[index]
        f"{out['run_id']} to http://127.0.0.1:{port}/… failed after 1 attempt: HTTP 404"
    ) in stderr
    assert "SECRET" not in stderr


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--notify", "hooks.example.com/x"], "--notify: must be an http:// or https:// URL"),
        (["--notify", "https://h.example/x", "--notify-inbox", "ui"], "--notify-inbox: must be"),
        (["--notify-inbox", "http://h.example/ui"], "--notify-inbox: links the messages of"),
    ],
)
def test_bad_notify_options_are_refused_naming_the_option(
    project: Path, args: list[str], named: str
) -> None:
    for command in (["run", "ship it", "-m", "scripted:turns.json"], ["worker", "--once"]):
        assert_error(hookagent(project, *command, *args), named)


def test_submit_refuses_notify_naming_the_worker(project: Path) -> None:
    done = hookagent(
        project, "submit", "ship it", "-m", "scripted:turns.json", "--notify", "http://h.x/"
    )
    assert_error(done, "--notify: a queued run asks its questions in the worker")


def test_resume_posts_the_questions_the_run_asks_from_there(project: Path) -> None:
    with webhook() as hook:
        code, _, stderr = run(project)  # no --notify: the first question is not posted
        assert code == 3, stderr
        assert hook.bodies == []
        approved = hookagent(project, "approve", "release")
        assert approved.returncode == 0, approved.stderr
        resumed = hookagent(
            project, "resume", "release", "--notify", hook.url, "--notify-inbox", INBOX, "--json"
        )
        assert resumed.returncode == 3, resumed.stderr  # paused again, at the second call
        [asked] = json.loads(resumed.stdout)["questions"]
        [body] = hook.bodies
        assert (body["call_id"], body["question_id"]) == ("c2", asked["id"])
        assert body["link"] == f"{INBOX}#q-{asked['id']}"


@pytest.mark.parametrize("command", [["resume", "release"], ["serve", "--port", "0"]])
def test_resume_and_serve_refuse_bad_notify_options_naming_them(
    project: Path, command: list[str]
) -> None:
    assert_error(hookagent(project, *command, "--notify", "ftp://h.example/x"), "--notify:")
    assert_error(
        hookagent(project, *command, "--notify-inbox", "http://h.example/ui"), "--notify-inbox:"
    )
