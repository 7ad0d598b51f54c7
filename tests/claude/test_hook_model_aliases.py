"""A skill's or subagent's front-matter prompt hook naming a model alias (`haiku`, as Claude
Code files do) builds without that provider, and runs on the model the builder maps the alias
to; unmapped, on the fast model or the agent's own, as agent files run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.skills import Skills
from hookagent.claude._component_hooks import LOADED_SKILLS_KEY
from hookagent.claude._options import ClaudeHookOptions
from hookagent.models._base import ModelRequest
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


def skill(root: Path, model: str) -> Path:
    folder = root / "skills" / "careful"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: careful\ndescription: Be careful.\nhooks:\n  PreToolUse:\n"
        "    - matcher: Bash\n      hooks:\n        - type: prompt\n"
        f"          model: {model}\n          prompt: Refuse rm. $ARGUMENTS\n---\nGo slow.\n"
    )
    return root / "skills"


def judge(name: str, seen: list[str]) -> FunctionModel:
    def answer(request: ModelRequest) -> str:
        seen.append(name)
        return json.dumps({"ok": False, "reason": f"{name} says no"})

    return FunctionModel(answer, name=name)


def agent_model(seen: list[str]) -> FunctionModel:
    def answer(request: ModelRequest) -> Any:
        if request.output is not None and request.output.name == "hook_verdict":
            seen.append("agent")
            return json.dumps({"ok": False, "reason": "agent says no"})
        return tool_call("Bash", command="rm -rf x") if len(request.messages) == 1 else reply("ok")

    return FunctionModel(answer, name="agent")


async def run(tmp_path: Path, builder: h.AgentBuilder) -> h.RunResult[Any]:
    return await builder.build().run("clean", metadata={LOADED_SKILLS_KEY: ["careful"]})


def skills(tmp_path: Path, model: str) -> Skills:
    options = ClaudeHookOptions(project_dir=str(tmp_path))
    return Skills(skill(tmp_path, model), hook_options=options)


async def test_an_alias_runs_on_the_model_the_builder_maps_it_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # `haiku` is not anthropic:haiku
    seen: list[str] = []
    builder = (
        h.AgentBuilder()
        .model(agent_model(seen))
        .tools(Bash)
        .with_(skills(tmp_path, "haiku"))
        .model_alias("haiku", judge("small", seen))
    )
    result = await run(tmp_path, builder)
    assert seen == ["small"]
    assert result.tool_calls[0].blocked and "small says no" in result.tool_calls[0].result.content


@pytest.mark.parametrize("alias", ["haiku", "inherit"])
async def test_an_unmapped_alias_runs_on_the_agents_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alias: str
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    seen: list[str] = []
    builder = h.AgentBuilder().model(agent_model(seen)).tools(Bash).with_(skills(tmp_path, alias))
    result = await run(tmp_path, builder)
    assert seen == ["agent"]
    assert result.tool_calls[0].blocked


def test_a_provider_model_that_cannot_be_had_is_still_refused_at_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(h.ConfigError) as caught:
        skills(tmp_path, "anthropic:claude-haiku-4-5")
    assert caught.value.file == str(tmp_path / "skills" / "careful" / "SKILL.md")


async def test_settings_hooks_map_aliases_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    seen: list[str] = []
    file = tmp_path / "settings.json"
    handler = {"type": "prompt", "model": "haiku", "prompt": "Refuse rm. $ARGUMENTS"}
    file.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}})
    )
    model = ScriptedModel([tool_call("Bash", command="rm -rf x"), reply("ok")])
    builder = (
        h.AgentBuilder()
        .model(model)
        .tools(Bash)
        .with_settings(file, project_dir=tmp_path)
        .model_alias("haiku", judge("small", seen))
    )
    result = await builder.build().run("clean")
    assert seen == ["small"] and result.tool_calls[0].blocked
