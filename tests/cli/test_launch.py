"""From the command line to an app: the file is read while textual is imported."""

from __future__ import annotations

import gc

from tui.cli.main import app_parser
from tui.cli.run import build_app
from tui.demo import make_tree, write_snapshot
from tui.formats.load import load


def test_a_file_is_loaded_for_the_app_with_the_collector_back_on(tmp_path):
    path = write_snapshot(tmp_path, make_tree(4, ops=60, depth=1))
    app = build_app(app_parser().parse_args([str(path)]))
    assert not isinstance(app, int)
    doc = app.initial_document
    assert doc.root.counts.as_dict() == load(str(path)).root.counts.as_dict()
    assert doc.sessions_dir == tmp_path.resolve()
    assert gc.isenabled()


def test_files_that_cannot_be_opened_stop_with_a_message(tmp_path, capsys):
    assert build_app(app_parser().parse_args([str(tmp_path / "missing.json.gz")])) == 2
    assert "missing.json.gz: no such file" in capsys.readouterr().err
    (tmp_path / "accounting.jsonl").write_text('{"type": "llm", "timestamp": 1, "costUsd": 0.1}\n')
    assert build_app(app_parser().parse_args([str(tmp_path / "accounting.jsonl")])) == 2
    assert "no session tree" in capsys.readouterr().err
