"""Who may push events to a listening monitor: loopback unless remote clients are allowed, a bearer token for
WebSocket clients when one is set, and enough file descriptors for many producers at once. No textual here."""

from __future__ import annotations

import hmac
import ipaddress
import os
from urllib.parse import parse_qs, urlsplit

TOKEN_ENV = "AIAGENT_MONITOR_TOKEN"
FD_TARGET = 65536  # soft RLIMIT_NOFILE wanted when listening: each producer holds a descriptor


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1); names other than localhost are not resolved."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def check_listen_host(url: str, host: str, allow_remote: bool) -> None:
    """ValueError unless `host` is loopback or remote clients were allowed with --allow-remote."""
    if allow_remote or is_loopback(host):
        return
    raise ValueError(f"{url}: listening on {host} would accept events from other machines; "
                     f"use ws://127.0.0.1:PORT, or pass --allow-remote (with --token) to accept remote producers")


def token_from_env(given: str | None) -> str | None:
    """The token from --token, else from $AIAGENT_MONITOR_TOKEN; None when neither is set (or both are empty)."""
    token = given if given is not None else os.environ.get(TOKEN_ENV)
    return token or None


def presented_token(path: str, authorization: str | None) -> str | None:
    """The token a WebSocket client sent: `Authorization: Bearer TOKEN`, else `?token=TOKEN` in the request path."""
    if authorization:
        scheme, _, value = authorization.strip().partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
    values = parse_qs(urlsplit(path).query).get("token")
    return values[0] if values else None


def token_matches(presented: str | None, expected: str) -> bool:
    """Constant-time comparison (the time taken does not tell how much of a guess was right)."""
    if presented is None:
        return False
    return hmac.compare_digest(presented.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass"))


def raise_fd_limit(target: int = FD_TARGET) -> tuple[int, int]:
    """Raise the soft limit on open files towards `target` (never above the hard limit); returns (before, after)."""
    try:
        import resource
    except ImportError:  # not on this platform
        return (0, 0)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = target if hard == resource.RLIM_INFINITY else min(target, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError):
            return (soft, soft)
        return (soft, want)
    return (soft, soft)
