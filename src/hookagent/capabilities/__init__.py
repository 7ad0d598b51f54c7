"""Capabilities: hook providers bringing tools and the hooks that govern them."""
