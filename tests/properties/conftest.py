"""Tests of property-based tests over the whole package (shared helpers live at the top of tests/, on the path through pyproject's pythonpath)."""
