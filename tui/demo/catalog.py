"""Fixed catalogs the generator draws from (models and prices, agents, tools, domains, tables, metric contexts,
error slugs, ingress attributes, titles, status lines) and its filler: prose from a fixed corpus, random ids and
the hostile strings a terminal UI must show literally. Every function takes a seeded ``random.Random``."""

from __future__ import annotations

import random
from typing import Any

import orjson

# provider -> [(model, actualModel, prices per MTok (in, out, cacheRead, cacheWrite), thinking-capable)]
MODELS: dict[str, list[tuple[str, str, tuple[float, float, float, float], bool]]] = {
    "anthropic": [
        ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929", (3.0, 15.0, 0.30, 3.75), True),
        ("claude-haiku-4-5", "claude-haiku-4-5-20251001", (1.0, 5.0, 0.10, 1.25), False),
        ("claude-opus-4-1", "claude-opus-4-1-20250805", (15.0, 75.0, 1.50, 18.75), True),
    ],
    "openai": [
        ("gpt-4o", "gpt-4o-2024-08-06", (2.5, 10.0, 1.25, 0.0), False),
        ("gpt-4.1-mini", "gpt-4.1-mini-2025-04-14", (0.4, 1.6, 0.10, 0.0), False),
        ("gpt-5", "gpt-5-2025-08-07", (1.25, 10.0, 0.125, 0.0), True),
    ],
    "openrouter": [
        ("anthropic/claude-sonnet-4.5", "anthropic/claude-sonnet-4.5", (3.0, 15.0, 0.30, 3.75), True),
        ("google/gemini-2.5-pro", "google/gemini-2.5-pro", (1.25, 10.0, 0.31, 0.0), True),
        ("openai/gpt-5-mini", "openai/gpt-5-mini", (0.25, 2.0, 0.025, 0.0), False),
    ],
    "google": [
        ("gemini-2.5-pro", "gemini-2.5-pro", (1.25, 10.0, 0.31, 0.0), True),
        ("gemini-2.5-flash", "gemini-2.5-flash", (0.30, 2.50, 0.075, 0.0), True),
        ("gemini-2.5-flash-lite", "gemini-2.5-flash-lite", (0.10, 0.40, 0.025, 0.0), False),
    ],
    "ollama": [  # local models: no cost
        ("qwen3:8b", "qwen3:8b", (0.0, 0.0, 0.0, 0.0), True),
        ("llama3.1:8b", "llama3.1:8b", (0.0, 0.0, 0.0, 0.0), False),
        ("gpt-oss:20b", "gpt-oss:20b", (0.0, 0.0, 0.0, 0.0), True),
    ],
}
OPENROUTER_UPSTREAM = {
    "anthropic/claude-sonnet-4.5": ("Anthropic", "Google Vertex", "Amazon Bedrock"),
    "google/gemini-2.5-pro": ("Google AI Studio", "Google Vertex"),
    "openai/gpt-5-mini": ("OpenAI",),
}
CHEAP = {"anthropic": 1, "openai": 1, "openrouter": 2, "google": 2, "ollama": 1}

# agent -> (tools, sub-agents)
AGENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "web-research": (("web__search", "web__fetch", "agent__task_status"), ("web-search", "web-fetch", "github-search")),
    "neda": (("netdata__query_metrics", "netdata__list_nodes", "slack__search_messages", "agent__task_status"),
             ("bigquery", "hubspot", "web-research", "github-search", "docs-search")),
    "research": (("web__search", "docs__search", "agent__task_status"), ("web-fetch", "web-search", "docs-search")),
    "bigquery": (("bigquery__execute_sql", "bigquery__list_tables", "bigquery__get_table_schema"), ("docs-search",)),
    "web-search": (("web__search", "web__fetch"), ("web-fetch",)),
    "web-fetch": (("web__fetch",), ("docs-search",)),
    "github-search": (("github__search_code", "github__get_file_contents", "shell__rg"), ("web-fetch",)),
    "hubspot": (("hubspot__search_objects", "hubspot__get_object"), ("bigquery",)),
    "docs-search": (("docs__search", "web__fetch"), ("web-fetch",)),
    "tool_output.read_grep": (("tool_output_fs__Read", "tool_output_fs__Grep"), ()),
}
ROOT_AGENTS = ("web-research", "neda", "research", "bigquery", "github-search")

