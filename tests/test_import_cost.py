"""`import hookagent` stays light: pydantic, typer and rich load only when used."""

from __future__ import annotations

import subprocess
import sys


def test_importing_hookagent_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, hookagent\n"
        "heavy = sorted(m for m in ('pydantic', 'typer', 'rich') if m in sys.modules)\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
