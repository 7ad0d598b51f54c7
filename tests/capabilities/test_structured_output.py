"""Structured output: a run that must end in a validated object, natively or by tool."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

import hookagent as h
from hookagent.capabilities.structured_output import STRUCTURED_OUTPUT, StructuredOutput
from hookagent.capabilities.structured_output._schema import OutputSchema, is_strict
from hookagent.testing import FunctionModel, ScriptedModel, reply, turn


class City(BaseModel):
    """A city and its population."""

    name: str
    population: int


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    tags: list[str]


class Opaque:
    """Not something pydantic knows how to describe."""


@dataclass
class Point:
    x: int
    y: int


def call(_tool: str, _id: str = "c1", /, **args: Any) -> dict[str, Any]:
    return {"name": _tool, "args": args, "id": _id}


# -- native mode ----------------------------------------------------------------------


async def test_native_mode_puts_the_schema_on_the_request_and_parses_the_answer() -> None:
    seen: list[h.ModelRequest] = []

    def answer(request: h.ModelRequest) -> str:
        seen.append(request)
        return '{"name": "Lyon", "population": 522000}'

    agent = h.AgentBuilder().model(FunctionModel(answer)).output_type(City, mode="native").build()
    result = await agent.run("biggest city on the Rhône?")
    assert result.parsed == City(name="Lyon", population=522000)
    assert (
        result.status == "completed" and result.output == '{"name": "Lyon", "population": 522000}'
    )
    [request] = seen
    assert request.output is not None and request.output.name == "City"
    assert request.output.schema["required"] == ["name", "population"]
    assert "final_result" not in [t.name for t in request.tools]


async def test_native_mode_sends_validation_errors_back_until_the_answer_is_valid() -> None:
    model = ScriptedModel(
        [
            "Lyon, about half a million.",
            '{"name": "Lyon", "population": "many"}',
            '```json\n{"name": "Lyon", "population": 522000}\n```',
        ]
    )
    agent = h.AgentBuilder().model(model).output_type(City, mode="native").build()
    result = await agent.run("go")
    assert result.parsed == City(name="Lyon", population=522000)
    feedback = [c.last_message or "" for c in model.calls[1:]]
    assert "not valid JSON" in feedback[0]
    assert "population" in feedback[1] and "integer" in feedback[1]
    blocks = result.decisions.by("structured_output:validate")
    assert [d.outcome for d in blocks] == ["block", "block", "modify"]


async def test_native_mode_gives_up_after_max_retries_with_retry_limit() -> None:
    model = ScriptedModel(["nope", "still nope"])
    agent = h.AgentBuilder().model(model).output_type(City, mode="native", max_retries=1).build()
    result = await agent.run("go")
    assert (result.status, result.stop_reason) == ("stopped", "retry_limit")
    assert result.parsed is None
    assert "no valid City answer after 1 retries" in (result.stop_message or "")
    model.assert_consumed()


# -- tool mode ------------------------------------------------------------------------


async def test_tool_mode_ends_the_run_when_the_final_answer_tool_accepts() -> None:
    model = ScriptedModel([turn("", call("final_result", name="Lyon", population=522000))])
    agent = h.AgentBuilder().model(model).output_type(City, mode="tool").build()
    result = await agent.run("go")
    model.assert_consumed()  # no model call after the answer
    assert (result.status, result.stop_reason) == ("completed", "completed")
    assert result.parsed == City(name="Lyon", population=522000)
    assert json.loads(result.output or "") == {"name": "Lyon", "population": 522000}
    assert model.calls[0].tools == ("final_result",)


async def test_tool_mode_returns_invalid_arguments_to_the_model_as_an_error() -> None:
    model = ScriptedModel(
        [
            turn("", call("final_result", name="Lyon", population="lots")),
            turn("", call("final_result", "c2", name="Lyon", population=522000)),
        ]
    )
    agent = h.AgentBuilder().model(model).output_type(City, mode="tool").build()
    result = await agent.run("go")
    assert result.parsed == City(name="Lyon", population=522000)
    first = result.steps[0].executions[0].result
    assert (
        first.is_error and "population" in first.content and "final_result again" in first.content
    )
    assert result.state.metadata["structured_output.failures"] == 1


async def test_tool_mode_refuses_a_plain_text_answer() -> None:
    model = ScriptedModel(
        ["It is Lyon.", turn("", call("final_result", name="Lyon", population=1))]
    )
    agent = h.AgentBuilder().model(model).output_type(City, mode="tool").build()
    result = await agent.run("go")
    assert result.parsed == City(name="Lyon", population=1)
    assert "call" in (model.calls[1].last_message or "") and "final_result" in (
        model.calls[1].last_message or ""
    )


async def test_tool_mode_stops_after_too_many_rejected_answers() -> None:
    bad = [turn("", call("final_result", f"c{i}", name="X")) for i in range(3)]
    agent = h.AgentBuilder().model(ScriptedModel(bad)).output_type(City, mode="tool", max_retries=2)
    result = await agent.build().run("go")
    assert (result.status, result.stop_reason) == ("stopped", "retry_limit")
    assert result.parsed is None


async def test_other_tools_still_run_before_the_answer() -> None:
    @h.tool
    def lookup(city: str) -> int:
        """Population of a city."""
        return 522000

    model = ScriptedModel(
        [
            turn("", call("lookup", city="Lyon")),
            turn("", call("final_result", "c2", name="Lyon", population=522000)),
        ]
    )
    agent = h.AgentBuilder().model(model).tools(lookup).output_type(City, mode="tool").build()
    result = await agent.run("go")
    assert result.parsed == City(name="Lyon", population=522000) and len(result.steps) == 2


# -- types, per-run use, auto mode ----------------------------------------------------


async def test_a_non_object_type_is_wrapped_on_the_wire_and_unwrapped_in_the_result() -> None:
    model = ScriptedModel([turn("", call("final_result", response=[1, 2, 3]))])
    result = await h.AgentBuilder().model(model).build().run("go", output_type=list[int])
    assert result.parsed == [1, 2, 3]
    schema = OutputSchema(list[int]).schema
    assert (
        schema["required"] == ["response"] and schema["properties"]["response"]["type"] == "array"
    )


async def test_output_type_per_run_leaves_other_runs_of_the_agent_alone() -> None:
    model = ScriptedModel([turn("", call("final_result", x=1, y=2)), reply("plain")])
    agent = h.AgentBuilder().model(model).build()
    first = await agent.run("go", output_type=Point)
    second = await agent.run("go")
    assert first.parsed == Point(x=1, y=2)
    assert second.parsed is None and second.output == "plain"
    assert model.calls[1].tools == ()


async def test_per_run_output_on_an_agent_built_with_one_is_refused() -> None:
    agent = h.AgentBuilder().model(ScriptedModel([])).output_type(City).build()
    with pytest.raises(h.ConfigError, match="structured output already"):
        await agent.run("go", output_type=Point)


def test_auto_mode_follows_the_driver() -> None:
    class Native:
        name = "native:m"
        native_output = True

        async def request(self, request: h.ModelRequest, /) -> h.ModelResponse:
            raise AssertionError

    native = StructuredOutput(City)
    h.AgentBuilder().model(Native()).with_(native).build()
    tooled = StructuredOutput(City)
    h.AgentBuilder().model(ScriptedModel([])).with_(tooled).build()
    assert (native.native, tooled.native) == (True, False)


def test_strict_mode_is_asked_only_for_schemas_that_allow_it() -> None:
    assert OutputSchema(Closed).spec().strict is True
    assert OutputSchema(City).spec().strict is False  # extra fields are not forbidden
    assert is_strict({"type": "object", "properties": {"a": {}}, "required": []}) is False


def test_the_schema_name_and_description_come_from_the_type() -> None:
    spec = OutputSchema(City).spec()
    assert (spec.name, spec.description) == ("City", "A city and its population.")
    assert OutputSchema(dict[str, int]).name == "dict"


def test_bad_configuration_names_the_setting() -> None:
    with pytest.raises(h.ConfigError, match=r"StructuredOutput\(mode\)"):
        StructuredOutput(City, mode="json")  # type: ignore[arg-type]
    with pytest.raises(h.ConfigError, match=r"StructuredOutput\(max_retries\)"):
        StructuredOutput(City, max_retries=-1)
    with pytest.raises(h.ConfigError, match="cannot build a JSON schema"):
        StructuredOutput(Opaque)


async def test_the_answer_is_kept_as_json_data_in_the_run_metadata() -> None:
    model = ScriptedModel([turn("", call("final_result", name="Lyon", population=5))])
    result = await h.AgentBuilder().model(model).output_type(City).build().run("go")
    assert STRUCTURED_OUTPUT.get(
        result.state.view if hasattr(result.state, "view") else h.RunView(result.state)
    ) == {"name": "Lyon", "population": 5}
    assert result.to_dict()["parsed"] == {"name": "Lyon", "population": 5}
