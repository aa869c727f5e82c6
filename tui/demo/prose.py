"""Deterministic filler content: prose from a fixed corpus, random ids, binary blobs and hostile strings.

Every function takes a seeded ``random.Random``; pure Python (never imports textual or rich).
"""

from __future__ import annotations

import random

__all__ = ["HOSTILE_STRINGS", "binary_blob", "rand_id", "sentence", "text"]

#: Strings a terminal UI must render literally (escape sequences, Rich markup).
HOSTILE_STRINGS: tuple[str, ...] = (
    "\x1b[31mred\x1b[0m",
    "\x1b]0;title\x07",
    "[bold red]not markup[/]",
    "[link=https://evil.example]click[/link]",
    "\x1b[2J\x1b[Hcleared?",
    "tab\there\rcarriage [/] [[escaped]]",
)

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

_CORPUS_WORDS = 60_000
_corpus: str | None = None


def _get_corpus() -> str:
    global _corpus
    if _corpus is None:
        r = random.Random(0x5EED)
        out: list[str] = []
        n = 0
        words = _WORDS
        while n < _CORPUS_WORDS:
            k = r.randint(6, 22)
            sent = [words[r.randrange(len(words))] for _ in range(k)]
            sent[0] = sent[0].capitalize()
            if r.random() < 0.15:
                sent.insert(r.randrange(1, k), str(r.randint(2, 98_000)))
            if r.random() < 0.1:
                sent.insert(r.randrange(1, k), f"{r.randint(1, 99)}.{r.randint(0, 9)}%")
            out.append(" ".join(sent) + r.choice((".", ".", ".", ".", "?", ":", ";")))
            n += k
        _corpus = " ".join(out) + " "
    return _corpus


def text(rng: random.Random, n: int) -> str:
    """About ``n`` characters of plausible prose (a slice of a fixed corpus, starting at a word)."""
    if n <= 0:
        return ""
    corpus = _get_corpus()
    size = len(corpus)
    if n >= size - 64:
        reps = n // size + 1
        return (corpus * reps)[:n].strip()
    start = rng.randrange(0, size - n - 32)
    sp = corpus.find(" ", start)
    if sp < 0 or sp > start + 24:
        sp = start
    return corpus[sp + 1 : sp + 1 + n].strip()


def sentence(rng: random.Random, lo: int = 30, hi: int = 90) -> str:
    s = text(rng, rng.randint(lo, hi))
    if not s:
        return "Done."
    return s[0].upper() + s[1:].rstrip(" .,;:?") + "."


_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def rand_id(rng: random.Random, n: int, alphabet: str = _B62) -> str:
    k = len(alphabet)
    return "".join(alphabet[rng.randrange(k)] for _ in range(n))


def binary_blob(rng: random.Random, n: int = 48) -> bytes:
    """A few random bytes, e.g. a gzip-encoded body captured without decoding."""
    head = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
    return head + bytes(rng.getrandbits(8) for _ in range(max(0, n - len(head))))
