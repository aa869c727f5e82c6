"""Tool ops: realistic parameters and results per tool, accounting, logs, failures and truncation."""

from __future__ import annotations

from typing import Any

import orjson

from .catalog import _CONTEXTS, _DOMAINS, _ERR_SLUGS, _STATUSES, _TABLES, _TITLES, _TOOLS
from .gen_state import _Sess
from .logs import _LogBuilder
from .prose import rand_id, sentence, text


class _ToolOps(_LogBuilder):
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
        if name in ("tool_output_fs__Read", "tool_output_fs__Grep"):  # a read-grep extraction's stored output
            handle = s.user.rsplit("`", 2)[-2] if s.user.count("`") >= 2 else "handle"
            if name == "tool_output_fs__Read":
                return {"file": handle, "offset": rng.randrange(0, 4000, 50), "limit": rng.choice((100, 200, 400))}
            return {"file": handle, "pattern": text(rng, 12).split(" ")[0] or "error", "context": 2}
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
            lines = ["account_id,n,total"]
            n = 20
            while n < size:
                r = f"acc-{rng.randint(10000, 99999)},{rng.randint(1, 500)},{rng.randint(10, 90000)}.{rng.randint(0, 99):02d}"
                lines.append(r)
                n += len(r) + 1
            return "\n".join(lines)
        if name == "web__fetch":
            return f"# {sentence(rng, 20, 60)}\n\n{text(rng, size)}\n\n## Details\n\n{text(rng, size // 4)}"
        return text(rng, max(20, size))

    def tool_accounting(self, s: _Sess, *, end: int, latency: int, status: str, server: str, command: str,
                        chars_in: int, chars_out: int, error: Any = None) -> dict[str, Any]:
        """One ``tool`` AccountingEntry (every tool call has one: MCP/REST tools, sub-agents, tool_output)."""
        acc: dict[str, Any] = {
            "type": "tool",
            "timestamp": end,
            "status": status,
            "latency": latency,
            "mcpServer": server,
            "command": command,
            "charactersIn": chars_in,
            "charactersOut": chars_out,
            "agentId": s.agent,
            "callPath": s.call_path,
            "txnId": s.txn,
            "originTxnId": s.origin,
        }
        if s.parent_txn:
            acc["parentTxnId"] = s.parent_txn
        if error is not None:
            acc["error"] = error
        return acc

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
        op["accounting"].append(self.tool_accounting(s, end=end, latency=latency, status="failed" if failed else "ok",
                                                     server=provider, command=name, chars_in=len(req_json),
                                                     chars_out=out_len, error=result if failed else None))
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
