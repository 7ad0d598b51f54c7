"""Messages give the advice of the surface they reach: the library's own by default, a
surface's (the command line's) inside `surface(...)`."""

from __future__ import annotations

import hookagent as h
from hookagent._remedies import NO_APPROVER, UNPRICED_MODEL, advice, surface
from hookagent.testing import ScriptedModel, reply, tool_call


def test_advice_is_the_default_outside_a_surface_and_the_surfaces_inside() -> None:
    assert advice(UNPRICED_MODEL, "pass prices") == "pass prices"
    with surface({UNPRICED_MODEL: "add --price {model}=IN/OUT"}):
        assert advice(UNPRICED_MODEL, "pass prices", model="m") == "add --price m=IN/OUT"
        assert advice(NO_APPROVER, "pass approver=") == "pass approver="
    assert advice(UNPRICED_MODEL, "pass prices") == "pass prices"


def _asking_agent() -> h.Agent:
    @h.tool
    def deploy() -> str:
        """Deploy."""
        return "deployed"

    model = ScriptedModel([tool_call("deploy"), reply("done")])
    builder = h.AgentBuilder().model(model).tools(deploy)
    return builder.on(h.BEFORE_TOOL, lambda e: h.HookResult.ask("Deploy?"), name="gate").build()


async def test_a_question_with_no_approver_gives_the_surfaces_advice() -> None:
    plain = await _asking_agent().run("go")
    [decision] = [d for d in plain.decisions if d.point == "before_tool"]
    assert "pass approver= to run()" in (decision.reason or "")
    with surface({NO_APPROVER: "use --session and hookagent approve"}):
        result = await _asking_agent().run("go")
    [decision] = [d for d in result.decisions if d.point == "before_tool"]
    assert "no approver (hook user:gate at before_tool); use --session and hookagent approve" in (
        decision.reason or ""
    )
    assert "approver=" not in (decision.reason or "")
