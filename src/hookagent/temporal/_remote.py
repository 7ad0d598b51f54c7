"""The model and the tools as a workflow sees them: each call is an activity.

`ActivityModel` wraps the agent's model as a `Model`; `ActivityTool` stands in for one tool
in the run's context, so the kernel's own tool path (error policy, retries asked by hooks,
records) runs in the workflow while the tool runs in an activity.

A model call is retried by Temporal when its worker is lost (noticed by its heartbeat;
asking again has no effect).
A tool call is retried so only when the tool is `idempotent`; otherwise it gets one attempt,
and a lost worker leaves it **in doubt** (`InDoubt`), never run twice.

A model request carries the whole conversation. One over the payload limit (`Timeouts.
payload`: Temporal refuses a payload over 2 MB by default) is not sent: the run fails with a
`ModelError` naming the run, the size and what to do, rather than with the server's error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Final, final

from temporalio import workflow
from temporalio.common import RawValue, RetryPolicy
from temporalio.exceptions import ActivityError
from temporalio.exceptions import TimeoutError as ActivityTimeout

from hookagent._errors import ModelError
from hookagent.durable import _codec as codec
from hookagent.kernel._state import RunState
from hookagent.models._base import Model, ModelRequest, ModelResponse, ToolSpec
from hookagent.models._stand_in import StandIn
from hookagent.temporal._wire import MODEL, TOOL, raised
from hookagent.tools._base import ToolContext, ToolResult

__all__ = ["ONCE", "PAYLOAD", "ActivityModel", "ActivityTool", "InDoubt", "Timeouts", "oversize"]

PAYLOAD: Final = 2_000_000
"""Bytes a payload may have by default: under the 2 MiB a Temporal server refuses."""


class InDoubt(BaseException):
    """A tool call's worker was lost before the call reported its end. A BaseException, so
    the error policy (`except Exception`) does not take it for a failure to retry."""


@final
class Timeouts:
    """How long activities may take, how soon a lost worker is noticed, and how many bytes
    a payload a run sends (a model request, a continue-as-new) may have."""

    __slots__ = ("heartbeat", "model", "payload", "tool")

    def __init__(
        self, *, model: float, tool: float, heartbeat: float, payload: int = PAYLOAD
    ) -> None:
        self.model = timedelta(seconds=model)
        self.tool = timedelta(seconds=tool)
        self.heartbeat = timedelta(seconds=heartbeat)
        self.payload = payload


def oversize(data: Any, limit: int) -> int | None:
    """The size of `data` as the payload converter writes it (compact JSON), if over
    `limit` bytes."""
    size = len(json.dumps(data, separators=(",", ":")).encode())
    return size if size > limit else None


ONCE = RetryPolicy(maximum_attempts=1)
_AGAIN = RetryPolicy(maximum_attempts=3)
"""An idempotent tool's call is run again when its worker is lost, up to three times."""


@final
class ActivityModel(StandIn):
    """`model` (its name and traits), asked through the model activity."""

    def __init__(self, model: Model, timeouts: Timeouts, agent: str | None = None) -> None:
        """`agent`: the subagent whose model this is (None: the worker's agent's)."""
        super().__init__(model)
        self._timeouts = timeouts
        self._agent = agent

    async def request(self, request: ModelRequest, /) -> ModelResponse:
        # converted once, here: its size is checked and it is sent as it is (`RawValue`)
        sent = workflow.payload_converter().to_payload(codec.dump_field("request", request))
        size = sent.ByteSize()
        if size > self._timeouts.payload:
            raise ModelError(
                f"run {workflow.info().workflow_id}: the model request is {size} bytes, over "
                f"the {self._timeouts.payload}-byte payload limit of a run on Temporal: its "
                "conversation has grown too long to send. Give the agent Summarization (it "
                "compacts what a request carries), or continue from a summary in a new "
                "session; continuing as new (--history) does not shorten it",
                provider="temporal",
                model=self.name,
                transient=False,
            )
        data: dict[str, Any] = await workflow.execute_activity(
            MODEL,
            args=[RawValue(sent)] if self._agent is None else [RawValue(sent), self._agent],
            start_to_close_timeout=self._timeouts.model,
            heartbeat_timeout=self._timeouts.heartbeat,
        )
        if "error" in data:
            raise raised(data)
        response: ModelResponse = codec.load("response", data["response"])
        return response


@final
class ActivityTool:
    """One tool of the run, called through the tool activity."""

    def __init__(
        self,
        spec: ToolSpec,
        state: RunState,
        *,
        idempotent: bool,
        timeouts: Timeouts,
        setup: Mapping[str, Any],
    ) -> None:
        self.name = spec.name
        self.description = spec.description
        self.parameters = spec.parameters
        self._state = state
        self._retry = _AGAIN if idempotent else ONCE
        self._timeouts = timeouts
        self._setup = setup

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        task = {
            **self._setup,
            "run_id": self._state.run_id,
            "step": self._state.position.step,
            "metadata": self._state.metadata,
            "call_id": ctx.call.id,
            "name": self.name,
            "args": codec.dump_field("args", dict(args)),
        }
        try:
            data: dict[str, Any] = await workflow.execute_activity(
                TOOL,
                task,
                start_to_close_timeout=self._timeouts.tool,
                heartbeat_timeout=self._timeouts.heartbeat,
                retry_policy=self._retry,
            )
        except ActivityError as exc:
            if isinstance(exc.cause, ActivityTimeout):
                raise InDoubt(str(exc.cause)) from exc
            raise
        if "error" in data:
            raise raised(data)
        result: ToolResult = codec.load("result", data["result"])
        return result
