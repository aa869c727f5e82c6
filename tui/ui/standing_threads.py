"""Jobs run off the UI thread in a thread that stands for the whole process, one per name, each job after the one
before. A thread started per job made the UI thread wait for it to start (`Thread.start` returns once the new
thread runs), behind every other thread holding the interpreter: 10-40 ms a change of a big live trace
(tests/benchmarks/otlp_big_run.py's keys row)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

_queues: dict[str, queue.SimpleQueue[Callable[[], None]]] = {}
_lock = threading.Lock()


def start(name: str) -> queue.SimpleQueue[Callable[[], None]]:
    """The standing thread `name`, started now if it is not yet (a caller starts it early, not in a live tick)."""
    jobs = _queues.get(name)
    if jobs is None:
        with _lock:
            jobs = _queues.get(name)
            if jobs is None:
                jobs = queue.SimpleQueue()
                threading.Thread(target=_run_forever, args=(jobs,), name=name, daemon=True).start()
                _queues[name] = jobs
    return jobs


def run_in(name: str, job: Callable[[], None]) -> None:
    """Run `job` in the standing thread `name`; an exception it raises ends that job only."""
    start(name).put(job)


def _run_forever(jobs: queue.SimpleQueue[Callable[[], None]]) -> None:
    while True:
        job = jobs.get()
        try:
            job()
        except Exception:  # (nothing waits for a job: one that fails leaves the next to run)
            pass
        del job  # (not kept alive until the next one arrives)
