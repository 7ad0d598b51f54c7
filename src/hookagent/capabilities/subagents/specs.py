"""Subagent specs, from Python or from markdown files in Claude Code's `.claude/agents/` form:
front matter `name`, `description`, `tools` (a list or a comma-separated string; absent or
null, `tools:` with nothing after it, means the parent's tools, and `[]` none), `model`
(`inherit` or a `provider:model` name); the body is the system prompt. `hookagent.frontmatter`
reads the front matter as Claude Code does; other keys are ignored."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, final

from hookagent.errors import ConfigError
from hookagent.frontmatter import read_front_matter

__all__ = ["AgentRegistry", "AgentSpec"]

_NAME: Final = re.compile(r"^[a-z][a-z0-9-]*$")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class AgentSpec:
    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...] | None = None
    """Tool names the child may use; None: all of its parent's."""
    model: str = "inherit"
    source: str = "python"

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
        """Every `*.md` of each folder, in name order; later folders override earlier ones
        (pass the user's folder before the project's)."""
        registry = cls()
        for folder in map(Path, dirs):
            if folder.is_dir():
                for path in sorted(folder.glob("*.md")):
                    registry.register(load_spec(path))
        return registry

    @classmethod
    def discover(cls, project_dir: str | Path = ".") -> AgentRegistry:
        """`~/.claude/agents`, then the project's `.claude/agents` (which wins)."""
        return cls.from_dirs(
            Path.home() / ".claude" / "agents", Path(project_dir) / ".claude" / "agents"
        )


def load_spec(path: Path) -> AgentSpec:
    fields, body = read_front_matter(path)
    tools = fields.text_or_list("tools")
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",") if t.strip()]
    return AgentSpec(
        name=fields.text("name") or path.stem,
        description=fields.text("description") or "",
        system_prompt=body,
        tools=tuple(tools) if tools is not None else None,
        model=fields.text("model") or "inherit",
        source=str(path),
    )
