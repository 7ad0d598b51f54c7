"""`hookagent run --model openai-compatible:… --base-url …` through the real SDK."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .fake_openai import FakeOpenAI, chunks, completion, function_call


def test_run_against_an_openai_compatible_server(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    with FakeOpenAI() as server:
        server.push(
            completion(
                None, function_call("c1", "Write", {"file_path": "hi.txt", "content": "hello\n"})
            )
        )
        server.push(completion("Wrote hi.txt."))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOOKAGENT_"))}
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "hookagent",
                "run",
                "write hi",
                "--model",
                "openai-compatible:llama3",
                "--base-url",
                server.url,
                "--root",
                "work",
                "--json",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["output"] == "Wrote hi.txt." and data["status"] == "completed"
    assert (tmp_path / "work" / "hi.txt").read_text() == "hello\n"
    first, second = server.requests
    assert first["model"] == "llama3"
    assert {t["function"]["name"] for t in first["tools"]} >= {"Read", "Write", "TodoWrite"}
    assert second["messages"][-1]["role"] == "tool"


def test_a_missing_key_is_a_clear_error_before_the_run(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    out = subprocess.run(
        [sys.executable, "-m", "hookagent", "run", "hi", "--model", "openai:gpt-4.1-mini"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert out.returncode == 2
    assert "OPENAI_API_KEY" in out.stderr


def test_the_live_view_streams_from_an_openai_server_with_the_key_from_the_environment(
    tmp_path: Path,
) -> None:
    with FakeOpenAI() as server:
        server.push(chunks("Hello ", "from ", "the ", "stream."))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOOKAGENT_"))}
        env |= {"OPENAI_API_KEY": "sk-from-env", "OPENAI_BASE_URL": server.url}
        out = subprocess.run(
            [sys.executable, "-m", "hookagent", "run", "hi", "--model", "openai:gpt-4.1-mini"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
    assert out.returncode == 0, out.stderr
    assert "model: Hello from the stream." in out.stdout
    assert out.stdout.count("Hello from the stream.") == 2  # the live line, then the output
    [request] = server.requests
    assert request["stream"] is True and request["model"] == "gpt-4.1-mini"
    assert server.headers[0]["authorization"] == "Bearer sk-from-env"
