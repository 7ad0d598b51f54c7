"""Instruction files as Claude Code loads them: order, `@path` imports, rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookagent.claude._instructions import MAX_IMPORT_DEPTH, imports_of, load_instructions
from hookagent.claude._path_rules import glob_regex


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, project, managed = tmp_path / "home", tmp_path / "work" / "app", tmp_path / "managed"
    for d in (home, project, managed):
        d.mkdir(parents=True)
    return home, project, managed


def test_files_load_in_claude_codes_order_with_imports(dirs: tuple[Path, Path, Path]) -> None:
    home, project, managed = dirs
    write(managed / "CLAUDE.md", "managed")
    write(home / ".claude" / "CLAUDE.md", "user")
    write(home / ".claude" / "rules" / "mine.md", "user rule")
    write(home / "extra.md", "from home")
    write(project.parent / "CLAUDE.md", "parent folder")
    write(project / "CLAUDE.md", "See @docs/style.md for style.")
    write(project / "docs" / "style.md", "Tabs. Also @~/extra.md and @../notes.md.")
    write(project / "notes.md", "notes")
    write(project / ".claude" / "CLAUDE.md", "dot claude")
    write(project / ".claude" / "rules" / "a.md", "rule a")
    write(project / ".claude" / "rules" / "sub" / "b.md", "rule b")
    write(project / "CLAUDE.local.md", "local")
    loaded = load_instructions(project, home=home, managed_dir=managed)
    shown = [(Path(f.path).relative_to(f.path[:1]).name, f.memory_type) for f in loaded.files]
    assert [f.text.strip() for f in loaded.files] == [
        "managed",
        "user",
        "user rule",
        "parent folder",
        "See @docs/style.md for style.",
        "Tabs. Also @~/extra.md and @../notes.md.",
        "from home",
        "notes",
        "dot claude",
        "rule a",
        "rule b",
        "local",
    ]
    assert [m for _, m in shown] == [
        "Managed",
        "User",
        "User",
        "Project",
        "Project",
        "Project",
        "Project",
        "Project",
        "Project",
        "Project",
        "Project",
        "Local",
    ]
    style = next(f for f in loaded.files if f.path.endswith("style.md"))
    assert style.load_reason == "include"
    assert style.parent == str(project / "CLAUDE.md")
    notes = next(f for f in loaded.files if f.path.endswith("notes.md"))
    assert notes.path == str(project / "notes.md")  # normalised, no docs/..
    assert loaded.warnings == ()
    prompt = loaded.prompt
    assert prompt is not None
    assert f"Contents of {project / 'CLAUDE.md'} (project instructions" in prompt


def test_imports_skip_code_spans_and_blocks() -> None:
    text = "Read @a.md, not `@b.md`.\n```\n@c.md\n```\n~~~\n@d.md\n~~~\nmail me@e.md @f.md\n"
    assert list(imports_of(text)) == ["a.md", "f.md"]


def test_imports_stop_at_five_hops_and_cycles_load_once(dirs: tuple[Path, Path, Path]) -> None:
    home, project, managed = dirs
    write(project / "CLAUDE.md", "@f1.md")
    for i in range(1, 8):
        write(project / f"f{i}.md", f"level {i} @f{i + 1}.md @CLAUDE.md")
    loaded = load_instructions(project, home=home, managed_dir=managed)
    names = [Path(f.path).name for f in loaded.files]
    assert names == ["CLAUDE.md", *(f"f{i}.md" for i in range(1, MAX_IMPORT_DEPTH + 1))]
    assert any("5 levels deep at most" in w for w in loaded.warnings)


def test_an_import_naming_no_file_is_a_warning(dirs: tuple[Path, Path, Path]) -> None:
    home, project, managed = dirs
    write(project / "CLAUDE.md", "See @docs/missing.md")
    loaded = load_instructions(project, home=home, managed_dir=managed)
    assert len(loaded.files) == 1
    assert loaded.warnings == (
        f"{project / 'CLAUDE.md'}: @docs/missing.md names no file ({project / 'docs/missing.md'})",
    )


def test_rules_with_paths_wait_for_a_matching_file(dirs: tuple[Path, Path, Path]) -> None:
    home, project, managed = dirs
    write(project / ".claude" / "rules" / "py.md", '---\npaths:\n  - "src/**/*.py"\n---\nPY\n')
    write(project / ".claude" / "rules" / "one.md", "---\npaths: lib/*.{ts,tsx}\n---\nTS\n")
    loaded = load_instructions(project, home=home, managed_dir=managed)
    assert loaded.files == ()
    assert [(Path(r.path).name, r.globs) for r in loaded.path_rules] == [
        ("one.md", ("lib/*.{ts,tsx}",)),
        ("py.md", ("src/**/*.py",)),
    ]
    assert all(r.load_reason == "path_glob_match" for r in loaded.path_rules)


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/x/y/a.py", True),
        ("src/**/*.py", "lib/a.py", False),
        ("**/*.ts", "a.ts", True),
        ("lib/*.{ts,tsx}", "lib/a.tsx", True),
        ("lib/*.{ts,tsx}", "lib/x/a.ts", False),
        ("docs/?.md", "docs/a.md", True),
    ],
)
def test_globs(glob: str, path: str, matches: bool) -> None:
    assert (glob_regex(glob).fullmatch(path) is not None) is matches
