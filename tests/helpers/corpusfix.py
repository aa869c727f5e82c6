"""Fixtures and helpers around the corpus (tests/helpers/corpus.py): a shared copy; reading files like an ordinary user
(who cannot read mode-000 files) even when the tests run as root; finding nodes by path."""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

from helpers.corpus import Case, build_corpus
from tui.inputs import files as source_bytes
from tui.model.nodes import Op, Session, Turn
from tui.model.search import walk_ops

ROOT = Path(__file__).resolve().parents[2]
TEST_MAX_BYTES = 64 * 1024 * 1024  # the bomb is refused after 64 MiB instead of 1 GiB: same code, less waiting
INERT_FORBIDDEN = ("\x1b", "\x07", "\x00", "\x9b", "\u202e", "\u2066")


@functools.cache
def _all_names() -> tuple[tuple[str, str], ...]:
    with tempfile.TemporaryDirectory() as tmp:
        return tuple((case.kind, case.name) for case in build_corpus(tmp, bomb_bytes=1, payload_bomb_bytes=1))


def case_names(kind: str) -> list[str]:
    """The names of the corpus cases of one kind (for parametrize)."""
    return [name for k, name in _all_names() if k == kind]


def world_readable_dir(prefix: str) -> Path:
    """A directory the unprivileged user can read (pytest's tmp_path is private to its owner)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path


@pytest.fixture(scope="module")
def corpus() -> tuple[Path, dict[str, Case]]:
    directory = world_readable_dir("aiagent-corpus-")
    cases = {case.name: case for case in build_corpus(directory)}
    yield directory, cases
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def small_cap():
    """Documents are capped at TEST_MAX_BYTES for the test (what --max-bytes 64M does)."""
    before = source_bytes.document_limit()
    source_bytes.set_document_limit(TEST_MAX_BYTES)
    yield TEST_MAX_BYTES
    source_bytes.set_document_limit(before)


def is_root() -> bool:
    return os.geteuid() == 0


_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _PR_CAPBSET_DROP = 1, 2, 24
_DAC_MASK = (1 << _CAP_DAC_OVERRIDE) | (1 << _CAP_DAC_READ_SEARCH)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _set_dac_override(enabled: bool) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = _CapHeader(0x20080522, 0), (_CapData * 2)()  # _LINUX_CAPABILITY_VERSION_3
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    data[0].effective = data[0].effective | _DAC_MASK if enabled else data[0].effective & ~_DAC_MASK
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


@contextmanager
def other_user():
    """Read files like an ordinary user: as root, without the capabilities that let root read mode-000 files.

    Capabilities are per thread: threads started inside the block (the app's workers) inherit the restriction.
    A no-op for an ordinary user, who cannot read those files anyway.
    """
    if not is_root():
        yield
        return
    _set_dac_override(False)
    try:
        yield
    finally:
        _set_dac_override(True)


def _drop_dac_for_exec() -> None:  # in the child, before exec: root keeps no way around file modes
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl")


def run_cli(*args: str, cwd: Path | None = None, as_other_user: bool = False, timeout: float = 120):
    """`python -m tui ARGS` from this checkout; with as_other_user, unable to read mode-000 files even as root."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    extra = {"preexec_fn": _drop_dac_for_exec} if as_other_user and is_root() else {}
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, timeout=timeout,
                          cwd=cwd or ROOT, env=env, **extra)


def node_at(root: Session, where: str):
    """"" the root session; "turn N" the root's turn at position N; "A-B" an op; "A-B." the sub-agent of op A-B."""
    if where == "":
        return root
    if where.startswith("turn "):
        return root.turns[int(where.split()[1])]
    path, child = (where[:-1], True) if where.endswith(".") else (where, False)
    op = next(op for op in walk_ops(root) if op.path == path)
    return op.child if child else op


def problems_of(node: Session | Turn | Op) -> list[str]:
    out = list(node.problems)
    if isinstance(node, Op) and node.child_ref is not None and node.child_ref.get("problem"):
        out.append(str(node.child_ref["problem"]))
    return out


def assert_inert(text: str, where: str = "") -> None:
    """No character of the data can act on a terminal: escapes, bells, NULs, C1 controls, bidi overrides."""
    found = [repr(ch) for ch in INERT_FORBIDDEN if ch in text]
    assert not found, f"{where}: raw {', '.join(found)} in {text[:300]!r}"
