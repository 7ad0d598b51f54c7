"""The front matter reader shared by skills and subagents: the YAML these files use, values
read on access, and every problem a `ConfigError` naming the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

import hookagent as h
from hookagent._frontmatter import FrontMatter, read_front_matter, split_front_matter
from hookagent.capabilities.subagents._specs import load_spec

SOURCE = "agents/x.md"


def fields_of(front: str) -> FrontMatter:
    fields, body = split_front_matter(f"---\n{front}\n---\nbody\n", SOURCE)
    assert body == "body"
    return fields


def value_of(front: str) -> object:
    return fields_of(front)["key"]


def error_of(front: str, *, key: str = "key") -> str:
    with pytest.raises(h.ConfigError) as caught:
        fields_of(front)[key]
    assert caught.value.file == SOURCE
    return str(caught.value)


# -- values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("key: plain text", "plain text"),
        ("key: plain text # a comment", "plain text"),
        ("key: a#b, c", "a#b, c"),
        ("key: Read, Grep", "Read, Grep"),
        ("key: true", True),  # YAML 1.2 core scalars, as JavaScript readers give them
        ("key: 3", 3),
        ("key: 0x1f", 31),
        ("key: 1.5", 1.5),
        ("key: yes", "yes"),  # YAML 1.1's booleans and dates stay text
        ("key: 2024-01-01", "2024-01-01"),
        ("key: Starts here\n  and goes on.", "Starts here and goes on."),
        ("key:\n  On the next line,\n  continued.", "On the next line, continued."),
        ("key: one\n\n  two", "one\ntwo"),
        ("key:", None),
        ("key: ~", None),
        ("key: null", None),
        ("key: # only a comment", None),
        ("key: 'it''s: fine'", "it's: fine"),
        ('key: "tab\\tand \\"quotes\\": fine" # c', 'tab\tand "quotes": fine'),
        ("key: |-\n  Literal\n    lines.", "Literal\n  lines."),
        (
            "key: >\n  Folded over\n  two lines.\n\n  New paragraph.",
            "Folded over two lines.\nNew paragraph.",
        ),
        ("key: [Read, 'Gr, ep']", ["Read", "Gr, ep"]),
        ("key:\n  - Read\n  - Grep # c", ["Read", "Grep"]),
        ("key: {a: b, c: [d]}", {"a": "b", "c": ["d"]}),
    ],
)
def test_values_are_yaml(front: str, expected: object) -> None:
    fields = fields_of(front)
    assert fields["key"] == expected
    assert fields.lenient == ""


def test_nested_maps_are_read_whole_with_the_line_of_each_value() -> None:
    fields = fields_of(
        "name: a\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        "        - type: command\n          command: ./check.sh\n          timeout: 30"
    )
    assert fields["hooks"] == {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}],
            }
        ]
    }
    assert fields.line("hooks") == 3
    assert fields.line("hooks", "PreToolUse", 0, "hooks", 0, "timeout") == 9
    assert fields.line("hooks", "PreToolUse", 5) == 5  # as far down as the path goes
    error = fields.error("hooks", "bad timeout", "PreToolUse", 0, "hooks", 0, "timeout")
    assert str(error) == f"{SOURCE}: front matter line 9: bad timeout"


def test_a_whole_block_reads_as_a_mapping_in_file_order() -> None:
    fields = fields_of(
        "# a comment\nname: reviewer\ndescription: >-\n  Reviews\n  diffs.\n"
        "tools: [Read, Grep]\nmetadata:\n  v: 1\nmodel:"
    )
    assert list(fields) == ["name", "description", "tools", "metadata", "model"]
    assert fields == {
        "name": "reviewer",
        "description": "Reviews diffs.",
        "tools": ["Read", "Grep"],
        "metadata": {"v": 1},
        "model": None,
    }
    assert fields.get("absent") is None
    assert (fields.line("name"), fields.line("tools")) == (3, 7)


def test_the_body_and_files_without_front_matter() -> None:
    fields, body = split_front_matter("  Just a body.\n\n", SOURCE)
    assert (dict(fields), body) == ({}, "Just a body.")
    fields, body = split_front_matter("", SOURCE)
    assert (dict(fields), body) == ({}, "")
    fields, body = split_front_matter("---\n---\n\n# Title\n\ntext\n\n", SOURCE)
    assert (dict(fields), body) == ({}, "# Title\n\ntext")
    text = "\ufeff---\r\nname: a\r\ntools:\r\n  - R\r\n---\r\nbody\r\n"
    fields, body = split_front_matter(text, SOURCE)
    assert (dict(fields), body) == ({"name": "a", "tools": ["R"]}, "body")


def test_text_and_text_or_list() -> None:
    fields = fields_of("a: x\nb: [x, 2]\nc:\n  - x\nd:\n  k: v\ne:\nf: true\ng: [[x]]")
    assert (fields.text("a"), fields.text("e"), fields.text("f")) == ("x", None, "true")
    assert fields.text("absent") is None
    assert (fields.text_or_list("a"), fields.text_or_list("b")) == ("x", ["x", "2"])
    assert fields.text_or_list("e") is None and fields.text_or_list("absent") is None
    errors = {
        ("text", "b"): "line 3: `b` must be text, not a list",
        ("text", "c"): "line 4: `c` must be text, not a list",
        ("text", "d"): "line 6: `d` must be text, not a map",
        ("text_or_list", "d"): "line 6: `d` must be text or a list, not a map",
        ("text_or_list", "g"): "line 10: item 1 of `g` must be text",
    }
    for (method, key), message in errors.items():
        with pytest.raises(h.ConfigError) as caught:
            getattr(fields, method)(key)
        assert str(caught.value) == f"{SOURCE}: front matter {message}"


# -- Claude Code's leniency ---------------------------------------------------------------


def test_an_unquoted_colon_is_kept_as_written() -> None:
    fields = fields_of("name: a\ndescription: Use when: asked # not a comment\nmodel: sonnet")
    assert fields["description"] == "Use when: asked # not a comment"
    assert (fields["name"], fields["model"]) == ("a", "sonnet")
    assert fields.lenient.startswith("line 3: mapping values are not allowed")


def test_a_description_running_on_over_example_dialogue() -> None:
    fields = fields_of(
        "name: reviewer\ndescription: Use this agent after a change. Examples:\n\n<example>\n"
        'Context: A PR is ready.\nuser: "Review it"\nassistant: "I will."\n</example>\n'
        "model: sonnet\ncolor: red\ncustom-key: kept\nnote: runs on"
    )
    assert list(fields) == ["name", "description", "model", "color", "custom-key"]
    assert fields["description"] == (
        "Use this agent after a change. Examples:\n\n<example>\nContext: A PR is ready.\n"
        'user: "Review it"\nassistant: "I will."\n</example>'
    )
    assert (fields["model"], fields["color"], fields.line("color")) == ("sonnet", "red", 11)
    assert fields["custom-key"] == "kept\nnote: runs on"  # an unknown plain key runs on


def test_in_a_lenient_block_other_keys_are_still_yaml() -> None:
    fields = fields_of(
        "description: a: b\ntools: [Read, Grep]\nextra: 1\nhooks:\n  Stop:\n    - hooks: []"
    )
    assert fields["tools"] == ["Read", "Grep"]
    assert fields["extra"] == 1  # a short plain value ends at any key
    assert fields["hooks"] == {"Stop": [{"hooks": []}]}
    assert fields.line("hooks", "Stop", 0) == 7


# -- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ('key: "never closed\nok: x', "line 2: cannot read `key`: found unexpected end"),
        ("key: 'never closed", "line 2: cannot read `key`: found unexpected end of stream"),
        ('key: "ok" trailing\nz: a: b', "line 2: cannot read `key`: did not find expected"),
        ('key: "bad \\q escape"\nz: a: b', "line 2: cannot read `key`: found unknown escape"),
        ("key: [a, b\nz: x", "line 2: cannot read `key`: did not find expected ',' or ']'"),
        ("key: &a x\nz: *b", "cannot read `z`: found undefined alias"),
    ],
)
def test_a_value_that_cannot_be_read_names_the_file_and_line_when_read(
    front: str, expected: str
) -> None:
    fields = fields_of(front)
    assert fields.lenient
    key = "z" if "`z`" in expected else "key"
    with pytest.raises(h.ConfigError) as caught:
        fields[key]
    assert caught.value.file == SOURCE
    assert str(caught.value).startswith(f"{SOURCE}: front matter line ")
    assert expected in str(caught.value)


def test_a_key_no_one_reads_is_never_an_error() -> None:
    fields = fields_of("name: ok\nbad-one: 'never closed\nodd_one: [x")
    assert fields["name"] == "ok"
    assert "bad-one" in fields and "absent" not in fields  # `in` reads no value
    assert len(fields) == 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("---\nkey: x\nbody, never closed\n", "the front matter opened with `---` on line 1 is"),
        ("---\njust words\n---\n", "front matter line 2: expected `key: value` lines"),
        ("---\njust words\nkey: a: b\n---\n", "line 2: expected `key: value`, got 'just words'"),
        ("---\nkey: a\nkey: b\n---\n", "line 3: `key` is given twice (first on line 2)"),
        ("---\nname: a: b\nname: b\n---\n", "line 3: `name` is given twice (first on line 2)"),
        ("---\n[a]: x\n---\n", "line 2: a key must be text"),
    ],
)
def test_a_bad_layout_is_an_error_at_once(text: str, expected: str) -> None:
    with pytest.raises(h.ConfigError) as caught:
        split_front_matter(text, SOURCE)
    assert str(caught.value).startswith(f"{SOURCE}: ")
    assert expected in str(caught.value)


def test_read_front_matter_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("---\ntools:\n  - Read\n---\nbody\n", encoding="utf-8")
    fields, body = read_front_matter(path)
    assert (dict(fields), body, fields.source) == ({"tools": ["Read"]}, "body", str(path))
    with pytest.raises(h.ConfigError, match="cannot read it") as caught:
        read_front_matter(tmp_path / "missing.md")
    assert caught.value.file == str(tmp_path / "missing.md")
    path.write_bytes(b"---\nkey: caf\xe9\n---\n")
    with pytest.raises(h.ConfigError, match="not UTF-8 text") as caught:
        read_front_matter(path)
    assert caught.value.file == str(path)


# -- an agent file's tools --------------------------------------------------------------


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        ("tools: Read, Grep", ("Read", "Grep")),
        ("tools: [Read, Grep]", ("Read", "Grep")),
        ("tools:\n  - Read\n  - Grep", ("Read", "Grep")),
        ("tools: []", ()),
        ("tools:", None),
        ("", None),
    ],
)
def test_an_agents_tools_are_a_list_or_a_comma_string(
    tmp_path: Path, tools: str, expected: tuple[str, ...] | None
) -> None:
    path = tmp_path / "reviewer.md"
    path.write_text(f"---\ndescription: Reviews.\n{tools}\n---\nYou review.\n", encoding="utf-8")
    spec = load_spec(path)
    assert (spec.name, spec.description, spec.tools) == ("reviewer", "Reviews.", expected)


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        (
            "description: x\ntools:\n  Read: yes",
            "line 3: `tools` must be text or a list, not a map",
        ),
        ("description: [x]", "line 2: `description` must be text, not a list"),
        ("description: x\nname:\n  - a", "line 3: `name` must be text, not a list"),
    ],
)
def test_an_agent_file_with_the_wrong_shape_is_refused(
    tmp_path: Path, front: str, expected: str
) -> None:
    path = tmp_path / "reviewer.md"
    path.write_text(f"---\n{front}\n---\nYou review.\n", encoding="utf-8")
    with pytest.raises(h.ConfigError) as caught:
        load_spec(path)
    assert str(caught.value).startswith(f"{path}: front matter ")
    assert expected in str(caught.value)
