"""A session as JSON: the normalised model (session -> turns -> ops -> child sessions), with totals, logs and insights.

Payload bodies are left out (they are the bulk of a snapshot and stay in the file); their sizes are kept. The session
itself is tui.model.session_dicts.export_session; this module adds the envelope (format, version, source, insights).
"""

from __future__ import annotations

from tui.model.insights import Insights, compute
from tui.model.nodes import Session
from tui.model.session_dicts import export_session

EXPORT_FORMAT = "aiagent-monitor-export"
EXPORT_VERSION = 1


def export(session: Session, *, source: str = "", source_format: str = "", insights: Insights | None = None) -> dict:
    ins = insights if insights is not None else compute(session)
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "source": {"path": source or None, "format": source_format or None},
        "session": export_session(session),
        "insights": ins.as_dict(),
    }
