"""`aiagent-monitor export PATH --format otlp`: OTLP/JSON lines on stdout and in files, and `--to` against real
local servers started here (a gRPC server with a generic handler, an http.server), never mocks: what arrives, the
bearer token, the report line, unreachable endpoints, the file rules `export -o` has, no textual or grpc import
when only writing a file."""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading
from concurrent import futures

import grpc
import orjson
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from tui.demo import make_tree, write_snapshot

SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService"


def run(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, timeout=90, cwd=cwd,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def saved(tmp_path):
    return write_snapshot(tmp_path / "sessions", make_tree(5, ops=40, depth=1))


def span_count(requests: list[ExportTraceServiceRequest]) -> int:
    return sum(len(ss.spans) for r in requests for rs in r.resource_spans for ss in rs.scope_spans)


def json_spans(stdout: bytes) -> list[dict]:
    return [s for line in stdout.splitlines() for s in orjson.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class GrpcCollector:
    """A real gRPC server answering TraceService/Export with raw bytes, keeping what it got."""

    def __init__(self, answer: bytes = b""):
        self.bodies: list[bytes] = []
        self.metadata: list[dict] = []
        self.answer = answer
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        handler = grpc.unary_unary_rpc_method_handler(self._export, request_deserializer=None,
                                                      response_serializer=None)
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, {"Export": handler}),))
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    def _export(self, body, context):
        self.bodies.append(body)
        self.metadata.append(dict(context.invocation_metadata()))
        return self.answer

    def requests(self) -> list[ExportTraceServiceRequest]:
        return [ExportTraceServiceRequest.FromString(b) for b in self.bodies]


@pytest.fixture
def grpc_collector():
    collector = GrpcCollector()
    yield collector
    collector.server.stop(0)


@pytest.fixture
def http_collector():
    got: list[tuple[str, dict, bytes]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            got.append((self.path, dict(self.headers), body))
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], got
    server.shutdown()
    server.server_close()


