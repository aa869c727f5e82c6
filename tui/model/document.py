"""A loaded input, whatever its format: the record every format reader hands over (the session tree, the format id,
where its payload refs resolve, an accounting summary or a foreign store). Pure data, so that readers, renderings and
the app all depend on it without depending on each other; the loaders are in tui.formats.load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tui.model.nodes import Session
from tui.model.totals import Totals

SNAPSHOT = "aiagent-snapshot"
LEDGER = "aiagent-ledger"
ACCOUNTING = "aiagent-accounting"
JULES = "jules-snapshot"  # the other snapshot systems of the seeds: tui.formats.foreign_load
GENKIT = "genkit-snapshots"
CODEX = "codex-session"  # other agents' own session files: tui.formats.codex, tui.formats.gemini_cli
GEMINI_CLI = "gemini-cli-session"


@dataclass(slots=True)
class AccountingSummary:
    totals: Totals = field(default_factory=Totals)
    entries: int = 0
    llm: int = 0
    tool: int = 0
    failed: int = 0
    other: int = 0
    duplicates: int = 0  # lines that repeat an entry counted already (the producer re-appends sub-agents' entries)

    def counts(self) -> dict:
        return {"entries": self.entries, "llm": self.llm, "tool": self.tool, "failed": self.failed,
                "duplicates": self.duplicates}


@dataclass
class Document:
    format: str
    path: str
    root: Session | None = None
    sessions_dir: Path | None = None  # where `ref` payload paths and child ledgers resolve
    shape: str = ""  # "file-v1" | "file-v2" | "envelope" | "bare" | "ledger" | "accounting"
    reason: str = ""
    version: int | None = None
    session_id: str = ""
    origin_id: str = ""
    timestamp: int | None = None
    accounting: AccountingSummary | None = None
    problems: list[str] = field(default_factory=list)
    extra: object = None  # JulesSnapshot / GenkitStore for those formats
