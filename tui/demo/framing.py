"""Wire framing shared by both LLM dialects: HTTP/1.1 request/response messages and stream chunk splitting."""

from __future__ import annotations

import random

__all__ = ["http_request", "http_response"]


def http_request(method: str, path: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode() + body


def http_response(status: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
    head = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode() + body


def _pieces(rng: random.Random, s: str, lo: int, hi: int) -> list[str]:
    out = []
    i = 0
    n = len(s)
    while i < n:
        j = i + rng.randint(lo, hi)
        out.append(s[i:j])
        i = j
    return out


def _split_n(rng: random.Random, s: str, parts: int) -> list[str]:
    """Split ``s`` into about ``parts`` non-empty pieces (at least one)."""
    if len(s) <= parts:
        return [s] if s else [""]
    cuts = sorted(rng.sample(range(1, len(s)), parts - 1))
    out = []
    prev = 0
    for c in cuts:
        out.append(s[prev:c])
        prev = c
    out.append(s[prev:])
    return out
