"""Where other coding agents (Claude Code, Codex CLI, Gemini CLI, OpenCode) keep their session files: one table row
per agent.

Pure location facts (no reader is imported here), shared by the directory listing (tui.catalog.scan), the watcher
(tui.inputs.watch) and the CLI's discovery of default roots (tui.cli.run). A row names the agent's kind (the browser
row kind, `kind:` filter value), its default root below the home directory, and the relative shape of a session
file below that root as a tuple of fnmatch patterns, one per path level. Adding an agent is adding a row here and
its reader to tui.formats.agents.AGENT_FORMATS.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tui.inputs.files import open_regular

DISCOVER_ENV = "AIAGENT_MONITOR_DISCOVER"  # "0": never add the agents' default roots to the browser


@dataclass(frozen=True, slots=True)
class AgentLocation:
    kind: str  # the browser row kind ("claude-code"): the Kind column and the `kind:` filter value
    label: str  # what a person calls the agent ("Claude Code")
    home_root: str  # the default root, relative to the home directory
    pattern: tuple[str, ...]  # fnmatch patterns of a session file's path parts below the root
    # the session file a changed file below the root (root, its path parts) belongs to (a sub-agent's own file: its
    # parent session; an OpenCode message or part: its session's Info file), or None
    owner: Callable[[Path, tuple[str, ...]], Path | None] | None = None
    env_root: str = ""  # an environment variable naming the agent's config directory (the root is below it)
    env_suffix: str = ""  # the root's path below that directory
    tag: str = ""  # the short word the browser's Id column shows before the session id ("claude")
    tail: tuple[str, ...] = ()  # how a root's path ends, when not like home_root (OpenCode: under $XDG_DATA_HOME)
    # the newest change (mtime_ns) to what a session file stands for beyond itself (OpenCode: its message files),
    # or None; content_stat makes it the file's stamp, so that the sessions index sees the session change
    content_mtime_ns: Callable[[Path], int | None] | None = None

    def default_root(self, home: Path | None = None) -> Path:
        env = os.environ.get(self.env_root) if self.env_root else None
        if env:
            return Path(env).expanduser() / self.env_suffix
        return (home or Path.home()) / self.home_root


def _claude_owner(root: Path, parts: tuple[str, ...]) -> Path | None:
    """`<project>/<session>/subagents/agent-*.jsonl` (Claude Code 2.x sub-agents) belongs to
    `<project>/<session>.jsonl`."""
    if len(parts) >= 4 and parts[2] == "subagents" and parts[-1].endswith(".jsonl"):
        return root / parts[0] / (parts[1] + ".jsonl")
    return None


_OPENCODE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


def _opencode_owner(root: Path, parts: tuple[str, ...]) -> Path | None:
    """OpenCode writes a session's content as `message/<session>/<message>.json` and `part/<message>/<part>.json`
    (its Info file, `session/<project>/<session>.json`, changes far less often): a message file belongs to the
    session its folder names; a part file to the session its own `sessionID` names (a part file is small). A
    sub-agent's session belongs to its parent's."""
    if len(parts) != 3 or not parts[2].endswith(".json"):
        return None
    if parts[0] == "session":  # a sub-agent's Info file: its parent's (a session's own: itself)
        sid = parts[2].removesuffix(".json")
    elif parts[0] == "message":
        sid = parts[1]
    elif parts[0] == "part":
        try:
            with open_regular(root.joinpath(*parts)) as fh:
                found = re.search(rb'"sessionID"\s*:\s*"([^"\\]{1,128})"', fh.read(4096))
        except OSError:
            return None
        sid = found.group(1).decode("utf-8", "replace") if found else ""
    else:
        return None
    return _opencode_session(root, sid, 0)


def _opencode_session(root: Path, sid: str, depth: int) -> Path | None:
    """The Info file of session `sid`, or of the session it is a sub-agent of (its `parentID`: the browser shows
    a sub-agent within its parent's tree, so a change to it is a change to the parent's row)."""
    if not _OPENCODE_ID.fullmatch(sid):
        return None
    try:
        found = next(iter(sorted((root / "session").glob(f"*/{sid}.json"))), None)
        if found is None or depth >= 4:
            return found
        with open_regular(found) as fh:
            parent = re.search(rb'"parentID"\s*:\s*"([^"\\]{1,128})"', fh.read(64 * 1024))
    except OSError:
        return None
    if parent is None:
        return found
    return _opencode_session(root, parent.group(1).decode("utf-8", "replace"), depth + 1) or found


def _opencode_content(session_file: Path) -> int | None:
    """The newest mtime of a session's message files (and of their folder): OpenCode rewrites a message when a step
    finishes and when it completes, never the session's Info file. A session of its database (`opencode.db#<id>`):
    the database's `-wal` file, where a running OpenCode writes (every session of the database shares it)."""
    base, sep, _ = session_file.name.rpartition("#")
    if sep and base.endswith(".db"):
        try:
            return (session_file.parent / f"{base}-wal").stat().st_mtime_ns
        except OSError:
            return None
    folder = session_file.parent.parent.parent / "message" / session_file.name.removesuffix(".json")
    try:
        newest = folder.stat().st_mtime_ns
        with os.scandir(folder) as it:
            for count, entry in enumerate(it):
                if count >= 20_000:
                    break
                if entry.name.endswith(".json"):
                    newest = max(newest, entry.stat().st_mtime_ns)
    except OSError:
        return None
    return newest


