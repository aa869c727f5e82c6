"""Tests of tui/text/ (shared helpers live at the top of tests/, on the path through pyproject's pythonpath)."""
