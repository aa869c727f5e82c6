"""What snapshot history costs on a big session: `python tests/benchmarks/history_bench.py [OPS]` (default 20,000).

A generated OPS-op snapshot is loaded and recorded, then a slightly newer version of it is loaded (a fresh parse,
as when the file is rewritten) and recorded; the old version is rebuilt and diffed with the new one. Times are
measured first, then memory in a second pass with tracemalloc (which slows allocation down).
"""

from __future__ import annotations

import gc
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tui.demo import make_tree, write_snapshot  # noqa: E402
from tui.formats.aiagent.history import History, summary_of  # noqa: E402
from tui.formats.aiagent.timeline import event_times, tree_at  # noqa: E402
from tui.formats.load import load  # noqa: E402
from tui.model.diff import diff_sessions  # noqa: E402
from tui.model.gc_pause import paused_gc  # noqa: E402
from tui.model.nodes import release_tree  # noqa: E402


def timed(label: str, fn):
    t = time.perf_counter()
    result = fn()
    print(f"{label:56} {time.perf_counter() - t:7.3f} s")
    return result


def record(history: History, doc) -> None:
    with paused_gc():
        history.add_tree("k", doc.root.raw, summary_of(doc.root))


def times(early: Path, late: Path) -> None:
    doc_a = timed("load version 1 (read, gunzip, parse, build)", lambda: load(str(early)))
    doc_b = load(str(late))
    history = History()
    timed("record version 1 (hash every node, store)", lambda: record(history, doc_a))
    timed("record version 2 (fresh parse, 40 events later)", lambda: record(history, doc_b))
    timed("record version 2 again (identical: no new version)", lambda: record(history, doc_b))
    v1 = history.versions("k")[0]
    old = timed("rebuild version 1 (to view it)", lambda: history.session("k", v1))
    diff = timed("diff version 1 and version 2", lambda: diff_sessions(old, doc_b.root))
    print(f"diff: {len(diff.ops)} ops differ, {diff.unchanged:,} unchanged; "
          f"versions kept: {len(history.versions('k'))}; distinct content: {history.stored_bytes('k') / 1e6:.1f} MB")


def memory(early: Path, late: Path) -> None:
    gc.collect()
    tracemalloc.start()
    doc_a = load(str(early))
    parsed = tracemalloc.get_traced_memory()[0]
    history = History()
    record(history, doc_a)
    with_history = tracemalloc.get_traced_memory()[0]
    doc_b = load(str(late))
    record(history, doc_b)
    release_tree(doc_a.root)  # the screen moves on to version 2, as the app does
    del doc_a
    gc.collect()
    both = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(f"{'one parsed version on screen':56} {parsed / 1e6:7.1f} MB")
    print(f"{'history of version 1 (containers only, leaves shared)':56} {(with_history - parsed) / 1e6:7.1f} MB")
    print(f"{'screen on version 2 + history of both versions':56} {both / 1e6:7.1f} MB")


def main(ops: int) -> None:
    tmp = Path(tempfile.mkdtemp())
    full = make_tree(1, ops=ops, depth=3)
    events = event_times(full)
    early = write_snapshot(tmp / "a", tree_at(full, events[-40]), version=2)
    late = write_snapshot(tmp / "b", full, version=2)
    print(f"{ops:,} ops: {early.stat().st_size / 1e6:.1f} MB gzip")
    times(early, late)
    memory(early, late)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
