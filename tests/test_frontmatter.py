"""The front matter reader shared by skills and subagents: the YAML these files use, values
read on access, and every problem a `ConfigError` naming the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

import hookagent as h
from hookagent.capabilities.subagents.specs import load_spec
from hookagent.frontmatter import FrontMatter, read_front_matter, split_front_matter

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
        ("key: true", "true"),  # values stay text
        ("key: 3", "3"),
        ("key: Starts here\n  and goes on.", "Starts here and goes on."),
        ("key:\n  On the next line,\n  continued.", "On the next line, continued."),
        ("key: one\n\n  two", "one\ntwo"),
        ("key:", None),
        ("key: ~", None),
        ("key: null", None),
        ("key: # only a comment", None),
    ],
)
def test_plain_values(front: str, expected: object) -> None:
    assert value_of(front) == expected


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("key: 'it''s: fine'", "it's: fine"),
        ("key: 'a # b' # c", "a # b"),
        ('key: "tab\\tand \\"quotes\\": fine" # c', 'tab\tand "quotes": fine'),
        ('key: "caf\\u00e9\\nnext"', "café\nnext"),
        ("key: ''", ""),
        ('key: "true"', "true"),
    ],
)
def test_quoted_values_with_escapes(front: str, expected: str) -> None:
    assert value_of(front) == expected


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        (
            "key: |\n  Line one\n    indented\n\n  after a gap\n",
            "Line one\n  indented\n\nafter a gap",
        ),
        ("key: |-\n  Literal\n  lines.", "Literal\nlines."),
        (
            "key: >\n  Folded over\n  two lines.\n\n  New paragraph.",
            "Folded over two lines.\nNew paragraph.",
        ),
        ("key: > # a comment\n  folded", "folded"),
        ("key: |\n  # not a comment in a block", "# not a comment in a block"),
    ],
)
def test_block_values(front: str, expected: str) -> None:
    assert value_of(front) == expected


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("key: [Read, Grep]", ["Read", "Grep"]),
        ('key: [ Read ,\'Gr, ep\', "B\\"x" ] # c', ["Read", "Gr, ep", 'B"x']),
        ("key: [a, b,]", ["a", "b"]),
        ("key: []", []),
        ("key: [Bash(git add:*)]", ["Bash(git add:*)"]),
        ("key:\n  - Read\n  - 'Gr ep' # c\n  # a comment\n\n  - \"B\"", ["Read", "Gr ep", "B"]),
        ("key:\n- a\n- b", ["a", "b"]),
        ("key:\n  - a # c\nnext: x", ["a"]),
    ],
)
def test_inline_and_block_lists(front: str, expected: list[str]) -> None:
    assert value_of(front) == expected


@pytest.mark.parametrize(
    "front",
    [
        "key:\n  version: '1.0'\n  owner: team: a\n  deeper:\n    - x",
        "key:\n\n  nested: map",
        "key: {a: b, c: [d]}",
        "key: {}",
    ],
)
def test_a_nested_map_is_none_and_not_read(front: str) -> None:
    fields = fields_of(front + "\nafter: x")
    assert fields["key"] is None
    assert fields["after"] == "x"


def test_a_whole_block_reads_as_a_mapping_in_file_order() -> None:
    fields = fields_of(
        "# a comment\nname: reviewer\ndescription: >\n  Reviews\n  diffs.\n"
        "tools: [Read, Grep]\nmetadata:\n  v: 1\nmodel:"
    )
    assert list(fields) == ["name", "description", "tools", "metadata", "model"]
    assert fields == {
        "name": "reviewer",
        "description": "Reviews diffs.",
        "tools": ["Read", "Grep"],
        "metadata": None,
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


# -- reading on access ------------------------------------------------------------------


def test_a_key_no_one_reads_is_never_an_error() -> None:
    fields = fields_of("name: ok\nhint: [file] [options]\nbad: 'never closed\nodd: &anchor x")
    assert fields["name"] == "ok"
    assert fields.text("name") == "ok"
    assert "hint" in fields and "absent" not in fields  # `in` reads no value
    assert len(fields) == 4
    with pytest.raises(h.ConfigError, match="line 3: unexpected text after the closing `]`"):
        fields["hint"]


def test_text_refuses_lists_and_maps_naming_the_line() -> None:
    fields = fields_of("a: x\nb: [x]\nc:\n  - x\nd:\n  k: v\ne:\nf: x\n- y")
    assert (fields.text("a"), fields.text("e"), fields.text("absent")) == ("x", None, None)
    expected = {
        "b": 'line 3: `b` must be a string; quote it: b: "[x]"',
        "c": "line 4: `c` must be a string, not a list or a map",
        "d": "line 6: `d` must be a string, not a list or a map",
        "f": "line 9: `f` must be a string, not a list or a map",
    }
    for key, message in expected.items():
        with pytest.raises(h.ConfigError) as caught:
            fields.text(key)
        assert str(caught.value) == f"{SOURCE}: front matter {message}"


def test_text_or_list_refuses_maps() -> None:
    fields = fields_of("a: x, y\nb: [x]\nc:\nd:\n  k: v\ne: {k: v}")
    assert (fields.text_or_list("a"), fields.text_or_list("b")) == ("x, y", ["x"])
    assert fields.text_or_list("c") is None and fields.text_or_list("absent") is None
    for key, line in (("d", 5), ("e", 7)):
        with pytest.raises(h.ConfigError, match=f"line {line}: `{key}` must be text or a list"):
            fields.text_or_list(key)


# -- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("key: Use when: asked", "line 2: `: ` cannot appear in an unquoted value"),
        ("key: x\n  more: text", "line 3: `: ` cannot appear in an unquoted value"),
        ('key: "never closed', "line 2: the quoted string is never closed"),
        ("key: 'never closed", "line 2: the quoted string is never closed"),
        ('key: "ok" trailing', "line 2: unexpected text after the closing quote: 'trailing'"),
        ('key: "bad \\q escape"', "line 2: cannot read the quoted string"),
        ("key: 'one'\n  two", "line 3: a quoted `key` must end on its own line"),
        ("key: x\n\tmore", "line 3: tabs cannot indent YAML"),
        ("key: &anchor x", "line 2: cannot read `key: &anchor x`; if it is text, quote it"),
        ("key: |2\n  x", "line 2: cannot read `key: |2`"),
        ("key: - a", "line 2: cannot read `key: - a`"),
        ("key: x\n- y", "line 2: `key` has a value on its line and `- ` items below"),
        ("key: [a, b", "line 2: the inline list is never closed"),
        ("key: [a,\n  b]", "line 3: the inline list or map of `key` must close on its own line"),
        ("key: ['a' b]", "line 2: cannot read the inline list ['a' b]: expected `,` or `]`"),
        ("key: [a, , b]", "line 2: an empty list item"),
        ("key: [[a]]", "line 2: cannot read the list item '[a'"),
        ("key: [a: b]", "line 2: `: ` cannot appear in an unquoted list item"),
        ("key: {a: b", "line 2: the inline map is never closed"),
        ("key:\n  - a\n - b", "line 4: expected a `- item` of `key` in line with the first"),
        ("key:\n  - a\n    more", "line 4: expected a `- item` of `key` in line with the first"),
        ("key:\n  - - a", "line 3: cannot read the list item '- a'"),
        ("key:\n  - a: b", "line 3: `: ` cannot appear in an unquoted list item"),
        ("key:\n  -", "line 3: an empty list item"),
        ("key:\n  - 'x' y", "line 3: unexpected text after the closing quote"),
    ],
)
def test_a_value_that_cannot_be_read_names_the_file_and_line(front: str, expected: str) -> None:
    message = error_of(front)
    assert message.startswith(f"{SOURCE}: front matter line ")
    assert expected in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("---\nkey: x\nbody, never closed\n", "the front matter opened with `---` on line 1 is"),
        ("---\nkey: x\njust words\n---\n", "front matter line 3: expected `key: value`, got"),
        ("---\nkey:x\n---\n", "front matter line 2: expected `key: value`, got 'key:x'"),
        ("---\nkey: a\nkey: b\n---\n", "line 3: `key` is given twice (first on line 2)"),
        ("---\n  key: x\n---\n", "line 2: an indented line with no key above it"),
        ("---\n- x\n---\n", "line 2: an indented line with no key above it"),
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
        ("description: [x]", "line 2: `description` must be a string; quote it"),
        ("description: x\nname:\n  - a", "line 3: `name` must be a string, not a list or a map"),
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