@dataclass(frozen=True, slots=True)
class ContentStat:
    """A session file's stat with the mtime of what it stands for (AgentLocation.content_mtime_ns)."""

    st_size: int
    st_mtime: float
    st_mtime_ns: int
    st_ino: int
    st_ctime_ns: int
    st_mode: int


def content_stat(kind: str, path: Path | str, st: os.stat_result) -> os.stat_result | ContentStat:
    """`st`, or for an agent whose session is more than its file (OpenCode) the same stat with the newest change
    to the session's content as its mtime: the listing and the sessions index key a row by it."""
    loc = location_named(kind)
    if loc is None or loc.content_mtime_ns is None:
        return st
    newest = loc.content_mtime_ns(Path(path))
    if newest is None or newest <= st.st_mtime_ns:
        return st
    return ContentStat(st.st_size, newest / 1e9, newest, st.st_ino, st.st_ctime_ns, st.st_mode)


_CODEX_PARENT = re.compile(rb'"parent_thread_id"\s*:\s*"([0-9A-Za-z_-]{1,128})"')


def parent_session_file(kind: str, path: Path, parent_id: str) -> Path | None:
    """The session file of the session `parent_id` names, for a sub-agent's own file at `path` (a Codex rollout
    in `<root>/YYYY/MM/DD/`, an OpenCode Info file in `<storage>/session/<project>/`), or None when it is not
    there: a sub-agent whose parent is gone is listed as a session of its own, never hidden."""
    if not _OPENCODE_ID.fullmatch(parent_id):
        return None
    try:
        if kind == OPENCODE.kind:
            return next(iter(sorted(path.parent.parent.glob(f"*/{parent_id}.json"))), None)
        if kind == CODEX.kind and len(path.parents) > 3:
            found = sorted(path.parent.glob(f"rollout-*-{parent_id}.jsonl")) or sorted(
                path.parents[3].glob(f"*/*/*/rollout-*-{parent_id}.jsonl"))
            return found[0] if found else None
    except OSError:
        return None
    return None


def _codex_owner(root: Path, parts: tuple[str, ...]) -> Path | None:
    """A rollout of a thread Codex spawned (its first line names its `parent_thread_id`) belongs to its parent's
    rollout (`rollout-<time>-<thread id>.jsonl`, found below the root); None for any other file, or when the
    parent's rollout is not there (the sub-agent's own row then)."""
    if len(parts) != 4 or not parts[3].startswith("rollout-") or not parts[3].endswith(".jsonl"):
        return None
    try:
        with open_regular(root.joinpath(*parts)) as fh:
            head = fh.readline(1 << 20)
    except OSError:
        return None
    found = _CODEX_PARENT.search(head)
    if found is None:
        return None
    try:
        return next(iter(sorted(root.glob(f"*/*/*/rollout-*-{found.group(1).decode()}.jsonl"))), None)
    except OSError:
        return None


CLAUDE_CODE = AgentLocation("claude-code", "Claude Code", ".claude/projects", ("*", "*.jsonl"), _claude_owner,
                            env_root="CLAUDE_CONFIG_DIR", env_suffix="projects", tag="claude")

