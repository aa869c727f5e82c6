"""Where the producer keeps its sessions when nobody says otherwise: $AI_AGENT_SESSIONS_DIR or ~/.ai-agent/sessions."""

from __future__ import annotations

import os
from pathlib import Path


def default_sessions_dir() -> Path:
    env = os.environ.get("AI_AGENT_SESSIONS_DIR")
    return Path(env).expanduser() if env else Path.home() / ".ai-agent" / "sessions"
