"""The fixed catalogs (data.json) and the filler (prose, ids) the generator draws with a seeded ``random.Random``."""

from __future__ import annotations

import functools
import random
import re
import time
import uuid
from importlib.resources import files
from typing import Any

import orjson

#: The fixed catalogs and canned texts, data not code (tui/demo/data.json ships in the wheel with tui/).
DATA: dict[str, Any] = orjson.loads(files("tui.demo").joinpath("data.json").read_bytes())
MODELS: dict[str, list[Any]] = DATA["models"]  # provider -> [model, actualModel, prices/MTok (in, out, cR, cW), thinks]
AGENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # agent -> (tools, sub-agents)
    k: (tuple(tools), tuple(subs)) for k, (tools, subs) in DATA["agents"].items()}
TOOLS: dict[str, list[str]] = DATA["tools"]  # tool -> (provider, kind, description)
DOMAINS, TABLES, CONTEXTS = DATA["domains"], DATA["tables"], DATA["contexts"]
TITLES, STATUSES = DATA["titles"], DATA["statuses"]
#: Strings a terminal UI must render literally (escape sequences, Rich markup).
HOSTILE_STRINGS: tuple[str, ...] = tuple(DATA["hostile_strings"])
_WORDS = DATA["words"].split()
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def iso(ms: int, nanos: int | None = None) -> str:
    """UTC ISO 8601 with milliseconds, or with nanoseconds (``nanos`` below the millisecond: Go's and Ollama's)."""
    frac = f"{ms % 1000:03d}" if nanos is None else f"{(ms % 1000) * 1_000_000 + nanos:09d}"
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{frac}Z"


def fill(template: Any, values: dict[str, Any]) -> Any:
    """A template's copy, ``$name`` -> ``values[name]`` (a whole ``"$name"``: the value); a None value drops its key."""
    if isinstance(template, dict):
        return {k: v for k, t in template.items() if (v := fill(t, values)) is not None or t is None}
    if isinstance(template, list):
        return [fill(t, values) for t in template]
    if not isinstance(template, str) or "$" not in template:
        return template
    if template[0] == "$" and template[1:] in values:
        return values[template[1:]]
    return re.sub(r"\$(\w+)", lambda m: str(values[m.group(1)]), template)


def uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


@functools.cache
def _get_corpus() -> str:
    r, out, n = random.Random(0x5EED), [], 0
    while n < 60_000:
        k = r.randint(6, 22)
        sent = [r.choice(_WORDS) for _ in range(k)]
        sent[0] = sent[0].capitalize()
        if r.random() < 0.15:
            sent.insert(r.randrange(1, k), str(r.randint(2, 98_000)))
        if r.random() < 0.1:
            sent.insert(r.randrange(1, k), f"{r.randint(1, 99)}.{r.randint(0, 9)}%")
        out.append(" ".join(sent) + r.choice((".", ".", ".", ".", "?", ":", ";")))
        n += k
    return " ".join(out) + " "


