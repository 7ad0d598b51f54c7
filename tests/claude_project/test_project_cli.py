"""`hookagent run --claude-project` / `--claude-plugin` and `hooks check`, run for real."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cli.run_cli import hookagent

FIXTURES = Path(__file__).parent / "fixtures"

RECORDER = textwrap.dedent(
    """
    import json, os
    from hookagent import BEFORE_INFERENCE

    def record(event):
        request = event.request
        with open(os.environ["RECORD_TO"], "a") as f:
            messages = [str(getattr(m, "content", "")) for m in request.messages]
            f.write(json.dumps({"system": request.system_prompt, "messages": messages}) + "\\n")

    def configure(builder):
        builder.on(BEFORE_INFERENCE, record, name="recorder", kind="observer")
    """
)
"""A plugin that keeps every request the model receives."""

LOG_PAYLOAD = "cat >> {log}; echo >> {log}"


def write(path: Path, content: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


class Project:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.dir = tmp_path / "app"
        self.home = tmp_path / "home"
        self.home.mkdir()
        self.dir.mkdir()
        self.records = tmp_path / "requests.jsonl"
        self.recorder = write(tmp_path / "recorder.py", RECORDER)

    def turns(self, *turns: dict[str, Any]) -> str:
        return f"scripted:{write(self.tmp / 'turns.json', list(turns))}"

    def run(self, *args: str, turns: str | None = None) -> Any:
        model = turns or self.turns({"text": "done"})
        return hookagent(
            self.dir,
            "run",
            *args,
            "-m",
            model,
            "--plugin",
            str(self.recorder),
            env={"HOME": str(self.home), "RECORD_TO": str(self.records)},
        )

    def check(self, *args: str) -> Any:
        return hookagent(self.dir, "hooks", "check", *args, env={"HOME": str(self.home)})

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.records.read_text().splitlines()]

    def settings(self, data: dict[str, Any], name: str = "settings.json") -> None:
        write(self.dir / ".claude" / name, data)

    def hook(self, event: str, log: Path, matcher: str | None = None) -> dict[str, Any]:
        group: dict[str, Any] = {
            "hooks": [{"type": "command", "command": LOG_PAYLOAD.format(log=log)}]
        }
        if matcher is not None:
            group["matcher"] = matcher
        return {event: [group]}


def payloads(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_claude_md_and_its_imports_reach_the_system_prompt(project: Project) -> None:
    write(project.home / ".claude" / "CLAUDE.md", "USER-MEMORY")
    write(project.dir / "CLAUDE.md", "Project rules. See @docs/style.md, not `@docs/no.md`.")
    write(project.dir / "docs" / "style.md", "STYLE: tabs only")
    write(project.dir / "docs" / "no.md", "NOT IMPORTED")
    write(project.dir / ".claude" / "rules" / "testing.md", "RULE: run the tests")
    write(project.dir / "CLAUDE.local.md", "LOCAL: my sandbox")
    log = project.tmp / "loaded.log"
    project.settings({"hooks": project.hook("InstructionsLoaded", log)})
    done = project.run("hello", "--claude-project", ".", "--system", "Be brief.")
    assert done.returncode == 0, done.stderr
    system = project.requests()[0]["system"]
    order = ["Be brief.", "USER-MEMORY", "Project rules.", "STYLE: tabs", "RULE:", "LOCAL:"]
    positions = [system.index(text) for text in order]
    assert positions == sorted(positions)
    assert "NOT IMPORTED" not in system
    loaded = [
        (Path(p["file_path"]).name, p["memory_type"], p["load_reason"]) for p in payloads(log)
    ]
    assert loaded == [
        ("CLAUDE.md", "User", "session_start"),
        ("CLAUDE.md", "Project", "session_start"),
        ("style.md", "Project", "include"),
        ("testing.md", "Project", "session_start"),
        ("CLAUDE.local.md", "Local", "session_start"),
    ]
    assert payloads(log)[2]["parent_file_path"] == str(project.dir / "CLAUDE.md")
    assert all(p["hook_event_name"] == "InstructionsLoaded" for p in payloads(log))


def test_a_permissions_deny_rule_blocks_the_tool(project: Project) -> None:
    write(project.dir / "secret.env", "TOKEN=1")
    write(project.dir / "notes.txt", "hello")
    project.settings({"permissions": {"deny": ["Read(./secret.env)"], "allow": ["Read"]}})
    calls = [
        {"name": "Read", "args": {"file_path": "secret.env"}},
        {"name": "Read", "args": {"file_path": "notes.txt"}},
    ]
    turns = project.turns({"tool_calls": calls}, {"text": "done"})
    done = project.run("read", "--claude-project", ".", "--json", turns=turns)
    assert done.returncode == 0, done.stderr
    secret, notes = json.loads(done.stdout)["tool_calls"]
    assert secret["blocked"]
    assert "denied by rule Read(./secret.env)" in secret["result"]
    assert "TOKEN" not in json.dumps(project.requests())
    assert not notes["blocked"] and "hello" in notes["result"]


def test_env_of_the_settings_reaches_hooks(project: Project) -> None:
    out = project.tmp / "env.txt"
    hook = {"type": "command", "command": f"echo $PROJECT_FLAVOUR > {out}"}
    project.settings({"env": {"PROJECT_FLAVOUR": "plain"}})
    project.settings(
        {"env": {"PROJECT_FLAVOUR": "local"}, "hooks": {"Stop": [{"hooks": [hook]}]}},
        "settings.local.json",
    )
    done = project.run("hi", "--claude-project", ".")
    assert done.returncode == 0, done.stderr
    assert out.read_text().strip() == "local"


def copy_commands(project: Project) -> None:
    shutil.copytree(FIXTURES / "project" / ".claude", project.dir / ".claude")


def test_a_slash_command_expands_into_the_prompt(project: Project) -> None:
    copy_commands(project)
    log = project.tmp / "expansion.log"
    settings = {"hooks": project.hook("UserPromptExpansion", log, matcher="triage-issue")}
    write(project.dir / ".claude" / "settings.json", settings)
    done = project.run("/triage-issue #4242 urgent", "--claude-project", ".")
    assert done.returncode == 0, done.stderr
    prompt = project.requests()[0]["messages"][0]
    assert prompt.startswith("You're an issue triage assistant.")
    assert "#4242 urgent" in prompt
    (payload,) = payloads(log)
    assert payload["command_name"] == "triage-issue"
    assert payload["command_args"] == "#4242 urgent"
    assert payload["command_source"] == "project"
    assert payload["prompt"] == prompt


def test_a_user_prompt_expansion_hook_can_refuse_the_command(project: Project) -> None:
    copy_commands(project)
    block = {
        "type": "command",
        "command": 'echo \'{"decision": "block", "reason": "no triage today"}\'',
    }
    settings = {"hooks": {"UserPromptExpansion": [{"hooks": [block]}]}}
    write(project.dir / ".claude" / "settings.json", settings)
    done = project.run("/triage-issue 1", "--claude-project", ".", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "stopped"
    assert "no triage today" in result["stop_message"]
    assert not project.records.exists()  # the model was never asked


def test_an_unknown_command_is_exit_2_with_did_you_mean(project: Project) -> None:
    copy_commands(project)
    done = project.run("/dedup 12", "--claude-project", ".")
    assert done.returncode == 2
    assert "unknown slash command /dedup; did you mean /dedupe?" in done.stderr


def test_a_plugins_session_start_hook_runs_from_its_root(project: Project) -> None:
    plugin = FIXTURES / "explanatory-output-style"
    done = project.run("hi", "--claude-plugin", str(plugin))
    assert done.returncode == 0, done.stderr
    assert "explanatory' output style mode" in json.dumps(project.requests()[0])


def hookify_rule(project: Project) -> None:
    shutil.copy(
        FIXTURES / "hookify" / "examples" / "dangerous-rm.local.md",
        write(project.dir / ".claude" / "hookify.dangerous-rm.local.md", ""),
    )


RM = {"tool_calls": [{"name": "Bash", "args": {"command": "rm -rf build"}}]}


@pytest.mark.parametrize(
    "given",
    [
        ("--claude-plugin", str(FIXTURES / "hookify")),
        ("--settings", str(FIXTURES / "hookify" / "hooks" / "hooks.json")),
    ],
)
def test_hookify_runs_with_its_plugin_root(project: Project, given: tuple[str, str]) -> None:
    """Its hooks import their own package from `CLAUDE_PLUGIN_ROOT`; given as `--settings`,
    its hooks file used to run `python3 /hooks/…` (exit 2: the prompt was blocked)."""
    hookify_rule(project)
    (project.dir / "build").mkdir()
    turns = project.turns(RM, {"text": "done"})
    done = project.run("clean", *given, "--allow-bash", "--json", turns=turns)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed", result
    (call,) = result["tool_calls"]
    assert call["blocked"]
    assert (project.dir / "build").is_dir()
    assert "Hookify import error" not in done.stderr


def test_hooks_check_lists_everything_found(project: Project) -> None:
    copy_commands(project)
    write(project.dir / "CLAUDE.md", "See @docs/a.md and @docs/missing.md")
    write(project.dir / "docs" / "a.md", "A")
    write(project.dir / ".claude" / "rules" / "py.md", '---\npaths: ["src/**/*.py"]\n---\nPY')
    project.settings({"model": "opus", "env": {"X": "1"}, "permissions": {"deny": ["Bash"]}})
    args = ("--claude-project", ".", "--claude-plugin", str(FIXTURES / "hookify"))
    text = project.check(*args)
    assert text.returncode == 0, text.stdout + text.stderr
    out = text.stdout
    for line in (
        f"instructions: {project.dir / 'docs/a.md'} [Project] (imported by",
        f"rule for src/**/*.py: {project.dir / '.claude/rules/py.md'}",
        "command /dedupe (project):",
        "command /hookify:list (plugin:hookify):",
        "agent conversation-analyzer (model inherit):",
        "skill writing-rules:",
        "plugin hookify:",
        "env: X",
        f"permission deny Bash: {project.dir / '.claude/settings.json'}:permissions.deny[0]",
        "model: not honoured (the run's --model answers)",
        "@docs/missing.md names no file",
        "PreToolUse · before_tool",
    ):
        assert line in out, line
    data = json.loads(project.check(*args, "--json").stdout)
    found = data["project"]
    assert [c["name"] for c in found["commands"]][:3] == [
        "/commit-push-pr",
        "/configure",
        "/dedupe",
    ]
    assert found["plugins"] == [{"name": "hookify", "root": str(FIXTURES / "hookify")}]
    assert data["ok"] is True and data["errors"] == []


def test_what_would_change_the_policy_is_refused(project: Project) -> None:
    project.settings({"enabledPlugins": {"security-guidance@claude-code-plugins": True}})
    check = project.check("--claude-project", ".", "--json")
    assert check.returncode == 1
    (error,) = json.loads(check.stdout)["errors"]
    assert "enabledPlugins.security-guidance@claude-code-plugins" in error
    assert "--claude-plugin" in error
    done = project.run("hi", "--claude-project", ".")
    assert done.returncode == 2
    assert "enabledPlugins.security-guidance" in done.stderr
    allowed = project.run("hi", "--claude-project", ".", "--allow-unsupported-hooks")
    assert allowed.returncode == 0, allowed.stderr
    assert "not honoured" in allowed.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--claude-project", "nope"), "--claude-project: nope is not a folder"),
        (("--claude-plugin", "nope"), "plugin folder not found"),
    ],
)
def test_missing_folders_are_exit_2(project: Project, args: tuple[str, str], message: str) -> None:
    done = project.run("hi", *args)
    assert done.returncode == 2
    assert message in done.stderr


def test_a_bad_plugin_json_is_exit_2_naming_it(project: Project) -> None:
    plugin = project.tmp / "plug"
    write(plugin / ".claude-plugin" / "plugin.json", '{"name": "p",,}')
    for done in (
        project.run("hi", "--claude-plugin", str(plugin)),
        project.check("--claude-plugin", str(plugin)),
    ):
        assert done.returncode == 2
        assert f"{plugin / '.claude-plugin/plugin.json'}: invalid JSON at line 1" in done.stderr


def test_a_submitted_run_keeps_the_project_for_the_worker(project: Project) -> None:
    """The options are saved with the run: the worker, started elsewhere, rebuilds the same
    agent (instructions, rules, commands expanded before queueing)."""
    copy_commands(project)
    write(project.dir / "CLAUDE.md", "WORKER-SEES-THIS")
    env = {"HOME": str(project.home), "RECORD_TO": str(project.records)}
    queued = hookagent(
        project.dir,
        "submit",
        "/triage-issue 77",
        "--claude-project",
        ".",
        "--session",
        "s",
        "-m",
        project.turns({"text": "done"}),
        "--plugin",
        str(project.recorder),
        env=env,
    )
    assert queued.returncode == 0, queued.stderr
    elsewhere = project.tmp / "elsewhere"
    elsewhere.mkdir()
    store = str(project.dir / ".hookagent" / "sessions.db")
    done = hookagent(elsewhere, "worker", "--once", "--store", store, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = project.requests()
    assert "WORKER-SEES-THIS" in request["system"]
    assert request["messages"][0].startswith("You're an issue triage assistant.")
    assert "77" in request["messages"][0]


def test_mcp_servers_of_the_project_and_a_plugin_are_started(project: Project) -> None:
    """The project's `.mcp.json` and a plugin's (no `mcpServers` wrapper, its
    `${CLAUDE_PLUGIN_ROOT}` set) start with the run; the SDK test server answers."""
    from capabilities.test_mcp import SERVER

    math = {"command": sys.executable, "args": [SERVER]}
    write(project.dir / ".mcp.json", {"mcpServers": {"math": math, "off": math}})
    plugin = project.tmp / "calc"
    write(plugin / ".claude-plugin" / "plugin.json", {"name": "calc"})
    write(plugin / ".mcp.json", {"calc": {**math, "env": {"ROOT": "${CLAUDE_PLUGIN_ROOT}"}}})
    project.settings(
        {
            "permissions": {"allow": ["mcp__math__add", "mcp__calc__env_get"]},
            "disabledMcpjsonServers": ["off"],
        }
    )
    calls = [
        {"name": "mcp__math__add", "args": {"a": 2, "b": 3}},
        {"name": "mcp__calc__env_get", "args": {"name": "ROOT"}},
        {"name": "mcp__off__add", "args": {"a": 1, "b": 1}},
    ]
    turns = project.turns({"tool_calls": calls}, {"text": "done"})
    done = project.run(
        "add", "--claude-project", ".", "--claude-plugin", str(plugin), "--json", turns=turns
    )
    assert done.returncode == 0, done.stderr
    added, root, off = json.loads(done.stdout)["tool_calls"]
    assert json.loads(added["result"]) == {"total": 5}
    assert root["result"] == str(plugin.resolve())
    assert off["is_error"]  # disabled: no such tool
    assert "MCP server 'off'" in done.stderr and "not enabled" in done.stderr
    check = json.loads(project.check("--claude-project", ".", "--json").stdout)
    assert check["project"]["mcp"] == [{"name": "math", "file": str(project.dir / ".mcp.json")}]
    text = project.check("--claude-project", ".").stdout
    assert f"MCP server math: {project.dir / '.mcp.json'}" in text


def test_the_projects_sandbox_settings_reach_bash(project: Project) -> None:
    project.settings({"sandbox": {"excludedCommands": "docker"}})
    done = project.run("hi", "--claude-project", ".", "--allow-bash")
    assert done.returncode == 2
    assert "settings.json, sandbox.excludedCommands: must be a list" in done.stderr


def test_a_slash_command_needs_no_quotes(project: Project) -> None:
    copy_commands(project)
    done = project.run("/triage-issue", "#9", "flaky", "--claude-project", ".")
    assert done.returncode == 0, done.stderr
    assert "#9 flaky" in project.requests()[0]["messages"][0]
