"""`export --format otlp`: a session (or one sub-agent) as OTLP trace export requests (tui.text.otlp does the work).

The resource says who made the spans and who exported them: `service.name` "ai-agent" (the producer whose session
this was; ai-agent's own telemetry uses the same name), `service.instance.id` the exported session's trace id,
and, in attributes of our own, the exporter (`aiagent_monitor.exporter.name` / `.version`) and the source file's
name and format, so spans from a saved file can be told from spans ai-agent sent live.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tui import __version__
from tui.model.nodes import Session
from tui.text.otlp.encode import json_line, requests
from tui.text.otlp.messages import op_messages
from tui.text.otlp.spans import session_spans

SERVICE_NAME = "ai-agent"
EXPORTER_NAME = "aiagent-monitor"


@dataclass(slots=True)
class OtlpExport:
    requests: list[dict]  # ExportTraceServiceRequest as OTLP/JSON dicts
    spans: int
    sessions: int
    running: int  # spans that had no recorded end (closed at the latest time known below them)

    def json_lines(self) -> bytes:
        return b"".join(json_line(r) for r in self.requests)

    def protobufs(self) -> list[bytes]:
        from tui.text.otlp.encode import to_protobuf

        return [to_protobuf(r) for r in self.requests]


def resource_attributes(session: Session, source: str, source_format: str) -> dict[str, object]:
    attrs: dict[str, object] = {"service.name": SERVICE_NAME,
                                "aiagent_monitor.exporter.name": EXPORTER_NAME,
                                "aiagent_monitor.exporter.version": __version__}
    if session.trace_id or session.id:
        attrs["service.instance.id"] = session.trace_id or session.id
    if source and source != "-":
        attrs["aiagent_monitor.source.file"] = Path(source).name
    if source_format:
        attrs["aiagent_monitor.source.format"] = source_format
    return attrs


def build(session: Session, *, source: str = "", source_format: str = "",
          sessions_dir: str | os.PathLike | None = None, messages: bool = True) -> OtlpExport:
    """Every span of `session` and its sub-agents, laid out as export requests (each under the size limit).
    messages=False leaves gen_ai.input/output.messages out (no capture is decoded)."""
    exported = session_spans(session, sessions_dir=sessions_dir, messages=op_messages if messages else None)
    resource = resource_attributes(session, source, source_format)
    return OtlpExport(list(requests(exported.spans, resource, __version__)), len(exported.spans),
                      exported.sessions, exported.running)
