"""Keep my place: the browser's sort, filter and cursor and the app's theme, per sessions directory, across
restarts. One small JSON file, `$XDG_CACHE_HOME/aiagent-monitor/places.json` (beside the sessions index: never in a
sessions directory, which the producer owns), replaced atomically: written to a new private file (O_EXCL |
O_NOFOLLOW: never through a planted link) and renamed over the old one. Losing it loses nothing but the place, so
every failure to read or write it is ignored."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from tui.catalog.index.store import cache_dir
from tui.inputs.paths import safe_resolve

FILE_NAME = "places.json"
MAX_PLACES = 200  # directories remembered (the least recently saved go first)
MAX_BYTES = 1 << 20
TEXT_LIMIT = 4096  # a filter or a path longer than this is not kept


@dataclass(frozen=True, slots=True)
class Place:
    sort: str | None = None  # "cost:desc"
    filter: str | None = None
    cursor: str | None = None  # the key (path) of the highlighted session
    theme: str | None = None


def place_file() -> Path:
    return cache_dir() / FILE_NAME


def directory_key(sessions_dir: Path) -> str:
    return str(safe_resolve(Path(sessions_dir)))


def _read_all(path: Path) -> dict:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_BYTES + 1)
        places = json.loads(data) if len(data) <= MAX_BYTES else {}
    except (OSError, ValueError):
        return {}
    return places if isinstance(places, dict) else {}


def load_place(sessions_dir: Path | None) -> Place:
    """The place kept for this directory (an empty Place when none, or when the file is unreadable or odd)."""
    if sessions_dir is None:
        return Place()
    entry = _read_all(place_file()).get(directory_key(sessions_dir))
    if not isinstance(entry, dict):
        return Place()
    values = {name: entry.get(name) for name in Place.__dataclass_fields__}
    return Place(**{name: value if isinstance(value, str) and len(value) <= TEXT_LIMIT else None
                    for name, value in values.items()})


def save_place(sessions_dir: Path | None, place: Place) -> bool:
    """Keep `place` for this directory; False when it could not be written (nothing else happens then)."""
    if sessions_dir is None:
        return False
    path = place_file()
    places = _read_all(path)
    key = directory_key(sessions_dir)
    places.pop(key, None)
    places[key] = {name: value for name, value in asdict(place).items()
                   if isinstance(value, str) and len(value) <= TEXT_LIMIT}
    while len(places) > MAX_PLACES:
        places.pop(next(iter(places)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = path.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            os.unlink(fresh)  # a stale one of a crashed run with this pid (a link is removed, never followed)
        except FileNotFoundError:
            pass
        fd = os.open(fresh, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(places, f, ensure_ascii=False)
        os.replace(fresh, path)  # (a link planted at `path` is replaced, not written through)
    except OSError:
        return False
    return True
