"""One settings file: its shape checked, its handlers built, its oddities reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookagent._errors import ConfigError
from hookagent.claude._model import HandlerSpec, SettingsSource
from hookagent.claude._settings import FileSettings, load_file, parse_settings


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def load(tmp_path: Path, data: Any) -> FileSettings:
    return load_file(write(tmp_path / ".claude" / "settings.json", data), "project")


def on(event: str, *handlers: dict[str, Any], matcher: str | None = None) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": list(handlers)}
    if matcher is not None:
        group["matcher"] = matcher
    return {"hooks": {event: [group]}}


def cmd(command: str, **fields: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **fields}


def test_every_handler_field_is_read(tmp_path: Path) -> None:
    handler = cmd(
        "git-guard",
        args=["--strict"],
        timeout=30,
        onFailure="block",
        shell="bash",
        statusMessage="checking",
        **{"if": "Bash(git *)", "async": False, "asyncRewake": True},
    )
    loaded = load(tmp_path, on("PreToolUse", handler, matcher="Bash"))
    path = str(tmp_path / ".claude" / "settings.json")
    assert loaded.handlers == (
        HandlerSpec(
            event="PreToolUse",
            matcher="Bash",
            type="command",
            command="git-guard",
            args=("--strict",),
            timeout=30.0,
            if_rule="Bash(git *)",
            on_failure="block",
            async_rewake=True,
            shell="bash",
            status_message="checking",
            source=SettingsSource(path=path, kind="project"),
            where="hooks.PreToolUse[0].hooks[0]",
        ),
    )
    assert loaded.warnings == ()


def test_where_is_the_json_path_of_each_handler(tmp_path: Path) -> None:
    data = {"hooks": {"Stop": [{"hooks": [cmd("a")]}, {"hooks": [cmd("b"), cmd("c")]}]}}
    wheres = [(h.command, h.where, h.matcher) for h in load(tmp_path, data).handlers]
    assert wheres == [
        ("a", "hooks.Stop[0].hooks[0]", None),
        ("b", "hooks.Stop[1].hooks[0]", None),
        ("c", "hooks.Stop[1].hooks[1]", None),
    ]


@pytest.mark.parametrize("data", [{}, {"permissions": {"allow": ["Bash(ls)"]}}, ""])
def test_a_file_without_hooks_is_valid(tmp_path: Path, data: Any) -> None:
    loaded = load(tmp_path, data)
    assert (loaded.handlers, loaded.warnings) == ((), ())
    assert loaded.disable_all_hooks is None
    assert loaded.allow_managed_hooks_only is None


def test_switches_are_read(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"disableAllHooks": True, "allowManagedHooksOnly": False})
    assert (loaded.disable_all_hooks, loaded.allow_managed_hooks_only) == (True, False)


def test_unknown_keys_are_tolerated_everywhere(tmp_path: Path) -> None:
    handler = cmd("fmt", description="format", futureField={"x": 1})
    data = on("PostToolUse", handler, matcher="Write")
    data["hooks"]["PostToolUse"][0]["description"] = "formatters"
    data.update(description="a plugin", env={"A": "1"}, model="opus", statusLine={})
    loaded = load(tmp_path, data)
    assert [h.command for h in loaded.handlers] == ["fmt"]
    assert loaded.warnings == ()


def test_a_realistic_settings_file_loads(tmp_path: Path) -> None:
    text = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {"allow": ["Bash(npm run lint)", "Read(~/.zshrc)"], "deny": ["Bash(curl:*)"]},
  "env": {"CLAUDE_CODE_ENABLE_TELEMETRY": "0"},
  "includeCoAuthoredBy": false,
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/bash-guard.py"}
      ]},
      {"matcher": "Edit|MultiEdit|Write", "hooks": [
        {"type": "command", "command": "python3 .claude/hooks/protect.py", "timeout": 5}
      ]}
    ],
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [
        {"type": "command", "command": "npx prettier --write \\"$(jq -r .tool_input.file_path)\\""}
      ]}
    ],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "date"}]}],
    "Notification": [{"matcher": "", "hooks": [
      {"type": "command", "command": "notify-send Claude", "async": true}
    ]}],
    "Stop": [{"hooks": [{"type": "command", "command": "npm test", "timeout": 120}]}]
  }
}"""
    loaded = load(tmp_path, text)
    assert [h.event for h in loaded.handlers] == [
        "PreToolUse",
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "Notification",
        "Stop",
    ]
    assert loaded.handlers[0].command == '"$CLAUDE_PROJECT_DIR"/.claude/hooks/bash-guard.py'
    assert loaded.handlers[1].matcher == "Edit|MultiEdit|Write"
    assert loaded.handlers[4].run_async
    assert loaded.handlers[5].timeout == 120
    assert loaded.warnings == ()


