"""The price table of estimated costs (tui.model.prices): longest prefix, unknown models, the override file."""

from __future__ import annotations

import json

from tui.model import prices


def test_longest_prefix_and_unknown_models():
    assert prices.price_of("claude-opus-4-5-20251101") == prices.PRICES["claude-opus-4-5"]
    assert prices.price_of("claude-opus-4-1-20250805") == prices.PRICES["claude-opus-4"]
    assert prices.price_of("anthropic/claude-sonnet-4-5") == prices.PRICES["claude-sonnet-4"]
    assert prices.estimate("claude-sonnet-4-5", 1_000_000, 0) == 3.0
    assert prices.estimate("<synthetic>", 10, 10) is None and prices.estimate("gpt-unknown", 1, 1) is None


def test_override_file(tmp_path, monkeypatch):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"my-model": {"input": 2, "output": 4}, "bad": {"input": "x"}, "worse": 3}))
    monkeypatch.setenv(prices.PRICES_ENV, str(path))
    prices.reload()
    try:
        assert prices.estimate("my-model-v2", 1_000_000, 1_000_000) == 6.0
        assert prices.price_of("bad") is None and prices.price_of("claude-haiku-4-5") is not None
    finally:
        monkeypatch.delenv(prices.PRICES_ENV)
        prices.reload()


def test_config_prices_sit_between_the_table_and_the_environment_file(tmp_path, monkeypatch):
    monkeypatch.delenv(prices.PRICES_ENV, raising=False)
    shipped = prices.PRICES["claude-sonnet-4"]
    try:
        prices.set_config_prices({"Claude-Sonnet-4": prices.Price(1.0, 2.0), "my-model": prices.Price(4.0, 8.0)})
        assert prices.price_of("claude-sonnet-4-5") == prices.Price(1.0, 2.0)  # (prefixes are case-insensitive)
        assert prices.estimate("my-model-x", 1_000_000, 0) == 4.0
        path = tmp_path / "prices.json"
        path.write_text(json.dumps({"claude-sonnet-4": {"input": 9, "output": 9, "note": "kept as before"}}))
        monkeypatch.setenv(prices.PRICES_ENV, str(path))
        prices.reload()
        assert prices.price_of("claude-sonnet-4-5") == prices.Price(9.0, 9.0)
        assert prices.price_entry({"input": 1, "note": "x"}, strict=True) is None
    finally:
        prices.set_config_prices({})
    monkeypatch.delenv(prices.PRICES_ENV)
    prices.reload()
    assert prices.price_of("claude-sonnet-4-5") == shipped
