"""Soft wrap in TextLines and the payload viewer (z toggles it), and the messages view of an LLM call: role labels,
the system prompt folded to one line and expanded with Enter. Driven through App.run_test() + Pilot."""

from __future__ import annotations

import json
import time

from textual.app import App

from helpers.payloadfixtures import SSE, b64, llm_op
from helpers.payloadhelpers import PayloadApp, header, op_of, settled, visible
from helpers.waiting import wait_for
from tui.ui.widgets.text_lines import WIDE_WRAP_CHARS, TextLines

TEN_MB = 10 * 1024 * 1024


class LinesApp(App):
    def __init__(self, lines, wrap: bool = True) -> None:
        super().__init__()
        self.lines, self.wrap = lines, wrap

    def compose(self):
        yield TextLines(id="tl")

    def on_mount(self) -> None:
        self.query_one(TextLines).set_lines(self.lines, wrap=self.wrap)


def rows(tl: TextLines) -> list[str]:
    return [tl.render_line(y).text.rstrip() for y in range(tl.scrollable_content_region.height)]


async def test_wrap_folds_long_lines_at_the_width_and_maps_lines_to_rows():
    lines = ["short", "a" * 200 + "b" * 50, "", "\x1b[31mred\x1b[0m\ttab " * 20, "界" * 100, "end"]
    app = LinesApp(lines)
    async with app.run_test(size=(80, 24)) as pilot:
        tl = app.query_one(TextLines)
        await pilot.pause()
        width = tl.size.width - tl.styles.scrollbar_size_vertical
        shown = rows(tl)
        assert shown[0] == "short"
        assert shown[1] == "a" * width and shown[2] == "a" * width and shown[3].startswith("a" * (200 - 2 * width))
        assert tl.line_to_row(2) == 5 and tl.row_to_line(3) == (1, 2) and shown[5] == ""
        escaped = "".join(shown[6:6 + tl.line_to_row(4) - 6])
        assert "\x1b" not in escaped and "\\x1b[31mred\\x1b[0m" in escaped  # inert, tabs expanded
        wide = shown[tl.line_to_row(4):tl.line_to_row(5)]
        assert "".join(wide) == "界" * 100 and all(len(r) * 2 <= width for r in wide)
        assert shown[tl.line_to_row(5)] == "end"
        assert tl.virtual_size.width == width and tl.max_scroll_x == 0
        tl.set_wrap(False)
        await pilot.pause()
        assert rows(tl)[:3] == ["short", ("a" * 200 + "b" * 50)[:tl.size.width - 2].rstrip(), ""] or \
            rows(tl)[1].startswith("a" * (tl.size.width - 2))
        assert tl.line_to_row(5) == 5 and tl.virtual_size.height == len(lines)