def text(rng: random.Random, n: int) -> str:
    """About ``n`` characters of plausible prose (a slice of a fixed corpus, starting at a word)."""
    if n <= 0:
        return ""
    corpus = _get_corpus()
    if n >= len(corpus) - 64:
        return (corpus * (n // len(corpus) + 1))[:n].strip()
    start = rng.randrange(0, len(corpus) - n - 32)
    sp = corpus.find(" ", start)
    sp = start if sp < 0 or sp > start + 24 else sp
    return corpus[sp + 1 : sp + 1 + n].strip()


def sentence(rng: random.Random, lo: int = 30, hi: int = 90) -> str:
    s = text(rng, rng.randint(lo, hi))
    return s[0].upper() + s[1:].rstrip(" .,;:?") + "." if s else "Done."


def rand_id(rng: random.Random, n: int, alphabet: str = B62) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _handle(s: Any) -> str:
    """The handle of the stored output a read-grep session reads (named in its prompt)."""
    return s.user.rsplit("`", 2)[-2] if s.user.count("`") >= 2 else "handle"


#: tool -> its parameters (a read-grep's Read/Grep name the handle of the stored output the session reads)
TOOL_PARAMS = {
    "web__search": lambda r, s: {"query": sentence(r, 20, 60).rstrip("."), "count": r.choice((5, 10, 20))},
    "web__fetch": lambda r, s: {"url": f"https://{r.choice(DOMAINS)}/{text(r, 30).replace(' ', '-').lower()}",
                                "format": "markdown"},
    "docs__search": lambda r, s: {"query": sentence(r, 15, 50).rstrip("."), "limit": 8},
    "bigquery__execute_sql": lambda r, s: {"sql": DATA["sql"].format(r.choice(TABLES), r.randint(1, 90),
                                                                     r.choice((10, 50, 100, 1000)))},
    "bigquery__list_tables": lambda r, s: {"dataset": r.choice(TABLES).split(".")[0]},
    "bigquery__get_table_schema": lambda r, s: {"table": r.choice(TABLES)},
    "netdata__query_metrics": lambda r, s: {"context": r.choice(CONTEXTS), "after": -r.choice((900, 3600, 86400)),
                                            "before": 0, "points": r.choice((60, 120, 300)), "group_by": ["node"],
                                            "aggregation": "average"},
    "netdata__list_nodes": lambda r, s: {"space": "all-nodes", "room": r.choice(("production", "staging", "k8s"))},
    "slack__search_messages": lambda r, s: {"query": text(r, 25), "channel": "#support", "count": 20},
    "github__search_code": lambda r, s: {"q": f"{text(r, 18)} repo:netdata/netdata language:c"},
    "github__get_file_contents": lambda r, s: {"owner": "netdata", "repo": "netdata",
                                               "path": f"src/{text(r, 12).replace(' ', '_')}.c"},
    "shell__rg": lambda r, s: {"pattern": text(r, 14), "path": "src/", "flags": ["-n", "--json"]},
    "hubspot__search_objects": lambda r, s: {"objectType": r.choice(("deals", "companies", "contacts")),
                                             "query": text(r, 20), "limit": 25},
    "hubspot__get_object": lambda r, s: {"objectType": "companies", "id": str(r.randint(10**9, 10**10))},
    "tool_output_fs__Read": lambda r, s: {"file": _handle(s), "offset": r.randrange(0, 4000, 50),
                                          "limit": r.choice((100, 200, 400))},
    "tool_output_fs__Grep": lambda r, s: {"file": _handle(s), "pattern": text(r, 12).split(" ")[0] or "error",
                                          "context": 2},
    "agent__task_status": lambda r, s: fill(DATA["task_status"], {  # (its status line drawn first)
        "now": r.choice(STATUSES), "done": sentence(r, 20, 50), "pending": sentence(r, 20, 50)}),
}


def tool_result(rng: random.Random, name: str, size: int) -> Any:
    if name == "agent__task_status":
        return "ok"
    if name == "web__search":
        items: list[dict[str, str]] = []
        n = 0
        while n < size or not items:
            items.append({"title": sentence(rng, 20, 60), "url": f"https://{rng.choice(DOMAINS)}/{rand_id(rng, 8)}",
                          "description": text(rng, rng.randint(60, 200))})
            n += 120 + len(items[-1]["description"])
        return orjson.dumps({"results": items}).decode()
    if name in ("netdata__query_metrics", "hubspot__get_object") and rng.random() < 0.6:  # an object, not a string
        return {"labels": ["time", "node-a", "node-b", "node-c"],
                "data": [[1775000000 + i * 60, *(round(rng.random() * 100, 2) for _ in range(3))]
                         for i in range(min(max(1, size // 40), 400))],
                "view": {"units": "%", "min": 0, "max": 100}}
    if name == "bigquery__execute_sql":
        lines, n = ["account_id,n,total"], 20
        while n < size:
            lines.append(f"acc-{rng.randint(10000, 99999)},{rng.randint(1, 500)},{rng.randint(10, 90000)}."
                         f"{rng.randint(0, 99):02d}")
            n += len(lines[-1]) + 1
        return "\n".join(lines)
    if name == "web__fetch":
        return f"# {sentence(rng, 20, 60)}\n\n{text(rng, size)}\n\n## Details\n\n{text(rng, size // 4)}"
    return text(rng, max(20, size))
