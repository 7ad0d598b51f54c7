"""The terminal prompt: `hookagent run --approvals` in a real pseudo-terminal, answered by
writing to the terminal as a person would (once, deny with a reason, always); and the
prompt's reading of answers, in-process."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import select
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hookagent.cli._prompt import TerminalApprover
from hookagent.kernel._approval import Answer, Question

posix_only = pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(os, "openpty"), reason="needs a POSIX pseudo-terminal"
)

PLUGIN = textwrap.dedent(
    '''
    from hookagent import tool

    @tool(name="Bash")
    def bash(command: str) -> str:
        """Pretend to run a shell command."""
        return f"ran {command}"

    def configure(builder):
        builder.tools(bash)
    '''
)


def bash_turn(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "Bash", "args": {"command": command}}]}


SCRIPT = [
    bash_turn("git status"),
    bash_turn("rm -rf build"),
    bash_turn("git status -s"),
    bash_turn("git status --short"),
    {"text": "All done."},
]
PROMPT = "answer [y/r/s/a/n]: "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


class Terminal:
    """A child process on the slave side of a pty; we read and type on the master side."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        master, slave = os.openpty()
        env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"}
        self.process = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True
        )
        os.close(slave)
        self.master = master
        self.text = ""
        self._seen = 0

    def expect(self, needle: str, timeout: float = 30.0) -> str:
        """Read until `needle` appears after what was matched before; the text up to it."""
        deadline = time.monotonic() + timeout
        while (found := self.text.find(needle, self._seen)) < 0:
            if not self._read(deadline - time.monotonic()):
                raise AssertionError(f"{needle!r} never came; the terminal showed:\n{self.text}")
        before = self.text[self._seen : found]
        self._seen = found + len(needle)
        return before

    def type(self, line: str) -> None:
        os.write(self.master, line.encode())

    def finish(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while self._read(deadline - time.monotonic()):
            pass
        code = self.process.wait(timeout=max(deadline - time.monotonic(), 1))
        os.close(self.master)
        return code

    def _read(self, timeout: float) -> bool:
        if timeout <= 0:
            return False
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 4096)
        except OSError:  # EIO: the child closed its side
            return False
        if not chunk:
            return False
        self.text += ANSI.sub("", chunk.decode(errors="replace")).replace("\r\n", "\n")
        return True

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(curl:*)"]}})
    )
    return tmp_path


def hookagent_run(project: Path) -> Terminal:
    args = [sys.executable, "-m", "hookagent", "run", "tidy up"]
    args += ["--model", "scripted:turns.json", "--plugin", "plugin.py", "--approvals"]
    return Terminal(args, project)


@posix_only
def test_a_person_answers_once_deny_with_a_reason_and_always(project: Path) -> None:
    terminal = hookagent_run(project)
    try:
        question = terminal.expect(PROMPT)
        assert "? approvals:rules asks (before_tool): Allow Bash(git status)?" in question
        assert "(always: adds Bash(git status:*) to .claude/settings.local.json)" in question
        assert "command: git status" in question
        assert "y once, r this run, s this session, a always, n [reason] deny" in question
        terminal.type("\n")  # Enter alone: once

        question = terminal.expect(PROMPT)
        assert "ran git status" in question
        assert "Allow Bash(rm -rf build)?" in question
        assert "adds Bash(rm:*)" in question
        terminal.type("maybe\n")  # not an answer: asked again
        assert "please answer y once" in terminal.expect(PROMPT)
        terminal.type("n not in this repo\n")

        question = terminal.expect(PROMPT)
        assert "[blocked]" in question and "denied: not in this repo" in question
        assert "Allow Bash(git status -s)?" in question
        terminal.type("a\n")

        code = terminal.finish()
    finally:
        terminal.kill()
    rest = terminal.text[terminal._seen :]
    assert code == 0, terminal.text
    assert "ran git status -s" in rest
    assert "ran git status --short" in rest  # allowed by the rule just saved: not asked
    assert "asks" not in rest
    assert "completed" in rest and "All done." in rest
    assert terminal.text.count("? approvals:rules asks") == 3
    saved = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert saved == {"permissions": {"allow": ["Bash(git status:*)"]}}


