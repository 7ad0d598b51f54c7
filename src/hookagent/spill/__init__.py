"""Outputs too long for the model: cut to a preview, saved whole in the run's folder.

Hook output (`hookagent.claude`) and tool results (`ToolOutputs`) share the folder rule
(`files`) and the preview's shape (`preview`).
"""

from hookagent.spill._files import default_root, run_folder
from hookagent.spill._preview import PREVIEW_CHARS, preview
from hookagent.spill._results import DEFAULT_MAX_RESULT_CHARS, INHERIT, ToolOutputs

__all__ = [
    "DEFAULT_MAX_RESULT_CHARS",
    "INHERIT",
    "PREVIEW_CHARS",
    "ToolOutputs",
    "default_root",
    "preview",
    "run_folder",
]
