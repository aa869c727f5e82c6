"""`dump --payloads` and `export --format otlp` on a snapshot whose LLM ops captured the provider-stream fixtures
(tests/fixtures/streams): the commands a person runs, as subprocesses, not the functions behind them."""

from __future__ import annotations

import subprocess
import sys

import orjson

from helpers.builders import write
from helpers.payloadfixtures import tree
from helpers.providerstreams import capture_op

NAMES = ["mistral-thinking.sse", "gemini-blocked.json", "anthropic-server-tools.sse", "gemini-code-grounding.sse",
         "anthropic-compaction.json"]


def run(*args):
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, timeout=90)


def test_dump_and_otlp_export_of_the_long_tail(tmp_path):
    ops = [capture_op(name, op_id=f"op-{i}") for i, name in enumerate(NAMES)]
    path = write(tmp_path / "s.json.gz", {"version": 1, "reason": "final", "opTree": tree(*ops)})
    dump = run("dump", "--payloads", str(path))
    assert dump.returncode == 0, dump.stderr
    lines = dump.stdout.decode().splitlines()
    assert any(ln.strip().endswith("· payload response/raw: json · Google Gemini response · prompt blocked: "
                                   "PROHIBITED_CONTENT (The prompt was blocked because it may contain prohibited "
                                   "content.)") for ln in lines), lines
    assert not any("!" in ln and "payload" in ln for ln in lines)
    export = run("export", str(path), "--format", "otlp")
    assert export.returncode == 0, export.stderr
    outputs = []
    for line in export.stdout.splitlines():
        for span in orjson.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]:
            for a in span.get("attributes", []):
                if a["key"] == "gen_ai.output.messages":
                    outputs.append(orjson.loads(a["value"]["stringValue"]))
    parts = [[p["type"] for m in out for p in m["parts"]] for out in outputs]
    assert ["reasoning", "text"] in parts  # Mistral's typed thinking chunks
    assert ["tool_call", "tool_call_response", "tool_call", "tool_call_response", "text"] in parts  # Anthropic
    assert ["text", "tool_call", "tool_call_response", "text", "tool_call_response"] in parts  # Gemini
    assert ["compaction", "text"] in parts
    blocked = [m for out in outputs for m in out if m["finish_reason"].startswith("prompt blocked")]
    assert blocked and blocked[0]["parts"] == []
