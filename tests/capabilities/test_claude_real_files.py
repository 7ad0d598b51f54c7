"""Published Claude Code agent and skill files, unchanged (tests/fixtures/claude_real, each
repository's commit in its README), load as Claude Code loads them: whole folders, with the
files that are not valid YAML read leniently, display names, model aliases and tools the
parent lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

import hookagent as h
from hookagent._frontmatter import read_front_matter
from hookagent.capabilities.skills import SkillLibrary
from hookagent.capabilities.subagents import AgentRegistry, Subagents
from hookagent.testing import FunctionModel, ScriptedModel

REAL = Path(__file__).parent.parent / "fixtures" / "claude_real"
OFFICIAL = REAL / "claude-plugins-official" / "plugins"

AGENT_FOLDERS = {
    OFFICIAL / "plugin-dev" / "agents": ["agent-creator", "plugin-validator", "skill-reviewer"],
    OFFICIAL / "pr-review-toolkit" / "agents": [
        "code-reviewer",
        "code-simplifier",
        "comment-analyzer",
        "pr-test-analyzer",
        "silent-failure-hunter",
        "type-design-analyzer",
    ],
    OFFICIAL / "feature-dev" / "agents": ["code-architect", "code-explorer", "code-reviewer"],
    REAL / "agents" / "plugins": [  # one folder, its agents in sub-folders
        "c4-code",
        "c4-component",
        "c4-container",
        "c4-context",
        "framework-migration-architect-review",
        "framework-migration-legacy-modernizer",
        "security-scanning-security-auditor",
        "social-publishing-publisher",
        "team-debugger",
        "team-implementer",
        "team-lead",
        "team-reviewer",
        "threat-modeling-expert",
    ],
}


@pytest.mark.parametrize("folder", list(AGENT_FOLDERS), ids=lambda p: p.parent.name)
def test_every_agent_of_each_folder_loads(folder: Path) -> None:
    registry = AgentRegistry.from_dirs(folder)
    assert registry.warnings == []
    assert sorted(registry.specs) == AGENT_FOLDERS[folder]
    for spec in registry.specs.values():
        assert spec.description and spec.system_prompt


def test_exactly_the_agents_whose_front_matter_is_not_yaml_are_read_leniently() -> None:
    lenient = {
        str(path.relative_to(OFFICIAL)): read_front_matter(path)[0].lenient.split(":")[0]
        for path in sorted(REAL.rglob("*.md"))
        if path.name != "README.md" and read_front_matter(path)[0].lenient
    }
    assert lenient == {
        "plugin-dev/agents/agent-creator.md": "line 3",
        "plugin-dev/agents/plugin-validator.md": "line 3",
        "plugin-dev/agents/skill-reviewer.md": "line 3",
        "pr-review-toolkit/agents/code-reviewer.md": "line 3",
        "pr-review-toolkit/agents/code-simplifier.md": "line 8",
        "pr-review-toolkit/agents/comment-analyzer.md": "line 3",
        "pr-review-toolkit/agents/pr-test-analyzer.md": "line 3",
        "pr-review-toolkit/agents/silent-failure-hunter.md": "line 3",
        "pr-review-toolkit/agents/type-design-analyzer.md": "line 3",
    }


def test_a_description_running_on_over_example_dialogue_is_read_whole() -> None:
    agents = AgentRegistry.from_dirs(OFFICIAL / "plugin-dev" / "agents")
    creator = agents.get("agent-creator")
    assert creator is not None
    assert creator.description.startswith('Use this agent when the user asks to "create an agent"')
    assert creator.description.count("<example>") == creator.description.count("</example>") == 3
    assert 'user: "Create an agent that reviews code for quality issues"' in creator.description
    assert (creator.model, creator.tools) == ("sonnet", ("Write", "Read"))
    simplifier = AgentRegistry.from_dirs(OFFICIAL / "pr-review-toolkit" / "agents").get(
        "code-simplifier"
    )
    assert simplifier is not None
    assert "\nContext: The assistant has just implemented" in simplifier.description
    assert simplifier.description.endswith("</example>")
    assert simplifier.model == "opus"


def test_display_name_skills_are_named_by_their_folders() -> None:
    library = SkillLibrary.scan(OFFICIAL / "plugin-dev" / "skills")
    assert library.warnings == ()
    assert {s.name: s.title for s in library} == {
        "agent-development": "Agent Development",
        "command-development": "Command Development",
        "hook-development": "Hook Development",
        "mcp-integration": "MCP Integration",
        "plugin-settings": "Plugin Settings",
        "plugin-structure": "Plugin Structure",
        "skill-development": "Skill Development",
    }


@pytest.mark.parametrize(
    ("folder", "count"), [(REAL / "superpowers" / "skills", 14), (REAL / "skills" / "skills", 2)]
)
def test_whole_skill_folders_load(folder: Path, count: int) -> None:
    library = SkillLibrary.scan(folder)
    assert (len(library), library.warnings) == (count, ())
    assert all(s.title is None and s.description for s in library)


@h.tool
def Read(file_path: str) -> str:
    """Read a file."""
    return f"contents of {file_path}"


@h.tool
def Grep(pattern: str) -> str:
    """Search files."""
    return f"no match for {pattern}"


async def test_a_real_agent_runs_on_the_aliased_model_with_the_tools_there_are() -> None:
    folder = OFFICIAL / "feature-dev" / "agents"
    child = ScriptedModel(
        [{"tool_calls": [{"name": "Grep", "args": {"pattern": "def main"}}]}, "Entry: main()."]
    )

    def parent(request: h.ModelRequest) -> object:
        if any(m.role == "tool" for m in request.messages):
            return "The explorer found main()."
        args = {
            "description": "explore",
            "prompt": "find the entry",
            "subagent_type": "code-explorer",
        }
        return {"tool_calls": [{"name": "Agent", "args": args}]}

    capability = Subagents(AgentRegistry.from_dirs(folder))
    builder = (
        h.AgentBuilder()
        .model(FunctionModel(parent))
        .tools(Read, Grep)
        .with_(capability)
        .model_alias("sonnet", child)
    )
    result = await builder.build().run("where does it start?")
    assert result.output == "The explorer found main()."
    assert result.tool_calls[0].result.content == "[Subagent: code-explorer] Entry: main()."
    explorer = capability.registry.get("code-explorer")
    assert explorer is not None
    assert sorted(capability.child_agent(explorer).tools) == ["Grep", "Read"]
    missing = "Glob, LS, NotebookRead, WebFetch, TodoWrite, WebSearch, KillShell, BashOutput"
    assert builder.warnings == tuple(
        f"{folder / (name + '.md')}: agent {name!r} names tools this agent does not have: "
        f"{missing}; it runs without them"
        for name in ("code-architect", "code-explorer", "code-reviewer")
    )


def test_unmapped_aliases_of_a_real_folder_are_one_notice_each() -> None:
    folder = REAL / "agents" / "plugins"
    capability = Subagents(AgentRegistry.from_dirs(folder))
    builder = h.AgentBuilder().model(ScriptedModel([])).with_(capability)
    builder.model_alias("opus", ScriptedModel([])).model_alias("sonnet", ScriptedModel([])).build()
    models = {
        line.split("names model ")[1].split(",")[0]
        for line in builder.warnings
        if "names model" in line
    }
    assert models == {"'haiku'", "'fable'"}  # opus and sonnet are mapped, inherit is the parent
