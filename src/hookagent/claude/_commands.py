"""Claude Code slash commands: `.claude/commands/**/*.md` files, expanded into a prompt.

A command's name is its file name without `.md` (a sub-folder organises, it does not rename:
`frontend/component.md` is `/component`); a plugin's commands are `/plugin:name`, and also
`/name` when no other command has that name. The project's command wins over the user's
(`~/.claude/commands/`) of the same name, with a warning.

Expansion follows Claude Code: `$ARGUMENTS` is everything after the name, `$ARGUMENTS[N]`
the argument at 0-based index N, `$1`…`$9` positional arguments (quoted words stay whole);
a body that uses none of them gets `ARGUMENTS: …` appended when arguments were given. A
`` !`cmd` `` span or a fenced ```` ```! ```` block runs `cmd` with bash in the project
folder, before the prompt is sent, and is replaced by its output, as Claude Code does, only
when the command's `allowed-tools` allows that Bash call or the line only reads (`git
status`, `git diff`, `git log`, `git show`, `git branch --show-current`, `pwd`, `ls`, `date`,
`whoami`, without shell operators); else a `ConfigError`: Claude Code would ask, and nobody
can answer before the run. `${CLAUDE_PLUGIN_ROOT}` is the plugin's
folder in a plugin's command.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final

from hookagent._errors import ConfigError
from hookagent._frontmatter import read_front_matter
from hookagent._record import record
from hookagent.claude._rules import compile_rule

__all__ = [
    "Expansion",
    "SlashCommand",
    "command_from_file",
    "expand",
    "find_command",
    "load_commands",
    "load_skill_commands",
]

_POSITIONAL: Final = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$([1-9])\b")
_INLINE_BASH: Final = re.compile(r"!`([^`]+)`")
_BASH_BLOCK: Final = re.compile(r"^```![ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_BASH_TIMEOUT: Final = 120.0
_READ_ONLY: Final = re.compile(
    r"(?:git (?:status|diff|log|show|branch --show-current)|pwd|ls|date|whoami)"
    r"(?:\s[^;&|<>`$()\n]*)?"
)
"""Shell lines Claude Code runs without a permission: they only read (no operators, no
substitutions)."""
PLUGIN_ROOT: Final = "${CLAUDE_PLUGIN_ROOT}"
SKILL_DIR: Final = "${CLAUDE_SKILL_DIR}"


@record
class SlashCommand:
    name: str
    """As typed after `/`: `review`, or `plugin:review` for a plugin's."""
    path: str
    body: str
    source: str
    """`project`, `user` or `plugin:NAME`."""
    description: str | None = None
    argument_hint: str | None = None
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    plugin_root: str | None = None
    user_invocable: bool = True
    """A skill's `user-invocable: false` keeps it out of the slash commands."""


@record
class Expansion:
    """A command expanded, with what UserPromptExpansion hooks are told about it."""

    command: SlashCommand
    args: str
    prompt: str

    def payload(self) -> dict[str, str]:
        return {
            "expansion_type": "slash_command",
            "command_name": self.command.name,
            "command_args": self.args,
            "command_source": self.command.source,
            "prompt": self.prompt,
        }


def load_commands(
    folder: Path,
    source: str,
    *,
    prefix: str = "",
    plugin_root: str | None = None,
    warnings: list[str] | None = None,
) -> list[SlashCommand]:
    """The commands of one `commands/` folder (none if it does not exist). With `warnings`,
    a file that cannot be read is named there and the others load."""
    if not folder.is_dir():
        return []
    commands = []
    for path in sorted(folder.rglob("*.md")):
        if path.is_file():
            found = _leniently(path, prefix + path.stem, source, plugin_root, warnings)
            commands += [found] if found is not None else []
    return commands


def load_skill_commands(
    skills: Iterable[tuple[str, Path]],
    source: str,
    *,
    prefix: str = "",
    plugin_root: str | None = None,
    warnings: list[str] | None = None,
) -> list[SlashCommand]:
    """Skills as commands (`/name` runs the skill's body as a command's), by (name, SKILL.md
    path), but for those whose front matter says `user-invocable: false`.
    `${CLAUDE_SKILL_DIR}` is the skill's folder."""
    commands = []
    for name, path in skills:
        found = _leniently(path, prefix + name, source, plugin_root, warnings)
        if found is not None and found.user_invocable:
            body = found.body.replace(SKILL_DIR, str(path.parent))
            commands.append(replace(found, body=body))
    return commands


