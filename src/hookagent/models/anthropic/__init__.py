"""Pieces of the Anthropic Messages driver (`hookagent.models.anthropic_messages`)."""
