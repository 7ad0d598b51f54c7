"""Self-critique: a critic model judges each final answer before the run may end (see
`capability`)."""

from hookagent.capabilities.critique._capability import (
    SELF_CRITIC,
    CritiqueRecord,
    OnCriticFailure,
    SelfCritique,
)
from hookagent.capabilities.critique._critic import SYSTEM_PROMPT, Verdict

__all__ = [
    "SELF_CRITIC",
    "SYSTEM_PROMPT",
    "CritiqueRecord",
    "OnCriticFailure",
    "SelfCritique",
    "Verdict",
]