def test_a_byte_order_mark_is_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(on("Stop", cmd("x"))).encode())
    assert len(load_file(path, "explicit").handlers) == 1


def test_settings_given_in_code_are_checked_the_same_way() -> None:
    source = SettingsSource(path="<builder>", kind="explicit")
    assert parse_settings(on("Stop", cmd("x")), source).handlers[0].source == source
    with pytest.raises(ConfigError, match=r"^<builder>, hooks\.Stop\[0\]\.hooks\[0\]\.timeout"):
        parse_settings(on("Stop", cmd("x", timeout=-1)), source)


# -- errors ----------------------------------------------------------------------------------

H = "hooks.PreToolUse[0].hooks[0]"


def groups(*entries: Any) -> dict[str, Any]:
    return {"hooks": {"PreToolUse": list(entries)}}


def field(name: str, value: Any) -> dict[str, Any]:
    return on("PreToolUse", {**cmd("ls"), name: value})


# fmt: off
ERRORS = [
    ({"hooks": []}, "hooks: must be an object mapping event names to lists of matcher groups"),
    ({"hooks": {"PreToolUse": {"matcher": "Bash"}}},
     'hooks.PreToolUse: must be a list of matcher groups, got {"matcher": "Bash"}'),
    (groups(3), "hooks.PreToolUse[0]: a group must be an object, got 3"),
    (groups({"matcher": "Bash"}),
     'hooks.PreToolUse[0].hooks: a matcher group needs a "hooks" list of handlers'),
    (groups({"hooks": {"type": "command"}}),
     'hooks.PreToolUse[0].hooks: must be a list of handlers, got {"type": "command"}'),
    (groups({"matcher": {"tool_name": "Bash"}, "hooks": []}),
     'hooks.PreToolUse[0].matcher: must be a string, got {"tool_name": "Bash"}'),
    (groups({"hooks": ["ls"]}), f'{H}: a handler must be an object, got "ls"'),
    (on("PreToolUse", {"command": "ls"}), f'{H}.type: a handler needs a "type"'),
    (on("PreToolUse", {"type": "command"}), f'{H}.command: a command handler needs a "command"'),
    (field("command", ["ls"]), f'{H}.command: must be a string, got ["ls"]'),
    (field("args", "-la"), f'{H}.args: must be a list of strings, got "-la"'),
    (field("args", ["-l", 3]), f'{H}.args: must be a list of strings, got ["-l", 3]'),
    (field("timeout", 0), f"{H}.timeout: must be a positive number of seconds, got 0"),
    (field("timeout", "30"), f'{H}.timeout: must be a positive number of seconds, got "30"'),
    (field("timeout", True), f"{H}.timeout: must be a positive number of seconds, got true"),
    (field("onFailure", "stop"), f'{H}.onFailure: must be "continue" or "block", got "stop"'),
    (field("if", ["Bash(git *)"]), f'{H}.if: must be a string holding one permission rule'),
    (field("async", "yes"), f'{H}.async: must be true or false, got "yes"'),
    (field("statusMessage", 1), f"{H}.statusMessage: must be a string, got 1"),
    ({"disableAllHooks": "yes"}, 'disableAllHooks: must be true or false, got "yes"'),
]
# fmt: on


@pytest.mark.parametrize(("data", "message"), ERRORS)
def test_a_bad_shape_names_file_and_json_path(tmp_path: Path, data: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, data)
    assert str(caught.value).startswith(f"{tmp_path / '.claude' / 'settings.json'}, {message}")
    assert caught.value.file == str(tmp_path / ".claude" / "settings.json")


def test_a_file_that_is_not_an_object_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"settings\.json: must be a JSON object, got \[1, 2\]$"):
        load(tmp_path, [1, 2])


