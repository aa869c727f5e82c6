"""What `y` says after a copy. The text goes to the clipboard as an OSC 52 escape, which the terminal may drop
without telling anyone: tmux forwards it only with `set -g set-clipboard on`, GNU screen not at all. The notice
names the case it can see from the environment, so "copied" is never a silent lie."""

from __future__ import annotations

import os
from collections.abc import Mapping

TMUX_HINT = "in tmux this needs `set -g set-clipboard on`"
SCREEN_HINT = "GNU screen does not pass it on: copy outside screen"


def copy_notice(what: str, environ: Mapping[str, str] | None = None) -> str:
    """`copied N ... (OSC 52)`, with the multiplexer's caveat when one is in the way."""
    env = os.environ if environ is None else environ
    if env.get("TMUX"):
        return f"{what} (OSC 52; {TMUX_HINT})"
    if env.get("STY"):
        return f"{what} (OSC 52; {SCREEN_HINT})"
    return f"{what} (OSC 52: a terminal that does not allow it drops it silently)"
