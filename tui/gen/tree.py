"""Build ai-agent ``opTree`` SessionNode dicts shaped like real snapshot files.

Everything is driven by one seeded ``random.Random``: the same arguments always give the same tree.
Pure Python + orjson (never imports textual or rich).
"""

from __future__ import annotations

import base64
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import orjson

from .bodies import HOSTILE_STRINGS, Exchange, ToolCall, Usage, binary_blob, llm_exchange, rand_id, sentence, text

__all__ = ["TOTALS_KEYS", "compute_totals", "iter_sessions", "iter_ops", "make_tree", "op_path_index"]

TOTALS_KEYS = ("tokensIn", "tokensOut", "tokensCacheRead", "tokensCacheWrite", "costUsd", "toolsRun", "agentsRun")

# Default epoch for generated sessions: 2026-04-01T00:00:00Z (+ up to 60 days, seeded).
_BASE_MS = 1_775_001_600_000

_b64 = base64.b64encode
_FULL_CAPTURE_BYTES = 400


# --------------------------------------------------------------------------------------------------
# Totals
# --------------------------------------------------------------------------------------------------


def compute_totals(node: dict) -> dict:
    """Recompute a SessionNode's totals exactly like the producer (plus step ops, for v2 trees).

    Visits every session (root included: ``agentsRun += 1``), the ops of every turn and every step; a ``tool``
    op adds 1 to ``toolsRun``; every ``llm`` accounting entry adds its tokens and cost (cache read =
    ``cacheReadInputTokens`` if not None, else ``cachedTokens``); ``session`` ops recurse into ``childSession``.
    ``costUsd`` is rounded to 4 decimals.
    """
    tin = tout = tcr = tcw = tools = agents = 0
    cost = 0.0
    stack = [node]
    while stack:
        s = stack.pop()
        agents += 1
        for group in (s.get("turns"), s.get("steps")):
            if not isinstance(group, list):
                continue
            for t in group:
                if not isinstance(t, dict):
                    continue
                ops = t.get("ops")
                if not isinstance(ops, list):
                    continue
                for o in ops:
                    if not isinstance(o, dict):
                        continue
                    kind = o.get("kind")
                    if kind == "tool":
                        tools += 1
                    acc = o.get("accounting")
                    if isinstance(acc, list):
                        for a in acc:
                            if not isinstance(a, dict) or a.get("type") != "llm":
                                continue
                            tk = a.get("tokens")
                            if not isinstance(tk, dict):
                                tk = {}
                            tin += tk.get("inputTokens") or 0
                            tout += tk.get("outputTokens") or 0
                            cr = tk.get("cacheReadInputTokens")
                            if cr is None:
                                cr = tk.get("cachedTokens")
                            tcr += cr or 0
                            tcw += tk.get("cacheWriteInputTokens") or 0
                            c = a.get("costUsd")
                            if isinstance(c, (int, float)) and not isinstance(c, bool):
                                cost += c
                    if kind == "session":
                        child = o.get("childSession")
                        if isinstance(child, dict):
                            stack.append(child)
    return {
        "tokensIn": tin,
        "tokensOut": tout,
        "tokensCacheRead": tcr,
        "tokensCacheWrite": tcw,
        "costUsd": round(cost, 4),
        "toolsRun": tools,
        "agentsRun": agents,
    }


# --------------------------------------------------------------------------------------------------
# Walking helpers (handy for tests and writers)
# --------------------------------------------------------------------------------------------------


def iter_sessions(node: dict, depth: int = 0):
    """Yield ``(session, depth)`` for the node and every nested ``childSession`` (pre-order)."""
    yield node, depth
    for group in (node.get("turns") or [], node.get("steps") or []):
        for t in group:
            for o in t.get("ops") or []:
                child = o.get("childSession")
                if isinstance(child, dict):
                    yield from iter_sessions(child, depth + 1)


def iter_ops(node: dict, prefix: str = ""):
    """Yield ``(path, op, turn, session)`` for every turn op of the tree, with the producer's path label."""
    for t in node.get("turns") or []:
        for i, o in enumerate(t.get("ops") or [], 1):
            path = f"{prefix}{t['index']}-{i}"
            yield path, o, t, node
            child = o.get("childSession")
            if o.get("kind") == "session" and isinstance(child, dict):
                yield from iter_ops(child, path + ".")


def op_path_index(node: dict) -> dict[str, str]:
    """``{opId: path}`` for every turn op of the tree."""
    return {o["opId"]: p for p, o, _t, _s in iter_ops(node)}


# --------------------------------------------------------------------------------------------------
# Catalogs
# --------------------------------------------------------------------------------------------------

# provider -> [(model, actualModel, prices per MTok (in, out, cacheRead, cacheWrite), thinking-capable)]
_MODELS: dict[str, list[tuple[str, str, tuple[float, float, float, float], bool]]] = {
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
}
_OPENROUTER_UPSTREAM = {
    "anthropic/claude-sonnet-4.5": ("Anthropic", "Google Vertex", "Amazon Bedrock"),
    "google/gemini-2.5-pro": ("Google AI Studio", "Google Vertex"),
    "openai/gpt-5-mini": ("OpenAI",),
}
_CHEAP = {"anthropic": 1, "openai": 1, "openrouter": 2}

# agent -> (tools, sub-agents)
_AGENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "web-research": (("web__search", "web__fetch", "agent__task_status"), ("web-search", "web-fetch", "github-search")),
    "neda": (
        ("netdata__query_metrics", "netdata__list_nodes", "slack__search_messages", "agent__task_status"),
        ("bigquery", "hubspot", "web-research", "github-search", "docs-search"),
    ),
    "research": (("web__search", "docs__search", "agent__task_status"), ("web-fetch", "web-search", "docs-search")),
    "bigquery": (("bigquery__execute_sql", "bigquery__list_tables", "bigquery__get_table_schema"), ("docs-search",)),
    "web-search": (("web__search", "web__fetch"), ("web-fetch",)),
    "web-fetch": (("web__fetch",), ("docs-search",)),
    "github-search": (("github__search_code", "github__get_file_contents", "shell__rg"), ("web-fetch",)),
    "hubspot": (("hubspot__search_objects", "hubspot__get_object"), ("bigquery",)),
    "docs-search": (("docs__search", "web__fetch"), ("web-fetch",)),
}
_ROOT_AGENTS = ("web-research", "neda", "research", "bigquery", "github-search")

