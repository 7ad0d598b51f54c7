"""The shell capability: `Bash(root, policy, sandbox=...)` brings the sandboxed `Bash` tool and
its deny-list guard."""

from hookagent.capabilities.bash._capability import Bash
from hookagent.capabilities.bash._env import SCRUBBED
from hookagent.capabilities.bash._parse import ParsedCommand, SimpleCommand, parse_command
from hookagent.capabilities.bash._policy import BashPolicy
from hookagent.capabilities.bash._rules import DEFAULT_DENY, DenyRule
from hookagent.capabilities.bash._sandbox import DEFAULT_DENY_PATHS

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
