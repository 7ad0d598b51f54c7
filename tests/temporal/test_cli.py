"""`hookagent temporal worker` serves an agent; `hookagent run … --temporal` runs on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from cli.run_cli import hookagent

pytestmark = pytest.mark.temporal


def test_run_on_a_temporal_worker_started_from_the_command_line(
    temporal_address: str, tmp_path: Path
) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps(["all done"]))
    queue = f"q-{uuid.uuid4().hex[:8]}"
    flags = ["--model", f"scripted:{script}", "--task-queue", queue]
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hookagent",
            "temporal",
            "worker",
            "--address",
            temporal_address,
            *flags,
        ],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        done = hookagent(tmp_path, "run", "hi", "--json", "--temporal", temporal_address, *flags)
    finally:
        worker.kill()
        worker.wait()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["status"], result["output"]) == ("completed", "all done")
    refused = hookagent(tmp_path, "run", "hi", "--session", "s", "--temporal", "x:1", *flags)
    assert refused.returncode != 0 and "kept by Temporal" in refused.stderr + refused.stdout