# tool -> (provider, kind, description)
_TOOLS: dict[str, tuple[str, str, str]] = {
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
}
_TOOL_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "What to look for"}, "limit": {"type": "integer"}},
    "required": ["query"],
    "additionalProperties": False,
}
_DOMAINS = ("learn.netdata.cloud", "github.com", "community.netdata.cloud", "docs.python.org", "en.wikipedia.org",
            "stackoverflow.com", "www.postgresql.org", "kubernetes.io", "blog.cloudflare.com", "news.ycombinator.com")
_TABLES = ("analytics.events", "analytics.sessions", "billing.invoices", "billing.subscriptions", "cloud.spaces",
           "cloud.nodes", "cloud.claims", "crm.deals", "telemetry.agent_installs")
_CONTEXTS = ("system.cpu", "system.ram", "disk.io", "net.net", "apps.cpu", "cgroup.mem", "mysql.queries",
             "nginx.requests", "postgres.connections", "k8s.pod_cpu")
_ERR_SLUGS = ("timeout", "token_budget_exceeded", "mcp_error", "invalid_parameters", "rate_limited")
_LLM_ERR = (
    ("token_budget_exceeded", "context window budget exceeded: 201345 tokens > 200000"),
    ("rate_limited", "429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit"),
    ("overloaded", "529 overloaded_error: Overloaded"),
    ("timeout", "LLM request timed out after 120000 ms"),
)
_INGRESS = (
    {"source": "slack", "channel": "#support-escalations", "user": "U04KJ2D7Q", "threadTs": "1774991234.004519"},
    {"source": "api", "headend": "openai-compatible", "remote": "10.20.3.14"},
    {"source": "mcp", "client": "claude-desktop", "version": "0.13.1"},
    {"source": "cli", "cwd": "/home/ops/agents", "tty": True},
)
_TITLES = (
    "Investigate CPU spikes on production parents",
    "Weekly churn analysis",
    "Why did claims drop last week?",
    "Summarize open GitHub issues about streaming",
    "Compare nginx latency across regions",
    "Draft answer for support ticket",
    "Find customers with failed invoices",
)
_STATUSES = (
    "Querying metrics for the last 24h",
    "Fetching documentation pages",
    "Waiting for sub-agents",
    "Cross-checking results with BigQuery",
    "Writing the final report",
)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _b36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out or "0"


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


# --------------------------------------------------------------------------------------------------
# Plan
# --------------------------------------------------------------------------------------------------


@dataclass
class _Plan:
    level: int
    budget: int
    running: bool = False
    failed: bool = False
    children: list[_Plan] = field(default_factory=list)


