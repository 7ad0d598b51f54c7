"""Pieces of the Anthropic Messages driver (`hookagent.models._anthropic_messages`)."""
