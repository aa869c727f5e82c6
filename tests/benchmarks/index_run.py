"""Child process of the "Index" section: one measure of the sessions index in a fresh interpreter.

    python tests/benchmarks/index_run.py MODE DIR

MODE: `list` (the directory listing alone), `warm` (the listing with every row filled from the index in the same
pass, tui.catalog.index.sync.warm_scan, then sorted by cost; the stored rows come from the warm image the cold run
wrote, `from_image`),
`cold` (the index built from nothing on the process pool: scan, read, write; `rows_seconds` when every row is in
it, `seconds` once the warm image is written too), `today` (the browser's fill before
the index: fill_row one file after another, as its fill thread does, over at most TODAY_MAX files). The index goes
to $XDG_CACHE_HOME (the parent points it at a scratch directory). Prints one JSON object.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import sys
import time

TODAY_MAX = 5000


def main(mode: str, folder: str) -> dict:
    from tui.catalog.scan import scan

    gc.disable()  # as the app's listing does (scan freezes what it made)
    gc.enable()
    start = time.perf_counter()
    if mode == "list":
        rows = scan(folder)
        return {"seconds": time.perf_counter() - start, "rows": len(rows)}
    if mode == "warm":
        from tui.catalog.index.store import open_index
        from tui.catalog.index.sync import warm_scan

        index, notice = open_index(folder)  # as the browser's scan thread does (BrowserIndex.listing)
        assert index is not None, notice
        rows, warm = warm_scan(folder, index)
        ranked = sorted(rows, key=lambda row: -(row.cost or 0.0))
        seconds = time.perf_counter() - start
        unfilled = sum(1 for row in rows if not row.loaded)
        return {"seconds": seconds, "rows": len(ranked), "filled": warm.filled, "unfilled": unfilled,
                "from_image": warm.from_image}
    if mode == "cold":
        from tui.catalog.index import image
        from tui.catalog.index.store import open_index
        from tui.catalog.index.sync import update_index

        rows_at: list[float] = []  # when every row is in the index: the warm image is written after it
        save = image.save
        image.save = lambda index: rows_at.append(time.perf_counter()) or save(index)
        index, notice, done = update_index(folder, pool=True)
        seconds = time.perf_counter() - start
        rows_seconds = (rows_at[0] - start) if rows_at else seconds
        assert index is not None, notice
        conn = index.connection()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = os.path.getsize(index.path)
        from tui.catalog.index.store import image_path

        warm_image = image_path(index.path)
        image_bytes = os.path.getsize(warm_image) if warm_image.exists() else 0
        return {"seconds": seconds, "rows_seconds": rows_seconds, "read": done.read, "workers": os.cpu_count(),
                "index_bytes": size, "image_bytes": image_bytes, "rows": index.count()}
    if mode == "today":
        from tui.catalog.session_row import fill_row

        rows = scan(folder)[:TODAY_MAX]
        start = time.perf_counter()
        for row in rows:
            fill_row(dataclasses.replace(row))
        return {"seconds": time.perf_counter() - start, "read": len(rows)}
    raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
