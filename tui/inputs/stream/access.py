"""Who may push events to a listening monitor: loopback unless remote clients are allowed (checked on the
addresses a host name resolves to, not on the name), no web page unless its Origin is allowed, a bearer token for
WebSocket clients when one is set (never shown: `token=***`), and enough file descriptors for many producers at
once. No textual here."""

from __future__ import annotations

import ipaddress
import os
import re
import socket
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


def listen_addresses(url: str, host: str, port: int, allow_remote: bool) -> list[str]:
    """The addresses `host` resolves to, to bind all of them; ValueError when one is not loopback (unless
    allow_remote) or the name does not resolve. `x.localhost` is whatever the resolver says it is."""
    literal = host.strip("[]")
    try:
        infos = socket.getaddrinfo(literal, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ValueError(f"{url}: cannot resolve {host}: {getattr(exc, 'strerror', None) or exc}") from None
    addresses: list[str] = []
    for info in infos:
        address = str(info[4][0])
        if address not in addresses:
            addresses.append(address)
    if not allow_remote:
        remote = [a for a in addresses if not _loopback_address(a)]
        if remote or not addresses:
            what = host if remote == [literal] else f"{host} ({', '.join(remote) or 'no address'})"
            scheme = url.partition("://")[0] if "://" in url else "ws"
            raise ValueError(f"{url}: listening on {what} would accept events from other machines; "
                             f"use {scheme}://127.0.0.1:PORT, or pass --allow-remote (with --token) to accept remote "
                             f"producers")
    return addresses


def _loopback_address(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def origin_allowed(origin: str | None, allowed: list[str] | tuple[str, ...]) -> bool:
    """Clients without an Origin header (producers, websockets' and Node's ws clients) are allowed; a browser
    always sends one, and its page is allowed only when --allow-origin named it exactly (or was `*`)."""
    if origin is None:
        return True
    return "*" in allowed or origin in allowed


_TOKEN_IN_TEXT = re.compile(r"((?:^|[?&;\s])token=)[^&#\s]*", re.IGNORECASE)


def mask_token(text: str) -> str:
    """`ws://h:1/?token=s3cret` -> `ws://h:1/?token=***`: a token is never shown or logged."""
    return _TOKEN_IN_TEXT.sub(r"\1***", text) if "token=" in text.lower() else text


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
    import hmac  # (here: start-up does not need it)

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
