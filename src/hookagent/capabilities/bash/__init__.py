"""The shell capability: `Bash(root, policy, sandbox=...)` brings the sandboxed `Bash` tool and
its deny-list guard."""

from hookagent.capabilities.bash.capability import Bash
from hookagent.capabilities.bash.env import SCRUBBED
from hookagent.capabilities.bash.parse import ParsedCommand, SimpleCommand, parse_command
from hookagent.capabilities.bash.policy import BashPolicy
from hookagent.capabilities.bash.rules import DEFAULT_DENY, DenyRule
from hookagent.capabilities.bash.sandbox import DEFAULT_DENY_PATHS

__all__ = [
    "DEFAULT_DENY",
    "DEFAULT_DENY_PATHS",
    "SCRUBBED",
    "Bash",
    "BashPolicy",
    "DenyRule",
    "ParsedCommand",
    "SimpleCommand",
    "parse_command",
]