# tool -> (provider, kind, description)
TOOLS: dict[str, tuple[str, str, str]] = {
    "web__search": ("brave", "mcp", "Search the web. Returns titles, URLs and snippets."),
    "web__fetch": ("fetcher", "mcp", "Fetch a URL and return its content as markdown."),
    "docs__search": ("docs", "mcp", "Search the product documentation."),
    "bigquery__execute_sql": ("bigquery", "mcp", "Run a read-only SQL query on BigQuery and return rows."),
    "bigquery__list_tables": ("bigquery", "mcp", "List tables of a dataset."),
    "bigquery__get_table_schema": ("bigquery", "mcp", "Describe the columns of a table."),
    "netdata__query_metrics": ("netdata", "rest", "Query time-series metrics from Netdata Cloud."),
    "netdata__list_nodes": ("netdata", "rest", "List the nodes of a space/room."),
    "slack__search_messages": ("slack", "mcp", "Search Slack messages."),
    "github__search_code": ("github", "mcp", "Search code on GitHub."),
    "github__get_file_contents": ("github", "mcp", "Get the contents of a file in a repository."),
    "shell__rg": ("shell", "command", "Run ripgrep on the local checkout."),
    "hubspot__search_objects": ("hubspot", "rest", "Search HubSpot CRM objects."),
    "hubspot__get_object": ("hubspot", "rest", "Get one HubSpot CRM object."),
    "agent__task_status": ("agent", "agent", "Report task progress to the user."),
    "agent__final_report": ("agent", "agent", "Deliver the final report."),
    "tool_output_fs__Read": ("tool_output_fs", "mcp", "Read lines of a stored tool output."),
    "tool_output_fs__Grep": ("tool_output_fs", "mcp", "Search a stored tool output with a regular expression."),
}
TOOL_SCHEMA = {"type": "object",
               "properties": {"query": {"type": "string", "description": "What to look for"},
                              "limit": {"type": "integer"}},
               "required": ["query"], "additionalProperties": False}
DOMAINS = ("learn.netdata.cloud", "github.com", "community.netdata.cloud", "docs.python.org", "en.wikipedia.org",
           "stackoverflow.com", "www.postgresql.org", "kubernetes.io", "blog.cloudflare.com", "news.ycombinator.com")
TABLES = ("analytics.events", "analytics.sessions", "billing.invoices", "billing.subscriptions", "cloud.spaces",
          "cloud.nodes", "cloud.claims", "crm.deals", "telemetry.agent_installs")
CONTEXTS = ("system.cpu", "system.ram", "disk.io", "net.net", "apps.cpu", "cgroup.mem", "mysql.queries",
            "nginx.requests", "postgres.connections", "k8s.pod_cpu")
ERR_SLUGS = ("timeout", "token_budget_exceeded", "mcp_error", "invalid_parameters", "rate_limited")
LLM_ERR = (
    ("token_budget_exceeded", "context window budget exceeded: 201345 tokens > 200000"),
    ("rate_limited", "429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit"),
    ("overloaded", "529 overloaded_error: Overloaded"),
    ("timeout", "LLM request timed out after 120000 ms"),
)
INGRESS = (
    {"source": "slack", "channel": "#support-escalations", "user": "U04KJ2D7Q", "threadTs": "1774991234.004519"},
    {"source": "api", "headend": "openai-compatible", "remote": "10.20.3.14"},
    {"source": "mcp", "client": "claude-desktop", "version": "0.13.1"},
    {"source": "cli", "cwd": "/home/ops/agents", "tty": True},
)
TITLES = ("Investigate CPU spikes on production parents", "Weekly churn analysis", "Why did claims drop last week?",
          "Summarize open GitHub issues about streaming", "Compare nginx latency across regions",
          "Draft answer for support ticket", "Find customers with failed invoices")
STATUSES = ("Querying metrics for the last 24h", "Fetching documentation pages", "Waiting for sub-agents",
            "Cross-checking results with BigQuery", "Writing the final report")

#: Strings a terminal UI must render literally (escape sequences, Rich markup).
HOSTILE_STRINGS: tuple[str, ...] = ("\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "[bold red]not markup[/]",
                                    "[link=https://evil.example]click[/link]", "\x1b[2J\x1b[Hcleared?",
                                    "tab\there\rcarriage [/] [[escaped]]")
