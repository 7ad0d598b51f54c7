"""Images in tool results, for models that cannot see them.

A model accepts images when it says so with `accepts_images = True` (the OpenAI and Anthropic
models do). For any other model the kernel folds each image of a result into its text as a
placeholder line, so the model knows an image was there and the record says what it read.
"""

from __future__ import annotations

from dataclasses import replace

from hookagent.tools._base import ToolResult

__all__ = ["without_images"]


def without_images(result: ToolResult) -> ToolResult:
    """`result` with its images as placeholder lines after its text."""
    notes = "\n".join(image.placeholder() for image in result.images)
    content = f"{result.content}\n{notes}" if result.content else notes
    return replace(result, content=content, images=())
