"""Slash commands: loading, names, `$ARGUMENTS` and friends, shell lines."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hookagent._errors import ConfigError
from hookagent.claude._commands import expand, find_command, load_commands

FIXTURES = Path(__file__).parent / "fixtures"


def command_file(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def one(folder: Path, text: str, **kw: str) -> object:
    command_file(folder, "c", text)
    return {c.name: c for c in load_commands(folder, "project", **kw)}["c"]


def test_real_commands_load_with_their_front_matter() -> None:
    found = {c.name: c for c in load_commands(FIXTURES / "project/.claude/commands", "project")}
    assert sorted(found) == ["commit-push-pr", "dedupe", "triage-issue"]
    triage = found["triage-issue"]
    assert triage.description == "Triage GitHub issues by analyzing and applying labels"
    # written without a space after the comma, as in the file
    assert triage.allowed_tools == (
        "Bash(./scripts/gh.sh:*)",
        "Bash(./scripts/edit-issue-labels.sh:*)",
    )
    expansion = expand(triage, "#123", cwd=".")
    assert "#123" in expansion.prompt
    assert "$ARGUMENTS" not in expansion.prompt
    assert expansion.payload() == {
        "expansion_type": "slash_command",
        "command_name": "triage-issue",
        "command_args": "#123",
        "command_source": "project",
        "prompt": expansion.prompt,
    }


def test_arguments_positions_and_quotes(tmp_path: Path) -> None:
    command = one(tmp_path, "all=$ARGUMENTS first=$1 second=$2 zero=$ARGUMENTS[0] ninth=$9")
    prompt = expand(command, 'a "b c"', cwd=".").prompt  # type: ignore[arg-type]
    assert prompt == 'all=a "b c" first=a second=b c zero=a ninth='


def test_arguments_are_appended_when_the_body_uses_none(tmp_path: Path) -> None:
    command = one(tmp_path, "Review the code.")
    assert expand(command, "src/app.py", cwd=".").prompt == (  # type: ignore[arg-type]
        "Review the code.\n\nARGUMENTS: src/app.py"
    )
    assert expand(command, "", cwd=".").prompt == "Review the code."  # type: ignore[arg-type]


def test_shell_lines_run_when_allowed_or_read_only(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    text = "---\nallowed-tools: Bash(echo:*)\n---\nsays: !`echo hi`\nwhere: !`pwd`\n"
    command = one(tmp_path / "cmds", text)
    prompt = expand(command, "", cwd=str(tmp_path)).prompt  # type: ignore[arg-type]
    assert prompt == f"says: hi\nwhere: {tmp_path}"


def test_a_shell_line_not_allowed_is_refused_naming_the_file(tmp_path: Path) -> None:
    command = one(tmp_path, "---\nallowed-tools: Bash(git add:*)\n---\n!`touch pwned`\n")
    with pytest.raises(ConfigError, match=r"runs `touch pwned`.*Bash\(git add:\*\)") as err:
        expand(command, "", cwd=str(tmp_path))  # type: ignore[arg-type]
    assert str(tmp_path / "c.md") in str(err.value)
    assert not (tmp_path / "pwned").exists()


def test_a_fenced_block_runs_with_the_plugin_root(tmp_path: Path) -> None:
    root = tmp_path / "plug"
    text = (
        '---\nallowed-tools: ["Bash(${CLAUDE_PLUGIN_ROOT}/run.sh:*)"]\n---\n'
        '```!\n"${CLAUDE_PLUGIN_ROOT}/run.sh" $ARGUMENTS\n```\nGo.'
    )
    script = root / "run.sh"
    script.parent.mkdir()
    script.write_text('#!/bin/sh\necho "ran with $1 in $CLAUDE_PLUGIN_ROOT"\n')
    script.chmod(0o755)
    command_file(root / "commands", "loop", text)
    (command,) = load_commands(root / "commands", "plugin:p", prefix="p:", plugin_root=str(root))
    assert command.name == "p:loop"
    assert expand(command, "x", cwd=str(tmp_path)).prompt == f"ran with x in {root}\nGo."


def test_an_unknown_command_names_the_closest() -> None:
    found = {c.name: c for c in load_commands(FIXTURES / "project/.claude/commands", "project")}
    with pytest.raises(ConfigError, match=r"unknown slash command /dedup; did you mean /dedupe"):
        find_command(found, "dedup")


def test_skills_are_commands_and_replace_a_command_of_their_name(tmp_path: Path) -> None:
    from hookagent.sessions._project_files import load_project

    home, project = tmp_path / "home", tmp_path / "app"
    command_file(project / ".claude" / "commands", "deploy", "the command")
    command_file(project / ".claude" / "commands", "lint", "lint it")
    command_file(project / ".claude" / "commands", "broken", "")
    (project / ".claude" / "commands" / "broken.md").write_bytes(b"---\ndescription: \xff\n---\n")
    skill = "---\nname: deploy\ndescription: Ships it.\n---\nthe skill in ${CLAUDE_SKILL_DIR}"
    command_file(project / ".claude" / "skills" / "deploy", "SKILL", skill)
    hidden = "---\nname: secret\ndescription: Model only.\nuser-invocable: false\n---\nx"
    command_file(project / ".claude" / "skills" / "secret", "SKILL", hidden)
    found = load_project(str(project), [str(FIXTURES / "hookify")], home=str(home))
    commands = found.commands
    assert commands["deploy"].body == f"the skill in {project / '.claude/skills/deploy'}"
    assert commands["lint"].body == "lint it"
    assert "secret" not in commands
    assert "broken" not in commands
    assert any("broken.md" in w and "left out" in w for w in found.warnings)
    assert any("/deploy replaces" in w for w in found.warnings)
    writing = commands["hookify:writing-rules"]
    assert commands["writing-rules"] is writing
    assert writing.source == "plugin:hookify"
    assert writing.body.lstrip().startswith("# Writing Hookify Rules")
