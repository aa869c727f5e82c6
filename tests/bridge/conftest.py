"""Tests of tui/bridge/ (the Node module that forwards ai-agent's onEvent to the monitor), run with the real node."""
