"""The configuration file, `$XDG_CONFIG_HOME/aiagent-monitor/config.toml` (`--config PATH`): defaults the command
line and the kept place (tui.ui.place) override. Pure: no textual (the names of themes and key bindings are checked
by tui.cli.run, which has the app at hand).

    theme = "gruvbox"            # a Textual theme name
    sort = "cost"                # the browser's first sort: COLUMN, COLUMN:asc, COLUMN:desc
    filter = "since:7d"          # the browser's first filter (the / language)
    stale_after = "20m"          # --stale-after (a span, or seconds)
    stats_range = "30d"          # the Stats screen's range: 1d, 7d, 30d, all
    [keys]                       # key bindings by binding id (`?` lists them), e.g.
    "browser.sort" = "o"         # several keys: "o,ctrl+s"
    [prices]                     # $ per million tokens by model-name prefix, over the shipped table (tui.model.prices)
    "claude-sonnet-4" = { input = 3.0, output = 15.0, cache_write = 3.75, cache_read = 0.3 }

A file that cannot be read or understood is one line (ConfigError) and exit 2: a monitor started with settings
other than the ones written would mislead more than one that does not start.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tui.model.prices import PRICE_FIELDS, Price, price_entry

STATS_RANGES = ("1d", "7d", "30d", "all")
KNOWN = ("theme", "sort", "filter", "stale_after", "stats_range", "keys", "prices")
MAX_BYTES = 1 << 20  # a config file is a few lines: anything bigger is not one


class ConfigError(ValueError):
    """The one line that says what is wrong with the file (its path first)."""


@dataclass(frozen=True, slots=True)
class Config:
    path: Path | None = None  # the file read (None: there was none)
    theme: str | None = None
    sort: str | None = None
    filter: str | None = None
    stale_after: float | None = None  # seconds
    stats_range: str | None = None
    keys: dict[str, str] = field(default_factory=dict)  # binding id -> keys ("o" or "o,ctrl+s")
    prices: dict[str, Price] = field(default_factory=dict)  # model-name prefix -> price (tui.model.prices)


def default_path(environ: dict[str, str] | os._Environ | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "aiagent-monitor" / "config.toml"


def load_config(explicit: str | None = None) -> Config:
    """The configuration: from `explicit` (--config: it must exist), else the default path (absent: defaults)."""
    path = Path(explicit).expanduser() if explicit else default_path()
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        if explicit:
            raise ConfigError(f"{path}: no such file (--config names the configuration file)") from None
        return Config()
    except IsADirectoryError:
        raise ConfigError(f"{path}: a directory, not a configuration file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise ConfigError(f"{path}: over {MAX_BYTES:,} bytes: not a configuration file")
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse(table, path)


def parse(table: dict, path: Path | None = None) -> Config:
    """A parsed TOML table as a Config; the first thing wrong raises ConfigError."""
    where = f"{path}: " if path is not None else ""
    unknown = [key for key in table if key not in KNOWN]
    if unknown:
        raise ConfigError(f"{where}unknown setting {unknown[0]!r} (known: {', '.join(KNOWN)})")
    text = {name: _text(table, name, where) for name in ("theme", "sort", "filter", "stats_range")}
    if text["sort"] is not None:
        from tui.catalog.browser_sort import SORT_HELP, parse_sort

        if parse_sort(text["sort"]) is None:
            raise ConfigError(f"{where}sort = {text['sort']!r}: not a sort ({SORT_HELP})")
    if text["stats_range"] is not None and text["stats_range"] not in STATS_RANGES:
        raise ConfigError(f"{where}stats_range = {text['stats_range']!r}: one of {', '.join(STATS_RANGES)}")
    return Config(path=path, theme=text["theme"], sort=text["sort"], filter=text["filter"],
                  stale_after=_span(table.get("stale_after"), where), stats_range=text["stats_range"],
                  keys=_keys(table.get("keys"), where), prices=_prices(table.get("prices"), where))


def _text(table: dict, name: str, where: str) -> str | None:
    value = table.get(name)
    if value is None or isinstance(value, str):
        return value
    raise ConfigError(f"{where}{name} must be a string, not {type(value).__name__}")


def _span(value: object, where: str) -> float | None:
    from tui.catalog.liveness import parse_span

    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ConfigError(f"{where}stale_after must be a span like \"10m\" or a number of seconds")
    try:
        seconds = parse_span(str(value)) if isinstance(value, str) else float(value)
    except ValueError as exc:
        raise ConfigError(f"{where}stale_after = {value!r}: {exc}") from None
    if not 0 <= seconds < float("inf"):
        raise ConfigError(f"{where}stale_after = {value!r}: not a span")
    return seconds


def _keys(value: object, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}keys must be a table ([keys] with \"binding.id\" = \"key\" lines)")
    keys = {}
    for binding_id, key in value.items():
        if not isinstance(key, str) or not key.strip() or any(not part.strip() for part in key.split(",")):
            raise ConfigError(f"{where}keys.{binding_id} must name a key, e.g. \"o\" or \"o,ctrl+s\"")
        keys[str(binding_id)] = key
    return keys


def _prices(value: object, where: str) -> dict[str, Price]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}prices must be a table ([prices] with \"model-prefix\" = {{ input = .., output = "
                          ".. }} lines)")
    table = {}
    for prefix, entry in value.items():
        price = price_entry(entry, strict=True)
        if price is None or not prefix.strip():
            raise ConfigError(f"{where}prices.{prefix} must be {{ {', '.join(f'{k} = N' for k in PRICE_FIELDS)} }}: "
                              "$ per million tokens, numbers from 0 (a missing one is 0)")
        table[prefix.strip()] = price
    return table
