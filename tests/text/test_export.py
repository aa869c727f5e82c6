"""Markdown and JSON export: sections, escaping of hostile text, the normalised model, choosing a sub-agent."""

from __future__ import annotations

import re

import orjson
import pytest

from helpers.builders import llm_acc, op, session, turn
from tui.formats.aiagent.snapshot import build_session
from tui.text import markdown_safe as md
from tui.text.export import ExportError, default_filename, render, select
from tui.text.export_markdown import render as markdown

HTML = "<script>alert(1)</script><img src=x onerror=alert(2)>"
LINK = "[click](javascript:alert(3)) ![i](http://x/y.png)"
TICKS = "before ``` after ```` end `x`"
TERMINAL = "\x1b]0;pwned\x07\x1b[31mred\u202eevil"
HOSTILE = f"{HTML} {LINK} | cell | *bold* _it_ {TICKS} {TERMINAL} $x$ &amp;"


def tree():
    child_tool = op("tool", op_id="k2", status="failed", name=HOSTILE, error=HOSTILE, started=3000, ended=3500,
                    logs=[{"timestamp": 3500, "severity": "ERR", "message": HOSTILE + "\nsecond line"}])
    child_tool["response"] = {"payload": f"```\n{HOSTILE}\n````", "size": 10}
    child = session(turn(1, op("llm", op_id="k1", accounting=[llm_acc(5, 1, cost=0.1)], provider="openai",
                               model="gpt", started=2000, ended=3000), child_tool),
                    agent="kid", trace="trace-kid", sessionTitle=HOSTILE)
    report = op("tool", op_id="r3", name="agent__final_report", started=9000, ended=9100)
    report["request"] = {"kind": "tool", "payload": {"report_content": f"# Report\n{HOSTILE}\n```\ninjected"}}
    root = session(
        turn(0, op("system", op_id="r0", label="init"), system=True),
        turn(1, op("llm", op_id="r1", accounting=[llm_acc(100, 10, cache_read=50, cost=0.5)], provider="anthropic",
                   model="claude", started=1000, ended=2000),
             op("session", op_id="r2", name="agent__kid", child=child, started=2000, ended=8000)),
        turn(2, report),
        agent="boss", trace="trace-boss", sessionTitle=HOSTILE)
    return build_session(root)


def sections(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("## ")]


def outside_fences(text: str) -> str:
    """The Markdown without its fenced blocks: what a renderer interprets."""
    out, fence = [], None
    for line in text.splitlines():
        m = re.match(r"^(`{3,})", line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if line.strip() == fence:
                fence = None
            continue
        out.append(line)
    assert fence is None, "a fence was left open"
    return "\n".join(out)


def unescaped(char: str, line: str) -> int:
    return len(re.findall(r"(?<!\\)" + re.escape(char), line.replace("\\\\", "")))


def test_markdown_has_the_four_sections_in_order():
    text = markdown(tree(), source="s.json.gz")
    assert text.startswith("# Session report: boss\n")
    assert sections(text) == ["## Overview", "## Insights", "## Timeline", "## Errors"]
    for heading in ("### Totals", "### Failed ops (1)", "### Fatal logs (0)", "### Slowest ops",
                    "### Cost and tokens by model", "### Cost and tokens by agent", "### Tools",
                    "### Cache and tool errors", "### Retries (0)", "### Final report"):
        assert heading in text, heading


def test_overview_names_models_status_times_and_totals():
    text = markdown(tree())
    overview = text.split("## Insights")[0]
    assert "| **Agent** | boss |" in overview and "| **Trace id** | trace-boss |" in overview
    assert "anthropic:claude (1)" in overview and "openai:gpt (1)" in overview
    assert "| **Status** | ok |" in overview and "| **Duration** | 4.0s |" in overview
    assert "1970-01-01 00:00:01 UTC" in overview
    assert "| 105 | 11 | 50 | 0 | \\$0.6000 |" in overview


def test_timeline_nests_sub_agents_in_time_order():
    text = markdown(tree())
    timeline = text.split("## Timeline")[1].split("## Errors")[0]
    lines = [line for line in timeline.splitlines() if line.strip()]
    assert lines[0].startswith("- **Turn 0 (init)**")
    llm = next(i for i, line in enumerate(lines) if "`1-1`" in line)
    sub = next(i for i, line in enumerate(lines) if "`1-2`" in line)
    kid = next(i for i, line in enumerate(lines) if "`1-2.1-1`" in line)
    assert llm < sub < kid and lines[sub + 1].lstrip().startswith("- sub-agent **kid**")
    indent = lambda line: len(line) - len(line.lstrip())  # noqa: E731
    assert indent(lines[kid]) > indent(lines[sub]) == indent(lines[llm])
    assert "**FAILED**" in lines[kid + 1]


def test_errors_list_failed_ops_with_error_response_and_logs():
    errors = markdown(tree()).split("## Errors")[1]
    assert "### `1-2.1-2` TOOL" in errors and "- agent: kid" in errors
    assert "Response:" in errors and "Logs:" in errors and "second line" in errors


def test_hostile_text_never_becomes_markup():
    text = markdown(tree())
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b]0;pwned" in text and "\\u202e" in text  # shown as escapes, not dropped
    live = outside_fences(text)
    for line in live.splitlines():
        assert unescaped("<", line) == 0 and unescaped(">", line) == 0, line  # no raw HTML
        assert unescaped("[", line) == 0 and unescaped("]", line) == 0, line  # no links or images
        assert unescaped("$", line) == 0 and unescaped("&", line) == 0, line  # no math, no entities
        assert unescaped("`", line) % 2 == 0, line  # only our own balanced code spans
    assert "\\*bold\\*" in live and "\\_it\\_" in live and "\\[click\\]" in live
    assert HTML.replace("<", "\\<").replace(">", "\\>") in live


