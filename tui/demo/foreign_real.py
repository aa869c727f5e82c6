"""The Jules and Genkit files the real producers write, for the demo: a Jules activities page (the REST API's
answer, zero values left out) and a Genkit snapshot directory in the shape Genkit's Go code shipped."""

from __future__ import annotations

from pathlib import Path


def add_real_shapes(sessions: Path, *, seed: int, start_ms: int) -> None:
    from tui.demo.genkit import make_genkit_shipped, write_genkit_dir
    from tui.demo.jules import make_jules_activities_page, write_jules

    page = make_jules_activities_page(seed + 1, start_ms=start_ms + 600_000, page_size=30)
    session_id = page["activities"][0]["name"].split("/")[1] if page["activities"] else "page"
    write_jules(sessions, page, name=f"jules-activities-{session_id}.json")
    write_genkit_dir(sessions / "genkit-flow", make_genkit_shipped(seed, start_ms=start_ms + 2_400_000),
                     session_data=False)
