"""`hookagent serve`: an HTTP API over a store, for answering paused runs from anywhere.

Needs the `server` extra (`pip install 'hookagent[server]'`: FastAPI and uvicorn); nothing
outside this package imports it but the `serve` command, so the runtime never loads it.
"""

from hookagent.server._app import create_app

__all__ = ["create_app"]