def test_the_error_names_the_exact_group_and_handler(tmp_path: Path) -> None:
    groups = [{"hooks": [cmd("a")]}, {"hooks": [cmd("b")]}, {"hooks": [cmd("c", timeout=-1)]}]
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, {"hooks": {"PreToolUse": groups}})
    error = caught.value
    assert str(error) == (
        f"{error.file}, hooks.PreToolUse[2].hooks[0].timeout: "
        "must be a positive number of seconds, got -1"
    )
    assert (error.key, error.value) == ("hooks.PreToolUse[2].hooks[0].timeout", -1)


def test_broken_json_names_line_and_column(tmp_path: Path) -> None:
    text = '{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n'
    with pytest.raises(ConfigError, match=r"settings\.json: invalid JSON at line 3, column 14: "):
        load(tmp_path, text)


@pytest.mark.parametrize("make_dir", [False, True])
def test_an_explicit_file_that_cannot_be_read_is_an_error(tmp_path: Path, make_dir: bool) -> None:
    path = tmp_path / "nope.json"
    if make_dir:
        path.mkdir()
    with pytest.raises(ConfigError, match=rf"^{path}: cannot read: "):
        load_file(path, "explicit")


def test_a_legacy_handler_directly_in_a_group_is_an_error(tmp_path: Path) -> None:
    data = {"hooks": {"PreToolUse": [{"matcher": "Bash", "command": "echo $CLAUDE_TOOL_INPUT"}]}}
    with pytest.raises(ConfigError, match=r"PreToolUse\[0\]\.hooks: .*legacy form"):
        load(tmp_path, data)


# -- warnings --------------------------------------------------------------------------------


def skipped(loaded: FileSettings) -> list[tuple[str, str, str]]:
    return [(s.key, s.value, s.message) for s in loaded.skipped]


def test_an_unknown_event_is_skipped_and_the_others_stay(tmp_path: Path) -> None:
    data = {
        "hooks": {
            "BeforeEverything": [{"hooks": "not even valid"}],
            **on("Stop", cmd("x"))["hooks"],
        }
    }
    loaded = load(tmp_path, data)
    assert [h.event for h in loaded.handlers] == ["Stop"]
    assert loaded.warnings == ()
    assert skipped(loaded) == [
        ("hooks.BeforeEverything", "BeforeEverything", 'unknown event "BeforeEverything"')
    ]
    assert str(loaded.skipped[0]).startswith(str(tmp_path / ".claude" / "settings.json") + ", ")


def test_an_unknown_event_with_nothing_under_it_configures_nothing(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"hooks": {"BeforeEverything": []}})
    assert (loaded.skipped, loaded.warnings) == ((), ())


def test_a_miscased_event_gets_a_suggestion(tmp_path: Path) -> None:
    (item,) = load(tmp_path, on("pretooluse", cmd("x"))).skipped
    assert item.message == 'unknown event "pretooluse" (did you mean "PreToolUse"?)'


def test_a_tool_name_under_hooks_is_reported_as_a_legacy_form(tmp_path: Path) -> None:
    data = {
        "hooks": {"Bash": [{"command": "echo $CLAUDE_TOOL_INPUT"}], **on("Stop", cmd("x"))["hooks"]}
    }
    loaded = load(tmp_path, data)
    assert [h.event for h in loaded.handlers] == ["Stop"]
    ((key, value, message),) = skipped(loaded)
    assert (key, value) == ("hooks.Bash", "Bash")
    assert "legacy form no current Claude Code build runs" in message


@pytest.mark.parametrize("event", ["TeammateIdle", "CwdChanged", "FileChanged"])
def test_an_event_hookagent_does_not_fire_is_skipped(tmp_path: Path, event: str) -> None:
    loaded = load(tmp_path, on(event, cmd("x")))
    assert [h.event for h in loaded.handlers] == [event]  # listed by `hooks check`
    assert skipped(loaded) == [(f"hooks.{event}", event, f"hookagent does not fire {event}")]


def test_dead_environment_variables_are_reported_and_the_handler_kept(tmp_path: Path) -> None:
    handler = cmd("fmt $CLAUDE_FILE_PATHS", args=["${CLAUDE_TOOL_INPUT}"])
    loaded = load(tmp_path, on("PostToolUse", handler))
    assert len(loaded.handlers) == 1
    (warning,) = loaded.warnings
    assert "hooks.PostToolUse[0].hooks[0]: uses $CLAUDE_FILE_PATHS, $CLAUDE_TOOL_INPUT," in warning