@posix_only
def test_end_of_input_denies(project: Path) -> None:
    (project / "turns.json").write_text(json.dumps([bash_turn("make"), {"text": "Stopped."}]))
    terminal = hookagent_run(project)
    try:
        terminal.expect(PROMPT)
        terminal.type("\x04")  # Ctrl-D on an empty line: end of input
        code = terminal.finish()
    finally:
        terminal.kill()
    assert code == 0, terminal.text
    assert "denied: no answer" in terminal.text
    assert not (project / ".claude" / "settings.local.json").exists()


@posix_only
def test_without_a_terminal_nobody_is_asked(project: Path) -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "hookagent", "run", "go", "--model", "scripted:turns.json"),
            *("--plugin", "plugin.py", "--approvals", "--max-steps", "2"),
        ],
        cwd=project,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=60,
        check=False,
    )
    assert "asks" not in done.stderr
    assert "approval required but nobody can answer here (no terminal)" in done.stdout


# -- reading answers, in-process --------------------------------------------------------------

OFFERED = ("once", "run", "session", "always", "deny")


def ask(lines: str, options: tuple[str, ...] = OFFERED) -> tuple[Answer, str]:
    out = io.StringIO()
    approver = TerminalApprover(io.StringIO(lines), out)
    question = Question(
        point="before_tool",
        hook="approvals:rules",
        question="Allow deploy(env='prod')?",
        options=options,
        run_id="r1",
        step=1,
        call_id="c1",
        tool_name="deploy",
        args={"env": "prod", "notes": "x" * 200},
    )
    return asyncio.run(approver(question)), out.getvalue()


@pytest.mark.parametrize(
    ("typed", "approved", "choice", "scope", "reason"),
    [
        ("\n", True, "once", None, None),
        ("Y\n", True, "once", None, None),
        ("yes\n", True, "once", None, None),
        ("r\n", True, "run", "run", None),
        ("session\n", True, "session", "session", None),
        ("a\n", True, "always", "always", None),
        ("n\n", False, "deny", None, "denied at the terminal"),
        ("no  too risky today \n", False, "deny", None, "too risky today"),
        ("what\nr x\ns\n", True, "session", "session", None),
        ("", False, None, None, "no answer"),
        ("what\n", False, None, None, "no answer"),
    ],
)
def test_answers_as_typed(
    typed: str, approved: bool, choice: str | None, scope: str | None, reason: str | None
) -> None:
    answer, _ = ask(typed)
    assert (answer.approved, answer.choice, answer.reason) == (approved, choice, reason)
    assert answer.extra.get("scope") == scope
    assert answer.by == "terminal"


def test_the_question_shows_the_call_short() -> None:
    _, shown = ask("y\n")
    assert "? approvals:rules asks (before_tool): Allow deploy(env='prod')?" in shown
    assert "  tool: deploy\n  env: prod\n" in shown
    assert "  notes: " + "x" * 79 + "…\n" in shown
    assert shown.endswith(PROMPT)


def test_only_what_is_offered_is_taken() -> None:
    answer, shown = ask("a\ns\n", options=("once", "run", "session", "deny"))
    assert answer.choice == "session"
    assert "answer [y/r/s/n]: " in shown and "please answer y once, r this run, s" in shown
    answer, _ = ask("r\ny\n", options=())
    assert (answer.approved, answer.choice) == (True, None)


def test_other_options_are_taken_as_typed() -> None:
    answer, shown = ask("staging only\n", options=("staging only", "deny"))
    assert (answer.approved, answer.choice) == (True, "staging only")
    assert "[y/staging only/n]" in shown


async def test_a_line_typed_after_a_timeout_does_not_answer_the_next_question() -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "r") as stream, os.fdopen(write_end, "w") as typing:
        approver = TerminalApprover(stream, io.StringIO())
        question = Question(
            point="before_tool", hook="h", question="ok?", run_id="r", step=1, options=OFFERED
        )
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(approver(question), 0.05)
        typing.write("n late\n")
        typing.flush()
        await asyncio.sleep(0.1)  # the late line arrives, for a question that is gone
        typing.write("r\n")
        typing.flush()
        answer = await asyncio.wait_for(approver(question), 5)
        assert answer.choice == "run"