_WORDS = (
    "the a of to and in for on with by from as at is are was be this that these those it its we our "
    "query metric metrics node nodes chart charts alert alerts dimension dimensions latency cpu memory disk "
    "network bandwidth packet packets error errors warning timeout retry retries request requests response "
    "responses token tokens cache cached budget cost session sessions agent agents tool tools report result "
    "results table tables dataset datasets row rows column columns schema select where group order limit join "
    "customer customers account accounts invoice invoices subscription subscriptions revenue churn trial plan "
    "plans space spaces room rooms claim claimed agent_id netdata cloud parent child streaming replication "
    "database tier tiers retention ingestion collector collectors plugin plugins python go ebpf systemd "
    "journal logs log kubernetes pod pods container containers cgroup cgroups docker postgres mysql redis nginx "
    "apache haproxy prometheus exporter endpoint endpoints http https api json yaml config configuration "
    "dashboard dashboards anomaly anomalies ml model models training trained detection score scores rate "
    "average median p95 p99 percentile spike spikes drop drops increase decrease trend trends week weeks day "
    "days hour hours minute minutes second seconds last previous next first total totals summary summarize "
    "analysis analyze investigate found shows showing indicates suggests likely because however therefore "
    "also only more less than most least each every some many few several across between within during "
    "after before since until while when which who what how why search searching fetched fetch page pages "
    "source sources documentation docs github issue issues pull commit commits release releases version "
    "versions upgrade upgraded deploy deployed deployment incident incidents outage outages root cause fix "
    "fixed patch patched user users team teams support ticket tickets slack channel thread message messages "
    "hubspot deal deals pipeline stage contact contacts company companies owner owners region regions "
    "europe america asia production staging cluster clusters host hosts virtual physical instance instances"
).split()
_corpus: list[str] = []  # built once: 60,000 words of seeded sentences
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _get_corpus() -> str:
    if not _corpus:
        r, out, n = random.Random(0x5EED), [], 0
        while n < 60_000:
            k = r.randint(6, 22)
            sent = [_WORDS[r.randrange(len(_WORDS))] for _ in range(k)]
            sent[0] = sent[0].capitalize()
            if r.random() < 0.15:
                sent.insert(r.randrange(1, k), str(r.randint(2, 98_000)))
            if r.random() < 0.1:
                sent.insert(r.randrange(1, k), f"{r.randint(1, 99)}.{r.randint(0, 9)}%")
            out.append(" ".join(sent) + r.choice((".", ".", ".", ".", "?", ":", ";")))
            n += k
        _corpus.append(" ".join(out) + " ")
    return _corpus[0]


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
    return "".join(alphabet[rng.randrange(len(alphabet))] for _ in range(n))


def _task_status(rng: random.Random) -> dict[str, Any]:
    now = rng.choice(STATUSES)
    return {"status": "in-progress", "done": sentence(rng, 20, 50), "pending": sentence(rng, 20, 50), "now": now}


def _handle(s: Any) -> str:
    """The handle of the stored output a read-grep session reads (named in its prompt)."""
    return s.user.rsplit("`", 2)[-2] if s.user.count("`") >= 2 else "handle"


_SQL = ("SELECT account_id, COUNT(*) AS n, SUM(amount) AS total FROM `netdata-analytics.{}` WHERE created_at >= "
        "TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL {} DAY) GROUP BY account_id ORDER BY total DESC LIMIT {}")
#: tool -> its parameters (a read-grep's Read/Grep name the handle of the stored output the session reads)
TOOL_PARAMS = {
    "web__search": lambda r, s: {"query": sentence(r, 20, 60).rstrip("."), "count": r.choice((5, 10, 20))},
    "web__fetch": lambda r, s: {"url": f"https://{r.choice(DOMAINS)}/{text(r, 30).replace(' ', '-').lower()}",
                                "format": "markdown"},
    "docs__search": lambda r, s: {"query": sentence(r, 15, 50).rstrip("."), "limit": 8},
    "bigquery__execute_sql": lambda r, s: {"sql": _SQL.format(r.choice(TABLES), r.randint(1, 90),
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
    "agent__task_status": lambda r, s: _task_status(r),
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
                "data": [[1775000000 + i * 60, round(rng.random() * 100, 2), round(rng.random() * 100, 2),
                          round(rng.random() * 100, 2)] for i in range(min(max(1, size // 40), 400))],
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
