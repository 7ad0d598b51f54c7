"""The activities a worker runs for its agent: one model call, one tool call, one fold of
hooks that may do I/O, one reconcile of a call left in doubt.

They run the agent's own model and tools in the worker's process, outside the workflow,
so whatever they do (network, files, subprocesses) never has to be deterministic. A model
or tool call heartbeats while it runs: a worker that dies mid-call is noticed within the
heartbeat timeout; the model is asked again, and a tool's call is reported in doubt rather
than run again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any, final

from temporalio import activity

from hookagent._agent import Agent
from hookagent._canonical import call_key, canonical
from hookagent._messages import ToolCall
from hookagent._run_setup import RunSetup
from hookagent.durable import _codec as codec
from hookagent.durable import _folds as folds
from hookagent.durable._reconcile import reconcile
from hookagent.durable._replaced import bound_replaced
from hookagent.hooks._engine import Folded, fold
from hookagent.hooks._hook import Hook
from hookagent.hooks._points import AFTER_TOOL
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.models._received import received
from hookagent.temporal import _events as events
from hookagent.temporal._subagents import relaying
from hookagent.temporal._task import agent_of, setup_of
from hookagent.temporal._wire import FOLD, MODEL, RECONCILE, TOOL, failure
from hookagent.tools._base import ToolContext

__all__ = ["AgentActivities"]


@final
class AgentActivities:
    """The activities of one agent (register `model` and `tool` with a worker)."""

    def __init__(self, agent: Agent, heartbeat: float) -> None:
        self._agent = agent
        self._beat = heartbeat / 3
        self._hooks: dict[int, tuple[RunSetup, dict[tuple[str, str], Hook[Any]]]] = {}
        """Per run setup (by identity, kept alive here), its hooks by point and id."""

    @activity.defn(name=FOLD)
    async def fold(self, task: dict[str, Any]) -> str:
        """Run a point's hooks over the event the workflow sent, watched for their timeouts
        as in a run; the outcome as `durable.folds` writes it, with a result an after_tool
        hook put in place cut, and saved whole in the run's folder, as the tool's own is."""
        setup = setup_of(self._agent, task)
        found = self._hooks.get(id(setup))
        if found is None:
            by_id = {(h.point.name, h.id): h for h in setup.registry}
            found = self._hooks[id(setup)] = (setup, by_id)
        hooks = tuple(found[1][(task["point"], hook)] for hook in task["hooks"])
        point = hooks[0].point
        event = events.decode(task["event"], setup.specs)
        tick = setup.watch_tick
        watch = HookWatch(tick) if tick is not None else None
        if watch is not None:
            current = asyncio.current_task()
            assert current is not None, "an activity runs in a task"
            watch.track(current)
        try:
            with relaying(self._agent, task, event.run.run_id):
                folded = await fold(point, hooks, event, watch)
        finally:
            if watch is not None:
                await watch.close()
        if point is AFTER_TOOL and isinstance(folded, Folded):  # the history keeps it cut
            await bound_replaced(setup.outputs, event.run.run_id, event, folded)
        return folds.encode(point, event, folded)

    @activity.defn(name=MODEL)
    async def model(self, request: Any, agent: str | None = None) -> dict[str, Any]:
        """The model's reply to a request (`durable.codec` field `request`), asked of the
        model of the subagent `agent` names, if it names one."""
        model = agent_of(self._agent, {"agent": agent}).model
        try:
            async with self._beating():
                asked = await model.request(codec.load_field("request", request))
            response = received(asked)
        except Exception as exc:
            return failure(exc)
        return {"response": codec.dump("response", response)}

    @activity.defn(name=TOOL)
    async def tool(self, task: dict[str, Any]) -> dict[str, Any]:
        """Call one tool as the kernel would, with a view of the run that holds its id,
        metadata and step (not its messages); a result longer than the tool's
        `max_result_chars` is cut, and saved whole in the run's folder, here."""
        call = ToolCall(id=task["call_id"], name=task["name"], args=task["args"])
        args = codec.load_field("args", task["args"])
        state = RunState(run_id=task["run_id"], metadata=dict(task["metadata"]))
        state.position.step = task["step"]
        setup = setup_of(self._agent, task)
        view = RunView(state, setup.specs)
        view.files_root = setup.outputs.root
        key = _key(task, args)
        context = ToolContext(run=view, call=call, idempotency_key=key)
        try:
            async with self._beating():
                result = await setup.tools[call.name](args, context)
        except Exception as exc:
            return failure(exc)
        outputs = setup.outputs
        limit = outputs.limits.get(call.name)
        if limit is not None and len(result.content) > limit:
            result = await outputs.bound(state.run_id, call, result)
        return {"result": codec.dump("result", result)}

    @activity.defn(name=RECONCILE)
    async def reconcile(self, task: dict[str, Any]) -> dict[str, Any] | None:
        """The tool's answer on a call left in doubt (`durable.reconcile`), with the
        decision that records it; None if the tool does not reconcile."""
        name = task["name"]
        args = codec.load_field("args", task["args"])
        found = await reconcile(
            name,
            setup_of(self._agent, task).traits[name],
            args,
            _key(task, args),
            run_id=task["run_id"],
            step=task["step"],
            call_id=task["call_id"],
        )
        if found is None:
            return None
        answer, decision = found
        result = codec.dump("result", answer.result) if answer.result is not None else None
        return {
            "outcome": answer.outcome,
            "reason": answer.reason,
            "result": result,
            "decision": codec.dump("decision", decision),
        }

    @contextlib.asynccontextmanager
    async def _beating(self) -> AsyncIterator[None]:
        """Heartbeat while the body runs: a worker lost in it is noticed within the
        heartbeat timeout. The beat stops when the body ends, however it ends."""
        done = asyncio.Event()

        async def beat() -> None:
            while not done.is_set():
                activity.heartbeat()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(done.wait(), self._beat)

        beating = asyncio.create_task(beat())
        try:
            yield
        finally:
            done.set()
            await beating


def _key(task: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    """The call's idempotency key, as a run in memory gives its tool."""
    return call_key(task["run_id"], task["call_id"], canonical(dict(args)))
