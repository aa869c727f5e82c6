"""Pause the cyclic garbage collector while a big document is parsed and walked.

Parsing a 36 MB snapshot creates millions of containers; with the collector on, its generational passes re-scan
them over and over and loading takes 4-5 times longer. Parsed JSON has no cycles, so nothing is lost by waiting.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def paused_gc():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
