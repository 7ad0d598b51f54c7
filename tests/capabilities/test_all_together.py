"""Every capability of the original design in one agent: skills, subagents, summarization,
self-critique and structured output, composed with `with_` and driven by scripted models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import hookagent as h
from hookagent.capabilities.critique import SelfCritique
from hookagent.capabilities.skills import Skills
from hookagent.capabilities.structured_output import StructuredOutput
from hookagent.capabilities.subagents import AgentRegistry, AgentSpec, Subagents
from hookagent.capabilities.summarization import Summarization
from hookagent.testing import FunctionModel


class Review(BaseModel):
    approved: bool
    reasons: list[str]


def main_model(request: h.ModelRequest) -> Any:
    if request.system_prompt and request.system_prompt.startswith("You review"):
        return "The diff is small and tested."  # the reviewer subagent
    # By step: once compacted, the earliest results are in the summary, not the messages.
    if request.step == 1:
        return {"tool_calls": [{"name": "Skill", "args": {"name": "review-style"}, "id": "s1"}]}
    if request.step == 2:
        args = {"description": "review", "prompt": "Review the diff.", "subagent_type": "reviewer"}
        return {"tool_calls": [{"name": "Agent", "args": args, "id": "a1"}]}
    return json.dumps({"approved": True, "reasons": ["small", "tested"]})


async def test_all_capabilities_in_one_agent(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "review-style"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: review-style\ndescription: How we review.\n---\nBe brief and concrete.\n"
    )
    critic_calls: list[h.ModelRequest] = []

    def critic(request: h.ModelRequest) -> str:
        critic_calls.append(request)
        return json.dumps({"approved": True, "summary": "ok", "weaknesses": [], "suggestions": []})

    compactions: list[str] = []
    reviewer = AgentSpec(name="reviewer", description="Reviews diffs.", system_prompt="You review.")
    agent = (
        h.AgentBuilder()
        .model(FunctionModel(main_model))
        .with_(Skills(tmp_path / "skills"))
        .with_(Subagents(AgentRegistry([reviewer])))
        .with_(
            Summarization(
                summarizer=FunctionModel(lambda r: "Loaded the skill; asked the reviewer."),
                max_message_tokens=40,
                max_buffer_tokens=30,
            )
        )
        .with_(SelfCritique(critic=FunctionModel(critic)))
        .with_(StructuredOutput(Review, mode="native"))
        .on(h.AFTER_COMPACT, lambda e: compactions.append(e.summary or ""))
        .build()
    )
    result = await agent.run("Review the change and give a verdict.")
    assert result.status == "completed", result.stop_message
    assert result.parsed == Review(approved=True, reasons=["small", "tested"])
    assert [e.name for e in result.tool_calls] == ["Skill", "Agent"]
    assert "Be brief and concrete." in result.tool_calls[0].result.content
    assert (
        result.tool_calls[1].result.content == "[Subagent: reviewer] The diff is small and tested."
    )
    assert len(critic_calls) == 1  # the final answer was judged, and approved
    assert compactions == ["Loaded the skill; asked the reviewer."]
    hooks = {vote.hook for d in result.decisions for vote in d.votes}
    assert {"skills:list_in_prompt", "selfcritique:critic", "summarization:compact"} <= hooks
    assert "structured_output:validate" in hooks
