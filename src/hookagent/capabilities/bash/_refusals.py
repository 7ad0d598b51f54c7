"""The decision a sandboxed Bash call's refused connections become.

The proxy (`proxy.py`) lists what it refused in the result's `data["sandbox"]["refused"]`.
The `Bash` capability's `after_tool` hook turns a non-empty list into a vote, so it is
recorded like any other decision: in `RunResult.decisions`, the CLI's live view,
`hookagent sessions show` and the audit trail. The vote's reason names each host, port and
why, with the call's id; it adds the refusals to the run's metadata under `METADATA_KEY`
(the run's whole list, the last `_KEPT`), and tells the model, next to the call's result,
that those hosts are out of reach, since a client may report only "403" or nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from hookagent.hooks._events import ToolResultEvent
from hookagent.hooks._result import HookResult

__all__ = ["METADATA_KEY", "refusal_decision"]

METADATA_KEY: Final = "sandbox_network_refused"
"""Run metadata: `[{call_id, host, port, reason}]`, every connection the run's proxies refused."""
_KEPT: Final = 200


def refusal_decision(event: ToolResultEvent) -> HookResult | None:
    """The decision for the connections refused during the call of `event`, if any."""
    data = event.result.data
    sandbox = data.get("sandbox") if isinstance(data, Mapping) else None
    refused = sandbox.get("refused") if isinstance(sandbox, Mapping) else None
    if not isinstance(refused, Sequence) or not refused:
        return None
    omitted = sandbox.get("omitted", 0) if isinstance(sandbox, Mapping) else 0
    listed = _listed(refused, omitted if isinstance(omitted, int) else 0)
    reason = f"sandbox network proxy refused, for call {event.call_id}: {listed}"
    earlier = event.run.metadata.get(METADATA_KEY)
    entries = [*(earlier if isinstance(earlier, list) else ()), *_entries(event, refused)]
    told = (
        f"The sandbox's network proxy refused: {listed}. Only the allowed domains can be "
        "reached from Bash; ask the user if another host is needed."
    )
    changed = HookResult.modify(metadata={METADATA_KEY: entries[-_KEPT:]})
    return replace(changed, reason=reason).with_context(told)


def _listed(refused: Sequence[Any], omitted: int) -> str:
    """`host:port (reason)` per distinct refusal, `(N times)` when repeated."""
    counts = Counter(
        (_where(entry), str(entry.get("reason"))) for entry in refused if isinstance(entry, Mapping)
    )
    parts = [
        f"{where} ({why})" + (f" ({count} times)" if count > 1 else "")
        for (where, why), count in counts.items()
    ]
    if omitted:
        parts.append(f"and {omitted} more")
    return "; ".join(parts)


def _where(entry: Mapping[str, Any]) -> str:
    host, port = entry.get("host"), entry.get("port")
    return "a malformed request" if host is None else f"{host}:{port}"


def _entries(event: ToolResultEvent, refused: Sequence[Any]) -> list[dict[str, Any]]:
    return [{"call_id": event.call_id, **entry} for entry in refused if isinstance(entry, Mapping)]