def test_table_rows_keep_their_columns_with_pipes_in_text():
    text = markdown(tree())
    failed = text.split("### Failed ops (1)")[1].split("###")[0]
    rows = [line for line in failed.splitlines() if line.startswith("|")]
    counts = {line.replace("\\|", "").count("|") for line in rows}
    assert counts == {6}


def test_payload_text_goes_in_a_fence_longer_than_its_backticks():
    text = markdown(tree())
    block = md.block("a ```` b\n```\nc")
    assert block.startswith("`````\n") and block.endswith("\n`````")
    assert md.block("x" * 20, limit=5).endswith("_… 15 more characters not shown_")
    assert md.code("a `b` c") == "``a `b` c``" and md.code("`x`") == "`` `x` ``"
    assert md.text("a\nb|c<d") == "a b\\|c\\<d"
    report = text.split("### Final report")[1].split("## Timeline")[0]
    assert "# Report" in report and report.count("````") >= 2  # the report's own ``` cannot close its fence


def test_json_is_the_normalised_model():
    s = tree()
    out = orjson.loads(render(s, "json", source="s.json.gz", source_format="aiagent-snapshot"))
    assert out["format"] == "aiagent-monitor-export" and out["version"] == 1
    assert out["source"] == {"path": "s.json.gz", "format": "aiagent-snapshot"}
    root = out["session"]
    assert root["agentId"] == "boss" and root["totals"]["costUsd"] == 0.6 and root["counts"]["ops"] == 6
    assert [t["index"] for t in root["turns"]] == [0, 1, 2]
    sub = root["turns"][1]["ops"][1]
    assert sub["kind"] == "session" and sub["childSession"]["agentId"] == "kid"
    failed = sub["childSession"]["turns"][0]["ops"][1]
    assert failed["path"] == "1-2.1-2" and failed["status"] == "failed" and failed["error"] == HOSTILE
    assert failed["logs"][0]["severity"] == "ERR" and failed["responseSize"] == 10
    assert "payload" not in failed and "request" not in failed
    assert out["insights"]["failedOps"][0]["path"] == "1-2.1-2"


def test_select_a_sub_agent_by_op_path_id_or_agent():
    s = tree()
    kid = s.turns[1].ops[1].child
    assert select(s) is s
    assert select(s, op="1-2") is kid and select(s, session="1-2") is kid
    assert select(s, session="trace-k") is kid and select(s, session="kid") is kid
    with pytest.raises(ExportError, match="not a sub-agent"):
        select(s, op="1-1")
    with pytest.raises(ExportError, match="no op at path"):
        select(s, op="9-9")
    with pytest.raises(ExportError, match="no session matches"):
        select(s, session="nobody")


def test_select_refuses_an_ambiguous_agent_name():
    kid = lambda: session(turn(1, op("llm")), agent="kid", trace="")  # noqa: E731
    s = build_session(session(turn(1, op("session", child=kid()), op("session", child=kid()))))
    with pytest.raises(ExportError, match="2 sessions match"):
        select(s, session="kid")


def test_a_sub_agent_exports_on_its_own():
    s = tree()
    text = render(select(s, op="1-2"), "markdown").decode()
    assert text.startswith("# Session report: kid\n")
    assert "| **Sub-agent of** | op 1-2 of boss |" in text
    assert "`1-1`" not in text and "`1-2.1-1`" in text


def test_default_filenames():
    s = tree()
    assert default_filename(s, "markdown") == "trace-boss.md"
    assert default_filename(select(s, op="1-2"), "json") == "trace-kid.json"
    nameless = build_session(session(turn(1, op("llm")), trace="", id="../../etc/passwd"))
    assert default_filename(nameless, "markdown") == "etc_passwd.md"
