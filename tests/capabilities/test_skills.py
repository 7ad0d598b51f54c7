"""Skills: reading skill folders and legacy files, the `Skill` tool in a real run, and the
skills block appended to every request's system prompt exactly once."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.planning import TaskPlanning
from hookagent.capabilities.skills import SKILLS_TAG, SkillLibrary, Skills, parse_skill
from hookagent.models._base import ModelRequest
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def skill_text(description: str = "Does things.", body: str = "Do it.", **fields: str) -> str:
    head = "".join(f"{key}: {value}\n" for key, value in fields.items())
    return f"---\n{head}description: {description}\n---\n{body}\n"


@pytest.fixture
def library_dir(tmp_path: Path) -> Path:
    """A folder skill with resources, and a legacy one."""
    root = tmp_path / "skills"
    write(
        root / "pdf" / "SKILL.md",
        """
        ---
        name: pdf
        description: Fill in PDF forms. Use when the user mentions a PDF form.
        ---
        # Filling PDF forms

        Run scripts/fill.py with the form and the values.
        """,
    )
    write(root / "pdf" / "scripts" / "fill.py", "print('fill')\n")
    write(root / "pdf" / "references" / "forms.md", "Field names.\n")
    write(root / "pdf" / "assets" / "logo.txt", "logo\n")
    write(root / "review.md", skill_text("Review a diff for bugs.", "Read the diff twice."))
    return root


# -- reading skills ---------------------------------------------------------------------


def test_a_folder_skill_with_its_resources(library_dir: Path) -> None:
    write(library_dir / "pdf" / ".secret", "hidden\n")
    write(library_dir / "pdf" / "scripts" / ".cache" / "x.py", "hidden\n")
    write(library_dir / "pdf" / "scripts" / "__pycache__" / "fill.pyc", "compiled\n")
    skill = SkillLibrary.scan(library_dir).skills["pdf"]
    assert skill.description == "Fill in PDF forms. Use when the user mentions a PDF form."
    assert skill.body == "# Filling PDF forms\n\nRun scripts/fill.py with the form and the values."
    assert skill.path == library_dir / "pdf" / "SKILL.md"
    assert skill.folder == library_dir / "pdf"
    assert skill.resources == ("assets/logo.txt", "references/forms.md", "scripts/fill.py")
    assert skill.resource_paths == tuple(library_dir / "pdf" / r for r in skill.resources)
    assert all(p.is_absolute() for p in skill.resource_paths)


def test_a_legacy_file_is_a_skill_without_resources(library_dir: Path) -> None:
    skill = SkillLibrary.scan(library_dir).skills["review"]
    assert (skill.description, skill.body) == ("Review a diff for bugs.", "Read the diff twice.")
    assert skill.path == library_dir / "review.md"
    assert (skill.folder, skill.resources) == (None, ())


def test_skill_md_beats_a_legacy_file_of_the_same_name(library_dir: Path) -> None:
    write(library_dir / "pdf.md", skill_text("Old PDF notes."))
    library = SkillLibrary.scan(library_dir)
    assert sorted(library.skills) == ["pdf", "review"]
    assert library.skills["pdf"].path.name == "SKILL.md"
    assert [s.path.name for s in library.shadowed] == ["pdf.md"]


def test_the_name_defaults_to_the_folder_name_or_the_file_stem(tmp_path: Path) -> None:
    write(tmp_path / "lint-fix" / "SKILL.md", skill_text())
    write(tmp_path / "deploy-2.md", skill_text())
    write(tmp_path / "folder" / "SKILL.md", skill_text(name="renamed"))
    assert sorted(SkillLibrary.scan(tmp_path).skills) == ["deploy-2", "lint-fix", "renamed"]


def test_readmes_hidden_entries_and_folders_without_skill_md_are_not_skills(
    tmp_path: Path,
) -> None:
    write(tmp_path / "README.md", "# My skills\n")
    write(tmp_path / ".draft" / "SKILL.md", skill_text())
    write(tmp_path / ".old.md", skill_text())
    write(tmp_path / "notes" / "todo.txt", "later\n")
    write(tmp_path / "notes" / "skill.md", skill_text())  # the file must be SKILL.md
    assert len(SkillLibrary.scan(tmp_path)) == 0


@pytest.mark.parametrize(
    ("where", "text", "name", "title"),
    [
        ("a/SKILL.md", skill_text(name="My_Skill"), "a", "My_Skill"),
        ("a/SKILL.md", skill_text(name="-lead"), "a", "-lead"),
        (
            "hook-development/SKILL.md",
            skill_text(name="Hook Development"),
            "hook-development",
            "Hook Development",
        ),
        ("Bad_Folder/SKILL.md", skill_text(), "bad-folder", None),
        ("Legacy.md", skill_text(), "legacy", None),
        ("Legacy.md", skill_text(name="'Legacy Notes'"), "legacy", "Legacy Notes"),
    ],
)
def test_a_name_that_is_not_an_id_is_a_display_name_and_the_folder_names_the_skill(
    tmp_path: Path, where: str, text: str, name: str, title: str | None
) -> None:
    write(tmp_path / where, text)
    library = SkillLibrary.scan(tmp_path)
    assert [(s.name, s.title) for s in library] == [(name, title)]
    assert library.warnings == ()


@pytest.mark.parametrize(
    ("where", "text", "expected"),
    [
        ("a/SKILL.md", "---\nname: a\n---\nbody\n", "description: is missing"),
        ("a/SKILL.md", "---\ndescription: ''\n---\nbody\n", "description: is empty"),
        ("a/SKILL.md", "---\ndescription:\n---\nbody\n", "description: is empty"),
        ("a/SKILL.md", "Just a body, no front matter.\n", "description: is missing"),
        ("a/SKILL.md", "---\ndescription: x\nbody, never closed\n", "is never closed"),
        ("_/SKILL.md", skill_text(name="A B"), "no skill name: `name:` is not an id"),
    ],
)
def test_a_skill_that_cannot_be_read_is_a_warning_and_the_others_load(
    tmp_path: Path, where: str, text: str, expected: str
) -> None:
    path = write(tmp_path / where, text)
    write(tmp_path / "zz-good" / "SKILL.md", skill_text())
    library = SkillLibrary.scan(tmp_path)
    assert [s.name for s in library] == ["zz-good"]
    (warning,) = library.warnings
    assert warning.startswith(f"{path}")
    assert expected in warning
    assert warning.endswith("; the skill is left out")
    with pytest.raises(h.ConfigError) as caught:
        parse_skill(path, folder=path.parent)  # one file read on its own is still an error
    assert caught.value.file == str(path)


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("description: a\ndescription: b", "line 3: `description` is given twice (first on"),
        ('description: "never closed', "line 2: cannot read `description`: found unexpected"),
        ("description: 'never closed", "line 2: cannot read `description`: found unexpected"),
        ('description: "ok" trailing', "line 2: cannot read `description`: did not find"),
        ('description: "bad \\q escape"', "line 2: cannot read `description`: found unknown"),
        ("description: [a, b]", "line 2: `description` must be text, not a list"),
        ("description: {a: b}", "line 2: `description` must be text, not a map"),
        ("description:\n  - a\n  - b", "line 2: `description` must be text, not a list"),
        ("description:\n  key: value", "line 2: `description` must be text, not a map"),
        ("description: 'one'\n  two", "line 3: cannot read `description`: did not find"),
    ],
)
def test_malformed_front_matter_is_a_warning_naming_file_and_line(
    tmp_path: Path, front: str, expected: str
) -> None:
    path = write(tmp_path / "a" / "SKILL.md", f"---\n{front}\n---\nbody\n")
    skills = Skills(tmp_path)
    assert len(skills.library) == 0
    (warning,) = skills.warnings
    assert warning.startswith(f"{path}: front matter ")
    assert expected in warning


@pytest.mark.parametrize(
    ("front", "description"),
    [
        ("description: plain text # a comment", "plain text"),
        ("description: 'it''s quoted: fine'", "it's quoted: fine"),
        ('description: "tab\\tand \\"quotes\\": fine" # c', 'tab and "quotes": fine'),
        ("description: >\n  Folded over\n  two lines.\n", "Folded over two lines."),
        ("description: |-\n  Literal\n  lines.", "Literal lines."),
        ("description:\n  On the next line,\n  continued.", "On the next line, continued."),
        ("description: Starts here\n  and goes on.", "Starts here and goes on."),
        ("# a comment\ndescription: x\n\nlicense: MIT", "x"),
        ("description: Use when: the user asks", "Use when: the user asks"),
        ("description: ok\njust words", "ok just words"),
        ("description: x\n- more", "x - more"),
        ("  description: x", "x"),
        (
            "description: x\nallowed-tools: Read, Grep\nmetadata:\n  version: '1.0'\n"
            "  owner: team: a\ntags:\n  - a\n- b",
            "x",
        ),
    ],
)
def test_the_yaml_skill_files_use_is_read(tmp_path: Path, front: str, description: str) -> None:
    path = write(tmp_path / "a" / "SKILL.md", f"---\n{front}\n---\nbody\n")
    skill = parse_skill(path, folder=path.parent)
    assert (skill.name, skill.description, skill.body) == ("a", description, "body")


def test_a_bom_and_windows_line_endings_are_read(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_bytes("\ufeff---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n".encode())
    skill = parse_skill(path)
    assert (skill.name, skill.description, skill.body) == ("a", "d", "body")


def test_a_file_that_is_not_utf8_is_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_bytes(b"---\ndescription: caf\xe9\n---\n")
    (warning,) = Skills(tmp_path).warnings
    assert warning.startswith(f"{path}: not UTF-8 text")


def test_two_skills_of_one_name_in_one_directory_the_first_loads(tmp_path: Path) -> None:
    write(tmp_path / "one" / "SKILL.md", skill_text("First.", name="same"))
    second = write(tmp_path / "two" / "SKILL.md", skill_text("Second.", name="same"))
    skills = Skills(tmp_path)
    assert [s.description for s in skills.library] == ["First."]
    (warning,) = skills.warnings
    assert warning.startswith(f"{second}")
    assert "two skills are named 'same'; the first is " in warning


def test_across_directories_the_first_one_wins(tmp_path: Path) -> None:
    project, user = tmp_path / "project", tmp_path / "user"
    write(project / "deploy" / "SKILL.md", skill_text("Project deploy."))
    write(user / "deploy" / "SKILL.md", skill_text("User deploy."))
    write(user / "notes.md", skill_text("User notes."))
    library = SkillLibrary.scan(project, user)
    assert {s.name: s.description for s in library} == {
        "deploy": "Project deploy.",
        "notes": "User notes.",
    }
    assert [s.path for s in library.shadowed] == [user / "deploy" / "SKILL.md"]
    assert library.searched == (project, user)


def test_a_given_directory_must_exist(tmp_path: Path) -> None:
    with pytest.raises(h.ConfigError, match="skills directory does not exist") as caught:
        Skills(tmp_path / "nope")
    assert caught.value.file == str(tmp_path / "nope")
    write(tmp_path / "file.md", "x\n")
    with pytest.raises(h.ConfigError, match="is not a directory"):
        Skills(tmp_path / "file.md")


def test_the_default_directories_are_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    empty = Skills()
    assert len(empty.library) == 0
    assert empty.library.searched == (tmp_path / ".claude" / "skills", tmp_path / "skills")
    write(tmp_path / ".claude" / "skills" / "x" / "SKILL.md", skill_text("From .claude."))
    write(tmp_path / "skills" / "x" / "SKILL.md", skill_text("From skills."))
    write(tmp_path / "skills" / "y.md", skill_text("Legacy."))
    found = Skills().library
    assert {s.name: s.description for s in found} == {"x": "From .claude.", "y": "Legacy."}


# -- the tool and the prompt, in real runs ----------------------------------------------


def agent_with(model: Any, *capabilities: Any, system: str | None = "Be brief.") -> h.Agent:
    builder = h.AgentBuilder().model(model)
    if system is not None:
        builder = builder.system_prompt(system)
    for capability in capabilities:
        builder = builder.with_(capability)
    return builder.build()


def test_a_capability_with_the_skill_tool_and_one_named_hook(library_dir: Path) -> None:
    skills = Skills(library_dir)
    assert isinstance(skills, h.Capability) and skills.name == "skills"
    assert [t.name for t in skills.tools()] == ["Skill"]
    assert [hook.id for hook in skills.hooks()] == ["skills:list_in_prompt"]
    (tool,) = skills.tools()
    assert tool.parameters["required"] == ["name"]


async def test_the_model_loads_a_skill_with_its_body_and_absolute_resource_paths(
    library_dir: Path,
) -> None:
    model = ScriptedModel([tool_call("Skill", name="pdf"), reply("done")])
    result = await agent_with(model, Skills(library_dir)).run("fill the form")
    model.assert_consumed()
    out = result.tool_calls[0].result
    assert not out.is_error
    assert out.content.startswith('<skill name="pdf">\n')
    assert out.content.endswith("\n</skill>")
    assert f"Base directory for this skill: {library_dir / 'pdf'}" in out.content
    assert "Run scripts/fill.py with the form and the values." in out.content
    for rel in ("assets/logo.txt", "references/forms.md", "scripts/fill.py"):
        assert f"- {library_dir / 'pdf' / rel}\n" in out.content + "\n"
    assert out.data["resources"] == [
        str(library_dir / "pdf" / rel)
        for rel in ("assets/logo.txt", "references/forms.md", "scripts/fill.py")
    ]


async def test_skills_are_read_once_at_construction(library_dir: Path) -> None:
    skills = Skills(library_dir)
    shutil.rmtree(library_dir)  # neither the hook nor the tool reads the disk again
    model = ScriptedModel([tool_call("Skill", name="pdf"), reply("done")])
    result = await agent_with(model, skills).run("fill the form")
    assert "Run scripts/fill.py" in result.tool_calls[0].result.content


async def test_a_legacy_skill_loads_without_resources(library_dir: Path) -> None:
    model = ScriptedModel([tool_call("Skill", name="review"), reply("done")])
    result = await agent_with(model, Skills(library_dir)).run("review")
    assert result.tool_calls[0].result.content == (
        '<skill name="review">\nRead the diff twice.\n</skill>'
    )


async def test_an_unknown_skill_is_an_error_result_listing_the_skills(library_dir: Path) -> None:
    model = ScriptedModel(
        [tool_call("Skill", name="pdfs"), tool_call("Skill", name="pdf"), reply("done")]
    )
    result = await agent_with(model, Skills(library_dir)).run("fill the form")
    model.assert_consumed()
    first, second = (call.result for call in result.tool_calls)
    assert first.is_error
    assert first.content == (
        "Unknown skill 'pdfs'. Available skills:\n"
        "- pdf: Fill in PDF forms. Use when the user mentions a PDF form.\n"
        "- review: Review a diff for bugs."
    )
    assert not second.is_error
    assert result.status == "completed" and result.output == "done"


async def test_an_empty_library_says_so_and_where_it_looked(tmp_path: Path) -> None:
    seen: list[str | None] = []

    def answer(request: ModelRequest) -> Any:
        seen.append(request.system_prompt)
        return tool_call("Skill", name="x") if len(seen) == 1 else reply("ok")

    empty = tmp_path / "empty"
    empty.mkdir()
    result = await agent_with(FunctionModel(answer), Skills(empty)).run("go")
    out = result.tool_calls[0].result
    assert out.is_error
    assert out.content == f"No skills are installed (looked in {empty})."
    assert seen == ["Be brief.", "Be brief."]  # no block for an empty library
    assert result.decisions.at(h.BEFORE_INFERENCE) == []


async def test_the_skills_block_is_in_every_request_exactly_once(library_dir: Path) -> None:
    seen: list[ModelRequest] = []
    script = [tool_call("Skill", name="pdf"), tool_call("Skill", name="review"), reply("done")]

    def answer(request: ModelRequest) -> Any:
        seen.append(request)
        return script[len(seen) - 1]

    result = await agent_with(FunctionModel(answer), Skills(library_dir)).run("go")
    assert [r.step for r in seen] == [1, 2, 3]
    expected = (
        "Be brief.\n\n<skills>\n"
        "Skills hold instructions for particular tasks. When a task matches a skill's "
        "description, call the Skill tool with the skill's name to load it, then follow it.\n"
        "- pdf: Fill in PDF forms. Use when the user mentions a PDF form.\n"
        "- review: Review a diff for bugs.\n"
        "</skills>"
    )
    assert [r.system_prompt for r in seen] == [expected] * 3
    assert all((r.system_prompt or "").count(SKILLS_TAG) == 1 for r in seen)
    decisions = result.decisions.at(h.BEFORE_INFERENCE)
    assert [(d.step, d.outcome, d.hook) for d in decisions] == [
        (step, "modify", "skills:list_in_prompt") for step in (1, 2, 3)
    ]


async def test_without_a_system_prompt_the_block_is_the_prompt(library_dir: Path) -> None:
    seen: list[str | None] = []

    def answer(request: ModelRequest) -> Any:
        seen.append(request.system_prompt)
        return reply("ok")

    skills = Skills(library_dir)
    await agent_with(FunctionModel(answer), skills, system=None).run("go")
    assert seen == [skills.block]


async def test_a_prompt_that_already_holds_the_block_is_left_alone(library_dir: Path) -> None:
    seen: list[str | None] = []

    def answer(request: ModelRequest) -> Any:
        seen.append(request.system_prompt)
        return reply("ok")

    skills = Skills(library_dir)
    system = f"Be brief.\n\n{skills.block}"
    result = await agent_with(FunctionModel(answer), skills, system=system).run("go")
    assert seen == [system]
    assert result.decisions.at(h.BEFORE_INFERENCE) == []


async def test_skills_compose_with_task_planning(library_dir: Path) -> None:
    todos = [{"content": "Fill the form", "status": "in_progress", "activeForm": "Filling"}]
    seen: list[ModelRequest] = []
    script = [tool_call("TodoWrite", todos=todos), tool_call("Skill", name="pdf"), reply("ok")]

    def answer(request: ModelRequest) -> Any:
        seen.append(request)
        return script[len(seen) - 1]

    agent = agent_with(FunctionModel(answer), TaskPlanning(), Skills(library_dir))
    result = await agent.run("fill the form")
    assert {"Skill", "TodoWrite"} <= {t.name for t in seen[0].tools}
    todo_result, skill_result = (call.result for call in result.tool_calls)
    assert not todo_result.is_error and not skill_result.is_error
    assert result.state.metadata["tasks"] == todos
    assert '<skill name="pdf">' in skill_result.content
    assert all((r.system_prompt or "").count(SKILLS_TAG) == 1 for r in seen)
    hooks = {d.hook for d in result.decisions}
    assert {"planning:record_tasks", "skills:list_in_prompt"} <= hooks
