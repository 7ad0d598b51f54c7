"""A call's result as the model reads it and as hooks see it, for every kind of content block."""

from __future__ import annotations

from mcp import types

from hookagent._messages import ImagePart
from hookagent.capabilities.mcp._tool import to_tool_result


def result(*blocks: types.ContentBlock, **fields: object) -> types.CallToolResult:
    return types.CallToolResult(content=list(blocks), **fields)  # type: ignore[arg-type]


def test_text_blocks_are_joined_and_hooks_get_the_blocks() -> None:
    converted = to_tool_result(result(types.TextContent(text="one"), types.TextContent(text="two")))
    assert converted.content == "one\ntwo"
    assert converted.data == [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]
    assert not converted.is_error


def test_structured_content_is_what_hooks_see() -> None:
    converted = to_tool_result(
        result(types.TextContent(text="3 files"), structured_content={"count": 3})
    )
    assert converted.content == "3 files"
    assert converted.data == {"count": 3}


def test_structured_content_alone_is_shown_to_the_model_as_json() -> None:
    converted = to_tool_result(result(structured_content={"count": 3}))
    assert converted.content == '{"count": 3}'


def test_is_error_carries_over() -> None:
    converted = to_tool_result(result(types.TextContent(text="nope"), is_error=True))
    assert converted.is_error and converted.content == "nope"


def test_images_ride_beside_the_text_other_binary_blocks_get_placeholders() -> None:
    converted = to_tool_result(
        result(
            types.ImageContent(data="AAAA", mime_type="image/png"),
            types.AudioContent(data="AAAAAAAA", mime_type="audio/wav"),
            types.ResourceLink(name="readme", uri="file:///README.md"),
            types.EmbeddedResource(
                resource=types.TextResourceContents(uri="file:///a.txt", text="inline text")
            ),
            types.EmbeddedResource(
                resource=types.BlobResourceContents(
                    uri="file:///b.bin", blob="AAAA", mime_type="application/zip"
                )
            ),
        )
    )
    assert converted.images == (ImagePart(mime_type="image/png", data="AAAA"),)  # as an image
    assert converted.content.splitlines() == [
        "[audio: audio/wav, 6 bytes]",
        "[resource link: file:///README.md]",
        "inline text",
        "[resource: file:///b.bin, application/zip]",
    ]
    assert converted.data[0] == {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    assert converted.data[3]["resource"] == {"uri": "file:///a.txt", "text": "inline text"}
