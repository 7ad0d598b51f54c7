"""Plugin folders: the manifest, components, and hooks files given as settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookagent._errors import ConfigError
from hookagent.claude._plugin import load_plugin
from hookagent.claude._sources import discover

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_real_plugin_loads_with_every_component() -> None:
    plugin = load_plugin(str(FIXTURES / "hookify"))
    root = FIXTURES / "hookify"
    assert plugin.name == "hookify"
    assert plugin.hook_files == (str(root / "hooks/hooks.json"),)
    assert plugin.agent_dirs == (str(root / "agents"),)
    assert plugin.skill_dirs == (str(root / "skills"),)
    assert plugin.command_dirs == (str(root / "commands"),)
    assert plugin.mcp_files == ()
    assert plugin.not_honoured == ()


def manifest(tmp_path: Path, text: str) -> Path:
    path = tmp_path / ".claude-plugin" / "plugin.json"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "plugin.json is missing"),
        ('{"name": "x",', "invalid JSON at line 1"),
        ("[]", "must be a JSON object"),
        ('{"version": "1"}', "must name the plugin"),
        ('{"name": "x", "commands": 3}', "must be a path or a list of paths"),
        ('{"name": "x", "agents": "./nope"}', "./nope does not exist in the plugin"),
    ],
)
def test_a_bad_manifest_is_refused_naming_the_file(
    tmp_path: Path, text: str | None, problem: str
) -> None:
    folder = manifest(tmp_path, text) if text is not None else tmp_path
    with pytest.raises(ConfigError, match=problem) as err:
        load_plugin(str(folder))
    assert "plugin.json" in str(err.value)


def test_a_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="plugin folder not found"):
        load_plugin(str(tmp_path / "nope"))


def test_components_named_in_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "more").mkdir()
    hooks = {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}
    data = {"name": "p", "commands": ["./more"], "hooks": hooks, "outputStyles": "./styles"}
    plugin = load_plugin(str(manifest(tmp_path, json.dumps(data))))
    assert plugin.command_dirs == (str(tmp_path / "more"),)
    assert plugin.inline_hooks == hooks
    assert plugin.not_honoured == (
        f"{tmp_path / '.claude-plugin/plugin.json'}, outputStyles: a plugin component "
        "hookagent does not load",
    )


def test_a_plugins_hooks_file_given_as_settings_is_read_as_the_plugins() -> None:
    hooks = FIXTURES / "hookify" / "hooks" / "hooks.json"
    loaded = discover(".", explicit=[hooks], include_standard=False)
    root = str((FIXTURES / "hookify").absolute())
    assert {h.source.kind for h in loaded.handlers} == {"plugin"}
    assert {h.source.plugin_root for h in loaded.handlers} == {root}
    assert all(h.command is not None and root in h.command for h in loaded.handlers)


def test_the_plugin_root_outside_a_plugin_is_a_warning(tmp_path: Path) -> None:
    hooks = {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/x.sh"}]}]}
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hooks": hooks}))
    loaded = discover(".", explicit=[path], include_standard=False)
    (warning,) = loaded.warnings
    assert "hooks.Stop[0].hooks[0]" in warning
    assert "${CLAUDE_PLUGIN_ROOT}, which Claude Code sets only for a plugin's hooks" in warning
    plugin = FIXTURES / "hookify" / "hooks" / "hooks.json"
    assert discover(".", explicit=[plugin], include_standard=False).warnings == ()
