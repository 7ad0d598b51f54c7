"""Which model failures are worth retrying, and what the default error policy does with them."""

from __future__ import annotations

import pytest

import hookagent as h
from hookagent._errors import ModelError
from hookagent.testing import FunctionModel


@pytest.mark.parametrize(
    ("status", "timed_out", "transient"),
    [
        (500, False, True),
        (503, False, True),
        (529, False, True),
        (429, False, True),
        (408, False, True),
        (409, False, True),
        (400, False, False),
        (401, False, False),
        (403, False, False),
        (404, False, False),
        (None, True, True),
        (None, False, False),
    ],
)
def test_transient_follows_the_status(status: int | None, timed_out: bool, transient: bool) -> None:
    error = ModelError("x", provider="p", model="m", status=status, timed_out=timed_out)
    assert error.transient is transient


def test_a_driver_can_say_a_status_less_failure_is_transient() -> None:
    assert ModelError("lost", provider="p", model="m", transient=True).transient


def failing(status: int, then: str) -> FunctionModel:
    calls = 0

    def answer(request: h.ModelRequest) -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ModelError("boom", provider="fake", model="m", status=status)
        return then

    return FunctionModel(answer)


async def test_the_default_policy_retries_a_server_error() -> None:
    policy = h.ErrorPolicy.default()
    policy.backoff = 0.0
    agent = h.AgentBuilder().model(failing(502, "ok")).error_policy(policy).build()
    result = await agent.run("go")
    assert result.output == "ok"
    assert [d.outcome for d in result.decisions.at(h.ON_ERROR)] == ["retry"]


async def test_no_policy_retries_a_bad_request_even_when_told_to() -> None:
    policy = h.ErrorPolicy({"model": "retry"}, max_retries=3, backoff=0.0)
    agent = h.AgentBuilder().model(failing(400, "never")).error_policy(policy).build()
    result = await agent.run("go")
    assert (result.status, result.stop_reason) == ("failed", "error")
    assert "HTTP 400" in (result.error or "")