CODEX = AgentLocation("codex", "Codex CLI", ".codex/sessions", ("*", "*", "*", "rollout-*.jsonl"), _codex_owner,
                      env_root="CODEX_HOME", env_suffix="sessions", tag="codex")
# (a sub-agent's chat, chats/<session>/<agentId>.jsonl, is read with its session: not a row of its own)
GEMINI_CLI = AgentLocation("gemini-cli", "Gemini CLI", ".gemini/tmp", ("*", "chats", "session-*.json*"),
                           tag="gemini")
# (a sub-agent's session, one with a parentID, is read below its parent's task call and listed too)
OPENCODE = AgentLocation("opencode", "OpenCode", ".local/share/opencode/storage", ("session", "*", "ses*.json"),
                         _opencode_owner, env_root="XDG_DATA_HOME", env_suffix="opencode/storage", tag="opencode",
                         tail=("opencode", "storage"), content_mtime_ns=_opencode_content)
OPENCODE_DB = "opencode.db"  # beside the storage root: current OpenCode's SQLite store (its sessions listed too)
OPENCODE_DB_ENV = "OPENCODE_DB"  # OpenCode's own variable naming its database (see opencode_databases)
SQLITE_MAGIC = b"SQLite format 3\x00"


def is_sqlite(path: str | os.PathLike) -> bool:
    """A regular file starting with SQLite's magic (16 bytes read; False when it cannot be read)."""
    try:
        with open_regular(path) as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def opencode_databases(data_dir: Path) -> list[Path]:
    """The databases OpenCode writes in its data directory (`$XDG_DATA_HOME/opencode`), by its name rule
    (Hona/opencode@2270ad4f packages/opencode/src/storage/db.ts, `Database.Path`): `opencode.db` for the
    `latest` and `beta` channels or when OPENCODE_DISABLE_CHANNEL_DB is set, else `opencode-<channel>.db` with the
    channel's characters outside `[a-zA-Z0-9._-]` made `-`. Every such file is listed (a user may run two
    channels), regular SQLite files only, sorted."""
    try:
        found = [p for p in data_dir.glob("opencode*.db") if p.name == OPENCODE_DB or p.name.startswith("opencode-")]
    except OSError:
        return []
    return sorted(p for p in found if is_sqlite(p))


def opencode_env_database(data_dir: Path) -> Path | None:
    """The database `$OPENCODE_DB` names, as OpenCode resolves it (db.ts, `Database.Path`: `if (Flag.OPENCODE_DB)
    { if (path.isAbsolute(Flag.OPENCODE_DB)) return Flag.OPENCODE_DB; return path.join(Global.Path.data,
    Flag.OPENCODE_DB) }`; packages/opencode/src/flag/flag.ts: `export const OPENCODE_DB =
    process.env["OPENCODE_DB"]`; Global.Path.data is `$XDG_DATA_HOME/opencode`, global/index.ts): an absolute path
    as is, a relative one below the data directory; `:memory:` (kept in memory by later versions, db.ts) and a
    missing file give None."""
    value = os.environ.get(OPENCODE_DB_ENV, "")
    if not value or value == ":memory:":
        return None
    path = Path(value).expanduser()
    path = path if path.is_absolute() else data_dir / path
    return path if is_sqlite(path) else None


def opencode_sources(root: Path) -> tuple[Path | None, list[Path]]:
    """What an OpenCode root given to the browser holds: (its JSON storage folder or None, its databases). The root
    may be the storage folder (`~/.local/share/opencode/storage`: the databases beside it), the data directory
    holding both (`~/.local/share/opencode`), or one database file."""
    if root.name.endswith(".db") and not root.is_dir():
        return None, [root]
    try:
        storage = root.name == "storage" and not (root / "storage").is_dir()
    except OSError:
        storage = root.name == "storage"
    if storage:
        return root, opencode_databases(root.parent)
    return root / "storage", opencode_databases(root)
LOCATIONS: list[AgentLocation] = [CLAUDE_CODE, CODEX, GEMINI_CLI, OPENCODE]


def location_named(kind: str) -> AgentLocation | None:
    return next((loc for loc in LOCATIONS if loc.kind == kind), None)


