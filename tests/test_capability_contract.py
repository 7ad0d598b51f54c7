"""A capability's optional `bind(agent)` is called once, with the built agent; its optional
`finish_result(result)` post-processes every run's result, as structured output does."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import pytest

import hookagent as h
from hookagent._capability import BindsAgent, FinishesResults
from hookagent.capabilities.structured_output import StructuredOutput
from hookagent.testing import ScriptedModel, reply, tool_call


class Bare:
    """Neither binds nor finishes."""

    name = "bare"

    def tools(self) -> Iterable[h.Tool]:
        return ()

    def hooks(self) -> Iterable[h.Hook[Any]]:
        return ()


class Binding(Bare):
    name = "binding"

    def __init__(self, *, read_aliases: bool = False) -> None:
        self.agents: list[h.Agent] = []
        self.aliases: dict[str, Any] = {}
        self.read_aliases = read_aliases

    def bind(self, agent: h.Agent, /) -> None:
        self.agents.append(agent)
        if self.read_aliases:
            self.aliases = dict(agent.model_aliases)


class Stamp(Bare):
    """Post-processes each result: the output gets a mark."""

    def __init__(self, mark: str) -> None:
        self.name = f"stamp{mark}"
        self.mark = mark
        self.seen = 0

    def finish_result(self, result: h.RunResult[Any], /) -> h.RunResult[Any]:
        self.seen += 1
        return replace(result, output=f"{result.output}{self.mark}")


@dataclass
class City:
    name: str


def test_the_optional_methods_are_found_by_their_protocols() -> None:
    assert not isinstance(Bare(), BindsAgent | FinishesResults)
    assert isinstance(Binding(), BindsAgent) and isinstance(Stamp("!"), FinishesResults)
    output = StructuredOutput(City)
    assert isinstance(output, BindsAgent) and isinstance(output, FinishesResults)


def test_bind_is_called_once_with_the_built_agent() -> None:
    binding = Binding()
    model = ScriptedModel([])
    agent = h.AgentBuilder().model(model).with_(binding).with_(Bare()).build()
    assert binding.agents == [agent]
    assert agent.model is model


async def test_bind_is_not_called_again_by_runs() -> None:
    binding = Binding()
    agent = h.AgentBuilder().model(ScriptedModel([reply("a"), reply("b")])).with_(binding).build()
    await agent.run("one")
    await agent.run("two", limits={"max_steps": 3})
    assert binding.agents == [agent]


async def test_a_capability_post_processes_every_result_in_install_order() -> None:
    first, second = Stamp("!"), Stamp("?")
    model = ScriptedModel([reply("a"), reply("b")])
    agent = h.AgentBuilder().model(model).with_(first).with_(second).build()
    assert (await agent.run("one")).output == "a!?"
    assert (await agent.run("two")).output == "b!?"
    assert (first.seen, second.seen) == (2, 2)


async def test_post_processing_composes_with_structured_output_per_run() -> None:
    stamp = Stamp("!")
    model = ScriptedModel([tool_call("final_result", name="Oslo")])
    agent = h.AgentBuilder().model(model).with_(stamp).build()
    result = await agent.run("go", output_type=City)
    assert result.parsed == City(name="Oslo")
    assert result.output == '{"name": "Oslo"}!'


def test_two_structured_outputs_are_a_config_error_at_build() -> None:
    builder = (
        h.AgentBuilder()
        .model(ScriptedModel([]))
        .with_(StructuredOutput(City))
        .with_(StructuredOutput(City, tool_name="answer"))
    )
    with pytest.raises(h.ConfigError, match="an agent has one structured output"):
        builder.build()


def test_aliases_a_capability_reads_in_bind_are_no_warning() -> None:
    child = ScriptedModel([])
    binding = Binding(read_aliases=True)
    builder = h.AgentBuilder().model(ScriptedModel([])).with_(binding).model_alias("haiku", child)
    builder.build()
    assert binding.aliases == {"haiku": child}
    assert builder.warnings == ()


def test_aliases_no_capability_reads_are_a_warning() -> None:
    builder = h.AgentBuilder().model(ScriptedModel([])).with_(Binding())
    builder.model_alias("haiku", ScriptedModel([])).build()
    assert builder.warnings == ("model aliases haiku: no installed capability runs agent files",)
