"""`Skills(*dirs)`: the `Skill` tool and the list of skills in the system prompt.

Everything is read when the capability is built: a skill file that cannot be read is left
out then with a warning (`Skills.warnings`), and no hook or tool call touches the disk.
The list block is computed once; the before_inference hook only checks that the request's
system prompt lacks it and appends it. The request is rebuilt from the agent's system prompt
every step, so the block is appended to every request, and never twice to one (a prompt
already holding `<skills>` is left alone).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel, Field

from hookagent.capabilities.skills._library import Skill, SkillLibrary
from hookagent.claude._component_files import declares_hooks
from hookagent.hooks._decorators import HookProvider, hook
from hookagent.hooks._events import InferenceEvent
from hookagent.hooks._points import BEFORE_INFERENCE
from hookagent.hooks._result import HookResult
from hookagent.tools._base import Tool, ToolContext, ToolResult
from hookagent.tools._model_tool import ModelTool

if TYPE_CHECKING:
    from hookagent._agent import Agent
    from hookagent.claude._component_hooks import ComponentHooks
    from hookagent.claude._options import ClaudeHookOptions
    from hookagent.hooks._hook import Hook

__all__ = ["MAX_LISTED_RESOURCES", "SKILLS_TAG", "SkillTool", "Skills", "render_skill"]

SKILLS_TAG: Final = "<skills>"
"""Opens the block in the system prompt; a prompt holding it gets no second one."""
MAX_LISTED_RESOURCES: Final = 100
"""Resource paths shown when a skill is loaded; the rest are counted."""


class _SkillArgs(BaseModel):
    name: str = Field(description="The skill's name, as listed in the <skills> block.")


class SkillTool(ModelTool[_SkillArgs]):
    """`Skill{name}`: a skill's instructions and the absolute paths of its files."""

    name = "Skill"
    description = (
        "Load a skill: its full instructions and the paths of its resource files (read or "
        "run those with your other tools when the instructions say to). Call it with a "
        "skill's name from the <skills> list in the system prompt as soon as a task matches "
        "that skill's description, before starting the task."
    )
    args_model = _SkillArgs
    idempotent: Final = True
    """Reads a snapshot taken at construction: safe to run again after a crash."""

    def __init__(self, library: SkillLibrary) -> None:
        self.library = library

    async def run(self, args: _SkillArgs, ctx: ToolContext) -> ToolResult:
        if not self.library.skills:
            return ToolResult.error(f"No skills are installed (looked in {self.library.where()}).")
        skill = self.library.get(args.name.strip())
        if skill is None:
            return ToolResult.error(
                f"Unknown skill {args.name!r}. Available skills:\n{self.library.listing()}"
            )
        return ToolResult(
            content=render_skill(skill),
            data={
                "name": skill.name,
                "path": str(skill.path),
                "folder": None if skill.folder is None else str(skill.folder),
                "resources": [str(p) for p in skill.resource_paths],
            },
        )


def render_skill(skill: Skill) -> str:
    """`<skill name="x">`, the base directory, the body, the resources, `</skill>`."""
    parts = [f'<skill name="{skill.name}">']
    if skill.folder is not None:
        parts.append(f"Base directory for this skill: {skill.folder}\n")
    parts.append(skill.body)
    paths = skill.resource_paths
    if paths:
        listed = "\n".join(f"- {p}" for p in paths[:MAX_LISTED_RESOURCES])
        more = len(paths) - MAX_LISTED_RESOURCES
        extra = f"\n... and {more} more under {skill.folder}" if more > 0 else ""
        parts.append(f"\nResources (absolute paths):\n{listed}{extra}")
    parts.append("</skill>")
    return "\n".join(parts)


class Skills(HookProvider):
    """Skill files from `dirs` (default: `.claude/skills` and `skills` under the working
    directory, those that exist), offered through the `Skill` tool and listed in the
    system prompt. Across `dirs`, the first directory holding a name wins.

    Raises `ConfigError` at construction for a given directory that does not exist; a skill
    file that cannot be read is left out, named with the problem in `warnings`.

    A skill's `hooks:` (Claude Code hooks in its front matter) run from the first time the
    skill is loaded in a session, as `hook_options` say (`hookagent.claude._component_hooks`);
    a hook that cannot run as written is a `ConfigError` naming the file, key and line.
    """

    name = "skills"

    def __init__(
        self, *dirs: str | os.PathLike[str], hook_options: ClaudeHookOptions | None = None
    ) -> None:
        self.library: Final = SkillLibrary.scan(*dirs)
        self._tool = SkillTool(self.library)
        self.block: Final = _block(self.library)
        """The text appended to the system prompt; None when no skill is installed."""
        self._hooks = _front_matter_hooks(self.library, hook_options)
        found = () if self._hooks is None else self._hooks[0].warnings
        self.warnings: Final = (*self.library.warnings, *found)
        """Skill files left out, each naming the file (and line) and why; notes on skills'
        hooks."""

    def hooks(self) -> Iterator[Hook[Any]]:
        yield from super().hooks()
        if self._hooks is not None:
            runner, markers = self._hooks
            yield from markers
            yield from runner.hooks(inherit="none")

    def bind(self, agent: Agent, /) -> None:
        """The agent's model answers the skills' prompt and agent hooks that name none;
        those naming an alias (`haiku`…) run on the model the builder maps it to
        (`AgentBuilder.model_alias`)."""
        if self._hooks is not None:
            self._hooks[0].bind(agent.model, agent.model_aliases, agent.checker)

    def __repr__(self) -> str:
        return f"Skills({', '.join(repr(str(d)) for d in self.library.searched)})"

    def tools(self) -> tuple[Tool, ...]:
        return (self._tool,)

    @hook(BEFORE_INFERENCE, kind="transform")
    def list_in_prompt(self, event: InferenceEvent) -> HookResult | None:
        """Append the skills block to the request's system prompt unless it is there."""
        block = self.block
        if block is None:
            return None
        request = event.request
        system = request.system_prompt
        if system is None:
            return HookResult.modify(request=replace(request, system_prompt=block))
        if SKILLS_TAG in system:
            return None
        return HookResult.modify(request=replace(request, system_prompt=f"{system}\n\n{block}"))


def _front_matter_hooks(
    library: SkillLibrary, options: ClaudeHookOptions | None
) -> tuple[ComponentHooks, tuple[Hook[Any], ...]] | None:
    """The skills' `hooks:` and the hooks that make them live; loaded only for skills that
    have them, as the Claude Code layer is heavy to import."""
    if not any(declares_hooks(skill.path) for skill in library):
        return None
    from hookagent.claude._component_hooks import skill_hooks

    return skill_hooks(((s.name, s.path) for s in library), options)


def _block(library: SkillLibrary) -> str | None:
    if not library.skills:
        return None
    return (
        f"{SKILLS_TAG}\n"
        "Skills hold instructions for particular tasks. When a task matches a skill's "
        "description, call the Skill tool with the skill's name to load it, then follow it.\n"
        f"{library.listing()}\n"
        "</skills>"
    )
