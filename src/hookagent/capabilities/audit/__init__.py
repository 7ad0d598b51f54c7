"""Audit trail: every fold, decision and tool call as hash-chained JSONL (see `capability`),
and `verify`, which names the first line that was edited, deleted, moved or cut off."""

from hookagent.capabilities.audit._capability import AuditTrail, OnAuditFailure
from hookagent.capabilities.audit._chain import ZERO_HASH, AuditError
from hookagent.capabilities.audit._verify import VerifyReport, verify

__all__ = ["ZERO_HASH", "AuditError", "AuditTrail", "OnAuditFailure", "VerifyReport", "verify"]
