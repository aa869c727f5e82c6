"""Tests of tui/formats/otlp/: OTLP bodies decoded, assembled into sessions and fed to the live hub (builders of
real protobuf and OTLP/JSON bodies live in tests/helpers/otlpfixtures.py)."""
