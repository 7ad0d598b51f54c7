"""A tool's optional traits (`concurrent`, `idempotent`, `prepare`, `reconcile`,
`reconcile_timeout`) are read and checked once, when the agent takes the tool: a missing one
gets its default, a wrong one is a `ConfigError` naming the tool and the attribute."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._run_setup import RunSetup
from hookagent.hooks._registry import HookRegistry
from hookagent.testing import ScriptedModel, reply, tool_call
from hookagent.tools._base import RECONCILE_TIMEOUT, Reconciled
from hookagent.tools._traits import DEFAULT_TRAITS, ToolTraits, traits_of


class Plain:
    """A tool written elsewhere, with none of the optional traits."""

    name = "plain"
    description = "Echo the text."
    parameters: Mapping[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}

    async def __call__(self, args: Mapping[str, Any], ctx: h.ToolContext, /) -> h.ToolResult:
        return h.ToolResult.of(f"echo {args['text']}")


def with_traits(**traits: Any) -> Plain:
    tool = Plain()
    for name, value in traits.items():
        setattr(tool, name, value)
    return tool


def reconcile(args: Mapping[str, Any], key: str, /) -> Reconciled:
    return Reconciled.not_done()


def setup(*tools: Any) -> RunSetup:
    return RunSetup.of({t.name: t for t in tools}, HookRegistry(), (), (Path("."), None))


async def test_a_tool_without_the_optional_traits_runs_with_their_defaults() -> None:
    assert traits_of(Plain()) is DEFAULT_TRAITS
    assert (
        ToolTraits(
            concurrent=False,
            idempotent=False,
            prepare=None,
            reconcile=None,
            reconcile_timeout=RECONCILE_TIMEOUT,
        )
        == DEFAULT_TRAITS
    )
    model = ScriptedModel([tool_call("plain", text="hi"), reply("done")])
    result = await h.AgentBuilder().model(model).tools(Plain()).build().run("go")
    assert result.tool_calls[0].result.content == "echo hi"


def test_declared_traits_are_read_once_into_the_run_setup() -> None:
    def prepare(args: Mapping[str, Any], /) -> Mapping[str, Any]:
        return args

    tool = with_traits(
        concurrent=True,
        idempotent=True,
        prepare=prepare,
        reconcile=reconcile,
        reconcile_timeout=5,
    )
    made = setup(tool)
    assert made.traits == {
        "plain": ToolTraits(
            concurrent=True,
            idempotent=True,
            prepare=prepare,
            reconcile=reconcile,
            reconcile_timeout=5.0,
        )
    }
    assert {name: t.prepare for name, t in made.traits.items() if t.prepare} == {"plain": prepare}
    tool.concurrent = False  # read once: the setup keeps what it read
    assert made.traits["plain"].concurrent is True


def test_the_traits_of_built_in_tools_are_declared() -> None:
    def ok() -> str:
        """Ok."""
        return "ok"

    reconciling = h.tool(reconcile=lambda args, key: Reconciled.not_done())(ok)
    assert traits_of(reconciling).reconcile is not None
    assert traits_of(reconciling).reconcile_timeout == RECONCILE_TIMEOUT
    assert traits_of(h.tool(ok)) is DEFAULT_TRAITS


def test_none_stands_for_no_prepare_and_no_reconcile() -> None:
    assert traits_of(with_traits(prepare=None, reconcile=None)) is DEFAULT_TRAITS


@pytest.mark.parametrize(
    ("traits", "attribute", "problem"),
    [
        ({"concurrent": "yes"}, "concurrent", "must be True or False, not 'yes'"),
        ({"concurrent": 1}, "concurrent", "must be True or False, not 1"),
        ({"idempotent": None}, "idempotent", "must be True or False, not None"),
        ({"prepare": "absolute"}, "prepare", "must be a method, not 'absolute'"),
        ({"reconcile": 3}, "reconcile", "must be a method, not 3"),
        (
            {"reconcile": reconcile, "reconcile_timeout": -1},
            "reconcile_timeout",
            "must be a number of seconds above 0, not -1",
        ),
        (
            {"reconcile": reconcile, "reconcile_timeout": 0},
            "reconcile_timeout",
            "must be a number of seconds above 0, not 0",
        ),
        (
            {"reconcile": reconcile, "reconcile_timeout": True},
            "reconcile_timeout",
            "must be a number of seconds above 0, not True",
        ),
        (
            {"reconcile": reconcile, "reconcile_timeout": "5"},
            "reconcile_timeout",
            "must be a number of seconds above 0, not '5'",
        ),
        (
            {"reconcile": reconcile, "reconcile_timeout": math.nan},
            "reconcile_timeout",
            "must be a number of seconds above 0, not nan",
        ),
        (
            {"reconcile_timeout": 5},
            "reconcile_timeout",
            "is set but the tool has no reconcile method",
        ),
    ],
)
def test_a_wrong_trait_is_a_config_error_naming_the_tool_and_attribute(
    traits: dict[str, Any], attribute: str, problem: str
) -> None:
    tool = with_traits(**traits)
    with pytest.raises(h.ConfigError) as caught:
        traits_of(tool)
    assert str(caught.value) == f"tool 'plain' {attribute}: {problem}"
    assert caught.value.key == f"tool 'plain' {attribute}"
    builder = h.AgentBuilder().model(ScriptedModel([])).tools(tool)
    with pytest.raises(h.ConfigError, match=f"tool 'plain' {attribute}"):
        builder.build()  # the agent takes its tools, and reads their traits, when built
