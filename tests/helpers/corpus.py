"""A corpus of broken, hostile and extreme session files, plus good ones, for the tests and for manual trials.

`build_corpus(DIR)` fills DIR (a sessions directory: snapshots in DIR, v3 ledgers in DIR/session, payload files
under DIR/payloads, child ledgers under DIR/children) and returns one Case per file. From a shell:

    python -m tests.helpers.corpus DIR [--huge]      # from the repository root; --huge adds a 100 MB payload

Nothing is written outside DIR (symbolic links may point outside it: that is what some cases test).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import os
import struct
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import orjson

from tui.demo import make_tree, write_ledger, write_snapshot
from tui.model.json_text import dumps

# Every kind of terminal trouble in one string: Rich markup (style, closing tag, link), OSC title changes, screen
# clear + home, colours, a bidi override and isolate, NUL and other C0 controls, DEL, a C1 control. Markup and the
# title change come first: views that cut long text at 60 characters still show them.
HOSTILE = ("[bold magenta]MARKUP[/]\x1b]0;PWNED-TITLE\x07\x1b[2J\x1b[HCLEARED\x1b[31mRED\x1b[0m\u202eREVERSED\u202c "
           "\x00NUL\x08BS\x7fDEL\x9bC1 \u2066ISOLATE\u2069 [/] [link=https://evil.example]LINK[/link] "
           "\x1b]2;PWNED2\x1b\\")
HOSTILE_NAME = "hostile-name-\x1b]0;PWNED-NAME\x07[red]x[bold]\u202e"  # no "/" in a file name
BIG_PAYLOAD_BYTES = 100 * 1024 * 1024
_MEMBER = 16 * 1024 * 1024  # one gzip member of spaces: a bomb is this member repeated


@dataclass(frozen=True)
class Case:
    name: str  # path relative to the sessions directory
    kind: str  # "broken" (refused: exit 2, broken row) | "degraded" | "hostile" | "deep" | "good" | "huge"
    what: str  # what the file is, for people
    reason: str = ""  # broken: a fragment of the reason the CLI, the model and the browser give
    problems: tuple[tuple[str, str], ...] = ()  # degraded: (op path, or "" for the session, fragment) reported


def build_corpus(directory: str | os.PathLike, *, huge: bool = False, bomb_bytes: int = 1100 * 1024 * 1024,
                 payload_bomb_bytes: int = 320 * 1024 * 1024) -> list[Case]:
    d = Path(directory)
    for sub in ("", "session", "payloads", "children"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    cases = [*_broken(d, bomb_bytes), *_degraded(d, payload_bomb_bytes), *_hostile(d), *_deep(d), *_good(d)]
    if huge:
        cases.append(write_huge_payload(d))
    return cases


# --- helpers ---------------------------------------------------------------------------------------------------

def snapshot_bytes(tree: dict) -> bytes:
    return dumps({"version": 2, "reason": "final", "opTree": tree})  # orjson alone stops at 255 levels


def put(path: Path, data: bytes, *, gz: bool = False) -> Path:
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    return path


def bomb(size: int, head: bytes = b"") -> bytes:
    """gzip members that inflate to `size` bytes (`head`, then spaces) from a file of about size/1000 bytes."""
    member = gzip.compress(b" " * _MEMBER, compresslevel=9, mtime=0)
    count = -(-max(0, size - len(head)) // _MEMBER)
    return gzip.compress(head, mtime=0) + member * count


def single_member_bomb(size: int, head: bytes = b"") -> bytes:
    """One gzip member that inflates to `size` bytes (`head`, then spaces), built in well under a second: the
    deflate blocks of identical 1 MiB chunks after a full flush are identical, so one is repeated."""
    chunk = b" " * (1 << 20)
    count, rest = divmod(size - len(head), len(chunk))
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = c.compress(head) + c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    end = (c.compress(b" " * rest) + c.flush(zlib.Z_FINISH))[:-8]  # the trailer is rewritten below
    crc = zlib.crc32(head)
    for _ in range(count + 1):  # c saw one chunk more than the file holds; the file's CRC covers count chunks
        crc = zlib.crc32(chunk, crc) if _ < count else zlib.crc32(b" " * rest, crc)
    return first + block * (count - 1) + end + struct.pack("<II", crc & 0xFFFFFFFF, size & 0xFFFFFFFF)


def session(*turns: dict, agent: str = "agent", **extra) -> dict:
    node = {"id": f"id-{agent}", "traceId": f"trace-{agent}", "agentId": agent, "callPath": agent,
            "sessionTitle": f"{agent} session", "startedAt": 1_779_000_000_000, "endedAt": 1_779_000_060_000,
            "success": True, "turns": list(turns)}
    node.update(extra)
    return node


def turn(number: int, *ops: object, **extra) -> dict:
    node = {"id": f"t{number}", "index": number, "startedAt": 1_779_000_001_000, "endedAt": 1_779_000_050_000,
            "ops": list(ops)}
    node.update(extra)
    return node


def op(kind: str, name: str = "", **extra) -> dict:
    node = {"opId": f"op-{name or kind}", "kind": kind, "status": "ok", "startedAt": 1_779_000_002_000,
            "endedAt": 1_779_000_003_000, "attributes": {"name": name} if name else {}, "logs": [],
            "accounting": []}
    node.update(extra)
    return node


def llm(name: str, request: object = None, response: object = None) -> dict:
    node = op("llm", name, attributes={"name": name, "provider": "anthropic", "model": "claude-test"})
    if request is not None:
        node["request"] = {"kind": "llm", "payload": request, "size": 100}
    if response is not None:
        node["response"] = {"payload": response, "size": 100}
    return node


def b64(data: str | bytes) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def record(kind: str, seq: int, sid: str, **fields) -> bytes:
    r = {"version": 3, "recordType": kind, "seq": seq, "ts": f"2026-05-26T11:00:{seq % 60:02d}.000Z",
         "originId": sid, "sessionId": sid}
    r.update(fields)
    return orjson.dumps(r) + b"\n"


def ledger(sid: str, ops: list[dict], *, parent: str | None = None, **start) -> bytes:
    """A finished one-turn v3 ledger."""
    if parent:
        start["parentSessionId"] = parent
    return b"".join([
        record("session_start", 1, sid, agentId=start.pop("agentId", sid), callPath=sid, **start),
        record("turn_start", 2, sid, turn=1),
        record("turn_end", 3, sid, turn=1, status="ok", ops=ops, warnings=[], errors=[]),
        record("session_summary", 4, sid, status="ok"),
    ])


def ledger_op(index: int, kind: str = "tool", name: str = "", **extra) -> dict:
    node = {"opId": f"lop-{index}", "opIndex": index, "kind": kind, "status": "ok", "name": name or f"op{index}",
            "startedAt": "2026-05-26T11:00:02.000Z", "endedAt": "2026-05-26T11:00:03.000Z"}
    node.update(extra)
    return node


# --- the cases -------------------------------------------------------------------------------------------------

def _broken(d: Path, bomb_bytes: int) -> list[Case]:
    good = snapshot_bytes(session(turn(1, op("tool", "ls"))))
    put(d / "zero-byte.json.gz", b"")
    put(d / "truncated-gzip.json.gz", gzip.compress(good * 50, mtime=0)[:120])
    put(d / "truncated-json.json", good[: len(good) // 2])
    put(d / "truncated-json-in-gzip.json.gz", good[: len(good) // 2], gz=True)
    put(d / "not-gzip.json.gz", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    put(d / "not-utf8.json.gz", good.replace(b"agent session", b"agent \xff\xfe session"), gz=True)
    put(d / "wrong-shape-top-array.json.gz", b"[1, 2, 3]", gz=True)
    put(d / "wrong-shape-top-string.json", b'"just a string"')
    put(d / "wrong-shape-no-optree.json.gz", b'{"version": 2, "reason": "final", "tree": {}}', gz=True)
    put(d / "wrong-shape-optree-array.json.gz", b'{"version": 2, "opTree": [1, 2]}', gz=True)
    put(d / "wrong-shape-envelope.json.gz", b'{"reason": "final", "snapshot": {"version": 2}}', gz=True)
    put(d / "gzip-bomb.json.gz", bomb(bomb_bytes, b'{"version": 2, "opTree": {"turns": []}, "pad": "'))
    put(d / "too-deep-json.json.gz", b'{"version": 2, "opTree": ' + b'{"a": ' * 1100 + b"1" + b"}" * 1101, gz=True)
    unreadable = put(d / "unreadable.json.gz", good, gz=True)
    unreadable.chmod(0)
    for a, b in (("symlink-loop-a", "symlink-loop-b"), ("symlink-loop-b", "symlink-loop-a")):
        os.symlink(f"{b}.json.gz", d / f"{a}.json.gz")
    os.symlink("no-such-target.json.gz", d / "dangling-link.json.gz")
    put(d / f"{HOSTILE_NAME}.json.gz", b"neither gzip nor JSON: " + HOSTILE.encode())
    put(d / "session" / "broken-ledger.jsonl", b"this is not a ledger\n\x00\x01\x02 binary\n")
    return [
        Case("zero-byte.json.gz", "broken", "an empty file", "empty file (0 bytes)"),
        Case("truncated-gzip.json.gz", "broken", "gzip stream cut short", "truncated gzip"),
        Case("truncated-json.json", "broken", "plain JSON cut in half", "ends early"),
        Case("truncated-json-in-gzip.json.gz", "broken", "complete gzip of half a JSON document", "ends early"),
        Case("not-gzip.json.gz", "broken", "a .json.gz holding binary (PNG) bytes", "not gzip data and not JSON"),
        Case("not-utf8.json.gz", "broken", "JSON with bytes 0xff 0xfe in a string",
             "not UTF-8 text: invalid byte 0xff"),
        Case("wrong-shape-top-array.json.gz", "broken", "top level is a JSON array", "top level is array"),
        Case("wrong-shape-top-string.json", "broken", "top level is a JSON string", "top level is string"),
        Case("wrong-shape-no-optree.json.gz", "broken", "an object without opTree/snapshot/turns",
             "not an ai-agent snapshot"),
        Case("wrong-shape-optree-array.json.gz", "broken", "opTree is an array", "opTree is array"),
        Case("wrong-shape-envelope.json.gz", "broken", "a wire envelope without snapshot.opTree",
             "envelope has no snapshot.opTree"),
        Case("gzip-bomb.json.gz", "broken", f"{bomb_bytes // 2**20:,} MiB of JSON from a small gzip file",
             "gzip bomb"),
        Case("too-deep-json.json.gz", "broken", "JSON nested 1,100 levels", "nested deeper than 1,024 levels"),
        Case("unreadable.json.gz", "broken", "mode 000 (unreadable for anyone but root)", "permission denied"),
        Case("symlink-loop-a.json.gz", "broken", "a symbolic link to a link back to it", "symbolic link loop"),
        Case("symlink-loop-b.json.gz", "broken", "the other half of the loop", "symbolic link loop"),
        Case("dangling-link.json.gz", "broken", "a symbolic link to a missing file", "dangling symbolic link"),
        Case(f"{HOSTILE_NAME}.json.gz", "broken", "escape sequences and markup in the file name, garbage inside",
             "not gzip data and not JSON"),
        Case("session/broken-ledger.jsonl", "broken", "a .jsonl ledger of garbage lines", "not JSON"),
    ]


def _degraded(d: Path, payload_bomb_bytes: int) -> list[Case]:
    cases = [_wrong_types(d), _bad_base64(d), _bad_refs(d, payload_bomb_bytes), _bad_children(d)]
    return cases


def _wrong_types(d: Path) -> Case:
    ops = [
        "an op that is a string",
        op("tool", "attrs-list", attributes=["not", "an", "object"]),
        op("tool", "acc-string", accounting="lots"),
        op("tool", "logs-object", logs={"message": "not a list"}),
        op("tool", "logs-numbers", logs=[1, 2, {"severity": "ERR", "message": "real"}]),
        op("llm", "tokens-strings", accounting=[{"type": "llm", "tokens": {"inputTokens": "5", "outputTokens": 6},
                                               "costUsd": "0.5"}]),
        op(7, "kind-number"),
        {"opId": "missing-keys"},
        op("session", "child-list", childSession=[1, 2]),
        op("session", "child-empty", childSession={}),
        op("tool", "times-strings", startedAt="soon", endedAt={"at": 1}, status=7),
    ]
    tree = session(["a turn that is a list"], turn(2, ops={"not": "a list"}), turn(3, *ops, index="three"),
                   agent="wrong-types", agentId=42, startedAt="yesterday", success="yes", totals=[1, 2])
    put(d / "wrong-types.json.gz", snapshot_bytes(tree), gz=True)
    return Case("wrong-types.json.gz", "degraded", "wrong JSON types at every level of the tree", problems=(
        ("", "agentId is number, expected a string"),
        ("", "startedAt is 'yesterday', expected a time"),
        ("", "success is string, expected true or false"),
        ("", "totals is array, expected an object"),
        ("turn 0", "turn 0 is array, expected an object"),
        ("turn 1", "ops is object, expected an array"),
        ("turn 2", "index is string, expected a number"),
        ("2-1", "op is string, expected an object"),
        ("2-2", "attributes is array, expected an object"),
        ("2-3", "accounting is string, expected an array"),
        ("2-4", "logs is object, expected an array"),
        ("2-5", "2 log entries are not objects"),
        ("2-6", "accounting[0].tokens.inputTokens is string, expected a number"),
        ("2-6", "accounting[0].costUsd is string, expected a number"),
        ("2-7", "kind is number"),
        ("2-8", "kind is null"),
        ("2-9.", "session is array, expected an object"),
        ("2-11", "startedAt is 'soon', expected a time"),
        ("2-11", "status is number, expected a string"),
    ))


def _bad_base64(d: Path) -> Case:
    ops = [
        llm("bad-chars", response={"raw": {"format": "json", "encoding": "base64", "value": "@@@ not base64 !!!"}}),
        llm("bad-length", response={"raw": {"format": "json", "encoding": "base64", "value": "abcde"}}),
        llm("bad-padding", response={"raw": {"format": "json", "encoding": "base64", "value": "ab=cd"}}),
        llm("value-number", response={"sdk": {"format": "json", "encoding": "base64", "value": 42}}),
        llm("good", response={"raw": {"format": "json", "encoding": "base64", "value": b64('{"ok": true}')}}),
    ]
    put(d / "bad-base64.json.gz", snapshot_bytes(session(turn(1, *ops), agent="bad-base64")), gz=True)
    return Case("bad-base64.json.gz", "degraded", "captures whose base64 cannot be decoded", problems=(
        ("1-1", "invalid base64: unexpected character '@'"),
        ("1-2", "invalid base64: 5 significant characters"),
        ("1-3", "invalid base64: '=' padding in the middle"),
        ("1-4", "sdk.value has wrong type int"),
    ))


def _bad_refs(d: Path, payload_bomb_bytes: int) -> Case:
    body = b'{"answer": 42}'
    p = d / "payloads"
    put(p / "good.json", body)
    put(p / "corrupt.json.gz", gzip.compress(body * 100, mtime=0)[:30])
    put(p / "wrong-sha.json", body)
    put(p / "unreadable.json", body).chmod(0)
    put(p / "bomb.json.gz", bomb(payload_bomb_bytes))
    os.symlink("/etc/passwd", p / "escape-link.json")
    os.symlink("loop-b.json", p / "loop-a.json")
    os.symlink("loop-a.json", p / "loop-b.json")
    good_sha = hashlib.sha256(body).hexdigest()

    def ref(name: str, path: str, **extra) -> dict:
        return llm(name, response={"ref": {"format": "json", "path": path, **extra}})

    ops = [
        ref("outside-dotdot", "../outside.json"),
        ref("outside-absolute", "/etc/passwd"),
        ref("outside-symlink", "payloads/escape-link.json"),
        ref("missing", "payloads/missing.json.gz", compression="gzip"),
        ref("corrupt", "payloads/corrupt.json.gz", compression="gzip"),
        ref("wrong-sha", "payloads/wrong-sha.json", sha256="0" * 64),
        ref("loop", "payloads/loop-a.json"),
        ref("unreadable", "payloads/unreadable.json"),
        ref("bomb", "payloads/bomb.json.gz", compression="gzip"),
        ref("good", "payloads/good.json", sha256=good_sha),
    ]
    put(d / "bad-refs.json.gz", snapshot_bytes(session(turn(1, *ops), agent="bad-refs")), gz=True)
    return Case("bad-refs.json.gz", "degraded", "payload refs: outside the directory, missing, corrupt, bad sha256",
                problems=(
                    ("1-1", "contains '..'; refusing to read outside the sessions directory"),
                    ("1-2", "is absolute; refusing to read outside the sessions directory"),
                    ("1-3", "resolves outside the sessions directory"),
                    ("1-4", "payload file not found: payloads/missing.json.gz"),
                    ("1-5", "truncated gzip"),
                    ("1-6", "sha256 mismatch"),
                    ("1-7", "is a symbolic link loop"),
                    ("1-8", "ermission denied"),
                    ("1-9", "byte cap once decompressed"),
                ))


def _bad_children(d: Path) -> Case:
    sid = "bad-children"
    c = d / "children"
    put(c / "corrupt-child.jsonl", b"\x00\x01 not json\n{\"half\": \n")
    os.symlink("loop-b.jsonl", c / "loop-a.jsonl")
    os.symlink("loop-a.jsonl", c / "loop-b.jsonl")
    put(d / "payloads" / "ledger-body.json", b'{"ok": 1}')
    kids = ["../../outside.jsonl", "/etc/passwd", "children/missing-child.jsonl", "children/corrupt-child.jsonl",
            "children/loop-a.jsonl", f"session/{sid}.jsonl"]
    ops = [ledger_op(i + 1, "session", f"child-{i + 1}", childSessions=[{"sessionId": f"kid-{i}", "ledgerPath": path}])
           for i, path in enumerate(kids)]
    refs = [{"kind": "llm_response", "path": "../outside.json"},
            {"kind": "llm_request", "path": "payloads/nowhere.json"},
            {"kind": "tool_response", "path": "payloads/ledger-body.json", "sha256": "f" * 64}]
    ops.append(ledger_op(len(kids) + 1, "llm", "refs", payloadRefs=refs))
    put(d / "session" / f"{sid}.jsonl", ledger(sid, ops))
    return Case(f"session/{sid}.jsonl", "degraded", "a v3 ledger whose child ledgers and payload refs are bad",
                problems=(
                    ("1-1", "ledgerPath escapes the sessions directory"),
                    ("1-2", "absolute ledgerPath refused"),
                    ("1-3", "no such file"),
                    ("1-4.", "line 1 is not valid JSON"),
                    ("1-5", "symbolic link loop"),
                    ("1-6", "refers back to itself"),
                    ("1-7", "refusing to read outside the sessions directory"),
                    ("1-7", "payload file not found: payloads/nowhere.json"),
                    ("1-7", "sha256 mismatch"),
                ))


def _hostile(d: Path) -> list[Case]:
    h = HOSTILE
    logs = [{"timestamp": 1_779_000_002_500, "severity": sev, "message": f"{sev} {h}", "path": h}
            for sev in ("ERR", "WRN", "INF", h)]
    prose = "an ordinary line of words around the hostile ones\n" * 40  # mostly text: shown as text, not hex
    http = f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Evil: {h}\r\n\r\n{prose}{h}\n{prose}".encode()
    sub = session(turn(1, op("tool", h, error=h)), agent=h, sessionTitle=h)
    tree = session(
        turn(0, op("system", h, attributes={"label": h, h: h}), attributes={"system": True, "label": h,
                                                                           "prompts": {"system": h, "user": h}}),
        turn(1,
             op("tool", h, status="failed", error=h, logs=logs, attributes={"name": h, "error": h, h: h},
                response={"payload": h, "size": len(h)}),
             llm(h, request={"raw": {"format": "http", "encoding": "base64", "value": b64(http)}},
                 response={"raw": {"format": "text", "encoding": "text", "value": f"{prose}{h}\n{prose}"}}),
             op("session", h, childSession=sub),
             label=h),
        agent=h, callPath=h, sessionTitle=h, latestStatus=h, error=h, success=False, traceId=f"trace-{h}",
        finalReport={"format": "markdown", "content": h},
        steps=[{"index": 1, "kind": h, "ops": [op("tool", h)]}],
    )
    put(d / "hostile-text.json.gz", snapshot_bytes(tree), gz=True)
    sid = "hostile-ledger"
    ops = [ledger_op(1, "tool", h, error=h, attributes={h: h}), ledger_op(2, "llm", h, model=h, provider=h)]
    data = b"".join([
        record("session_start", 1, sid, agentId=h, callPath=h),
        record("turn_start", 2, sid, turn=1),
        record("turn_end", 3, sid, turn=1, status=h, ops=ops, warnings=[h], errors=[h]),
        record("session_error", 4, sid, error=h),
    ])
    put(d / "session" / f"{sid}.jsonl", data)
    return [
        Case("hostile-text.json.gz", "hostile", "escape sequences, NUL, bidi and Rich markup in every text field"),
        Case(f"session/{sid}.jsonl", "hostile", "the same in a v3 ledger"),
    ]


def deep_tree(levels: int) -> dict:
    """A root with a chain of `levels` sub-agents below it, each with one ordinary op beside the next agent."""
    node = session(turn(1, op("tool", "leaf-tool")), agent=f"agent-{levels}")
    for level in range(levels - 1, -1, -1):
        node = session(turn(1, op("tool", f"tool-{level}"), op("session", f"agent-{level + 1}", childSession=node)),
                       agent=f"agent-{level}")
    return node


def _deep(d: Path, levels: int = 150) -> list[Case]:
    put(d / "deep-150.json.gz", snapshot_bytes(deep_tree(levels)), gz=True)
    for level in range(levels + 1):
        sid = "deep-ledger-root" if level == 0 else f"deep-ledger-{level}"
        ops = [ledger_op(1, "tool", f"tool-{level}")]
        if level < levels:
            ops.append(ledger_op(2, "session", f"agent-{level + 1}", childSessions=[
                {"sessionId": f"deep-ledger-{level + 1}", "ledgerPath": f"children/deep-ledger-{level + 1}.jsonl"}]))
        target = d / "session" / f"{sid}.jsonl" if level == 0 else d / "children" / f"{sid}.jsonl"
        put(target, ledger(sid, ops, parent=None if level == 0 else f"deep-ledger-{level - 1}",
                           agentId=f"agent-{level}"))
    return [
        Case("deep-150.json.gz", "deep", f"sub-agents nested {levels} levels deep (snapshot)"),
        Case("session/deep-ledger-root.jsonl", "deep", f"sub-agents nested {levels} levels deep (v3 ledgers)"),
    ]


def _good(d: Path) -> list[Case]:
    out = []
    for seed, version in ((1, 1), (2, 2), (3, 2)):
        tree = make_tree(seed, ops=40, depth=2, fanout=1, hostile_rate=0.0)
        path = write_snapshot(d, tree, version=version, name=f"good-{seed}.json.gz")
        out.append(Case(path.name, "good", f"a generated session (snapshot v{version})"))
    path = write_ledger(d, make_tree(4, ops=30, depth=1, fanout=1, hostile_rate=0.0))
    out.append(Case(str(path.relative_to(d)), "good", "a generated session (v3 ledger)"))
    return out


def big_payload_body(size: int = BIG_PAYLOAD_BYTES) -> bytes:
    """About `size` bytes of JSON, one array element per line (so the viewer has many lines, not one)."""
    line = b'  {"index": %9d, "text": "' + b"the quick brown fox jumps over the lazy dog " * 3 + b'"},\n'
    count = size // len(line % 0)
    return b"[\n" + b"".join(line % i for i in range(count)) + b'  {"end": true}\n]\n'


def write_huge_payload(d: Path) -> Case:
    body = big_payload_body()
    (d / "payloads" / "huge-100mb.json.gz").write_bytes(gzip.compress(body, compresslevel=1, mtime=0))
    ref = {"format": "json", "path": "payloads/huge-100mb.json.gz", "compression": "gzip",
           "originalBytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
    tree = session(turn(1, llm("huge-payload", response={"ref": ref})), agent="huge-payload")
    put(d / "huge-payload.json.gz", snapshot_bytes(tree), gz=True)
    return Case("huge-payload.json.gz", "huge", f"an op whose response payload is {len(body) // 2**20} MiB of JSON")


def main(argv: list[str]) -> int:
    import argparse

    from tui.model.fields import printable

    ap = argparse.ArgumentParser(prog="python tests/helpers/corpus.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path, help="the sessions directory to fill (created if missing)")
    ap.add_argument("--huge", action="store_true", help="add a session with a 100 MB payload")
    args = ap.parse_args(argv)
    for case in build_corpus(args.dir, huge=args.huge):
        print(f"{case.kind:9} {printable(case.name):48} {case.what}")
    if os.geteuid() == 0:
        print("note: running as root, the mode-000 files stay readable for you (run the app as another user)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
