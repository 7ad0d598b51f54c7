"""The hook engine on its own: `ToolGate` runs hookagent's tool hooks around any function."""

from hookagent.gate._gate import GATE_POINTS, ToolGate
from hookagent.gate._result import GateResult

__all__ = ["GATE_POINTS", "GateResult", "ToolGate"]
