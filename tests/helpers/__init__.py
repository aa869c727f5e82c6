"""Shared test helpers and fixtures: builders of sessions and payloads, real servers and clients, app drivers,
scenes for the snapshots. Test modules import them as `helpers.<module>` (pyproject's pytest pythonpath holds
`tests/`); a test module is never imported by another (tests/test_architecture.py)."""
