"""Limits and the error policy: ordinary policy-tier hooks the builder installs by default."""
