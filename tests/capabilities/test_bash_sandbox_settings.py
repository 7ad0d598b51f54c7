"""Claude Code's `sandbox` settings key: mapped onto `Bash` options where hookagent can honour
it, refused naming file and key where it cannot, never ignored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookagent._errors import ConfigError
from hookagent.capabilities.bash import Bash


def settings(folder: Path, sandbox: Any, name: str = "settings.json") -> Path:
    path = folder / ".claude" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"sandbox": sandbox}))
    return path


def from_project(project: Path, home: Path | None = None) -> Bash:
    return Bash.from_claude_settings(project, project_dir=project, home=home or project / "home")


def test_no_sandbox_key_keeps_the_defaults(tmp_path: Path) -> None:
    bash = from_project(tmp_path)
    assert bash.sandbox.mode == "auto"
    assert bash.sandbox.writable == ()


@pytest.mark.parametrize(
    ("sandbox", "mode"),
    [
        ({"enabled": True}, "auto"),
        ({"enabled": False}, "off"),
        ({"enabled": True, "failIfUnavailable": True}, "required"),
        ({"enabled": True, "excludedCommands": [], "autoAllowBashIfSandboxed": False}, "auto"),
    ],
)
def test_enabled_and_fail_if_unavailable_map_to_the_mode(
    bwrap: str, tmp_path: Path, sandbox: dict[str, Any], mode: str
) -> None:
    settings(tmp_path, sandbox)
    assert from_project(tmp_path).sandbox.mode == mode


def test_local_settings_decide_over_project_settings(tmp_path: Path) -> None:
    settings(tmp_path, {"enabled": True})
    settings(tmp_path, {"enabled": False}, "settings.local.json")
    assert from_project(tmp_path).sandbox.mode == "off"


def test_filesystem_paths_take_claude_codes_prefixes(tmp_path: Path) -> None:
    for name in ("abs", "project/.claude/rel", "project/build"):
        (tmp_path / name).mkdir(parents=True)
    project = tmp_path / "project"
    settings(
        project,
        {"filesystem": {"allowWrite": [f"/{tmp_path}/abs", "/rel", "build"], "denyRead": ["~/x"]}},
    )
    bash = Bash.from_claude_settings(project, project_dir=project, home=tmp_path)
    assert bash.sandbox.writable == (
        str((tmp_path / "abs").resolve()),
        str((project / ".claude" / "rel").resolve()),
        str((project / "build").resolve()),
    )
    assert str(Path("~/x").expanduser().resolve()) in bash.sandbox.deny
    assert str(Path("~/.ssh").expanduser().resolve()) in bash.sandbox.deny  # defaults kept


@pytest.mark.parametrize(
    ("sandbox", "key", "message"),
    [
        ({"excludedCommands": "git"}, "sandbox.excludedCommands", "a list of command"),
        ({"excludedCommands": ["git (x)"]}, "sandbox.excludedCommands", "command pattern"),
        ({"excludedCommands": [""]}, "sandbox.excludedCommands", "command pattern"),
        ({"autoAllowBashIfSandboxed": 1}, "sandbox.autoAllowBashIfSandboxed", "true or false"),
        ({"allowUnsandboxedCommands": "y"}, "sandbox.allowUnsandboxedCommands", "true or"),
        (
            {"network": {"deniedDomains": ["pypi.org"]}},
            "sandbox.network.deniedDomains",
            "needs sandbox.network.allowedDomains",
        ),
        ({"network": {"allowUnixSockets": ["/x"]}}, "sandbox.network.allowUnixSockets", "no"),
        ({"filesystem": {"denyWrite": ["/x"]}}, "sandbox.filesystem.denyWrite", "denyRead"),
        ({"filesystem": {"allowWrite": "build"}}, "sandbox.filesystem.allowWrite", "a list"),
        ({"enabled": "yes"}, "sandbox.enabled", "must be true or false"),
        ({"ignoreViolations": {}}, "sandbox.ignoreViolations", "not a sandbox setting"),
        ([], "sandbox", "must be an object"),
    ],
)
def test_what_cannot_be_honoured_is_refused_naming_file_and_key(
    tmp_path: Path, sandbox: Any, key: str, message: str
) -> None:
    path = settings(tmp_path, sandbox)
    with pytest.raises(ConfigError, match=message) as caught:
        from_project(tmp_path)
    assert caught.value.file == str(path)
    assert caught.value.key == key


def test_an_explicit_file_is_read_and_must_exist(tmp_path: Path) -> None:
    path = tmp_path / "extra.json"
    path.write_text(json.dumps({"sandbox": {"enabled": False}}))
    bash = Bash.from_claude_settings(tmp_path, explicit=[path], include_standard=False)
    assert bash.sandbox.mode == "off"
    with pytest.raises(ConfigError, match="settings file not found"):
        Bash.from_claude_settings(tmp_path, explicit=[tmp_path / "gone.json"])


def test_sandbox_leaving_keys_default_as_hookagent_says(tmp_path: Path) -> None:
    bash = from_project(tmp_path)
    assert bash.sandbox.excluded.patterns == ()
    assert bash.sandbox.allow_unsandboxed is False  # Claude Code's default is true
    assert bash.sandbox.auto_allow is True


def test_excluded_commands_are_merged_across_files(tmp_path: Path) -> None:
    settings(tmp_path, {"excludedCommands": ["docker *", "git push"]})
    settings(tmp_path, {"excludedCommands": ["git push", "make:*"]}, "settings.local.json")
    bash = from_project(tmp_path)
    assert bash.sandbox.excluded.patterns == ("docker *", "git push", "make:*")
    assert bash.sandbox.excluded.match("make build && ls") == "make:*"
    assert bash.sandbox.excluded.match("dockerd") is None


def test_the_flags_are_read_and_the_higher_file_decides(tmp_path: Path) -> None:
    settings(tmp_path, {"allowUnsandboxedCommands": True, "autoAllowBashIfSandboxed": True})
    settings(tmp_path, {"autoAllowBashIfSandboxed": False}, "settings.local.json")
    bash = from_project(tmp_path)
    assert bash.sandbox.allow_unsandboxed is True
    assert bash.sandbox.auto_allow is False
