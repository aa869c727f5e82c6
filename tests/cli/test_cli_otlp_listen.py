"""`--listen otlp://` and `otlp+http://` on the command line: checked before the UI starts like every --listen
URL, refused for --connect, and free when not asked for: start-up imports neither grpc nor opentelemetry (nor
protobuf) unless an OTLP receiver is listened on."""

from __future__ import annotations

import socket
import subprocess
import sys

from tui.cli.main import app_parser
from tui.cli.run import build_app

_IMPORTED = ("import sys; from tui.cli.main import app_parser; from tui.cli.run import build_app; "
             "app = build_app(app_parser().parse_args(sys.argv[1:]), watch=False); "
             "assert not isinstance(app, int), app; "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'grpc', 'opentelemetry', 'google'}))")


def _imported(*args: str) -> str:
    result = subprocess.run([sys.executable, "-c", _IMPORTED, *args], capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    return result.stdout.decode().strip()


def test_start_up_without_an_otlp_listener_imports_neither_grpc_nor_opentelemetry(tmp_path):
    assert _imported("--sessions-dir", str(tmp_path)) == "[]"
    assert _imported("--sessions-dir", str(tmp_path), "--listen", f"unix:{tmp_path / 's.sock'}") == "[]"
    # (building the app with one does not import them either: the receiver imports grpc when it starts)
    assert _imported("--sessions-dir", str(tmp_path), "--listen", "otlp://127.0.0.1:0") == "[]"


def test_otlp_urls_are_checked_before_the_ui_starts(tmp_path, capsys):
    base = ["--sessions-dir", str(tmp_path)]
    assert build_app(app_parser().parse_args([*base, "--listen", "otlp://0.0.0.0:4317"]), watch=False) == 2
    assert "otlp://0.0.0.0:4317: listening on 0.0.0.0 would accept events from other machines; use " \
           "otlp://127.0.0.1:PORT, or pass --allow-remote" in capsys.readouterr().err
    assert build_app(app_parser().parse_args([*base, "--listen", "otlp+http://127.0.0.1:4318/v1/traces"]),
                     watch=False) == 2
    assert "takes no path" in capsys.readouterr().err
    assert build_app(app_parser().parse_args([*base, "--connect", "otlp://127.0.0.1:4317"]), watch=False) == 2
    assert "is for --listen" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert build_app(app_parser().parse_args([*base, "--listen", f"otlp+http://127.0.0.1:{port}"]),
                         watch=False) == 2
        assert f"cannot listen on otlp+http://127.0.0.1:{port}" in capsys.readouterr().err
    app = build_app(app_parser().parse_args([*base, "--listen", "otlp://127.0.0.1:0", "--listen",
                                             "otlp+http://localhost:0"]), watch=False)
    assert not isinstance(app, int) and app.listen_urls == ["otlp://127.0.0.1:0", "otlp+http://localhost:0"]


def test_replay_refuses_an_otlp_url(capsys):
    from tui.cli.replay import main

    assert main(["missing.json", "--to", "otlp://127.0.0.1:4317"]) == 2
    assert "an OTLP receiver takes spans" in capsys.readouterr().err


def test_an_unknown_listen_scheme_names_the_otlp_ones_too(tmp_path):
    """`--listen bogus://` says every scheme --listen takes (otlp:// and otlp+http:// too); --connect, which takes
    no OTLP URL, names only its own."""
    base = [sys.executable, "-m", "tui", "--sessions-dir", str(tmp_path)]
    listen = subprocess.run([*base, "--listen", "bogus://x"], capture_output=True, timeout=120)
    assert listen.returncode == 2 and b"otlp://HOST[:PORT]" in listen.stderr and b"otlp+http://" in listen.stderr
    connect = subprocess.run([*base, "--connect", "bogus://x"], capture_output=True, timeout=120)
    assert connect.returncode == 2 and b"bogus://x" in connect.stderr and b"otlp" not in connect.stderr
