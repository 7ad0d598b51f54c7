"""Tools: the protocol, results, and `@tool` for typed functions."""
