"""OpenCode storage for the tests: tests/fixtures/opencode/storage (README there says how it was written), copied
into a made-up `$XDG_DATA_HOME/opencode/storage` so that a test may write into it."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures" / "opencode" / "storage"
PROJECT = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"
MAIN = "ses_5f1e2d3c4001Qw8ErT6yUiOpAs"  # two prompts, read / bash (error) / task calls, a cut part, a cut message
CHILD = "ses_5f1e2a1b2001ChIlDsEsSiOnXy"  # the task call's sub-agent (parentID: MAIN)
RUNNING = "ses_5f0f9e8d7001RuNnInGsEsSiOn"  # its last assistant message not completed, a bash call running
OLD = "ses_5f0a1b2c3001GlObAlOlDsTyLe"  # project "global": no step parts, an aborted message, an unknown part


def storage_tree(tmp: Path) -> Path:
    """`<tmp>/data/opencode/storage`, a copy of the fixture storage, its files written now (a running session's
    files are fresh, not stale)."""
    root = tmp / "data" / "opencode" / "storage"
    shutil.copytree(FIXTURES, root, copy_function=shutil.copy)
    return root


def session_file(root: Path, sid: str) -> Path:
    return next(root.glob(f"session/*/{sid}.json"))


DATABASE = FIXTURES.parent / "opencode.db"  # written from FIXTURES by tests/fixtures/opencode/make_db.py
# what OpenCode's JSON-to-SQLite migration leaves out (make_db.py does the same): the files that are not valid JSON,
# and the part of a message whose own file is not
NOT_MIGRATED = ("message/ses_5f1e2d3c4001Qw8ErT6yUiOpAs/msg_a1000000202aCuTmEsSaGe0001.json",
                "part/msg_a1000000202aCuTmEsSaGe0001/prt_a1000000203aOrPhAnTeXt001.json",
                "part/msg_a1000000005aAsSiStAnT0001/prt_a1000000115aPaRt000000000015.json")


def database_copy(tmp: Path) -> Path:
    """`<tmp>/data/opencode/opencode.db`, a copy of the fixture database (a test may change it)."""
    target = tmp / "data" / "opencode" / "opencode.db"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATABASE, target)
    return target


def migrated_storage(tmp: Path) -> Path:
    """storage_tree() without the files OpenCode's migration skips: what the database holds, as JSON files."""
    root = storage_tree(tmp)
    for name in NOT_MIGRATED:
        (root / name).unlink()
    return root


COMPACTED = "ses_5f3000000001CoMpAcTeDsEsSn"  # a session compacted once (compaction_storage)


def compaction_storage(tmp: Path) -> Path:
    """`<tmp>/compacted/opencode/storage` holding COMPACTED, written as OpenCode records an automatic compaction
    (packages/opencode/src/session/compaction.ts: a user message with a `compaction` part, then an assistant
    message with `summary: true` answering it, then a synthetic user message to continue; message-v2.ts for the
    shapes): a first prompt with a read call, the compaction, the summary, and one call after it. Returns the
    session's Info file."""
    import json

    root = tmp / "compacted" / "opencode" / "storage"
    t0 = 1760000000000
    model = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5-20250929"}
    usage = {"input": 100, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 0}}

    def assistant(mid: str, parent: str, at: int, **extra) -> dict:
        return {"id": mid, "sessionID": COMPACTED, "role": "assistant", "time": {"created": at, "completed": at + 900},
                "parentID": parent, **{"modelID": model["modelID"], "providerID": "anthropic"}, "mode": "build",
                "agent": "build", "path": {"cwd": "/home/dev/p", "root": "/home/dev/p"}, "cost": 0.01,
                "tokens": usage, "finish": "stop", **extra}

    def step(pid: str, mid: str, *parts: dict) -> list:
        base = {"sessionID": COMPACTED, "messageID": mid}
        return [{**base, "id": f"{pid}0", "type": "step-start"},
                *({**base, "id": f"{pid}{i + 1}", **p} for i, p in enumerate(parts)),
                {**base, "id": f"{pid}9", "type": "step-finish", "reason": "stop", "cost": 0.01, "tokens": usage}]

    messages = [
        ({"id": "msg_c01", "sessionID": COMPACTED, "role": "user", "time": {"created": t0}, "agent": "build",
          "model": model}, [{"id": "prt_c01", "sessionID": COMPACTED, "messageID": "msg_c01", "type": "text",
                             "text": "Refactor the parser"}]),
        (assistant("msg_c02", "msg_c01", t0 + 1000),
         step("prt_c02a", "msg_c02", {"type": "text", "text": "The parser is refactored."})),
        ({"id": "msg_c03", "sessionID": COMPACTED, "role": "user", "time": {"created": t0 + 2000}, "agent": "build",
          "model": model}, [{"id": "prt_c03", "sessionID": COMPACTED, "messageID": "msg_c03", "type": "compaction",
                             "auto": True}]),
        (assistant("msg_c04", "msg_c03", t0 + 3000, summary=True, mode="compaction", agent="compaction"),
         step("prt_c04a", "msg_c04", {"type": "text", "text": "Summary: the parser was refactored."})),
        ({"id": "msg_c05", "sessionID": COMPACTED, "role": "user", "time": {"created": t0 + 4000}, "agent": "build",
          "model": model}, [{"id": "prt_c05", "sessionID": COMPACTED, "messageID": "msg_c05", "type": "text",
                             "synthetic": True, "text": "Continue if you have next steps"}]),
        (assistant("msg_c06", "msg_c05", t0 + 5000),
         step("prt_c06a", "msg_c06", {"type": "text", "text": "Next: its tests."})),
    ]
    for info, parts in messages:
        folder = root / "message" / COMPACTED
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{info['id']}.json").write_text(json.dumps(info, indent=2))
        for part in parts:
            (root / "part" / info["id"]).mkdir(parents=True, exist_ok=True)
            (root / "part" / info["id"] / f"{part['id']}.json").write_text(json.dumps(part, indent=2))
    session = root / "session" / "global" / f"{COMPACTED}.json"
    session.parent.mkdir(parents=True)
    session.write_text(json.dumps({"id": COMPACTED, "slug": "compacted", "version": "1.0.0", "projectID": "global",
                                   "directory": "/home/dev/p", "title": "Refactor the parser",
                                   "time": {"created": t0, "updated": t0 + 6000}}, indent=2))
    return session
