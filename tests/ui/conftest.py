"""Tests of tui/ui/ (shared helpers live at the top of tests/, on the path through pyproject's pythonpath)."""
