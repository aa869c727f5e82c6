"""Fixed catalogs the tree generator draws from: models and prices, agents, tools, domains, tables, metric
contexts, error slugs, ingress attributes, titles and status lines."""

from __future__ import annotations

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
TOOL_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "What to look for"}, "limit": {"type": "integer"}},
    "required": ["query"],
    "additionalProperties": False,
}
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
TITLES = (
    "Investigate CPU spikes on production parents",
    "Weekly churn analysis",
    "Why did claims drop last week?",
    "Summarize open GitHub issues about streaming",
    "Compare nginx latency across regions",
    "Draft answer for support ticket",
    "Find customers with failed invoices",
)
STATUSES = (
    "Querying metrics for the last 24h",
    "Fetching documentation pages",
    "Waiting for sub-agents",
    "Cross-checking results with BigQuery",
    "Writing the final report",
)