def _leniently(
    path: Path, name: str, source: str, plugin_root: str | None, warnings: list[str] | None
) -> SlashCommand | None:
    try:
        return command_from_file(path, name, source, plugin_root=plugin_root)
    except ConfigError as exc:
        if warnings is None:
            raise
        warnings.append(f"{exc}; the command is left out")
        return None


def command_from_file(
    path: Path, name: str, source: str, *, plugin_root: str | None = None
) -> SlashCommand:
    """One command file (or SKILL.md) read; a `ConfigError` naming it if it cannot be."""
    matter, body = read_front_matter(path)
    tools = matter.text_or_list("allowed-tools") if "allowed-tools" in matter else None
    items = [tools] if isinstance(tools, str) else list(tools or [])
    allowed = tuple(t.strip() for item in items for t in _split_tools(item) if t.strip())
    if plugin_root is not None:
        body = body.replace(PLUGIN_ROOT, plugin_root)
        allowed = tuple(t.replace(PLUGIN_ROOT, plugin_root) for t in allowed)
    return SlashCommand(
        name=name,
        path=str(path),
        body=body,
        source=source,
        description=matter.text("description") if "description" in matter else None,
        argument_hint=matter.text("argument-hint") if "argument-hint" in matter else None,
        allowed_tools=allowed,
        model=matter.text("model") if "model" in matter else None,
        plugin_root=plugin_root,
        user_invocable=matter.get("user-invocable") is not False,
    )


def _split_tools(item: str) -> list[str]:
    """`Bash(git add:*), Bash(git status:*)`: commas outside parentheses separate rules."""
    parts, depth, current = [], 0, ""
    for char in item:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def find_command(commands: Mapping[str, SlashCommand], name: str) -> SlashCommand:
    """The command `name` names; a `ConfigError` with the closest names if there is none."""
    found = commands.get(name)
    if found is not None:
        return found
    close = difflib.get_close_matches(name, list(commands), n=3)
    hint = f"; did you mean {', '.join('/' + c for c in close)}?" if close else ""
    known = ", ".join("/" + c for c in sorted(commands)) or "none"
    raise ConfigError(f"unknown slash command /{name}{hint} (commands: {known})")


def expand(command: SlashCommand, args: str, *, cwd: str) -> Expansion:
    """`command`'s prompt for `args`, its shell lines run (see the module's docstring)."""
    words = _words(args)
    body = command.body
    used = "$ARGUMENTS" in body or _POSITIONAL.search(body) is not None

    def positional(match: re.Match[str]) -> str:
        index = int(match.group(1)) if match.group(1) is not None else int(match.group(2)) - 1
        return words[index] if index < len(words) else ""

    body = _POSITIONAL.sub(positional, body).replace("$ARGUMENTS", args)
    body = _BASH_BLOCK.sub(lambda m: _run(command, m.group(1).strip(), cwd), body)
    body = _INLINE_BASH.sub(lambda m: _run(command, m.group(1).strip(), cwd), body)
    if args and not used:
        body = f"{body.rstrip()}\n\nARGUMENTS: {args}"
    return Expansion(command=command, args=args, prompt=body.strip())


def _words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unclosed quote: plain words, as typed
        return args.split()


def _run(command: SlashCommand, line: str, cwd: str) -> str:
    if not _allowed(command.allowed_tools, line, cwd):
        raise ConfigError(
            f"the command runs `{line}` before its prompt is sent, and its allowed-tools "
            f"({', '.join(command.allowed_tools) or 'none'}) do not allow that Bash call",
            file=command.path,
        )
    env = dict(os.environ)
    if command.plugin_root is not None:
        env["CLAUDE_PLUGIN_ROOT"] = command.plugin_root
    try:
        done = subprocess.run(
            ["bash", "-c", line],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=_BASH_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(f"`{line}` could not run: {exc}", file=command.path) from None
    return (done.stdout + done.stderr).rstrip("\n")


def _allowed(allowed_tools: Sequence[str], line: str, cwd: str) -> bool:
    if _READ_ONLY.fullmatch(line):
        return True
    # `"$ROOT/run.sh" x` is allowed by `Bash($ROOT/run.sh:*)`: rules see the words unquoted
    forms = {line, " ".join(_words(line))}
    for text in allowed_tools:
        try:
            rule = compile_rule(text)
        except ValueError:
            continue
        if any(rule.matches("Bash", {"command": form}, cwd=cwd) for form in forms):
            return True
    return False
