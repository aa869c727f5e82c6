"""Tests of tui/cli/ (shared helpers live at the top of tests/, on the path through pyproject's pythonpath)."""
