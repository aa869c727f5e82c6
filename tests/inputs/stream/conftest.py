"""Tests of tui/inputs/stream/ (the OTLP receivers: real servers on ephemeral ports, real OpenTelemetry clients)."""
