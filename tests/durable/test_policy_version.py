"""An agent's policy version: what an approval is bound to besides the call itself."""

from __future__ import annotations

import hookagent as h
from hookagent.testing import ScriptedModel, reply


def version(*hooks: tuple[h.HookPoint[object], dict[str, object]]) -> str:
    builder = h.AgentBuilder().model(ScriptedModel([reply("ok")]))
    for point, options in hooks:
        builder.on(point, lambda _event: None, **options)  # type: ignore[arg-type]
    return builder.build().policy_version


def test_an_observer_that_fails_open_does_not_change_it() -> None:
    observer = {"name": "notify", "kind": "observer", "on_failure": "proceed"}
    assert version((h.PERMISSION_REQUEST, observer)) == version()


def test_a_guard_or_an_observer_that_fails_closed_does() -> None:
    guard = {"name": "guard"}
    closed = {"name": "audit", "kind": "observer", "on_failure": "block"}
    assert version((h.BEFORE_TOOL, guard)) != version()
    assert version((h.BEFORE_TOOL, closed)) != version()
