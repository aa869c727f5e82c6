"""The OTLP/gRPC receiver fed by Node's @opentelemetry/exporter-trace-otlp-grpc, the exporter ai-agent itself
uses (and exporter-logs-otlp-grpc when installed), from several node processes at once: every span arrives, a
token goes through the metadata.

The packages are looked for in $AIAGENT_MONITOR_NODE_MODULES (a node_modules directory), else
/tmp/otelnode/node_modules; install them (ai-agent's versions) with
  npm install --prefix /tmp/otelnode @opentelemetry/exporter-trace-otlp-grpc@^0.211.0 \
      @opentelemetry/exporter-logs-otlp-grpc@^0.211.0 @opentelemetry/sdk-logs@^0.211.0 \
      @opentelemetry/sdk-trace-base@^2.5.0 @opentelemetry/resources@^2.5.0
(the newest, 0.223, passes too). Skipped, with the reason printed, where node or the packages are missing."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.otlphelpers import Counting, receiving
from helpers.waiting import until

SCRIPT = Path(__file__).with_name("otlp_node_exporter.cjs")
NODE = shutil.which("node")
MODULES = Path(os.environ.get("AIAGENT_MONITOR_NODE_MODULES") or "/tmp/otelnode/node_modules")
EXPORTER = MODULES / "@opentelemetry" / "exporter-trace-otlp-grpc"

if NODE is None:
    _SKIP = "`node` is not on PATH"
elif not (EXPORTER / "package.json").is_file() or not (MODULES / "@opentelemetry" / "sdk-trace-base").is_dir():
    _SKIP = (f"@opentelemetry/exporter-trace-otlp-grpc and sdk-trace-base are not in {MODULES} (set "
             f"AIAGENT_MONITOR_NODE_MODULES, or see this module's docstring)")
else:
    _SKIP = ""
if _SKIP:
    print(f"tests/inputs/stream/test_otlp_receive_node.py: skipped, {_SKIP}")
pytestmark = pytest.mark.skipif(bool(_SKIP), reason=_SKIP)


async def _node(url: str, count: int, prefix: str, **env: str) -> dict:
    assert NODE is not None
    proc = await asyncio.create_subprocess_exec(
        NODE, str(SCRIPT), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "MODULES": str(MODULES), "URL": url, "COUNT": str(count), "PREFIX": prefix, **env})
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()[-2000:]
    return json.loads(out.decode().strip().splitlines()[-1])


async def test_node_exporters_from_several_processes_lose_nothing():
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting) as (bound, _, rejected):
        results = await asyncio.gather(*(_node(f"http://{bound}", 2000, f"n{n}") for n in range(3)))
        assert all(result["errors"] == [] for result in results), results
        assert counting.spans == 6000
        assert set(counting.names) == {f"n{n}-{i}" for n in range(3) for i in range(2000)}
        assert counting.logs == sum(result["logs"] for result in results)
        assert rejected.seen == []


async def test_node_exporter_with_the_token_in_its_metadata():
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting, token="s3cret") as (bound, _, rejected):
        good = await _node(f"http://{bound}", 50, "ok", TOKEN="s3cret")
        assert good["errors"] == [] and counting.spans == 50
        bad = await _node(f"http://{bound}", 5, "bad", TOKEN="guess")
        assert bad["errors"] and counting.spans == 50
        await until(lambda: "auth refused" in rejected.reasons())
