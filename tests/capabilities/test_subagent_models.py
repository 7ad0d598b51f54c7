"""Agent files as Claude Code writes them: model aliases mapped to the user's models (or the
parent's, with a notice), tools the parent lacks left out with a notice, sub-folders read, and
a file that cannot be read a warning while the folder's others load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.subagents import AgentRegistry, AgentSpec, Subagents
from hookagent.testing import FunctionModel, ScriptedModel


def spawn(kind: str) -> dict[str, Any]:
    args = {"description": "task", "prompt": "do it", "subagent_type": kind}
    return {"name": "Agent", "args": args, "id": "a1"}


@h.tool
def Read(path: str) -> str:
    """Read a file."""
    return f"read {path}"


def agent_file(folder: Path, name: str, front: str) -> Path:
    path = folder / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: Does {name}.\n{front}---\nYou {name}.\n")
    return path


async def test_an_alias_runs_the_child_on_the_model_it_maps_to(tmp_path: Path) -> None:
    agent_file(tmp_path, "fast", "model: haiku\n")
    child = ScriptedModel(["from the haiku model"])
    parent = ScriptedModel([{"tool_calls": [spawn("fast")]}, "done"])
    capability = Subagents(AgentRegistry.from_dirs(tmp_path))
    builder = h.AgentBuilder().model(parent).with_(capability).model_alias("haiku", child)
    result = await builder.build().run("go")
    assert result.tool_calls[0].result.content == "[Subagent: fast] from the haiku model"
    assert builder.warnings == ()


async def test_an_unmapped_alias_runs_on_the_parents_model_with_one_notice(
    tmp_path: Path,
) -> None:
    path = agent_file(tmp_path, "deep", "model: opus\n")
    agent_file(tmp_path, "same", "model: inherit\n")
    seen: list[str | None] = []

    def model(request: h.ModelRequest) -> Any:
        seen.append(request.system_prompt)
        if request.system_prompt is None:
            return {"tool_calls": [spawn("deep")]} if len(seen) == 1 else "done"
        return "from the parent's model"

    capability = Subagents(AgentRegistry.from_dirs(tmp_path))
    builder = h.AgentBuilder().model(FunctionModel(model)).with_(capability)
    agent = builder.build()
    result = await agent.run("go")
    assert result.tool_calls[0].result.content == "[Subagent: deep] from the parent's model"
    assert builder.warnings == (
        f"{path}: agent 'deep' names model 'opus', which no model alias maps "
        "(--model-alias opus=PROVIDER:MODEL, or AgentBuilder.model_alias); it runs on its "
        "parent's model",
    )
    await agent.run("go again")
    assert len(capability.warnings) == 1  # once, at build


def test_a_provider_model_name_is_resolved_and_a_bad_alias_target_is_refused(
    tmp_path: Path,
) -> None:
    script = tmp_path / "child.json"
    script.write_text('["ok"]')
    spec = AgentSpec(name="s", description="x", system_prompt="y", model=f"scripted:{script}")
    capability = Subagents(AgentRegistry([spec]))
    h.AgentBuilder().model(ScriptedModel([])).with_(capability).build()
    assert isinstance(capability.child_agent(spec).model, ScriptedModel)
    with pytest.raises(h.ConfigError, match="model_alias") as caught:
        h.AgentBuilder().model_alias("sonnet", "gpt-4.1")
    assert caught.value.value == "gpt-4.1"
    with pytest.raises(h.ConfigError, match="model_alias"):
        h.AgentBuilder().model_alias("inherit", "openai:gpt-4.1")
    builder = h.AgentBuilder().model(ScriptedModel([])).with_(Subagents(AgentRegistry()))
    with pytest.raises(h.ConfigError, match="model alias 'sonnet'") as caught:
        builder.model_alias("sonnet", "nowhere:x").build()
    assert "unknown model provider 'nowhere'" in str(caught.value)


def test_aliases_with_no_agent_files_to_run_are_a_warning() -> None:
    builder = h.AgentBuilder().model(ScriptedModel([])).model_alias("sonnet", ScriptedModel([]))
    builder.build()
    assert builder.warnings == ("model aliases sonnet: no installed capability runs agent files",)


async def test_a_tool_the_parent_lacks_is_dropped_and_task_means_agent(tmp_path: Path) -> None:
    path = agent_file(
        tmp_path, "researcher", "model: sonnet\ntools: Read, WebSearch, WebFetch, Task\n"
    )
    child = ScriptedModel(["found it"])
    parent = ScriptedModel([{"tool_calls": [spawn("researcher")]}, "done"])
    capability = Subagents(AgentRegistry.from_dirs(tmp_path))
    builder = h.AgentBuilder().model(parent).tools(Read).with_(capability)
    agent = builder.model_alias("sonnet", child).build()
    spec = capability.registry.get("researcher")
    assert spec is not None
    assert sorted(capability.child_agent(spec).tools) == ["Agent", "Read"]
    assert f"{path}: agent 'researcher' names tools this agent does not have: WebSearch, " in (
        "\n".join(builder.warnings)
    )
    result = await agent.run("go")
    assert result.tool_calls[0].result.content == "[Subagent: researcher] found it"


def test_sub_folders_are_read_and_a_bad_file_is_a_warning(tmp_path: Path) -> None:
    for group in ("backend", "frontend", "ops/deep"):
        agent_file(tmp_path / group, group.replace("/", "-"), "model: sonnet\n")
    (tmp_path / "README.md").write_text("# Our agents\n")
    bad = tmp_path / "ops" / "broken.md"
    bad.write_text("---\nname: broken\ndescription: 'never closed\n---\nBody\n")
    twin = agent_file(tmp_path / "zz", "backend", "")
    registry = AgentRegistry.from_dirs(tmp_path, tmp_path / "." / "ops" / "..")  # read once
    assert sorted(registry.specs) == ["backend", "frontend", "ops-deep"]
    assert registry.warnings == [
        f"{bad}: front matter line 3: cannot read `description`: found unexpected end of "
        "stream (while scanning a quoted scalar); the agent is left out",
        f"{twin}: a second agent named 'backend' (the first is "
        f"{tmp_path / 'backend' / 'backend.md'}); it is left out",
    ]


def test_disallowed_tools_are_taken_out_and_keys_not_honoured_are_a_notice(
    tmp_path: Path,
) -> None:
    path = agent_file(
        tmp_path, "careful", "disallowedTools: [Read]\npermissionMode: plan\nmaxTurns: 5\n"
    )
    capability = Subagents(AgentRegistry.from_dirs(tmp_path))
    builder = h.AgentBuilder().model(ScriptedModel([])).tools(Read).with_(capability)
    builder.build()
    spec = capability.registry.get("careful")
    assert spec is not None and spec.disallowed_tools == ("Read",)
    assert "Read" not in capability.child_agent(spec).tools
    assert builder.warnings == (
        f"{path}: agent 'careful' sets permissionMode, maxTurns, which hookagent does not "
        "honour; it runs as if they were not set",
    )
