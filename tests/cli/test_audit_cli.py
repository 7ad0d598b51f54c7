"""`hookagent audit verify FILE`: ok (exit 0), tampered naming the first bad line (exit 1),
unreadable (exit 2)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from hookagent.capabilities.audit._chain import ChainWriter
from hookagent.cli._app import app

from .run_cli import hookagent

runner = CliRunner()


def audit_file(path: Path, count: int = 5) -> ChainWriter:
    writer = ChainWriter(str(path))
    for n in range(count):
        writer.append({"type": "event", "point": "before_tool", "n": n})
    writer.close()
    return writer


def test_an_intact_chain_verifies(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    writer = audit_file(path)
    out = runner.invoke(app, ["audit", "verify", str(path)])
    assert (out.exit_code, out.output) == (0, "ok: 5 records, chain intact\n")
    out = runner.invoke(app, ["audit", "verify", str(path), "--json"])
    assert out.exit_code == 0
    assert json.loads(out.output) == {
        "path": str(path),
        "ok": True,
        "records": 5,
        "first_bad_line": None,
        "problem": None,
        "head": writer.head,
    }
    out = runner.invoke(app, ["audit", "verify", str(path), "--head", writer.head])
    assert out.exit_code == 0


def test_a_tampered_chain_names_the_first_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    audit_file(path)
    lines = path.read_text().splitlines(keepends=True)
    record = json.loads(lines[2])
    record["n"] = 99
    lines[2] = json.dumps(record) + "\n"
    path.write_text("".join(lines))
    out = runner.invoke(app, ["audit", "verify", str(path)])
    assert (out.exit_code, out.output) == (
        1,
        "tampered: line 3: hash does not match its content (edited)\n",
    )
    out = runner.invoke(app, ["audit", "verify", "--json", str(path)])
    report = json.loads(out.output)
    assert out.exit_code == 1
    assert (report["ok"], report["first_bad_line"], report["records"]) == (False, 3, 2)


def test_lines_cut_off_the_end_are_caught_with_the_head(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    head = audit_file(path).head
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))
    assert runner.invoke(app, ["audit", "verify", str(path)]).exit_code == 0
    out = runner.invoke(app, ["audit", "verify", str(path), "--head", head])
    assert out.exit_code == 1
    assert out.output.startswith("tampered: the last hash is not the expected head")


def test_a_missing_file_is_exit_2(tmp_path: Path) -> None:
    out = runner.invoke(app, ["audit", "verify", str(tmp_path / "nope.jsonl")])
    assert out.exit_code == 2
    assert "error: cannot read" in out.output and "nope.jsonl" in out.output
    assert "No such file" in out.output


PLUGIN = textwrap.dedent(
    '''
    from hookagent import BEFORE_TOOL, HookResult
    from hookagent.capabilities.audit import AuditTrail

    def deploy(target: str) -> str:
        """Deploy the current build."""
        return f"deployed to {target}"

    def no_prod(event):
        if event.args.get("target") == "prod":
            return HookResult.block("production is off limits")
        return None

    def configure(builder):
        builder.tools(deploy)
        builder.on(BEFORE_TOOL, no_prod, match="deploy", name="no_prod")
        builder.with_(AuditTrail("audit.jsonl"))
    '''
)


def test_a_run_with_an_audit_trail_then_verify_it(tmp_path: Path) -> None:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    turns = [
        {"tool_calls": [{"name": "deploy", "args": {"target": "staging"}}]},
        {"tool_calls": [{"name": "deploy", "args": {"target": "prod"}}]},
        {"text": "staging deployed, prod refused"},
    ]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    run = hookagent(
        tmp_path, "run", "deploy", "-m", "scripted:turns.json", "-p", "plugin.py", "--json"
    )
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    [blocked] = [r for r in records if r["type"] == "decision"]
    assert (blocked["hook"], blocked["reason"]) == ("user:no_prod", "production is off limits")
    ok = hookagent(tmp_path, "audit", "verify", "audit.jsonl")
    assert (ok.returncode, ok.stdout) == (0, f"ok: {len(records)} records, chain intact\n")

    lines = (tmp_path / "audit.jsonl").read_text().splitlines(keepends=True)
    del lines[blocked["seq"]]  # hide the refusal
    (tmp_path / "audit.jsonl").write_text("".join(lines))
    bad = hookagent(tmp_path, "audit", "verify", "audit.jsonl")
    line = blocked["seq"] + 1
    assert (bad.returncode, bad.stdout) == (
        1,
        f"tampered: line {line}: seq {line} after {line - 2} (a line is missing)\n",
    )
    missing = hookagent(tmp_path, "audit", "verify", "gone.jsonl")
    assert missing.returncode == 2 and missing.stderr.startswith("error: ")