def test_an_mcp_tool_handler_is_loaded_with_its_server_tool_and_input(tmp_path: Path) -> None:
    handler = {"type": "mcp_tool", "server": "s", "tool": "t", "input": {"f": "${cwd}"}}
    loaded = load(tmp_path, on("Stop", {**handler, "timeout": 3}))
    (spec,) = loaded.handlers
    assert (spec.type, spec.server, spec.tool, spec.timeout) == ("mcp_tool", "s", "t", 3)
    assert spec.tool_input == '{"f": "${cwd}"}'
    assert (loaded.warnings, skipped(loaded)) == ((), [])


@pytest.mark.parametrize(
    ("kind", "hint"), [("script", ""), ("comand", ' (did you mean "command"?)')]
)
def test_an_unknown_handler_type_is_skipped_and_dropped(
    tmp_path: Path, kind: str, hint: str
) -> None:
    loaded = load(tmp_path, on("Stop", {"type": kind, "command": "x.sh"}, cmd("y")))
    assert [h.command for h in loaded.handlers] == ["y"]
    assert skipped(loaded) == [
        ("hooks.Stop[0].hooks[0].type", kind, f'unknown handler type "{kind}"{hint}')
    ]


def test_an_empty_command_is_reported_and_dropped(tmp_path: Path) -> None:
    loaded = load(tmp_path, on("Stop", cmd("")))
    assert loaded.handlers == ()
    assert loaded.warnings[0].endswith("hooks.Stop[0].hooks[0].command: empty command; ignored")


def test_if_outside_tool_events_is_kept_with_a_warning(tmp_path: Path) -> None:
    loaded = load(tmp_path, on("Stop", cmd("x", **{"if": "Bash(git *)"})))
    assert loaded.handlers[0].if_rule == "Bash(git *)"
    (warning,) = loaded.warnings
    assert "hooks.Stop[0].hooks[0]: `if` is checked only on " in warning
    assert warning.endswith("on Stop this handler never runs")


@pytest.mark.parametrize(
    "event",
    ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"],
)
def test_if_on_tool_events_is_silent(tmp_path: Path, event: str) -> None:
    assert load(tmp_path, on(event, cmd("x", **{"if": "Bash(git *)"}))).warnings == ()


# -- plugins ---------------------------------------------------------------------------------


def test_plugin_root_is_substituted_in_command_and_args(tmp_path: Path) -> None:
    handler = cmd(
        "${CLAUDE_PLUGIN_ROOT}/bin/check",
        args=[
            "--config=${CLAUDE_PLUGIN_ROOT}/c.json",
            "$CLAUDE_PROJECT_DIR",
            "$CLAUDE_PLUGIN_ROOT",
        ],
    )
    path = write(
        tmp_path / "plug" / "hooks" / "hooks.json", {"description": "d", **on("Stop", handler)}
    )
    (spec,) = load_file(path, "plugin", plugin_root="/opt/plug").handlers
    assert spec.command == "/opt/plug/bin/check"
    assert spec.args == ("--config=/opt/plug/c.json", "$CLAUDE_PROJECT_DIR", "$CLAUDE_PLUGIN_ROOT")
    assert spec.source == SettingsSource(path=str(path), kind="plugin", plugin_root="/opt/plug")


def test_plugin_root_defaults_to_the_folder_above_hooks(tmp_path: Path) -> None:
    path = write(
        tmp_path / "plug" / "hooks" / "hooks.json", on("Stop", cmd("${CLAUDE_PLUGIN_ROOT}/x"))
    )
    (spec,) = load_file(path, "plugin").handlers
    assert spec.command == f"{tmp_path / 'plug'}/x"


def test_settings_files_leave_the_plugin_variable_alone(tmp_path: Path) -> None:
    (spec,) = load(tmp_path, on("Stop", cmd("${CLAUDE_PLUGIN_ROOT}/x"))).handlers
    assert spec.command == "${CLAUDE_PLUGIN_ROOT}/x"


def test_a_plugin_root_for_a_settings_file_is_misuse(tmp_path: Path) -> None:
    path = write(tmp_path / "s.json", {})
    with pytest.raises(ConfigError, match="plugin_root only applies to plugin hooks, not user"):
        load_file(path, "user", plugin_root="/opt/plug")
