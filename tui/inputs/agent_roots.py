"""Where other coding agents (Claude Code, Codex CLI, Gemini CLI) keep their session files: one table row per agent.

Pure location facts (no reader is imported here), shared by the directory listing (tui.catalog.scan), the watcher
(tui.inputs.watch) and the CLI's discovery of default roots (tui.cli.run). A row names the agent's kind (the browser
row kind, `kind:` filter value), its default root below the home directory, and the relative shape of a session
file below that root as a tuple of fnmatch patterns, one per path level. Adding an agent is adding a row here and
its reader to tui.formats.agents.AGENT_FORMATS.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

DISCOVER_ENV = "AIAGENT_MONITOR_DISCOVER"  # "0": never add the agents' default roots to the browser


@dataclass(frozen=True, slots=True)
class AgentLocation:
    kind: str  # the browser row kind ("claude-code"): the Kind column and the `kind:` filter value
    label: str  # what a person calls the agent ("Claude Code")
    home_root: str  # the default root, relative to the home directory
    pattern: tuple[str, ...]  # fnmatch patterns of a session file's path parts below the root
    # the session file a changed file below the root belongs to (a sub-agent's own file: its parent session), or None
    owner: Callable[[tuple[str, ...]], tuple[str, ...] | None] | None = None
    env_root: str = ""  # an environment variable naming the agent's config directory (the root is below it)
    env_suffix: str = ""  # the root's path below that directory
    tag: str = ""  # the short word the browser's Id column shows before the session id ("claude")

    def default_root(self, home: Path | None = None) -> Path:
        env = os.environ.get(self.env_root) if self.env_root else None
        if env:
            return Path(env).expanduser() / self.env_suffix
        return (home or Path.home()) / self.home_root


def _claude_owner(parts: tuple[str, ...]) -> tuple[str, ...] | None:
    """`<project>/<session>/subagents/agent-*.jsonl` (Claude Code 2.x sub-agents) belongs to
    `<project>/<session>.jsonl`."""
    if len(parts) >= 4 and parts[2] == "subagents" and parts[-1].endswith(".jsonl"):
        return (parts[0], parts[1] + ".jsonl")
    return None


CLAUDE_CODE = AgentLocation("claude-code", "Claude Code", ".claude/projects", ("*", "*.jsonl"), _claude_owner,
                            env_root="CLAUDE_CONFIG_DIR", env_suffix="projects", tag="claude")

CODEX = AgentLocation("codex", "Codex CLI", ".codex/sessions", ("*", "*", "*", "rollout-*.jsonl"),
                      env_root="CODEX_HOME", env_suffix="sessions", tag="codex")
# (a sub-agent's chat, chats/<session>/<agentId>.jsonl, is read with its session: not a row of its own)
GEMINI_CLI = AgentLocation("gemini-cli", "Gemini CLI", ".gemini/tmp", ("*", "chats", "session-*.json*"),
                           tag="gemini")
LOCATIONS: list[AgentLocation] = [CLAUDE_CODE, CODEX, GEMINI_CLI]


def location_named(kind: str) -> AgentLocation | None:
    return next((loc for loc in LOCATIONS if loc.kind == kind), None)


def discovered_roots(home: Path | None = None) -> list[tuple[AgentLocation, Path]]:
    """The agents' default roots that exist on this machine (none when $AIAGENT_MONITOR_DISCOVER is "0")."""
    if os.environ.get(DISCOVER_ENV, "") == "0":
        return []
    out = []
    for loc in LOCATIONS:
        root = loc.default_root(home)
        if root.is_dir():
            out.append((loc, root))
    return out


def location_of_root(path: Path) -> AgentLocation | None:
    """The agent whose root `path` is: it ends like the agent's default root (`.claude/projects`), or is that
    agent's default root on this machine. A directory given with --sessions-dir is looked up here."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        resolved = path.absolute()
    for loc in LOCATIONS:
        tail = Path(loc.home_root).parts
        if resolved.parts[-len(tail):] == tail:
            return loc
        try:
            if resolved == loc.default_root().resolve():
                return loc
        except (OSError, RuntimeError):
            continue
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
    if len(parts) == len(loc.pattern) and all(fnmatch.fnmatchcase(p, pat) for p, pat in zip(parts, loc.pattern)):
        return path
    owned = loc.owner(parts) if loc.owner is not None else None
    return root.joinpath(*owned) if owned else None
