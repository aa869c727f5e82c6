"""`dump --payloads` on a real ai-agent snapshot: its `sdk` captures are named ai-agent's turn request and turn
result (never "OpenAI Chat Completions request", and never a request on the response side), a failed turn says why."""

from __future__ import annotations

import subprocess
import sys

from helpers.sdkfixtures import FLAKY_SNAPSHOT


def sdk_lines() -> list[str]:
    result = subprocess.run([sys.executable, "-m", "tui", "dump", "--payloads", str(FLAKY_SNAPSHOT)],
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return [ln.split("│  ", 1)[-1].strip() for ln in result.stdout.decode().splitlines() if "payload" in ln
            and "/sdk:" in ln]


def test_real_sdk_captures_named_and_decoded():
    assert sdk_lines() == [
        "· payload request/sdk: sdk (json) · ai-agent turn request · provider fake · model fake-chat · 3 messages "
        "· 1 tool offered · not streamed",
        "! payload response/sdk: sdk (json) · ai-agent turn result · status model_error · 1 error in the result: "
        "model_error: 400 [string_above_max_length]: Invalid 'messages[1].content': string too long (fake). "
        "(HTTP 400, retryable)",
        "· payload request/sdk: sdk (json) · ai-agent turn request · provider fake · model fake-chat · 3 messages "
        "· 1 tool offered · not streamed",
        "· payload response/sdk: sdk (json) · ai-agent turn result · status success · model fake-chat · stop stop "
        "· provider fake · cost $0.0029754",
    ]