def discovered_roots(home: Path | None = None) -> list[tuple[AgentLocation, Path]]:
    """The agents' default roots that exist on this machine (none when $AIAGENT_MONITOR_DISCOVER is "0")."""
    if os.environ.get(DISCOVER_ENV, "") == "0":
        return []
    out = []
    for loc in LOCATIONS:
        root = loc.default_root(home)
        if root.is_dir() or (loc is OPENCODE and opencode_databases(root.parent)):
            out.append((loc, root))
        if loc is OPENCODE:  # (a database named by $OPENCODE_DB elsewhere: a root of its own)
            named = opencode_env_database(root.parent)
            if named is not None and named not in opencode_databases(root.parent):
                out.append((loc, named))
    return out


def location_of_root(path: Path) -> AgentLocation | None:
    """The agent whose root `path` is: it ends like the agent's default root (`.claude/projects`), or is that
    agent's default root on this machine. A directory given with --sessions-dir is looked up here."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        resolved = path.absolute()
    if _opencode_data(resolved):
        return OPENCODE
    for loc in LOCATIONS:
        tail = loc.tail or Path(loc.home_root).parts
        if resolved.parts[-len(tail):] == tail:
            return loc
        try:
            if resolved == loc.default_root().resolve():
                return loc
        except (OSError, RuntimeError):
            continue
    return None


def _opencode_data(path: Path) -> bool:
    """An OpenCode database file, or OpenCode's data directory (a `storage/session` folder or a database in it)."""
    if path.name.endswith(".db"):
        return is_sqlite(path)
    if path.name == "storage":
        return False
    try:
        if (path / "storage" / "session").is_dir() or is_sqlite(path / OPENCODE_DB):
            return True
    except OSError:  # (a directory that cannot be read: not recognised, said elsewhere)
        return False
    # a channel's database alone: looked for only in a folder named as OpenCode's (global/index.ts: `opencode`
    # below $XDG_DATA_HOME), never by listing an ai-agent sessions directory of 100,000 files
    return path.name == "opencode" and bool(opencode_databases(path))


def content_root_of(path: Path) -> tuple[AgentLocation, Path] | None:
    """The agent and root of a session file whose session changes elsewhere than in the file (OpenCode: its
    message and part files), so that a session opened by its file is followed by watching the root; else None."""
    for loc in LOCATIONS:
        depth = len(loc.pattern)
        if loc.content_mtime_ns is None or len(path.parts) <= depth:
            continue
        if all(fnmatch.fnmatchcase(part, pat) for part, pat in zip(path.parts[-depth:], loc.pattern)):
            return loc, path.parents[depth - 1]
    return None


def session_files(loc: AgentLocation, root: Path, limit: int = 200_000) -> Iterator[tuple[os.DirEntry, Path]]:
    """Every file below `root` whose path matches the agent's pattern (regular files and links, as DirEntry with
    its Path). Hidden entries and temp files are skipped; unreadable folders are skipped quietly."""
    count = 0

    def walk(folder: Path, depth: int) -> Iterator[tuple[os.DirEntry, Path]]:
        nonlocal count
        try:
            it = os.scandir(folder)
        except OSError:
            return
        last = depth == len(loc.pattern) - 1
        with it:
            for entry in it:
                name = entry.name
                if name[0] == "." or ".tmp-" in name or not fnmatch.fnmatchcase(name, loc.pattern[depth]):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    continue
                if last:
                    if not is_dir:
                        count += 1
                        if count > limit:
                            return
                        yield entry, folder / name
                elif is_dir:
                    yield from walk(folder / name, depth + 1)

    yield from walk(root, 0)


def session_file_of(loc: AgentLocation, root: Path, path: Path) -> Path | None:
    """The session file a changed path below `root` is, or belongs to (a sub-agent's file: its parent), or None."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return None
    if not parts or any(p.startswith(".") or ".tmp-" in p for p in parts):
        return None
    owned = loc.owner(root, parts) if loc.owner is not None else None
    if owned is not None:  # (a sub-agent's own session file is its parent's change)
        return owned
    if len(parts) == len(loc.pattern) and all(fnmatch.fnmatchcase(p, pat) for p, pat in zip(parts, loc.pattern)):
        return path
    return None
