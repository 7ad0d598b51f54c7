"""Subagent specs, from Python or from markdown files in Claude Code's `.claude/agents/` form:
front matter `name`, `description`, `tools` (a list or a comma-separated string; absent or
null, `tools:` with nothing after it, means the parent's tools, and `[]` none),
`disallowedTools` (taken out of those), `model` (`inherit`, an alias such as `sonnet`, or a
`provider:model` name: see `Subagents`); the body is the system prompt.
`hookagent._frontmatter` reads the front matter as Claude Code does. Keys Claude Code acts on
and hookagent does not (`permissionMode`, `maxTurns`, `mcpServers`…) are kept in
`AgentSpec.not_honoured`, for a notice; display keys (`color`…) and unknown ones are ignored,
as Claude Code ignores them.

A `name:` that is not an id (lowercase letters, digits, hyphens) is a display name, kept as
`AgentSpec.title`; the file's stem, lowercased with other characters made hyphens, names the
agent. A folder is read with its sub-folders (`README.md` files aside); a file that cannot be
read is left out with a warning naming it (and the line), in `AgentRegistry.warnings`, and the
folder's other files load."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final, final

from hookagent._errors import ConfigError
from hookagent._frontmatter import read_front_matter
from hookagent._record import record

__all__ = ["AgentRegistry", "AgentSpec"]

_NAME: Final = re.compile(r"^[a-z][a-z0-9-]*$")
_NOT_NAME: Final = re.compile(r"[^a-z0-9]+")
NOT_HONOURED: Final = (
    "permissionMode",
    "maxTurns",
    "mcpServers",
    "skills",
    "memory",
    "isolation",
    "background",
    "effort",
)
"""Agent-file keys that change what Claude Code does and are not honoured here."""


@record
class AgentSpec:
    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...] | None = None
    """Tool names the child may use; None: all of its parent's."""
    model: str = "inherit"
    source: str = "python"
    title: str | None = None
    """`name:` as written when it is a display name rather than the agent's name."""
    disallowed_tools: tuple[str, ...] = ()
    """Tool names taken out of those the child gets."""
    not_honoured: tuple[str, ...] = ()
    """Keys of the agent file in `NOT_HONOURED` that it sets."""

    def __post_init__(self) -> None:
        where = f"agent {self.name!r} ({self.source})"
        if not _NAME.match(self.name):
            raise ConfigError(
                "a name is lowercase letters, digits and dashes, starting with a letter",
                file=self.source,
                key="name",
                value=self.name,
            )
        for key in ("description", "system_prompt"):
            if not str(getattr(self, key)).strip():
                raise ConfigError(f"{where}: {key} is empty", file=self.source, key=key)


@final
class AgentRegistry:
    """Specs by name; a later registration of a name replaces the earlier one."""

    def __init__(self, specs: Iterable[AgentSpec] = ()) -> None:
        self.specs: dict[str, AgentSpec] = {}
        self.warnings: list[str] = []
        """Agent files left out, each naming the file (and line) and why."""
        for spec in specs:
            self.register(spec)

    def register(self, spec: AgentSpec) -> None:
        self.specs[spec.name] = spec

    def get(self, name: str) -> AgentSpec | None:
        return self.specs.get(name)

    def __len__(self) -> int:
        return len(self.specs)

    @classmethod
    def from_dirs(cls, *dirs: str | Path) -> AgentRegistry:
        """Every `*.md` of each folder and its sub-folders, in path order; later folders
        override earlier ones (pass the user's folder before the project's). Within one
        folder the first file of a name wins; the others, and files that cannot be read,
        are named in `warnings`."""
        registry = cls()
        read: set[Path] = set()
        for folder in map(Path, dirs):
            if folder.is_dir() and folder.resolve() not in read:  # a folder given twice: once
                read.add(folder.resolve())
                registry._load_folder(folder)
        return registry

    def _load_folder(self, folder: Path) -> None:
        seen: dict[str, str] = {}
        for path in sorted(folder.rglob("*.md")):
            if path.name.lower() == "readme.md" or not path.is_file():
                continue
            try:
                spec = load_spec(path)
            except ConfigError as exc:
                self.warnings.append(f"{exc}; the agent is left out")
                continue
            if spec.name in seen:
                self.warnings.append(
                    f"{path}: a second agent named {spec.name!r} (the first is "
                    f"{seen[spec.name]}); it is left out"
                )
                continue
            seen[spec.name] = str(path)
            self.register(spec)

    @classmethod
    def discover(cls, project_dir: str | Path = ".") -> AgentRegistry:
        """`~/.claude/agents`, then the project's `.claude/agents` (which wins)."""
        return cls.from_dirs(
            Path.home() / ".claude" / "agents", Path(project_dir) / ".claude" / "agents"
        )


def load_spec(path: Path) -> AgentSpec:
    """One agent file; a `ConfigError` naming the file (and line) if it cannot be read."""
    fields, body = read_front_matter(path)
    tools = _names(fields.text_or_list("tools"))
    disallowed = _names(fields.text_or_list("disallowedTools")) or []
    title = (fields.text("name") or "").strip() or None
    name = title if title is not None and _NAME.match(title) else None
    if name is None:
        name = _NOT_NAME.sub("-", path.stem.lower()).strip("-")
        if not name or not name[0].isalpha():
            raise ConfigError(
                "no agent name: `name:` is not an id and the file name does not start with a "
                "letter",
                file=str(path),
                key="name",
            )
    else:
        title = None
    return AgentSpec(
        name=name,
        title=title,
        description=fields.text("description") or "",
        system_prompt=body,
        tools=tuple(tools) if tools is not None else None,
        disallowed_tools=tuple(disallowed),
        not_honoured=tuple(key for key in NOT_HONOURED if key in fields),
        model=fields.text("model") or "inherit",
        source=str(path),
    )


def _names(value: str | list[str] | None) -> list[str] | None:
    """Tool names from a list or a comma-separated string."""
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    return value
