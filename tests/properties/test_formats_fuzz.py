"""Jules and Genkit inputs with any JSON value put anywhere: a clear LoadError or a document every view can show."""

from __future__ import annotations

import copy
import json

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.demo.genkit import make_genkit_snapshots
from tui.demo.jules import make_jules_snapshot
from tui.formats.load import load_bytes
from tui.inputs.files import LoadError
from tui.model.foreign import facts_of, sections_of
from tui.model.logs import logs_under
from tui.model.search import walk_ops
from tui.payloads.op_captures import op_captures
from tui.text.foreign_text import render
from tui.text.summary import summarise

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
JULES = make_jules_snapshot(8, state="failed")
GENKIT = make_genkit_snapshots(8)


def _containers(value, out):
    if isinstance(value, dict):
        out.append(value)
        for v in value.values():
            _containers(v, out)
    elif isinstance(value, list):
        out.append(value)
        for v in value:
            _containers(v, out)
    return out


def _mutate(base, data):
    value = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, 4))):
        target = data.draw(st.sampled_from(_containers(value, [])))
        junk = data.draw(JSON)
        if isinstance(target, dict) and target:
            key = data.draw(st.sampled_from(sorted(target)))
            target[key] = junk
        elif isinstance(target, list) and target:
            target[data.draw(st.integers(0, len(target) - 1))] = junk
    return value


def _every_view(value) -> None:
    try:
        doc = load_bytes(orjson.dumps(value), "fuzz.json")
    except LoadError:
        return
    json.dumps(summarise(doc))
    "\n".join(render(doc))
    facts_of(doc.root)
    sections_of(doc.root)
    for turn in doc.root.turns:
        sections_of(turn)
    for op in walk_ops(doc.root):
        sections_of(op)
        op_captures(op)
        logs_under(op)
        if op.child is not None:
            facts_of(op.child)
            sections_of(op.child)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_jules_with_junk_anywhere(data):
    _every_view(_mutate(JULES, data))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_genkit_with_junk_anywhere(data):
    _every_view(_mutate(GENKIT, data))
