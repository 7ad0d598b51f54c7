"""SessionStart and SessionEnd command hooks inside real runs: context for the first request,
`CLAUDE_ENV_FILE` exports in the Bash tool's commands, the end with its reason."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

import hookagent as h
from hookagent.capabilities.bash import Bash
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import RECORD_STDIN, group, script, settings


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "stdin.jsonl"
    monkeypatch.setenv("RECORD_TO", str(path))
    monkeypatch.delenv("CLAUDE_ENV_FILE", raising=False)
    return path


def seen(record: Path) -> list[tuple[str, str]]:
    """(event, source or reason) of every payload the hooks read."""
    payloads = [json.loads(line) for line in record.read_text().splitlines()]
    return [(p["hook_event_name"], p.get("source") or p.get("reason")) for p in payloads]


def session_settings(tmp_path: Path, start_body: str) -> Path:
    start = script(tmp_path, "start", RECORD_STDIN + start_body)
    end = script(tmp_path, "end", RECORD_STDIN)
    return settings(tmp_path, {"SessionStart": [group(start)], "SessionEnd": [group(end)]})


async def test_session_start_stdout_reaches_the_first_request(tmp_path: Path, record: Path) -> None:
    file = session_settings(tmp_path, "print('branch main, 3 files changed')")
    model = ScriptedModel([reply("ok")])
    agent = h.AgentBuilder().model(model).with_settings(file, project_dir=tmp_path).build()
    result = await agent.run("what changed?")
    assert model.calls[0].messages == 2  # the hook's context, then the prompt
    context, prompt = result.state.messages[:2]
    assert "branch main, 3 files changed" in context.content
    assert prompt.content == "what changed?"
    assert seen(record) == [("SessionStart", "startup"), ("SessionEnd", "other")]


async def test_claude_env_file_exports_reach_the_bash_tool(tmp_path: Path, record: Path) -> None:
    body = """
    with open(os.environ["CLAUDE_ENV_FILE"], "a") as env:
        env.write("export GREETING='hello from the hook'\\n")
    """
    file = session_settings(tmp_path, body)
    agent = (
        h.AgentBuilder()
        .model(ScriptedModel([tool_call("Bash", command="echo $GREETING"), reply("done")]))
        .with_(Bash(tmp_path))
        .with_settings(file, project_dir=tmp_path)
        .build()
    )
    result = await agent.run("greet")
    [call] = result.tool_calls
    assert call.result.content == "hello from the hook"


async def test_a_continued_session_starts_with_resume_and_its_transcript_is_appended(
    tmp_path: Path, record: Path
) -> None:
    count_lines = """
    path = json.loads(data)["transcript_path"]  # `data`: stdin, as RECORD_STDIN read it
    lines = open(path).read().splitlines() if os.path.exists(path) else []
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                             "additionalContext": f"{len(lines)} lines"}}))
    """
    file = session_settings(tmp_path, count_lines)
    store = MemoryStore()
    for prompt in ("first", "second"):
        model = ScriptedModel([reply(f"re: {prompt}")])
        agent = (
            h.AgentBuilder()
            .model(model)
            .store(store)
            .with_settings(file, project_dir=tmp_path)
            .build()
        )
        result = await agent.run(prompt, session="chat")
    assert seen(record) == [
        ("SessionStart", "startup"),
        ("SessionEnd", "other"),
        ("SessionStart", "resume"),
        ("SessionEnd", "other"),
    ]
    session_id = result.state.session_id
    transcript = tmp_path / ".hookagent" / "transcripts" / f"{session_id}.jsonl"
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    texts = [line["message"]["content"][0]["text"] for line in lines]
    assert texts == [
        "<system-reminder>\n0 lines\n</system-reminder>",
        "first",
        "re: first",
        "<system-reminder>\n3 lines\n</system-reminder>",  # the first run's, written once
        "second",
        "re: second",
    ]
    assert all(b["parentUuid"] == a["uuid"] for a, b in itertools.pairwise(lines))
