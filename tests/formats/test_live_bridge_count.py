"""The hub counts what producers' bridges dropped ({"type": "bridge", "dropped": N}, N since the bridge's last
report) over every bridge; such an event is not a session's event, and a broken one is refused, counted."""

from __future__ import annotations

import orjson

from tui.formats.aiagent.live.hub import LiveHub


def test_bridge_reports_add_up_and_touch_no_session():
    hub = LiveHub()
    assert hub.bridge_dropped == 0
    for n in (3, 0, 40):
        assert hub.feed(orjson.dumps({"type": "bridge", "dropped": n, "meta": {"source": "aiagent-monitor-bridge"}}))\
            is None
    assert hub.bridge_dropped == 43
    assert hub.events == 0 and not hub.sessions and not hub.has_changes and not hub.rejected


def test_a_broken_bridge_report_is_refused_and_counted():
    hub = LiveHub()
    for bad in (-1, True, "7", None, 1.5, [1]):
        hub.feed(orjson.dumps({"type": "bridge", "dropped": bad}))
    hub.feed(b'{"type": "bridge"}')
    assert hub.bridge_dropped == 0
    assert hub.rejected["unknown type"] == 7 and "bridge event" in hub.last_rejected
    hub.feed(orjson.dumps({"type": "bridge", "dropped": 2**80 // 2**20}))  # absurdly big: bounded, never a crash
    assert 0 < hub.bridge_dropped <= 2**53
