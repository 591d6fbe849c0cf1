"""What the bot's model is told about the dashboard: a nanobot skill, always in its context.

nanobot loads `<workspace>/skills/<name>/SKILL.md`; `always: true` puts it in every prompt. The
dashboard writes this one into the workspace of the bots it manages (only inside the data
directory, like their config files), so the model knows when to publish, to read the user's
inputs back, and how to show the person a form (a guide card) in the Conversations page.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

SKILL_NAME = "topic-dashboard"
GUIDE_CARD_EXAMPLE = {
    "title": "Before I start",
    "fields": [
        {"name": "scope", "label": "What should I cover?", "type": "textarea", "required": True},
        {"name": "format", "label": "Format", "type": "select", "options": ["summary", "table"]},
    ],
    "submit_label": "Start",
}

SKILL_TEXT = f"""---
name: {SKILL_NAME}
description: Working with Topic Dashboard - where finished results go, reading back what the user asked, and asking the user to fill in a form.
always: true
---

# Topic Dashboard

- **Finished results go to topics, the talk stays in the chat.** When a task produces a result worth
  keeping (a build outcome, a report, an alert), call `topic_route` with it (optionally with your own
  `proposed_topic_key`) and then `topic_publish`. Never publish greetings, progress or tool chatter.
- **Check what was asked.** Before you implement a request, and before you report work as done, call
  `ccweb_list_user_inputs` (no arguments: the conversation you are answering) and check your work
  against the user's own words.
- **Ask with a form.** In the dashboard you can show the user a form instead of asking field by
  field: put one fenced block named `guide_card` in your reply, holding JSON:

```guide_card
{json.dumps(GUIDE_CARD_EXAMPLE, indent=1)}
```

  Field types: text, textarea, select (with options), checkbox, number; `required` is optional.
  The user's answers come back as their next message, one "Label: answer" line per field (a
  multi-line answer continues on lines indented by two spaces).
"""


def workspace_of(config: dict[str, object]) -> Path | None:
    """The workspace a nanobot config names (agents.defaults.workspace), if any."""
    agents = config.get("agents")
    defaults = agents.get("defaults") if isinstance(agents, dict) else None
    workspace = defaults.get("workspace") if isinstance(defaults, dict) else None
    return Path(workspace).expanduser() if isinstance(workspace, str) and workspace.strip() else None


def write_skill(workspace: Path) -> Path:
    """Write (or refresh) the skill into `workspace`; returns its path. Raises OSError."""
    directory = workspace / "skills" / SKILL_NAME
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "SKILL.md"
    if path.exists() and path.read_text(encoding="utf-8") == SKILL_TEXT:
        return path
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".SKILL.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(SKILL_TEXT)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
