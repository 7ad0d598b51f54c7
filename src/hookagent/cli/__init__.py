"""The `hookagent` command line: `run` a prompt against a model, or watch the `demo`.

Kept out of `hookagent/__init__.py`, so importing the library never loads typer or rich.
"""
