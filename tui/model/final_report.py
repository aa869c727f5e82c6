"""Where a session's final report is, whichever of the producer's shapes holds it.

The producer marks the report with a `system` op labelled `final-report` (its accounting holds a `tool` entry with
`command: "agent__final_report"`), but keeps the content out of the tree: v2 snapshots store it in
`opTree.finalReport` (`{format, content, content_json?, ...}`), v3 ledgers in `session_summary.finalReport`
(`{format, captured}`, no content). Older trees have a `agent__final_report` tool op whose parameters carry it.
Insights, the export and the details panel all ask this one function.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.model.fields import as_dict, as_list
from tui.model.json_text import dumps
from tui.model.nodes import Op, Session

REPORT_TEXT = 20_000  # characters of the final report kept
REPORT_COMMAND = "agent__final_report"
NOT_IN_TREE = "the producer does not keep the report's content in the tree"


@dataclass(slots=True)
class FinalReport:
    path: str  # the final-report op (system op or tool call), or the session's prefix when only `finalReport` holds it
    source: str  # "finalReport" | "final-report op" | the tool name
    format: str
    text: str  # the content (content_json as indented JSON when there is no content)
    truncated: bool
    content_json: str = ""  # content_json as indented JSON, when the report has a text content too
    captured: bool | None = None  # v3 `finalReport.captured`
    note: str = ""  # why there is no text


def final_report(session: Session) -> FinalReport | None:
    """The session's own final report (its sub-agents' reports are theirs), or None when it has none."""
    marker: Op | None = None
    tool_op: Op | None = None
    for op in session.all_ops():
        if is_final_report_op(op):
            marker = op
        elif op.kind == "tool" and "final_report" in op.name.lower():
            tool_op = op
    where = marker or tool_op
    path = where.path if where is not None else session.path_prefix
    report = session.final_report
    if report is not None:
        text, fmt, json_text, captured = _parts(report)
        if text or json_text or captured is not None or marker is not None:
            if not fmt and marker is not None:
                fmt = _op_format(marker)
            note = "" if text else ("not captured" if captured is False else NOT_IN_TREE)
            return _clip(FinalReport(path, "finalReport", fmt, text, False, json_text, captured, note))
    if tool_op is not None and tool_op.raw is not None:
        params = as_dict(as_dict(tool_op.raw.get("request")).get("payload"))
        report_format = params.get("report_format")
        fmt = report_format if isinstance(report_format, str) else ""
        for key in ("report_content", "content", "report"):
            value = params.get(key)
            if isinstance(value, str) and value:
                return _clip(FinalReport(tool_op.path, tool_op.name, fmt, value, False))
        payload = as_dict(tool_op.raw.get("response")).get("payload")
        if isinstance(payload, str) and payload:
            return _clip(FinalReport(tool_op.path, tool_op.name, "", payload, False))
    if marker is not None:
        return FinalReport(marker.path, "final-report op", _op_format(marker), "", False, note=NOT_IN_TREE)
    return None


def is_final_report_op(op: Op) -> bool:
    """The producer's final-report marker: a system op labelled `final-report`, or a system op whose accounting has
    the `agent__final_report` tool entry (only system ops are looked into: the details of a 20,000-op session ask)."""
    if op.kind != "system":
        return False
    if op.label == "final-report":
        return True
    if op.raw is None:
        return False
    return any(isinstance(e, dict) and e.get("type") == "tool" and e.get("command") == REPORT_COMMAND
               for e in as_list(op.raw.get("accounting")))


def _op_format(op: Op) -> str:
    for key in ("format", "reportFormat", "report_format"):
        value = op.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _parts(report: object) -> tuple[str, str, str, bool | None]:
    """(content, format, content_json as JSON text, captured) of a stored finalReport."""
    if isinstance(report, str):
        return report, "", "", None
    if not isinstance(report, dict):
        return "", "", "", None
    fmt = report.get("format")
    fmt = fmt if isinstance(fmt, str) else ""
    captured = report.get("captured")
    captured = captured if isinstance(captured, bool) else None
    content = report.get("content")
    json_text = _json(report["content_json"]) if report.get("content_json") is not None else ""
    if isinstance(content, str) and content:
        return content, fmt, json_text, captured
    if json_text:
        return json_text, fmt or "json", "", captured
    return "", fmt, "", captured


def report_content(report: object) -> str:
    """What a stored or streamed `finalReport` says on one line: its `content`, else its `content_json` as compact
    JSON ("" if neither); the live panel shows it before any tree holds the report."""
    text = _parts(report)[0]
    if isinstance(report, dict) and not (isinstance(report.get("content"), str) and report["content"]):
        if report.get("content_json") is not None:
            return dumps(report["content_json"]).decode("utf-8", "replace")
    return text


def _json(value: object) -> str:
    return dumps(value, indent=True).decode("utf-8", "replace")


def _clip(report: FinalReport) -> FinalReport:
    if len(report.text) > REPORT_TEXT:
        report.text, report.truncated = report.text[:REPORT_TEXT], True
    if len(report.content_json) > REPORT_TEXT:
        report.content_json, report.truncated = report.content_json[:REPORT_TEXT], True
    return report
