"""Tests of tui/demo/ (shared helpers live at the top of tests/, on the path through pyproject's pythonpath).

The generator's own tests call it for real: its determinism is what some of them check (tests/helpers/demo_memo
would otherwise hand back the first tree made)."""

from __future__ import annotations

import pytest

from helpers import demo_memo


@pytest.fixture(autouse=True)
def _generator_unmemoized():
    demo_memo.ENABLED[0] = False
    yield
    demo_memo.ENABLED[0] = True
