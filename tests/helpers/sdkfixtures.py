"""ai-agent's own `sdk` captures (its TurnRequest and TurnResult): the real ones in tests/fixtures/aiagent-sdk/
(README there says how they were written), and an LLM op holding a pair as the producer stores it."""

from __future__ import annotations

import base64
import json
from pathlib import Path

SDK_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "aiagent-sdk"
FLAKY_SNAPSHOT = SDK_FIXTURES / "flaky.json.gz"  # op 1-1 fails (model_error, HTTP 400), op 1-2 succeeds


def master_turn(side: str) -> bytes:
    """The real TurnRequest ("request") or TurnResult ("response") of the master agent's op 1-1."""
    return (SDK_FIXTURES / f"master-1-1-sdk-{side}.json").read_bytes()


def sdk_value(body: bytes | dict) -> dict:
    """`payload.sdk` as ai-agent writes it."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return {"format": "sdk", "encoding": "base64", "value": base64.b64encode(data).decode()}


def sdk_op(request: bytes | dict | None, response: bytes | dict | None) -> dict:
    """An LLM op whose only captures are ai-agent's sdk ones (what its test provider leaves: no HTTP body)."""
    node: dict = {"opId": "op-sdk", "kind": "llm", "status": "ok", "attributes": {"provider": "fake",
                                                                                    "model": "fake-chat"}}
    if request is not None:
        node["request"] = {"kind": "llm", "payload": {"messages": 3, "bytes": 10, "isFinalTurn": False,
                                                      "sdk": sdk_value(request)}, "size": 10}
    if response is not None:
        node["response"] = {"payload": {"sdk": sdk_value(response)}, "size": 10}
    return node
