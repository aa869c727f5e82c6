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
