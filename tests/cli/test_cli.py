"""The `hookagent` command, run for real as a subprocess, and its plugin loader in-process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from hookagent import AgentBuilder, ConfigError, Decision, Vote
from hookagent.cli._render import is_shown
from hookagent.sessions._plugins import apply_plugins, load_plugin

from .run_cli import hookagent

PLUGIN = textwrap.dedent(
    '''
    from hookagent import BEFORE_TOOL, HookResult

    def deploy(target: str) -> str:
        """Deploy the current build."""
        return f"deployed to {target}"

    def no_prod(event):
        if event.args.get("target") == "prod":
            return HookResult.block("production is off limits")
        return None

    def configure(builder):
        builder.tools(deploy)
        builder.on(BEFORE_TOOL, no_prod, match="deploy", name="no_prod")
    '''
)

DEPLOY_SCRIPT = [
    {
        "text": "Deploying.",
        "tool_calls": [
            {"name": "deploy", "args": {"target": "staging"}},
            {"name": "deploy", "args": {"target": "prod"}},
        ],
    },
    {"text": "Staging is deployed; prod was refused."},
]


def write(path: Path, content: Any) -> Path:
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


@pytest.fixture
def deploy(tmp_path: Path) -> Path:
    write(tmp_path / "plugin.py", PLUGIN)
    write(tmp_path / "turns.json", DEPLOY_SCRIPT)
    return tmp_path


# -- run --json ---------------------------------------------------------------------------
def test_json_output_with_plugin_tool_and_blocking_guard(deploy: Path) -> None:
    done = hookagent(
        deploy,
        "run",
        "ship it",
        "--model",
        "scripted:turns.json",
        "--plugin",
        "plugin.py",
        "--json",
    )

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = json.loads(done.stdout)
    assert (out["status"], out["stop_reason"], out["steps"]) == ("completed", "completed", 2)
    assert out["output"] == "Staging is deployed; prod was refused."
    staging, prod = out["tool_calls"]
    assert staging["name"] == "deploy"
    assert staging["args"] == {"target": "staging"}
    assert (staging["result"], staging["is_error"]) == ("deployed to staging", False)
    assert prod["is_error"] and prod["blocked"]
    assert "user:no_prod" in prod["result"]
    assert "production is off limits" in prod["result"]
    blocks = [d for d in out["decisions"] if d["decision"] == "block"]
    assert [(d["point"], d["hook"], d["reason"]) for d in blocks] == [
        ("before_tool", "user:no_prod", "production is off limits")
    ]


def test_unknown_tool_is_an_error_result_naming_it(tmp_path: Path) -> None:
    write(
        tmp_path / "turns.json",
        [{"tool_calls": [{"name": "teleport", "args": {}}]}, {"text": "Could not."}],
    )

    done = hookagent(tmp_path, "run", "go", "--model", "scripted:turns.json", "--json")

    assert done.returncode == 0, done.stderr
    (call,) = json.loads(done.stdout)["tool_calls"]
    assert call["is_error"]
    assert "teleport" in call["result"]


def test_unused_turns_warn_on_stderr_only(tmp_path: Path) -> None:
    write(tmp_path / "turns.json", ["first", "second", "third"])

    done = hookagent(tmp_path, "run", "hi", "--model", "scripted:turns.json", "--json")

    assert done.returncode == 0
    assert json.loads(done.stdout)["output"] == "first"
    assert done.stderr.startswith("warning: 2 scripted turns were not used")


def test_step_limit_flag_stops_the_run_with_exit_zero(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "missing", "args": {}}]}
    write(tmp_path / "turns.json", [call, call, "done"])

    done = hookagent(
        tmp_path, "run", "hi", "--model", "scripted:turns.json", "--json", "--max-steps", "1"
    )

    assert done.returncode == 0
    out = json.loads(done.stdout)
    assert (out["status"], out["stop_reason"]) == ("stopped", "steps_limit")
    assert "2 scripted turns were not used" in done.stderr


def test_a_failed_run_exits_one(tmp_path: Path) -> None:
    write(tmp_path / "turns.json", [{"tool_calls": [{"name": "missing", "args": {}}]}])

    done = hookagent(tmp_path, "run", "hi", "--model", "scripted:turns.json", "--json")

    assert done.returncode == 1
    out = json.loads(done.stdout)
    assert (out["status"], out["stop_reason"]) == ("failed", "error")
    assert "one more" in out["error"]


# -- live view ----------------------------------------------------------------------------
def test_live_view_names_the_blocking_hook_and_its_reason(deploy: Path) -> None:
    done = hookagent(deploy, "run", "ship it", "-m", "scripted:turns.json", "-p", "plugin.py")

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    decision = next(line for line in lines if "decision" in line)
    assert "before_tool: block by user:no_prod" in decision
    assert "production is off limits" in decision
    assert any("[blocked]" in line for line in lines)
    assert "deployed to staging" in done.stdout
    assert "completed" in lines[-2]
    assert "tool_call_presence" not in done.stdout


# -- misuse: exit 2 -----------------------------------------------------------------------
def assert_config_error(done: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr
    for part in parts:
        assert part in done.stderr


def test_missing_script_file(tmp_path: Path) -> None:
    done = hookagent(tmp_path, "run", "hi", "--model", "scripted:nowhere.json")
    assert_config_error(done, "nowhere.json", "cannot read the script")


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    write(tmp_path / "turns.json", '[\n  {"text": "hi",}\n]')
    done = hookagent(tmp_path, "run", "hi", "--model", "scripted:turns.json")
    assert_config_error(done, "turns.json", "not valid JSON", "line 2, column")


def test_malformed_turn_is_named(tmp_path: Path) -> None:
    write(tmp_path / "turns.json", [{"text": "ok"}, {"tool_calls": [{"args": {}}]}])
    done = hookagent(tmp_path, "run", "hi", "--model", "scripted:turns.json")
    assert_config_error(done, "turns.json", "turn 2", "name")


def test_a_script_that_is_not_utf8_is_named_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "turns.json").write_bytes(b'[\n  {"text": "caf\xe9"}\n]')
    done = hookagent(tmp_path, "run", "hi", "--model", "scripted:turns.json")
    assert_config_error(done, "turns.json", "not UTF-8: byte 0xe9 at line 2, column 16")


def test_hostile_model_output_is_shown_and_the_run_completes(tmp_path: Path) -> None:
    text = '[{"text": "odd \\ud800", "tool_calls": [{"name": "x\\udc00", "args": "[[["}]}, "ok"]'
    write(tmp_path / "turns.json", text)
    done = hookagent(tmp_path, "run", "hi", "--model", "scripted:turns.json")
    assert done.returncode == 0, done.stderr
    assert "odd \ufffd" in done.stdout and "Unknown tool 'x\ufffd'" in done.stdout


def test_unknown_provider(tmp_path: Path) -> None:
    done = hookagent(tmp_path, "run", "hi", "--model", "martian:big")
    assert_config_error(done, "unknown model provider 'martian'")


def test_missing_plugin_is_named(tmp_path: Path) -> None:
    write(tmp_path / "turns.json", ["hi"])
    done = hookagent(tmp_path, "run", "hi", "-m", "scripted:turns.json", "-p", "absent.py")
    assert_config_error(done, "plugin absent.py", "no such file")


def test_plugin_by_module_name_from_the_working_directory(deploy: Path) -> None:
    done = hookagent(deploy, "run", "go", "-m", "scripted:turns.json", "-p", "plugin", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tool_calls"][0]["result"] == "deployed to staging"


# -- plugin loading, in-process -----------------------------------------------------------
def test_load_plugin_returns_configure(tmp_path: Path) -> None:
    configure = load_plugin(str(write(tmp_path / "ok_plugin.py", PLUGIN)))
    builder = AgentBuilder()
    configure(builder)
    with pytest.raises(ConfigError, match="registered twice"):
        configure(builder)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x = 1\n", "defines no configure"),
        ("configure = 3\n", "configure is a int, not a function"),
        ("def configure(:\n", "cannot import it: SyntaxError"),
        ("import no_such_module_anywhere\n", "cannot import it: ModuleNotFoundError"),
        ("raise RuntimeError('boom')\n", "cannot import it: RuntimeError: boom"),
    ],
)
def test_broken_plugin_file_is_a_config_error_naming_it(
    tmp_path: Path, source: str, message: str
) -> None:
    path = str(write(tmp_path / "broken.py", source))
    with pytest.raises(ConfigError) as info:
        load_plugin(path)
    assert f"plugin {path}" in str(info.value)
    assert message in str(info.value)


def test_missing_plugin_file_and_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [*sys.path])  # loading by name adds the cwd to it
    with pytest.raises(ConfigError, match=r"plugin nope/p\.py: no such file"):
        load_plugin("nope/p.py")
    with pytest.raises(ConfigError, match="plugin no_such_plugin_module: cannot import it"):
        load_plugin("no_such_plugin_module")


def test_configure_that_raises_is_named(tmp_path: Path) -> None:
    path = str(write(tmp_path / "raises.py", "def configure(builder):\n    builder.nothing()\n"))
    with pytest.raises(ConfigError) as info:
        apply_plugins(AgentBuilder(), [path])
    assert f"plugin {path}: configure(builder) failed: AttributeError" in str(info.value)


def test_plugins_apply_in_order_and_conflicts_name_the_plugin(tmp_path: Path) -> None:
    first = str(write(tmp_path / "first.py", PLUGIN))
    second = str(write(tmp_path / "second.py", PLUGIN))
    with pytest.raises(ConfigError) as info:
        apply_plugins(AgentBuilder(), [first, second])
    assert f"plugin {second}" in str(info.value)
    assert "'deploy' is registered twice" in str(info.value)


# -- which decisions the live view shows --------------------------------------------------
def decision(point: str, outcome: str, hook: str, *votes: Vote) -> Decision:
    return Decision(
        point=point, run_id="r", step=1, call_id=None, outcome=outcome, hook=hook, votes=votes
    )


def test_live_view_hides_only_routine_presence_continues() -> None:
    assert not is_shown(decision("should_continue", "continue", "limits:tool_call_presence"))
    assert not is_shown(decision("before_tool", "proceed", "user:x"))
    assert is_shown(decision("should_continue", "continue", "user:keep_going"))
    assert is_shown(decision("should_continue", "stop", "limits:step_limit"))
    assert is_shown(decision("before_tool", "modify", "user:x"))
    failed = Vote(hook="user:x", decision="proceed", error="ValueError: bad")
    assert is_shown(decision("after_tool", "proceed", "user:x", failed))


# -- --max-cost ---------------------------------------------------------------------------
def test_cost_limit_flag_stops_the_run_with_exit_zero(tmp_path: Path) -> None:
    # gpt-4.1-mini lists at $0.40 in and $1.60 out per million tokens: $0.0056 a turn
    usage = {"input_tokens": 10_000, "output_tokens": 1_000}
    call = {"tool_calls": [{"name": "missing", "args": {}}], "usage": usage}
    write(tmp_path / "turns.json", [{**call, "model": "gpt-4.1-mini-2025-04-14"}] * 3)

    done = hookagent(
        tmp_path, "run", "hi", "--model", "scripted:turns.json", "--json", "--max-cost", "0.01"
    )

    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["status"], out["stop_reason"], out["steps"]) == ("stopped", "cost_limit", 2)
    assert out["stop_message"].startswith("cost limit reached ($0.0112 of $0.01)")
    assert "1 scripted turn was not used" in done.stderr
