"""The loop: a ladder of short methods over small composites, and the state it owns."""
