"""What a row says beyond totals (tui.catalog.row_facts): the title falls back to the first user prompt; the
models used, main one first; the last activity inside the tree; a live row keeps its title."""

from __future__ import annotations

from helpers.builders import op, session, turn
from tui.catalog.row_facts import NAME_MAX, first_prompt, model_label, row_name, row_title, session_liveness, tree_facts
from tui.catalog.session_row import LIVE_PREFIX, RowKind, live_session_row
from tui.formats.aiagent.snapshot import build_session


def prompted(user, *, title: str = "", **fields) -> dict:
    node = session(turn(0, system=True), turn(1, op("llm", model="m1", provider="p")), **fields)
    node["turns"][1]["attributes"] = {"prompts": {"system": "be brief", "user": user}}
    node["sessionTitle"] = title
    return node


def test_title_falls_back_to_the_first_user_prompt():
    s = build_session(prompted("Why did\nclaims drop last week?"))
    assert first_prompt(s) == "Why did claims drop last week?"
    assert row_title(s) == "Why did claims drop last week?"
    assert row_title(build_session(prompted("ignored", title="The real title"))) == "The real title"
    blocks = [{"type": "text", "text": "Compare"}, {"type": "image"}, {"type": "text", "text": "regions"}]
    assert first_prompt(build_session(prompted(blocks))) == "Compare regions"
    assert first_prompt(build_session(prompted({"not": "a prompt"}))) == ""
    assert first_prompt(build_session(prompted("x" * 10_000))) == "x" * 120  # (the cell shows its own "…")
    assert first_prompt(build_session(prompted("\x1b[31m" * 10_000))).startswith("\\x1b[31m")  # inert


def test_a_failed_session_without_title_or_prompt_shows_its_error():
    node = session(turn(1, op("tool", name="ls")))
    node.update(success=False, error="token budget exceeded", endedAt=5000)
    assert row_title(build_session(node)) == "token budget exceeded"


def test_models_main_first_and_last_activity():
    child = session(turn(1, op("llm", model="small", provider="p", started=1000, ended=9000),
                         op("llm", model="small", provider="p", started=1000, ended=2000)), agent="child")
    node = session(turn(1, op("llm", model="big", provider="p", started=1000, ended=2000),
                        op("session", child=child, started=1000, ended=None, status=None),
                        op("tool", name="ls", started=1500, ended=4000)))
    facts = tree_facts(build_session(node))
    assert facts.models == ("big", "small")  # the session's own LLM calls before its sub-agents'
    assert facts.last_activity_ms == 9000  # the newest time anywhere in the tree
    assert model_label(facts.models) == "big +1" and model_label(("one",)) == "one" and model_label(()) == ""


def test_a_name_is_kept_flat_short_and_shared():
    from tui.model.fields import one_line

    for name in ("grep\nlines", "\x1b[31mred", "x" * 100, "y" * 10 * NAME_MAX, ""):
        shown = row_name(name)
        assert shown == one_line(name, NAME_MAX) and row_name(name) == shown  # remembered or not: the same
    built = "".join(["agent", "__", "docs"])  # equal to a name met before, another string object
    assert row_name(built) is row_name("agent__docs")  # one string however many rows hold it


def test_a_live_row_keeps_its_title_and_counts_events_apart():
    s = build_session(prompted("Find the flaky test"))
    row = live_session_row("root-1", s, 1234, 5, 1_800_000_000.0)
    assert row.key == LIVE_PREFIX + "root-1" and row.kind == RowKind.LIVE and row.loaded
    assert row.title == "Find the flaky test"  # no "[live · N events · M gaps]" prefix any more
    assert (row.events, row.gaps, row.mtime) == (1234, 5, 1_800_000_000.0)
    assert row.models == ("m1",)


def test_session_liveness_for_the_totals_panel():
    node = session(turn(1, op("llm", model="m", provider="p", started=1000, ended=42_000)))
    node.pop("endedAt", None)
    node.pop("success", None)
    node["startedAt"] = 1000
    s = build_session(node)
    assert s.status == "running"
    now_s = 1_800_000_000.0
    fresh = session_liveness(s, now_s=now_s, last_change_s=now_s - 5, stale_after_s=600)
    # up to its last activity, alive or not: every view says the same (issue 26: the screen's clock ticked)
    assert (fresh.status, fresh.duration_ms) == ("running", 41_000)
    dead = session_liveness(s, now_s=now_s, last_change_s=now_s - 86400, stale_after_s=600)
    assert (dead.status, dead.duration_ms) == ("stale", 41_000)  # not 5,000 hours
