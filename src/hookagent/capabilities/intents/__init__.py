"""Intent gating: `IntentGate(file)` brings `select_active_intent` and the guards that keep
changes to files within the selected intent's scope and based on what the agent read."""

from hookagent.capabilities.intents._capability import (
    ACTIVE_INTENT,
    DEFAULT_MUTATING,
    DEFAULT_MUTATING_PATTERNS,
    DEFAULT_PATH_ARGS,
    OBSERVED_FILES,
    IntentGate,
)
from hookagent.capabilities.intents._codes import (
    HOOK_INTERNAL_ERROR,
    INTENTS_UNAVAILABLE,
    NO_ACTIVE_INTENT,
    SCOPE_VIOLATION,
    STALE_FILE,
    UNKNOWN_INTENT,
)
from hookagent.capabilities.intents._spec import Intent, IntentFile, parse_intents, render_context
from hookagent.capabilities.intents._tool import SelectActiveIntent

__all__ = [
    "ACTIVE_INTENT",
    "DEFAULT_MUTATING",
    "DEFAULT_MUTATING_PATTERNS",
    "DEFAULT_PATH_ARGS",
    "HOOK_INTERNAL_ERROR",
    "INTENTS_UNAVAILABLE",
    "NO_ACTIVE_INTENT",
    "OBSERVED_FILES",
    "SCOPE_VIOLATION",
    "STALE_FILE",
    "UNKNOWN_INTENT",
    "Intent",
    "IntentFile",
    "IntentGate",
    "SelectActiveIntent",
    "parse_intents",
    "render_context",
]
