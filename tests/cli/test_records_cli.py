"""What `hookagent run` shows and records of each call: the hook that added context, with the
start of its text; no "ran as" for a call that did not run; the arguments a tool ran with (its
own `prepare` included) and every attempt, error-policy retries counted."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from . import run_cli

PLUGIN = textwrap.dedent(
    '''
    import hookagent as h

    tries = 0

    @h.tool
    def flaky() -> str:
        """Fail once, then succeed."""
        global tries
        tries += 1
        if tries < 2:
            raise ConnectionError("try again")
        return "ok"

    def remind(event):
        if event.tool_name == "Read":
            return h.HookResult.context("Files here are generated.\\nDo not edit them by hand.")
        return None

    def rewrite_then_block(event):
        if event.tool_name == "Write":
            return h.HookResult.modify(args={**event.args, "content": "rewritten"})
        return None

    def block_writes(event):
        if event.tool_name == "Write":
            return h.HookResult.block("no writes here")
        return None

    def configure(builder):
        builder.tools(flaky)
        builder.error_policy(h.ErrorPolicy({"tool": "retry"}, max_retries=3))
        builder.on(h.BEFORE_TOOL, remind, name="remind")
        builder.on(h.BEFORE_TOOL, rewrite_then_block, name="rewrite", priority=5)
        builder.on(h.BEFORE_TOOL, block_writes, name="guard")
    '''
)

TURNS = [
    {
        "tool_calls": [
            {"name": "Read", "args": {"file_path": "notes.txt"}, "id": "r1"},
            {"name": "Write", "args": {"file_path": "out.txt", "content": "x"}, "id": "w1"},
            {"name": "flaky", "args": {}, "id": "f1"},
        ]
    },
    {"text": "done"},
]


def _project(tmp_path: Path) -> Path:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(TURNS))
    (tmp_path / "notes.txt").write_text("hello\n")
    return tmp_path


def _run(tmp_path: Path, *more: str) -> tuple[int, str, str]:
    args = ("run", "go", "-m", "scripted:turns.json", "-p", "plugin.py", "--root", ".", *more)
    done = run_cli.hookagent(_project(tmp_path), *args)
    return done.returncode, done.stdout, done.stderr


def test_the_live_view_names_the_hook_that_added_context_with_an_excerpt(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path)
    assert code == 0, err
    [line] = [line for line in out.splitlines() if "before_tool: context" in line]
    assert "by user:remind" in line
    assert "added: Files here are generated. ⏎ Do not edit them by hand." in line


def test_a_blocked_call_is_never_shown_as_ran_as(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path)
    assert code == 0, err
    [write_result] = [line for line in out.splitlines() if "[blocked]" in line]
    assert "ran as" not in write_result
    assert "no writes here" in write_result
    assert not (tmp_path / "out.txt").exists()


def test_json_records_prepared_args_attempts_and_the_context_hook(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "--json")
    assert code == 0, err
    result = json.loads(out)
    calls = {call["id"]: call for call in result["tool_calls"]}
    assert calls["r1"]["args"] == {"file_path": str(tmp_path / "notes.txt")}
    assert calls["f1"]["result"] == "ok"
    assert calls["f1"]["attempts"] == 2
    [context] = [d for d in result["decisions"] if d["call_id"] == "r1"]
    assert (context["decision"], context["hook"]) == ("context", "user:remind")