async def test_a_10_mb_single_line_opens_wrapped_at_once_and_scrolls_to_its_end():
    line = ("0123456789abcdef" * (TEN_MB // 16))[:-3] + "END"
    app = LinesApp([])
    async with app.run_test(size=(160, 48)) as pilot:
        tl = app.query_one(TextLines)
        await pilot.pause()
        started = time.thread_time()
        tl.set_lines([line], wrap=True)
        first = rows(tl)
        first_paint = time.thread_time() - started
        width = tl.size.width - tl.styles.scrollbar_size_vertical
        assert first[0] == line[:width]
        assert tl.virtual_size.height == -(-len(line) // width)
        await pilot.pause()  # laid out: the vertical scrollbar is there to scroll with
        await pilot.press("end")
        assert await wait_for(pilot, lambda: rows(tl)[-1].endswith("END"))  # End animates
        started = time.thread_time()
        tl.set_lines(["é" + line], wrap=True)  # not ASCII: made inert and cut by slicing all the same
        rows(tl)
        non_ascii = time.thread_time() - started
        print(f"10 MB one-line payload, wrap on: first paint {first_paint * 1000:.0f} ms (ASCII), "
              f"{non_ascii * 1000:.0f} ms (with a non-ASCII character)")
        assert first_paint < 0.3 and non_ascii < 0.5


async def test_a_huge_line_of_wide_characters_is_wrapped_up_to_a_cap():
    app = LinesApp(["界" * (WIDE_WRAP_CHARS + 5000)])
    async with app.run_test(size=(80, 24)) as pilot:
        tl = app.query_one(TextLines)
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        assert rows(tl)[-1] == "… (5,000 more characters not wrapped)"


async def test_a_million_lines_wrap_without_holding_the_ui():
    """200,000 lines (a million before: the same chunks and jumps, and 2 s more measuring them all at the jump),
    half of them folded: measuring them all at once takes ~0.5 s, set_lines measures one chunk."""
    lines = [f"line {i} " + "x" * (i % 200) for i in range(200_000)]
    app = LinesApp([])
    async with app.run_test(size=(80, 24)) as pilot:
        tl = app.query_one(TextLines)
        await pilot.pause()
        started = time.thread_time()
        tl.set_lines(lines, wrap=True)
        assert time.thread_time() - started < 0.2  # one measuring chunk, the rest on timers
        unmeasured = tl.row_count  # the lines not measured yet count one row each
        assert rows(tl)[0] == "line 0"
        row = tl.line_to_row(199_999)  # a jump measures what it needs
        assert tl.row_to_line(row) == (199_999, 0)
        assert tl.row_count > unmeasured, "set_lines measured every line at once"
        tl.scroll_to_line(199_990)
        await pilot.pause()
        assert rows(tl)[0] == "line 199990"  # folded after the space: the x's do not fit on its row


# --- the payload viewer --------------------------------------------------------------------------------------


SYSTEM = "[bold]Obey[/bold] \x1b[2J You are the build agent.\n" + "Rule.\n" * 400
REQUEST = {
    "model": "claude-x", "max_tokens": 100, "system": SYSTEM,
    "tools": [{"name": "search", "input_schema": {"type": "object"}}],
    "messages": [
        {"role": "user", "content": "Find cats " + "please " * 40},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "search",
                                           "input": {"q": "cats"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9",
                                      "content": [{"type": "text", "text": "3 cats found"}]}]},
    ],
}


def llm_call(request: dict) -> object:
    return op_of(llm_op({"raw": {"format": "json", "encoding": "base64", "value": b64(json.dumps(request))}},
                        {"raw": {"format": "sse", "encoding": "base64", "value": b64(SSE)}}))


async def test_messages_view_labels_roles_folds_the_system_prompt_and_enter_expands_it():
    app = PayloadApp(llm_call(REQUEST))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settled(pilot)
        assert screen.view_name == "messages" and " messages " in header(screen) and "wrap" in header(screen)
        shown = visible(screen)
        assert shown[0] == "Anthropic Messages request + response · model claude-x · 3 messages · tools: search"
        assert shown[2] == \
            f"▸ system · {len(SYSTEM):,} chars · Enter expands · [bold]Obey[/bold] \\x1b[2J You are the…"
        assert "\x1b" not in shown[2]  # plain text, inert
        assert "Rule." not in shown
        assert shown[4] == "── user"
        assert shown[5] == "Find cats" + " please" * 15 and shown[6] == "please" + " please" * 16  # at word ends
        assert shown[7] == "please" + " please" * 7
        for label in ("── assistant", "← tool result search [toolu_9]", "  3 cats found",
                      "── assistant · response", "usage input_tokens=5"):
            assert label in shown, label
        assert screen.body.line_style(4, "── user") is not None  # role headings are coloured

        await pilot.press("enter")
        shown = visible(screen)
        assert shown[2] == "▾ system · Enter collapses" and shown[3].startswith("[bold]Obey[/bold] \\x1b[2J You")
        assert shown[4:8] == ["Rule."] * 4
        await pilot.press("enter")
        assert visible(screen)[2].startswith("▸ system")

        await pilot.press("r")  # the request side shows the same conversation at once
        screen = await settled(pilot)
        assert screen.capture.side == "request" and screen.view_name == "messages"
        assert visible(screen)[0].startswith("Anthropic Messages request + response")


async def test_enter_is_offered_only_where_a_system_prompt_folds():
    request = {k: v for k, v in REQUEST.items() if k != "system"}
    request["anthropic_version"] = "2023-06-01"
    app = PayloadApp(llm_call(request))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settled(pilot)
        assert screen.view_name == "messages"
        assert screen.check_action("toggle_system", ()) is False
        await pilot.press("enter")  # nothing to fold: a notice, nothing moves
        assert visible(screen)[2] == "── user"
    app = PayloadApp(llm_call(REQUEST))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settled(pilot)
        assert screen.check_action("toggle_system", ()) is True
        await pilot.press("v")
        assert screen.view_name == "text" and screen.check_action("toggle_system", ()) is False


async def test_z_toggles_wrap_per_view_json_and_raw_start_unwrapped_hex_never_wraps():
    long_value = "v" * 500
    body = json.dumps({"key": long_value, "n": 1})
    op = op_of(llm_op(None, {"raw": {"format": "json", "encoding": "base64", "value": b64(body)}}))
    app = PayloadApp(op)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await settled(pilot)
        assert screen.view_name == "text" and screen.body.wrap and "  wrap  view" in header(screen)
        shown = visible(screen)
        assert shown[1] == '  "key":'  # folded at the space, at 98 columns, continuing under the key (2 in):
        assert shown[2] == '  "' + "v" * 95 and shown[3] == "  " + "v" * 96
        await pilot.press("z")
        assert not screen.body.wrap and "  nowrap  view" in header(screen)
        shown = visible(screen)
        assert shown[1].startswith('  "key": "vvv') and shown[2] == '  "n": 1'
        await pilot.press("right")
        await pilot.pause()
        assert screen.body.scroll_offset.x > 0  # unwrapped: scrolls sideways
        await pilot.press("v")  # raw: unwrapped by default
        assert screen.view_name == "raw" and not screen.body.wrap
        await pilot.press("z")
        assert screen.body.wrap and visible(screen)[:2] == ['{"key":', '"' + "v" * 97]
        await pilot.press("v")
        assert screen.view_name == "hex" and not screen.body.wrap
        await pilot.press("z")
        assert not screen.body.wrap
        await pilot.press("v")  # back to text: still as toggled (off)
        assert screen.view_name == "text" and not screen.body.wrap
        await pilot.press("v")
        assert screen.view_name == "raw" and screen.body.wrap


async def test_wrap_follows_a_resize():
    body = "w" * 300
    op = op_of(llm_op(None, {"raw": {"format": "text", "encoding": "base64", "value": b64(body)}}))
    app = PayloadApp(op)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await settled(pilot)
        assert visible(screen)[0] == "w" * 98
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert visible(screen)[:4] == ["w" * 78, "w" * 78, "w" * 78, "w" * 66]


async def test_no_messages_view_for_an_answer_alone_or_for_two_request_shaped_bodies():
    answer_only = op_of(llm_op(None, {"raw": {"format": "sse", "encoding": "base64", "value": b64(SSE)}}))
    state = json.dumps({"messages": [{"role": "user", "content": "hi"}]})
    two_states = op_of(llm_op({"raw": {"format": "json", "encoding": "base64", "value": b64(state)}},
                              {"raw": {"format": "json", "encoding": "base64", "value": b64(state)}}))
    for op in (answer_only, two_states):
        app = PayloadApp(op)
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await settled(pilot)
            assert screen.view_name == "text" and " messages " not in header(screen)
