"""Shared fixtures: a real run state, its read-only view, and a fast hook watchdog."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from hookagent.hooks._watch import HookWatch
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView


@pytest.fixture
def state() -> RunState:
    return RunState(run_id="run-1")


@pytest.fixture
def run(state: RunState) -> RunView:
    """The view hooks receive in their events."""
    return RunView(state)


@pytest.fixture
async def watch() -> AsyncIterator[HookWatch]:
    """A watchdog that checks every 5 ms, so timeouts of a few ms are enforced quickly."""
    hook_watch = HookWatch(tick=0.005)
    yield hook_watch
    await hook_watch.close()
