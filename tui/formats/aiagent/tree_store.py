"""A content-addressed store of SessionNode trees: every session, turn and op is a blob named by its hash.

A tree is stored as a Merkle DAG: an op's hash covers its own fields and the hash of its sub-agent session, a
turn's covers its fields and its ops' hashes, a session's its fields and its turns' and steps' hashes. Two
versions of a growing session share every node that did not change (finished ops, turns and sub-agents), so
keeping a hundred versions costs little more than the distinct op states they contain. Versions are rebuilt
from the blobs on demand; leaves (strings, payloads, logs) are the parsed objects themselves, never copied, and a
node seen again is re-pointed at the newest parse, so the store shares its leaves with the tree on screen.

Trees handed to the store must not be mutated afterwards (parsed JSON and the live hub's merged copies are not).
"""

from __future__ import annotations

from hashlib import blake2b
from typing import cast

from tui.model.json_text import canonical
from tui.model.trampoline import drive

DIGEST_SIZE = 16
_SESSION_LISTS = ("turns", "steps")


class _Blob:
    __slots__ = ("fields", "children", "size")

    def __init__(self, fields: object, children: dict | None, size: int) -> None:
        self.fields = fields  # the node with its child containers set to None (order kept), or a non-dict leaf
        self.children = children  # key -> tuple of digests (lists) or one digest (childSession); None for a leaf
        self.size = size  # bytes of the canonical serialisation: what the blob weighs, roughly


class TreeStore:
    def __init__(self) -> None:
        self.blobs: dict[bytes, _Blob] = {}
        self.bytes = 0

    # storing --------------------------------------------------------------------------------------------
    def put(self, tree: object) -> bytes:
        """Store a SessionNode (dict) and return its digest; nodes already present are not stored twice."""
        return drive(self._session(tree))

    # Sessions and turns are generators that yield the sub-agent sessions they meet (tui.model.trampoline): no
    # recursion, so sub-agents nested as deep as a document can be are stored like any others.
    def _session(self, node: object):
        if not isinstance(node, dict):
            return self._put(b"x", node, None)
        children = {}
        fields = node
        for key in _SESSION_LISTS:
            items = node.get(key)
            if isinstance(items, list):
                if fields is node:
                    fields = dict(node)
                fields[key] = None
                digests = []
                for item in items:
                    digests.append((yield from self._turn(item)))
                children[key] = tuple(digests)
        return self._put(b"s", fields, children)

    def _turn(self, node: object):
        if not isinstance(node, dict):
            return self._put(b"x", node, None)
        items = node.get("ops")
        if not isinstance(items, list):
            return self._put(b"t", node, {})
        fields = dict(node)
        fields["ops"] = None
        digests = []
        for item in items:
            child = item.get("childSession") if isinstance(item, dict) else None
            if child is None:
                digests.append(self._put(b"x", item, None) if not isinstance(item, dict) else self._put(b"o", item, {}))
            else:
                op_fields = dict(item)
                op_fields["childSession"] = None
                digests.append(self._put(b"o", op_fields, {"childSession": (yield self._session(child))}))
        return self._put(b"t", fields, {"ops": tuple(digests)})

    def _put(self, tag: bytes, fields: object, children: dict | None) -> bytes:
        data = canonical(fields)
        h = blake2b(tag, digest_size=DIGEST_SIZE)
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
        for key, value in (children or {}).items():
            h.update(key.encode())
            if isinstance(value, tuple):
                h.update(len(value).to_bytes(8, "little"))
                h.update(b"".join(value))
            else:
                h.update(value)
        digest = h.digest()
        blob = self.blobs.get(digest)
        if blob is None:
            self.blobs[digest] = _Blob(fields, children, len(data))
            self.bytes += len(data)
        else:
            # Same content: hold the newest objects instead, so the previous parse (a file's last version, which
            # the screen just let go) can be freed; the tree on screen and the store then share their leaves.
            blob.fields = fields
        return digest

    # rebuilding -----------------------------------------------------------------------------------------
    def get(self, digest: bytes) -> object:
        """The tree stored under `digest`: fresh containers where children were stripped, shared leaves."""
        return drive(self._get(digest))

    def _get(self, digest: bytes):
        blob = self.blobs[digest]
        if not blob.children:
            return blob.fields  # an op without a sub-agent, a turn without ops, a broken node: shared as is
        out = dict(cast(dict, blob.fields))  # (a node with children: its fields are a dict)
        for key, value in blob.children.items():
            if isinstance(value, tuple):
                items = []
                for d in value:
                    child = self.blobs[d]
                    items.append(child.fields if not child.children else (yield self._get(d)))
                out[key] = items
            else:
                out[key] = yield self._get(value)
        return out

    # forgetting -----------------------------------------------------------------------------------------
    def keep_only(self, roots) -> None:
        """Drop every blob no root reaches (mark and sweep; shared sub-trees are visited once)."""
        reached: set[bytes] = set()
        stack = [r for r in roots if r in self.blobs]
        while stack:
            digest = stack.pop()
            if digest in reached:
                continue
            reached.add(digest)
            for value in (self.blobs[digest].children or {}).values():
                if isinstance(value, tuple):
                    stack.extend(d for d in value if d not in reached)
                elif value not in reached:
                    stack.append(value)
        if len(reached) == len(self.blobs):
            return
        self.blobs = {d: b for d, b in self.blobs.items() if d in reached}
        self.bytes = sum(b.size for b in self.blobs.values())
