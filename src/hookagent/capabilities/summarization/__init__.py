"""Summarization: keep each request's conversation within a token budget (see `capability`)."""

from hookagent.capabilities.summarization._capability import (
    BOUNDARY,
    COMPACTIONS,
    SUMMARIZER_USAGE,
    SUMMARY,
    Summarization,
)
from hookagent.capabilities.summarization._sections import CompactedMessages, Ledger
from hookagent.capabilities.summarization._tokens import EstimatedTokens, TokenCounter

__all__ = [
    "BOUNDARY",
    "COMPACTIONS",
    "SUMMARIZER_USAGE",
    "SUMMARY",
    "CompactedMessages",
    "EstimatedTokens",
    "Ledger",
    "Summarization",
    "TokenCounter",
]
