"""`ToolGate.call_sync` takes exactly what `call` takes: it is built from it."""

from __future__ import annotations

import inspect

from hookagent.gate import ToolGate


def test_call_sync_has_calls_signature_and_its_own_doc() -> None:
    assert inspect.signature(ToolGate.call_sync) == inspect.signature(ToolGate.call)
    assert ToolGate.call_sync.__name__ == "call_sync"
    assert (ToolGate.call_sync.__doc__ or "").startswith("`call` for code without an event loop")
