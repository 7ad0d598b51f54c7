"""Approvals: `Approvals(rules)` allows, denies or asks about each tool call, by Claude Code
permission rules (in code and in the project's settings files) and by whether the tool is
safe or destructive; "always allow" answers are saved as rules Claude Code reads too."""

from hookagent.capabilities.approvals._capability import (
    AUTO_ALLOWED,
    DEFAULT_UNMATCHED,
    HOOK_ID,
    OPTIONS,
    Approvals,
    call_key,
    remembering,
    scope_of,
)
from hookagent.capabilities.approvals._rules import (
    DESTRUCTIVE_PATTERNS,
    DESTRUCTIVE_TOOLS,
    SAFE_PREFIXES,
    SAFE_TOOLS,
    Class,
    CompiledRule,
    Decision,
    Rule,
    Verdict,
    classify_tool,
    suggest_rules,
    summarize_call,
)

__all__ = [
    "AUTO_ALLOWED",
    "DEFAULT_UNMATCHED",
    "DESTRUCTIVE_PATTERNS",
    "DESTRUCTIVE_TOOLS",
    "HOOK_ID",
    "OPTIONS",
    "SAFE_PREFIXES",
    "SAFE_TOOLS",
    "Approvals",
    "Class",
    "CompiledRule",
    "Decision",
    "Rule",
    "Verdict",
    "call_key",
    "classify_tool",
    "remembering",
    "scope_of",
    "suggest_rules",
    "summarize_call",
]