def test_stdout_is_otlp_json_lines(saved):
    result = run("export", str(saved), "--format", "otlp")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith(b'{"resourceSpans":') for line in lines)
    span = orjson.loads(lines[0])["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert span["name"].startswith("invoke_agent ") and len(span["traceId"]) == 32
    assert isinstance(span["startTimeUnixNano"], str)  # int64 as a string, as OTLP/JSON demands


def test_to_a_file_and_the_file_rules_of_export(saved, tmp_path):
    out = tmp_path / "spans.jsonl"
    result = run("export", str(saved), "--format", "otlp", "-o", str(out))
    assert result.returncode == 0 and result.stdout == b"" and str(out) in result.stderr.decode()
    assert out.read_bytes() == run("export", str(saved), "--format", "otlp").stdout
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "link.jsonl"
    link.symlink_to(victim)
    result = run("export", str(saved), "--format", "otlp", "-o", str(link))
    assert result.returncode == 2 and b"symbolic link" in result.stderr and victim.read_text() == "keep me"
    inside = saved.parent / "spans.jsonl"
    result = run("export", str(saved), "--format", "otlp", "-o", str(inside), "--sessions-dir", str(saved.parent))
    assert result.returncode == 2 and not inside.exists()


def test_to_a_real_grpc_server_with_a_token(saved, grpc_collector):
    result = run("export", str(saved), "--format", "otlp", "--to", f"otlp://127.0.0.1:{grpc_collector.port}",
                 "--token", "s3cret", env={"AIAGENT_MONITOR_TOKEN": "not-this-one"})
    assert result.returncode == 0, result.stderr
    expected = json_spans(run("export", str(saved), "--format", "otlp").stdout)
    n, agents = len(expected), sum(s["name"].startswith("invoke_agent ") for s in expected)
    received = grpc_collector.requests()
    assert span_count(received) == n > 10 and agents == 3
    assert grpc_collector.metadata[0]["authorization"] == "Bearer s3cret"
    line = result.stderr.decode().strip()
    assert line == f"exported {n} spans of {agents} sessions to otlp://127.0.0.1:{grpc_collector.port}"
    spans = [s for r in received for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]
    ids = {s.span_id for s in spans}
    assert all(len(s.trace_id) == 16 and (not s.parent_span_id or s.parent_span_id in ids) for s in spans)


def test_to_a_real_http_server(saved, http_collector):
    port, got = http_collector
    result = run("export", str(saved), "--format", "otlp", "--to", f"otlp+http://127.0.0.1:{port}",
                 "--token", "tok", "--no-messages", "--header", "X-Scope-OrgID=tenant-1")
    assert result.returncode == 0, result.stderr
    path, headers, body = got[0]
    assert path == "/v1/traces" and headers["Content-Type"] == "application/x-protobuf"
    assert headers["Authorization"] == "Bearer tok" and headers["X-Scope-Orgid"] == "tenant-1"
    spans = span_count([ExportTraceServiceRequest.FromString(b) for _, _, b in got])
    assert f"exported {spans} spans of 3 sessions to otlp+http://127.0.0.1:{port}/v1/traces" in result.stderr.decode()
    assert b"gen_ai.input.messages" not in body and b"gen_ai.usage.input_tokens" in body


def test_requests_stay_under_four_mebibytes(tmp_path, grpc_collector):
    big = write_snapshot(tmp_path / "big", make_tree(6, ops=1500, depth=2, payload_bytes=3000))
    result = run("export", str(big), "--format", "otlp", "--to", f"otlp://127.0.0.1:{grpc_collector.port}")
    assert result.returncode == 0, result.stderr
    assert len(grpc_collector.bodies) > 1 and max(map(len, grpc_collector.bodies)) < 4 * 1024 * 1024


def test_unreachable_or_refusing_endpoints_exit_1_with_one_line(saved):
    port = free_port()
    for url in (f"otlp://127.0.0.1:{port}", f"otlp+http://127.0.0.1:{port}"):
        result = run("export", str(saved), "--format", "otlp", "--to", url, "--timeout", "5")
        lines = result.stderr.decode().splitlines()
        assert result.returncode == 1 and len(lines) == 1, (url, lines)
        assert "cannot reach" in lines[0] and "Traceback" not in lines[0]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))  # answers every method with UNIMPLEMENTED
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        result = run("export", str(saved), "--format", "otlp", "--to", f"otlp://127.0.0.1:{port}")
    finally:
        server.stop(0)
    assert result.returncode == 1 and b"refused the export: UNIMPLEMENTED" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_arguments_that_do_not_fit(saved, tmp_path):
    cases = [
        (["--to", "otlp://127.0.0.1:4317"], "add --format otlp"),
        (["--format", "otlp", "--to", "http://127.0.0.1:4317"], "otlp://HOST:4317"),
        (["--format", "otlp", "--to", "otlp://127.0.0.1:4317/x"], "no path"),
        (["--format", "otlp", "--to", "otlp://127.0.0.1:99999"], "99999"),
        (["--format", "otlp", "--to", "otlp://127.0.0.1:4317", "--header", "nothing"], "NAME=VALUE"),
    ]
    for args, message in cases:
        result = run("export", str(saved), *args)
        assert result.returncode == 2 and message in result.stderr.decode(), (args, result.stderr)
    both = run("export", str(saved), "--format", "otlp", "-o", str(tmp_path / "x"), "--to", "otlp://h:1")
    assert both.returncode == 2 and not (tmp_path / "x").exists()  # argparse: one or the other


def test_a_file_export_imports_neither_textual_nor_grpc(saved, tmp_path):
    code = ("import sys; from tui.cli.main import main; "
            "rc = main(['export', sys.argv[1], '--format', 'otlp', '-o', sys.argv[2]]); "
            "bad = [m for m in ('textual', 'rich', 'grpc', 'opentelemetry') if m in sys.modules]; "
            "assert not bad, bad; sys.exit(rc)")
    result = subprocess.run([sys.executable, "-c", code, str(saved), str(tmp_path / "s.jsonl")],
                            capture_output=True, timeout=90)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "s.jsonl").stat().st_size > 0
