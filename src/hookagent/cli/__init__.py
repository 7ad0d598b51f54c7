"""The `hookagent` command line: `run` a prompt against a model, or watch the `demo`.

Kept out of `hookagent/__init__.py`, so importing the library never loads typer or rich;
`TerminalApprover` (questions answered at the terminal) is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent._lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.cli._prompt import TerminalApprover

__all__ = ["TerminalApprover"]

__getattr__ = attribute_loader(__name__, {"TerminalApprover": "hookagent.cli._prompt"}, globals())
