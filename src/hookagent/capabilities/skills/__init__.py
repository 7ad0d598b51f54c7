"""Skills: Claude Code's `SKILL.md` folders, loaded on demand (see `capability`)."""

from hookagent.capabilities.skills._capability import SKILLS_TAG, Skills, SkillTool, render_skill
from hookagent.capabilities.skills._library import DEFAULT_DIRS, Skill, SkillLibrary, parse_skill

__all__ = [
    "DEFAULT_DIRS",
    "SKILLS_TAG",
    "Skill",
    "SkillLibrary",
    "SkillTool",
    "Skills",
    "parse_skill",
    "render_skill",
]