def _make_plan(rng: random.Random, ops: int, depth: int, fanout: int, running: bool, failed: bool) -> _Plan:
    depth = max(0, depth) if fanout > 0 else 0
    n_sessions = sum(fanout**lvl for lvl in range(depth + 1))
    per = max(4, ops // max(1, n_sessions))

    def build(level: int, run: bool) -> _Plan:
        p = _Plan(level=level, budget=max(4, int(per * rng.uniform(0.7, 1.3))), running=run)
        if level < depth:
            for i in range(fanout):
                p.children.append(build(level + 1, run and i == fanout - 1))
        if level > 0 and not run and rng.random() < 0.04:
            p.failed = True
        return p

    root = build(0, running)
    root.failed = failed and not running
    descendants = 0
    stack = list(root.children)
    while stack:
        c = stack.pop()
        descendants += c.budget
        stack.extend(c.children)
    root.budget = max(4 + len(root.children), ops - descendants)
    return root


# --------------------------------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------------------------------


@dataclass
class _Sess:
    agent: str
    call_path: str
    txn: str
    parent_txn: str | None
    origin: str
    prefix: str
    provider: str
    model: str
    actual_model: str
    prices: tuple[float, float, float, float]
    thinking: bool
    tools: list[dict[str, Any]]
    tool_names: tuple[str, ...]
    system: str
    user: str
    legacy_raw: bool
    t: int
    level: int
    status_text: str | None = None
    title: str = ""
    n_messages: int = 1


class _Gen:
    def __init__(
        self,
        seed: int,
        *,
        version: int,
        payload_bytes: int,
        provider_mix: tuple[str, ...],
        hostile_rate: float,
        style: str,
    ) -> None:
        self.rng = random.Random(seed)
        self.version = version
        self.pb = max(0, int(payload_bytes))
        self.providers = tuple(provider_mix) or ("anthropic",)
        self.hostile_rate = hostile_rate
        self.style = style
        self.origin = ""
        self.headend = self.rng.choice(("cli", "cli", "slack", "api", "mcp"))

    # ---- small helpers -------------------------------------------------------------------------

    def uid(self, ts: int) -> str:
        return f"{_b36(ts)}-{rand_id(self.rng, 6, '0123456789abcdefghijklmnopqrstuvwxyz')}"

    def hostile(self, s: str) -> str:
        if self.hostile_rate > 0 and self.rng.random() < self.hostile_rate:
            h = HOSTILE_STRINGS[self.rng.randrange(len(HOSTILE_STRINGS))]
            return f"{s} {h}"
        return s

    def gap(self) -> int:
        return self.rng.randint(1, 40)

    def pick_model(self, provider: str, cheap: bool = False):
        models = _MODELS.get(provider)
        if models is None:
            return (f"{provider}-default", f"{provider}-default", (1.0, 4.0, 0.25, 0.0), False)
        if cheap:
            return models[_CHEAP.get(provider, 0)]
        return models[self.rng.randrange(len(models))] if self.rng.random() < 0.4 else models[0]

    def capture(self, data: bytes, fmt: str, legacy: bool) -> Any:
        """``payload.raw``/``payload.sdk`` value: object (real files) or plain base64 string (old spec)."""
        if legacy:
            return _b64(data).decode()
        return {"format": fmt, "encoding": "base64", "value": _b64(data).decode()}

    def log(
        self,
        s: _Sess,
        ts: int,
        severity: str,
        turn: int,
        subturn: int,
        path: str | None,
        direction: str,
        typ: str,
        remote: str,
        message: str,
        *,
        tool_kind: str | None = None,
        fatal: bool = False,
        details: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        e: dict[str, Any] = {
            "timestamp": ts,
            "severity": severity,
            "turn": turn,
            "subturn": subturn,
        }
        if path is not None:
            e["path"] = path
        e["direction"] = direction
        e["type"] = typ
        if tool_kind is not None:
            e["toolKind"] = tool_kind
        e["remoteIdentifier"] = remote
        e["fatal"] = fatal
        e["message"] = self.hostile(message)
        e["agentId"] = s.agent
        e["callPath"] = s.call_path
        e["txnId"] = s.txn
        if s.parent_txn is not None:
            e["parentTxnId"] = s.parent_txn
        e["originTxnId"] = s.origin
        if self.rng.random() < 0.08:
            e["agentPath"] = s.call_path
            e["turnPath"] = f"{turn}.{subturn}"
            e["max_turns"] = 100
            e["max_subturns"] = 20
            e["headendId"] = self.headend
        if details:
            e["details"] = details
        return e

    # ---- tools ---------------------------------------------------------------------------------

    def tool_params(self, name: str, s: _Sess) -> dict[str, Any]:
        rng = self.rng
        if name == "web__search":
            return {"query": sentence(rng, 20, 60).rstrip("."), "count": rng.choice((5, 10, 20))}
        if name == "web__fetch":
            return {"url": f"https://{rng.choice(_DOMAINS)}/{text(rng, 30).replace(' ', '-').lower()}",
                    "format": "markdown"}
        if name == "docs__search":
            return {"query": sentence(rng, 15, 50).rstrip("."), "limit": 8}
        if name == "bigquery__execute_sql":
            tbl = rng.choice(_TABLES)
            return {"sql": f"SELECT account_id, COUNT(*) AS n, SUM(amount) AS total FROM `netdata-analytics.{tbl}` "
                           f"WHERE created_at >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL {rng.randint(1, 90)} DAY) "
                           f"GROUP BY account_id ORDER BY total DESC LIMIT {rng.choice((10, 50, 100, 1000))}"}
        if name == "bigquery__list_tables":
            return {"dataset": rng.choice(_TABLES).split(".")[0]}
        if name == "bigquery__get_table_schema":
            return {"table": rng.choice(_TABLES)}
        if name == "netdata__query_metrics":
            return {"context": rng.choice(_CONTEXTS), "after": -rng.choice((900, 3600, 86400)), "before": 0,
                    "points": rng.choice((60, 120, 300)), "group_by": ["node"], "aggregation": "average"}
        if name == "netdata__list_nodes":
            return {"space": "all-nodes", "room": rng.choice(("production", "staging", "k8s"))}
        if name == "slack__search_messages":
            return {"query": text(rng, 25), "channel": "#support", "count": 20}
        if name == "github__search_code":
            return {"q": f"{text(rng, 18)} repo:netdata/netdata language:c"}
        if name == "github__get_file_contents":
            return {"owner": "netdata", "repo": "netdata", "path": f"src/{text(rng, 12).replace(' ', '_')}.c"}
        if name == "shell__rg":
            return {"pattern": text(rng, 14), "path": "src/", "flags": ["-n", "--json"]}
        if name == "hubspot__search_objects":
            return {"objectType": rng.choice(("deals", "companies", "contacts")), "query": text(rng, 20), "limit": 25}
        if name == "hubspot__get_object":
            return {"objectType": "companies", "id": str(rng.randint(10**9, 10**10))}
        if name == "agent__task_status":
            st = rng.choice(_STATUSES)
            return {"status": "in-progress", "done": sentence(rng, 20, 50), "pending": sentence(rng, 20, 50),
                    "now": st}
        return {"query": text(rng, 30)}

    def tool_result(self, name: str, params: dict[str, Any], size: int) -> Any:
        rng = self.rng
        if name == "agent__task_status":
            return "ok"
        if name == "web__search":
            items = []
            n = 0
            while n < size or not items:
                it = {"title": sentence(rng, 20, 60), "url": f"https://{rng.choice(_DOMAINS)}/{rand_id(rng, 8)}",
                      "description": text(rng, rng.randint(60, 200))}
                n += 120 + len(it["description"])
                items.append(it)
            return orjson.dumps({"results": items}).decode()
        if name in ("netdata__query_metrics", "hubspot__get_object") and rng.random() < 0.6:
            # some tools return an object rather than a string
            rows = max(1, size // 40)
            return {
                "labels": ["time", "node-a", "node-b", "node-c"],
                "data": [[1775000000 + i * 60, round(rng.random() * 100, 2), round(rng.random() * 100, 2),
                          round(rng.random() * 100, 2)] for i in range(min(rows, 400))],
                "view": {"units": "%", "min": 0, "max": 100},
            }
        if name == "bigquery__execute_sql":
            rows = ["account_id,n,total"]
            n = 20
            while n < size:
                r = f"acc-{rng.randint(10000, 99999)},{rng.randint(1, 500)},{rng.randint(10, 90000)}.{rng.randint(0, 99):02d}"
                rows.append(r)
                n += len(r) + 1
            return "\n".join(rows)
        if name == "web__fetch":
            return f"# {sentence(rng, 20, 60)}\n\n{text(rng, size)}\n\n## Details\n\n{text(rng, size // 4)}"
        return text(rng, max(20, size))

    # ---- ops -----------------------------------------------------------------------------------

    def usage_for(self, s: _Sess, turn: int, out_extra: int) -> Usage:
        rng = self.rng
        ctx = min(190_000, 2200 + turn * rng.randint(300, 1600) + rng.randint(0, 3000))
        out = rng.randint(40, 1800) + out_extra
        if s.provider == "anthropic":
            if turn <= 1:
                cw = int(ctx * rng.uniform(0.6, 0.9))
                cr = 0
            else:
                cr = int(ctx * rng.uniform(0.55, 0.95))
                cw = int((ctx - cr) * rng.uniform(0.0, 0.8)) if rng.random() < 0.6 else 0
            inp = max(12, ctx - cr - cw)
            return Usage(input=inp, output=out, cache_read=cr, cache_write=cw)
        cached = (int(ctx * rng.uniform(0.3, 0.9)) // 128) * 128 if turn > 1 and rng.random() < 0.8 else 0
        reasoning = out_extra if s.thinking else 0
        return Usage(input=ctx, output=out, cache_read=cached, reasoning=reasoning)

    def cost_for(self, s: _Sess, u: Usage) -> float:
        pin, pout, pcr, pcw = s.prices
        if s.provider == "anthropic":
            c = u.input * pin + u.output * pout + u.cache_read * pcr + u.cache_write * pcw
        else:
            c = (u.input - u.cache_read) * pin + u.cache_read * pcr + u.output * pout
        return round(c / 1e6, 8)

    def llm_op(
        self,
        s: _Sess,
        *,
        turn: int,
        pos: int,
        path: str | None,
        is_final: bool,
        tool_calls: list[ToolCall],
        running: bool = False,
        fail: tuple[str, str] | None = None,
        small: bool = False,
    ) -> dict[str, Any]:
        rng = self.rng
        start = s.t + self.gap()
        op: dict[str, Any] = {
            "opId": self.uid(start),
            "kind": "llm",
            "startedAt": start,
            "attributes": {"provider": s.provider, "model": s.model, "isFinalTurn": is_final},
            "logs": [],
            "accounting": [],
        }
        pb = self.pb // 3 if small else self.pb
        target = int(pb * rng.uniform(0.6, 1.4)) if pb else 0
        s.n_messages = min(25, 2 * turn - 1) if turn > 0 else 1
        remote = f"{s.provider}:{s.model}"
        thinking_txt = ""
        hidden_reasoning = 0
        if s.thinking and not running and fail is None:
            if s.provider == "openai":
                hidden_reasoning = rng.randint(64, 3000)  # OpenAI streams don't carry the reasoning text
            else:
                thinking_txt = text(rng, max(40, int(pb * rng.uniform(0.05, 0.25))) if pb else rng.randint(40, 160))
        text_out = ""
        if not tool_calls or rng.random() < 0.5:
            text_out = text(rng, max(16, int(pb * rng.uniform(0.03, 0.12))) if pb else rng.randint(16, 80))
        latency = int(rng.lognormvariate(8.2, 0.7)) + 300
        end = start + latency
        if not running and rng.random() < 0.3:
            op["logs"].append(
                self.log(s, start, "VRB", turn, 0, path, "request", "llm", remote,
                         f"LLM request: {s.n_messages} messages, {max(1, target // 1024)} KB, tools={len(s.tools)}",
                         details={"messages": s.n_messages, "bytes": target, "tools": len(s.tools)})
            )
        if running:
            # in flight: no endedAt, no status, no accounting, no response yet
            op["request"] = self.llm_request(s, turn, is_final, target, tool_calls, thinking_txt, text_out,
                                             Usage(0, 0), start, "tool_use")[0]
            s.t = start + rng.randint(100, 5000)
            return op
        usage = self.usage_for(s, turn, len(thinking_txt) // 4 + hidden_reasoning)
        if fail is not None:
            slug, msg = fail
            op["request"] = self.llm_request(s, turn, is_final, target, tool_calls, "", "", usage, start, "end_turn")[0]
            status_line = {"rate_limited": "429 Too Many Requests", "overloaded": "529 Overloaded"}.get(
                slug, "400 Bad Request")
            err_body = orjson.dumps({"type": "error", "error": {"type": slug, "message": msg}})
            raw = (f"HTTP/1.1 {status_line}\r\ncontent-type: application/json\r\n\r\n").encode() + err_body
            op["response"] = {"payload": {"raw": self.capture(raw, "http", s.legacy_raw)}, "size": len(raw),
                              "truncated": False}
            op["accounting"].append(
                {
                    "type": "llm",
                    "timestamp": end,
                    "status": "failed",
                    "latency": latency,
                    "provider": s.provider,
                    "model": s.model,
                    "actualProvider": s.provider,
                    "actualModel": s.actual_model,
                    "costUsd": 0,
                    "upstreamInferenceCostUsd": 0,
                    "stopReason": "error",
                    "tokens": self.tokens(s, Usage(0, 0)),
                    "error": msg,
                    "agentId": s.agent,
                    "callPath": s.call_path,
                    "txnId": s.txn,
                    "originTxnId": s.origin,
                    **({"parentTxnId": s.parent_txn} if s.parent_txn else {}),
                }
            )
            op["logs"].append(self.log(s, end, "ERR", turn, 0, path, "response", "llm", remote,
                                       f"LLM request failed: {msg}", fatal=True,
                                       details={"error": slug, "latency_ms": latency}))
            op["attributes"]["latency"] = latency
            op["attributes"]["error"] = slug
            op["endedAt"] = end
            op["status"] = "failed"
            s.t = end
            return op
        stop = "tool_use" if tool_calls else ("max_tokens" if rng.random() < 0.02 else "end_turn")
        req, ex = self.llm_request(s, turn, is_final, target, tool_calls, thinking_txt, text_out, usage, start, stop)
        op["request"] = req
        cost = self.cost_for(s, usage)
        actual_provider = s.provider
        upstream = cost
        if s.provider == "openrouter":
            ups = _OPENROUTER_UPSTREAM.get(s.model, ("OpenRouter",))
            actual_provider = ups[rng.randrange(len(ups))]
            upstream = round(cost * 0.95, 8)
        op["accounting"].append(
            {
                "type": "llm",
                "timestamp": end,
                "status": "ok",
                "latency": latency,
                "provider": s.provider,
                "model": s.model,
                "actualProvider": actual_provider,
                "actualModel": s.actual_model,
                "costUsd": cost,
                "upstreamInferenceCostUsd": upstream,
                "stopReason": stop,
                "tokens": self.tokens(s, usage),
                "agentId": s.agent,
                "callPath": s.call_path,
                "txnId": s.txn,
                "originTxnId": s.origin,
                **({"parentTxnId": s.parent_txn} if s.parent_txn else {}),
            }
        )
        if ex is not None:
            resp_payload: dict[str, Any] = {}
            r = rng.random()
            if r < 0.005:
                resp_payload["raw"] = "[unavailable]"
            elif r < 0.015:
                resp_payload["raw"] = self.capture(binary_blob(rng, rng.randint(16, 96)), "http", s.legacy_raw)
            else:
                resp_payload["raw"] = self.capture(ex.response_raw, ex.response_format, s.legacy_raw)
            if "sdk" in req["payload"]:
                resp_payload["sdk"] = self.capture(ex.sdk_response, "json", s.legacy_raw)
            op["response"] = {"payload": resp_payload, "size": len(ex.response_raw), "truncated": False}
        else:
            op["response"] = {"payload": {"textPreview": text_out[:200]}, "size": len(text_out), "truncated": False}
        if thinking_txt:
            if rng.random() < 0.6:
                op["reasoning"] = {"chunks": [], "final": thinking_txt, "chunkCount": rng.randint(3, 40),
                                   "charCount": len(thinking_txt)}
            else:
                chunks = []
                ts = start + rng.randint(200, 900)
                i = 0
                while i < len(thinking_txt):
                    j = i + rng.randint(40, 240)
                    chunks.append({"text": thinking_txt[i:j], "ts": ts})
                    ts += rng.randint(20, 300)
                    i = j
                op["reasoning"] = {"chunks": chunks}
                if rng.random() < 0.5:
                    op["reasoning"]["final"] = thinking_txt
            if rng.random() < 0.3:
                op["logs"].append(self.log(s, start + latency // 2, "THK", turn, 0, path, "response", "llm", remote,
                                           thinking_txt[:120]))
        if rng.random() < 0.03:
            op["logs"].append(self.log(s, start + latency // 4, "TRC", turn, 0, path, "response", "llm", remote,
                                       f"stream: first token after {latency // 4} ms",
                                       details={"ttft_ms": latency // 4}))
        if rng.random() < 0.03:
            op["logs"].append(self.log(s, start + latency // 3, "WRN", turn, 0, path, "response", "llm", remote,
                                       rng.choice(("LLM response slow: no tokens for 30 s",
                                                   "retrying after 429 rate_limit_error (attempt 2/3)",
                                                   "context window 85% used; consider summarizing"))))
        tk = usage
        op["logs"].append(
            self.log(s, end, "VRB", turn, 0, path, "response", "llm", remote,
                     f"LLM response: stop={stop}, in={tk.input} out={tk.output} cacheR={tk.cache_read} "
                     f"cacheW={tk.cache_write}, {latency} ms, ${cost:.4f}",
                     details={"latency_ms": latency, "input_tokens": tk.input, "output_tokens": tk.output,
                              "cost_usd": cost, "stop_reason": stop})
        )
        op["attributes"]["latency"] = latency
        op["endedAt"] = end
        op["status"] = "ok"
        s.t = end
        return op

    def tokens(self, s: _Sess, u: Usage) -> dict[str, int]:
        if s.provider == "anthropic":
            return {"inputTokens": u.input, "outputTokens": u.output, "cacheReadInputTokens": u.cache_read,
                    "cacheWriteInputTokens": u.cache_write,
                    "totalTokens": u.input + u.output + u.cache_read + u.cache_write}
        return {"inputTokens": u.input, "outputTokens": u.output, "cachedTokens": u.cache_read,
                "totalTokens": u.input + u.output}

    def llm_request(self, s, turn, is_final, target, tool_calls, thinking_txt, text_out, usage, start, stop):
        rng = self.rng
        payload: dict[str, Any] = {"messages": s.n_messages, "bytes": 0, "isFinalTurn": is_final}
        # Below _FULL_CAPTURE_BYTES the budget also thins out how many LLM ops carry raw/sdk captures, so the
        # snapshot size keeps scaling with payload_bytes instead of hitting the floor of minimal SSE streams.
        if not self.pb or (self.pb < _FULL_CAPTURE_BYTES and rng.random() >= self.pb / _FULL_CAPTURE_BYTES):
            payload["bytes"] = target or rng.randint(2000, 90000)
            return {"kind": "llm", "payload": payload, "size": payload["bytes"]}, None
        ex: Exchange = llm_exchange(
            rng,
            provider=s.provider,
            model=s.model,
            system=s.system,
            user_prompt=s.user,
            tools=s.tools,
            n_messages=s.n_messages,
            target_bytes=target,
            thinking=thinking_txt,
            text_out=text_out,
            tool_calls=tool_calls,
            stop_reason=stop,
            usage=usage,
            created_s=start // 1000,
            ts_iso=_iso(start),
            headers=rng.random() < 0.85,
            stream=rng.random() < 0.92,
        )
        payload["messages"] = ex.messages
        payload["bytes"] = ex.request_body_bytes
        r = rng.random()
        legacy = s.legacy_raw or (self.version >= 2 and r < 0.02)
        if r > 0.995:
            payload["raw"] = "[unavailable]"
        else:
            payload["raw"] = self.capture(ex.request_raw, ex.request_format, legacy)
        if rng.random() < 0.9:
            payload["sdk"] = self.capture(ex.sdk_request, "json", legacy)
        return {"kind": "llm", "payload": payload, "size": len(ex.request_raw)}, ex

    def tool_op(self, s: _Sess, *, turn: int, pos: int, sub: int, path: str | None, name: str,
                params: dict[str, Any], running: bool = False, report: str | None = None) -> dict[str, Any]:
        rng = self.rng
        provider, kind, _desc = _TOOLS.get(name, ("mcp", "mcp", ""))
        start = s.t + self.gap()
        attrs: dict[str, Any] = {"name": name, "provider": provider, "kind": kind}
        op: dict[str, Any] = {"opId": self.uid(start), "kind": "tool", "startedAt": start, "attributes": attrs,
                              "logs": [], "accounting": []}
        remote = f"{kind}:{provider}:{name.split('__', 1)[-1]}"
        req_json = orjson.dumps(params)
        op["request"] = {"kind": "tool", "payload": params, "size": len(req_json)}
        if rng.random() < 0.2 or running:
            op["logs"].append(self.log(s, start, "VRB", turn, sub, path, "request", "tool", remote,
                                       f"-> {name}({req_json[:80].decode(errors='replace')})", tool_kind=kind))
        if running:
            s.t = start + rng.randint(50, 3000)
            return op
        latency = int(rng.lognormvariate(6.0, 1.1)) + 5
        end = start + latency
        failed = name not in ("agent__final_report", "agent__task_status") and rng.random() < 0.04
        truncated = False
        if failed:
            slug = rng.choice(_ERR_SLUGS)
            result: Any = self.hostile(f"Tool execution failed: {slug.replace('_', ' ')} ({name})")
            attrs["error"] = slug
        elif name == "agent__final_report":
            result = "Final report accepted."
        else:
            size = max(20, int(self.pb * rng.uniform(0.05, 0.6))) if self.pb else rng.randint(20, 120)
            result = self.tool_result(name, params, size)
            if isinstance(result, str):
                if rng.random() < 0.02:
                    truncated = True
                    result = result[: max(20, len(result) // 2)] + "\n[... response truncated: toolResponseMaxBytes ...]"
                result = self.hostile(result)
        out_len = len(result) if isinstance(result, str) else len(orjson.dumps(result))
        attrs["latency"] = latency
        attrs["size"] = out_len
        acc: dict[str, Any] = {
            "type": "tool",
            "timestamp": end,
            "status": "failed" if failed else "ok",
            "latency": latency,
            "mcpServer": provider,
            "command": name,
            "charactersIn": len(req_json),
            "charactersOut": out_len,
            "agentId": s.agent,
            "callPath": s.call_path,
            "txnId": s.txn,
            "originTxnId": s.origin,
        }
        if s.parent_txn:
            acc["parentTxnId"] = s.parent_txn
        if failed:
            acc["error"] = result
        op["accounting"].append(acc)
        op["response"] = {"payload": result, "size": out_len, "truncated": truncated}
        if failed:
            op["logs"].append(self.log(s, end, "ERR", turn, sub, path, "response", "tool", remote,
                                       f"{name} failed: {attrs['error']} after {latency} ms", tool_kind=kind,
                                       details={"error": attrs["error"], "latency_ms": latency}))
        else:
            op["logs"].append(self.log(s, end, "VRB", turn, sub, path, "response", "tool", remote,
                                       f"<- {name}: {out_len} bytes in {latency} ms", tool_kind=kind,
                                       details={"latency_ms": latency, "bytes": out_len}
                                       if rng.random() < 0.3 else None))
            if truncated:
                op["logs"].append(self.log(s, end, "WRN", turn, sub, path, "response", "tool", remote,
                                           f"{name} response truncated to {out_len} bytes", tool_kind=kind))
            if name == "agent__final_report":
                op["logs"].append(self.log(s, end, "FIN", turn, sub, path, "response", "tool", "agent:final-report",
                                           f"final report accepted ({params.get('report_format', 'markdown')}, "
                                           f"{len(report or '')} chars)", tool_kind=kind))
            if name == "agent__task_status":
                s.status_text = params.get("now")
                if not s.title and rng.random() < 0.5:
                    s.title = rng.choice(_TITLES)
        op["endedAt"] = end
        op["status"] = "failed" if failed else "ok"
        s.t = end
        return op

    def system_op(self, s: _Sess, turn: int, path: str | None, label: str) -> dict[str, Any]:
        rng = self.rng
        start = s.t + self.gap()
        end = start + rng.randint(2, 60)
        op: dict[str, Any] = {"opId": self.uid(start), "kind": "system", "startedAt": start,
                              "attributes": {"label": label}, "logs": [], "accounting": []}
        if label == "init":
            op["logs"].append(self.log(s, start, "INF", turn, 0, path, "request", "llm", "agent:init",
                                       f"session started: agent={s.agent}, model={s.provider}:{s.model}, "
                                       f"tools={len(s.tools)}, headend={self.headend}",
                                       details={"agent": s.agent, "tools": len(s.tools), "maxTurns": 100}))
            op["logs"].append(self.log(s, start + 1, "VRB", turn, 0, path, "request", "llm", "agent:tools",
                                       f"loaded {len(s.tools)} tools from {len({t['name'].split('__')[0] for t in s.tools})} providers"))
            if rng.random() < 0.3:
                op["logs"].append(self.log(s, end, "DBG", turn, 0, path, "request", "llm", "agent:init",
                                           f"system prompt {len(s.system)} chars, user prompt {len(s.user)} chars"))
        else:
            op["logs"].append(self.log(s, start, "FIN", turn, 0, path, "response", "llm", "agent:fin",
                                       "session finished"))
        op["endedAt"] = end
        op["status"] = "ok"
        s.t = end
        return op

    # ---- sessions ------------------------------------------------------------------------------

    def session(self, plan: _Plan, *, agent: str, call_path: str, parent_txn: str | None, prompt: str,
                start: int, prefix: str) -> dict[str, Any]:
        rng = self.rng
        txn = _uuid(rng)
        if not self.origin:
            self.origin = txn
        provider = self.providers[rng.randrange(len(self.providers))]
        model, actual_model, prices, thinking_capable = self.pick_model(provider)
        tool_names, sub_agents = _AGENTS.get(agent, (("web__search",), ("web-fetch",)))
        tools = [{"name": n, "description": _TOOLS[n][2] + " " + text(rng, 60), "schema": _TOOL_SCHEMA}
                 for n in tool_names + ("agent__final_report",)]
        system = (f"You are {agent}, an autonomous agent. " + text(rng, max(200, min(4000, self.pb // 2 or 300))))
        s = _Sess(
            agent=agent, call_path=call_path, txn=txn, parent_txn=parent_txn, origin=self.origin, prefix=prefix,
            provider=provider, model=model, actual_model=actual_model, prices=prices,
            thinking=thinking_capable and rng.random() < 0.7, tools=tools, tool_names=tool_names, system=system,
            user=prompt, legacy_raw=self.version == 1 and rng.random() < 0.5, t=start, level=plan.level,
        )
        node: dict[str, Any] = {
            "id": self.uid(start),
            "traceId": txn,
            "agentId": agent,
            "callPath": call_path,
            "sessionTitle": "",
            "startedAt": start,
        }
        if plan.level == 0 and rng.random() < 0.5:
            node["attributes"] = {"ingress": dict(_INGRESS[rng.randrange(len(_INGRESS))])}
        elif plan.level > 0 and rng.random() < 0.2:
            node["attributes"] = {"ingress": {"source": "sub-agent", "parentTxnId": parent_txn}}
        turns: list[dict[str, Any]] = []
        node["turns"] = turns
        steps: list[dict[str, Any]] | None = None
        budget = plan.budget

        # turn 0: system init
        t0 = {"id": self.uid(s.t), "index": 0, "startedAt": s.t,
              "attributes": {"system": True, "label": "init"}, "ops": []}
        turns.append(t0)
        t0["ops"].append(self.system_op(s, 0, f"{prefix}0-1", "init"))
        t0["endedAt"] = s.t + 1
        s.t += 2
        budget -= 1

        if self.version >= 2 and budget >= 8 and rng.random() < 0.4:
            steps = []
            steps.append({"id": self.uid(t0["startedAt"]), "index": 0, "kind": "system",
                          "startedAt": t0["startedAt"], "endedAt": t0["endedAt"],
                          "attributes": {"label": "init"}, "ops": []})
            adv_start = s.t
            saved = (s.provider, s.model, s.actual_model, s.prices, s.thinking)
            cm, cam, cpr, _ = self.pick_model(s.provider, cheap=True)
            s.model, s.actual_model, s.prices, s.thinking = cm, cam, cpr, False
            n_adv = rng.randint(1, 2)
            adv_ops = [self.llm_op(s, turn=0, pos=i + 1, path=None, is_final=False, tool_calls=[], small=True)
                       for i in range(n_adv)]
            s.provider, s.model, s.actual_model, s.prices, s.thinking = saved
            steps.append({"id": self.uid(adv_start), "index": 1, "kind": "advisors", "startedAt": adv_start,
                          "endedAt": s.t + 1,
                          "attributes": {"advisors": ["cost-advisor", "scope-advisor"][:n_adv]}, "ops": adv_ops})
            budget -= n_adv
            s.t += 2

        # --- plan the user turns
        children = list(plan.children)
        running_child = children.pop() if plan.running and children else None
        if plan.running:
            tail_ops = 2 if (running_child is not None or rng.random() < 0.5) else 1
        elif plan.failed:
            tail_ops = 1
        else:
            tail_ops = 2
        middle = budget - tail_ops - len(children) - (1 if running_child is not None else 0)
        sizes: list[int] = []
        choices = (0, 1, 1, 2, 2, 2, 3, 4, 6)
        m = middle
        while m > 0:
            k = min(choices[rng.randrange(len(choices))], m - 1)
            sizes.append(k)
            m -= 1 + k
        if children and not sizes:
            sizes.append(0)
        turn_plans: list[list[Any]] = []
        for k in sizes:
            specs: list[Any] = []
            for _ in range(k):
                if rng.random() < 0.06 and "agent__task_status" in tool_names:
                    specs.append(("tool", "agent__task_status"))
                else:
                    real = [n for n in tool_names if n != "agent__task_status"] or list(tool_names)
                    specs.append(("tool", real[rng.randrange(len(real))]))
            turn_plans.append(specs)
        for cp_ in children:
            ti = rng.randrange(len(turn_plans))
            specs = turn_plans[ti]
            specs.insert(rng.randint(0, len(specs)), ("session", cp_))

        def child_name(i: int) -> str:
            subs = sub_agents or ("web-fetch",)
            return subs[i % len(subs)]

        child_counter = [0]

        def child_spec(cplan: _Plan) -> tuple[str, str, dict[str, Any]]:
            cname = child_name(child_counter[0] + rng.randrange(3))
            child_counter[0] += 1
            params = {"prompt": sentence(rng, 60, 200), "format": "markdown"}
            return cname, f"agent__{cname}", params

        turn_index = 0
        user_turns: list[tuple[list[Any], str]] = [(tp, "mid") for tp in turn_plans]
        if plan.running:
            if running_child is not None:
                user_turns.append(([("session", running_child)], "running_child"))
            else:
                user_turns.append(([("tool", None)] if tail_ops == 2 else [], "running"))
        elif plan.failed:
            user_turns.append(([], "failed"))
        else:
            user_turns.append(([("final", None)], "final"))

        report_text = ""
        for n, (specs, mode) in enumerate(user_turns):
            turn_index += 1
            tstart = s.t + self.gap()
            s.t = tstart
            turn: dict[str, Any] = {"id": self.uid(tstart), "index": turn_index, "startedAt": tstart}
            if turn_index == 1:
                turn["attributes"] = {"prompts": {"system": s.system, "user": s.user}}
            elif rng.random() < 0.05:
                turn["attributes"] = {"retry": 1, "reason": "invalid tool call"}
            ops: list[dict[str, Any]] = []
            turn["ops"] = ops
            turns.append(turn)
            is_final = mode in ("final", "failed")
            # build tool calls for the llm op from the specs
            calls: list[ToolCall] = []
            resolved: list[tuple[str, Any, str, dict[str, Any]]] = []
            for kind, what in specs:
                if kind == "tool":
                    name = what
                    if name is None:
                        real = [x for x in tool_names if x != "agent__task_status"] or list(tool_names)
                        name = real[rng.randrange(len(real))]
                    params = self.tool_params(name, s)
                    resolved.append(("tool", None, name, params))
                elif kind == "session":
                    cname, tname, params = child_spec(what)
                    resolved.append(("session", (what, cname), tname, params))
                else:  # final
                    report_text = self.final_report_text()
                    params = {"report_format": "markdown", "report_content": report_text, "encoding": "raw"}
                    resolved.append(("tool", None, "agent__final_report", params))
                calls.append(ToolCall(id=self.call_id(s), name=resolved[-1][2], input=resolved[-1][3]))
            llm_running = mode == "running" and not resolved
            fail = _LLM_ERR[rng.randrange(len(_LLM_ERR))] if mode == "failed" else None
            ops.append(self.llm_op(s, turn=turn_index, pos=1, path=f"{prefix}{turn_index}-1", is_final=is_final,
                                   tool_calls=calls, running=llm_running, fail=fail))
            sub = 0
            for i, (kind, extra, name, params) in enumerate(resolved):
                pos = len(ops) + 1
                sub += 1
                path = f"{prefix}{turn_index}-{pos}"
                last = i == len(resolved) - 1
                if kind == "tool":
                    ops.append(self.tool_op(s, turn=turn_index, pos=pos, sub=sub, path=path, name=name,
                                            params=params, running=(mode == "running" and last),
                                            report=report_text if name == "agent__final_report" else None))
                else:
                    cplan, cname = extra
                    ops.append(self.session_op(s, cplan, turn=turn_index, sub=sub, path=path, cname=cname,
                                               tname=name, params=params))
            if mode in ("running", "running_child"):
                pass  # turn still open
            else:
                s.t += rng.randint(1, 10)
                turn["endedAt"] = s.t

        # --- steps at the end (v2)
        if steps is not None:
            steps.append({"id": self.uid(turns[1]["startedAt"] if len(turns) > 1 else s.t), "index": len(steps),
                          "kind": "user", "startedAt": turns[1]["startedAt"] if len(turns) > 1 else s.t,
                          "attributes": {"turns": [1, turn_index]}, "ops": []})
            if "endedAt" in turns[-1]:
                steps[-1]["endedAt"] = turns[-1]["endedAt"]
            if not plan.running and rng.random() < 0.6:
                kind = rng.choice(("handoff", "router_handoff", "internal"))
                st_start = s.t + self.gap()
                s.t = st_start
                if kind == "internal":
                    sop = self.tool_op(s, turn=turn_index, pos=1, sub=0, path=None, name="agent__task_status",
                                       params={"status": "completed", "done": "all", "pending": "", "now": "done"})
                else:
                    sop = self.llm_op(s, turn=turn_index, pos=1, path=None, is_final=False, tool_calls=[], small=True)
                steps.append({"id": self.uid(st_start), "index": len(steps), "kind": kind, "startedAt": st_start,
                              "endedAt": s.t + 1, "attributes": {"reason": kind.replace("_", " ")}, "ops": [sop]})
                s.t += 2

        # --- session end
        if s.title:
            node["sessionTitle"] = s.title
        if plan.level == 0 and rng.random() < 0.3:
            node["sessionTitle"] = rng.choice(_TITLES)
        if rng.random() < self.hostile_rate * 3:
            node["sessionTitle"] = f"{node['sessionTitle'] or 'Title'} {HOSTILE_STRINGS[rng.randrange(len(HOSTILE_STRINGS))]}"
        if s.status_text:
            node["latestStatus"] = s.status_text
        elif plan.running:
            node["latestStatus"] = rng.choice(_STATUSES)
        if steps is not None:
            node["steps"] = steps
        if not plan.running:
            s.t += rng.randint(2, 30)
            node["endedAt"] = s.t
            node["success"] = not plan.failed
            if plan.failed:
                err = [o for o in turns[-1]["ops"] if o.get("status") == "failed"]
                msg = err[-1]["accounting"][0].get("error") if err and err[-1]["accounting"] else "session failed"
                node["error"] = f"LLM request failed: {msg}"
            elif self.version >= 2:
                if rng.random() < 0.8:
                    node["finalReport"] = {"format": "markdown", "content": report_text, "ts": node["endedAt"]}
                else:
                    node["finalReport"] = {"format": "json", "content_json": {"summary": report_text[:200],
                                                                              "confidence": round(rng.random(), 2)},
                                           "ts": node["endedAt"]}
        if self.version >= 2 and plan.level == 0 and rng.random() < 0.3:
            node["pluginMetas"] = {"netdata-docs": {"version": "0.3.1", "enabled": True, "meta": {"sources": 3}},
                                   "cost-guard": {"version": "1.0.0", "enabled": True}}
        node["totals"] = compute_totals(node)
        if self.version >= 2 and plan.level == 0 and rng.random() < 0.3:
            node["totals"].update({"turnsUsed": turn_index, "turnsFailed": 1 if plan.failed else 0, "toolsInvalid": 0,
                                   "finalFailed": 0, "toolsFixed": rng.randint(0, 2), "finalFixed": 0,
                                   "finalForced": 0})
        node["_report"] = report_text
        return node

    def call_id(self, s: _Sess) -> str:
        if s.provider == "anthropic":
            return "toolu_01" + rand_id(self.rng, 22)
        return "call_" + rand_id(self.rng, 24)

    def final_report_text(self) -> str:
        rng = self.rng
        n = max(80, int(self.pb * rng.uniform(0.1, 0.5)))
        return (f"## Summary\n\n{text(rng, n // 2)}\n\n## Findings\n\n- {sentence(rng)}\n- {sentence(rng)}\n\n"
                f"## Details\n\n{text(rng, n // 2)}\n")

    def session_op(self, s: _Sess, cplan: _Plan, *, turn: int, sub: int, path: str, cname: str, tname: str,
                   params: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        start = s.t + self.gap()
        attrs: dict[str, Any] = {"name": tname, "provider": "agent", "kind": "agent"}
        op: dict[str, Any] = {"opId": self.uid(start), "kind": "session", "startedAt": start, "attributes": attrs,
                              "logs": [], "accounting": []}
        req_json = orjson.dumps(params)
        op["request"] = {"kind": "tool", "payload": params, "size": len(req_json)}
        remote = f"agent:{cname}"
        op["logs"].append(self.log(s, start, "VRB", turn, sub, path, "request", "tool", remote,
                                   f"-> {tname}: starting sub-agent", tool_kind="agent"))
        if self.style == "arrow":
            ccp = f"{s.call_path}->{tname}->{cname}"
        else:
            ccp = f"{s.call_path}:{cname}"
        child = self.session(cplan, agent=cname, call_path=ccp, parent_txn=s.txn, prompt=params["prompt"],
                             start=start + rng.randint(2, 20), prefix=path + ".")
        report = child.pop("_report", "")
        op["childSession"] = child
        if cplan.running:
            s.t = max(s.t, start + 1)
            return op
        end = child["endedAt"] + rng.randint(2, 30)
        latency = end - start
        attrs["latency"] = latency
        if child.get("success"):
            result = report or "(empty report)"
            op["logs"].append(self.log(s, end, "VRB", turn, sub, path, "response", "tool", remote,
                                       f"<- {tname}: {len(result)} bytes in {latency} ms", tool_kind="agent"))
            status = "ok"
        else:
            result = f"sub-agent {cname} failed: {child.get('error', 'unknown error')}"
            attrs["error"] = "subagent_failed"
            op["logs"].append(self.log(s, end, "ERR", turn, sub, path, "response", "tool", remote, result,
                                       tool_kind="agent"))
            status = "failed"
        attrs["size"] = len(result)
        op["response"] = {"payload": result, "size": len(result), "truncated": False}
        op["endedAt"] = end
        op["status"] = status
        s.t = end
        return op


def make_tree(
    seed: int = 0,
    *,
    ops: int = 40,
    depth: int = 2,
    fanout: int = 2,
    running: bool = False,
    failed: bool = False,
    version: int = 2,
    payload_bytes: int = 1500,
    mismatch: bool = False,
    provider_mix=("anthropic", "openai"),
    started_at: int | None = None,
    hostile_rate: float = 0.01,
    agent: str | None = None,
) -> dict:
    """Build one root SessionNode (``opTree``).

    ``ops`` is the approximate total number of ops over the whole tree (sub-agents included); ``depth`` is the
    exact nesting depth of sub-agents (0 = no sub-agents) and ``fanout`` the number of sub-agents of every
    non-leaf session. ``running`` leaves the root (and the last sub-agent chain) unfinished; ``failed`` makes
    the root fail on its last LLM call. ``payload_bytes`` scales the captured bodies: the LLM request body is
    ~payload_bytes (x0.6..1.4), the response/tool results a fraction of it; 0 = no raw/sdk captures at all, and
    below 400 only a proportional share of the LLM ops carry captures (so the size keeps scaling smoothly).
    ``mismatch`` corrupts the stored root totals. ``hostile_rate`` is the probability of escape sequences /
    Rich markup in log messages, tool results and titles.
    """
    rng_seed = seed
    g = _Gen(rng_seed, version=version, payload_bytes=payload_bytes, provider_mix=tuple(provider_mix),
             hostile_rate=hostile_rate, style="arrow")
    rng = g.rng
    g.style = "arrow" if rng.random() < 0.6 else "cli"
    plan = _make_plan(rng, ops, depth, fanout, running, failed)
    start = started_at if started_at is not None else _BASE_MS + rng.randrange(0, 60 * 86_400_000)
    root_agent = agent or _ROOT_AGENTS[rng.randrange(len(_ROOT_AGENTS))]
    call_path = root_agent if g.style == "arrow" else f"cli:{root_agent}"
    prompt = rng.choice(_TITLES) + ". " + sentence(rng, 40, 160)
    tree = g.session(plan, agent=root_agent, call_path=call_path, parent_txn=None, prompt=prompt, start=start,
                     prefix="")
    tree.pop("_report", None)
    if mismatch:
        t = tree["totals"]
        t["tokensIn"] += 1000 + rng.randint(1, 999)
        t["costUsd"] = round(t["costUsd"] + 0.0123, 4)
        t["toolsRun"] += 1
    return tree
