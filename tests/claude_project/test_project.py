"""What a project's settings ask for: honoured, warned about, or refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookagent._errors import ConfigError
from hookagent.sessions._project_files import load_project


def settings(folder: Path, data: object, name: str = "settings.json") -> Path:
    path = folder / ".claude" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "app"
    home.mkdir()
    project.mkdir()
    return home, project


def test_each_key_is_honoured_warned_about_or_refused(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    shared = settings(
        project,
        {
            "$schema": "https://json.schemastore.org/claude-code-settings.json",
            "env": {"A": "project", "B": "project"},
            "statusLine": {"type": "command", "command": "x"},
            "permissions": {"defaultMode": "plan", "allow": ["Read"], "additionalDirectories": []},
            "brandNewKey": 1,
        },
    )
    settings(project, {"env": {"B": "local"}}, "settings.local.json")
    settings(
        home, {"env": {"A": "user", "C": "user"}, "permissions": {"defaultMode": "acceptEdits"}}
    )
    found = load_project(str(project), home=str(home), managed_dir=str(home / "none"))
    assert dict(found.env) == {"A": "project", "B": "local", "C": "user"}
    assert found.errors == (
        f"{shared}, permissions.defaultMode: plan mode (no edits, no commands) is not enforced "
        "by hookagent; use --read-only without --allow-bash",
    )
    warnings = "\n".join(found.warnings)
    assert f"{shared}, statusLine: not honoured (hookagent has no status line)" in warnings
    assert f"{shared}, brandNewKey: unknown to hookagent, not honoured" in warnings
    assert "permissions.defaultMode: acceptEdits not honoured" in warnings
    assert f"{shared}, permissions.additionalDirectories: not honoured" in warnings
    assert "$schema" not in warnings


def test_a_settings_file_that_is_not_json_is_refused_naming_it(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    bad = settings(project, '{"hooks": ')
    with pytest.raises(ConfigError, match="invalid JSON") as err:
        load_project(str(project), home=str(home))
    assert str(bad) in str(err.value)


def test_env_must_be_an_object(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    settings(project, {"env": ["A=1"]})
    with pytest.raises(ConfigError, match="env"):
        load_project(str(project), home=str(home))


def test_a_plugin_named_in_enabled_plugins_and_given_is_not_refused(
    dirs: tuple[Path, Path],
) -> None:
    home, project = dirs
    plugin = Path(__file__).parent / "fixtures" / "hookify"
    settings(project, {"enabledPlugins": {"hookify@claude-code-plugins": True, "off@x": False}})
    assert load_project(str(project), [str(plugin)], home=str(home)).errors == ()
    (error,) = load_project(str(project), home=str(home)).errors
    assert "enabledPlugins.hookify@claude-code-plugins" in error
