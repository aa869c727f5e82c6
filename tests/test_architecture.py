"""The layout is a contract (pyproject [tool.importlinter]), checked on every test run: the layers, textual only in
the UI and the run command, the demo generator only from the command line, no import cycles; and the tests keep the
same shape (a folder per package, each with its conftest.py, shared helpers in tests/helpers/, no test module
importing another, no sys.path edits)."""

import ast
import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# where textual and rich may be imported
UI = (ROOT / "tui" / "ui", ROOT / "tui" / "cli" / "run.py")


def nodes_of(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a module, in ast.walk's order: parsed and walked once per file, because five checks below
    walk the same ~470 files (parsing them again in each took most of this file's time)."""
    return _nodes_of(str(path), path.stat().st_mtime_ns)


@functools.cache
def _nodes_of(path: str, mtime_ns: int) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(ast.parse(Path(path).read_text())))


@pytest.fixture(autouse=True, scope="module")
def _parsed_modules_forgotten():
    """The parsed modules (millions of nodes) go with this file's tests: kept, every later full collection of
    the worker walked them (5.8 s of collection in one test of another file)."""
    yield
    _nodes_of.cache_clear()


def imported_modules(path: Path) -> list[str]:
    names = []
    for node in nodes_of(path):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return names


def test_import_linter_contracts_hold():
    script = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(script), "--config", str(ROOT / "pyproject.toml")], capture_output=True, text=True,
                            cwd=ROOT, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
    for contract in ("layers", "acyclic_siblings"):  # the contracts are really there, not dropped from pyproject
        assert f'type = "{contract}"' in (ROOT / "pyproject.toml").read_text()


def test_only_the_ui_names_textual_or_rich():
    """Belt and braces for the forbidden contract: not even an import behind TYPE_CHECKING or in a function."""
    for path in (ROOT / "tui").rglob("*.py"):
        if path == UI[1] or UI[0] in path.parents:
            continue
        for name in imported_modules(path):
            assert not name.startswith(("textual", "rich")), f"{path.relative_to(ROOT)} imports {name}"


def test_every_test_folder_has_a_conftest():
    for folder in TESTS.iterdir():
        if folder.is_dir() and any(folder.glob("test_*.py")):
            assert (folder / "conftest.py").exists(), f"{folder.relative_to(ROOT)} has no conftest.py"


def test_test_modules_live_in_the_folder_of_what_they_test():
    # only the whole-package checks sit at the top: the import contracts and mypy (test_types.py)
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == ["test_architecture.py", "test_types.py"]


def test_helpers_live_in_the_helpers_package():
    """Only the tests, their conftest.py and the two whole-package checks sit at the top of tests/: every shared
    helper is a module of tests/helpers/, imported as `helpers.<module>` (pyproject's pytest pythonpath)."""
    assert (TESTS / "helpers" / "__init__.py").exists()
    loose = sorted(p.name for p in TESTS.glob("*.py") if p.name != "conftest.py" and not p.name.startswith("test_"))
    assert loose == [], f"helper modules outside tests/helpers/: {loose}"
    assert not list((TESTS / "helpers").glob("test_*.py")), "a test module in tests/helpers/"


def test_no_test_edits_sys_path():
    """pyproject's pytest pythonpath (the checkout and tests/) is the one place the import path is set: a test or
    helper that edits sys.path hides an import that works only in some order. (The benchmarks are scripts run by
    path, tests/benchmarks/, and set their own.)"""
    for path in TESTS.rglob("*.py"):
        if TESTS / "benchmarks" in path.parents:
            continue
        for node in nodes_of(path):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "path" and isinstance(node.value.value, ast.Name)
                    and node.value.value.id == "sys" and node.attr in ("insert", "append", "extend", "remove")):
                raise AssertionError(f"{path.relative_to(ROOT)} line {node.lineno} edits sys.path")
            if (isinstance(node, (ast.Assign, ast.AugAssign)) and any(
                    "sys.path" in ast.unparse(t) for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))):
                raise AssertionError(f"{path.relative_to(ROOT)} line {node.lineno} assigns sys.path")


def test_no_test_module_imports_another():
    """Shared helpers and fixtures live in tests/helpers/ (imported as `helpers.<module>`), never in a test
    module: importing one runs its tests' module-level code and registers its fixtures twice."""
    for path in TESTS.rglob("*.py"):
        for name in imported_modules(path):
            last = name.rsplit(".", 1)[-1]
            assert not last.startswith("test_") and not name.startswith("tests."), \
                f"{path.relative_to(ROOT)} imports {name}"


# what tests name an app, a screen or the app's live controller (`app`, `pilot.app`, `app.screen`, `app.browser()`, `app.live`)
APP_OR_SCREEN = re.compile(r"(^|_)(app|screen|browser|payload|waterfall|live)$|^(first|second)$")


def private_reads_of_apps_and_screens(path: Path) -> list[str]:
    """`x._name` (not a dunder) where `x` is what tests call an app or a screen: a private attribute of the app
    or a screen, read, set or called (`setattr(screen, "_x", ...)` too)."""
    found = []
    for node in nodes_of(path):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.endswith("__"):
            if APP_OR_SCREEN.search(app_or_screen_name(node.value)):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "setattr"
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and str(node.args[1].value).startswith("_") and not str(node.args[1].value).endswith("__")
              and (APP_OR_SCREEN.search(name := app_or_screen_name(node.args[0])) or name.endswith(("App", "Screen")))):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")  # monkeypatch.setattr(screen, "_x", ...)
    return found


def app_or_screen_name(node: ast.expr) -> str:
    """The name a test gives what `node` reads: `app`, `pilot.app`, `app.browser()` -> app, browser."""
    base = node.func if isinstance(node, ast.Call) else node
    return base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")


def test_tests_read_no_private_attribute_of_the_app_or_a_screen():
    """Tests go through public surfaces: posted messages (run_test's message_hook), widgets (query_one and what
    they show) and public methods; a private attribute is the app's own business and changes with it."""
    assert private_reads_of_apps_and_screens(Path(__file__).with_name("test_architecture.py")) == [] and \
        private_reads_of_apps_and_screens_sample() == [
            "line 1: app._x", "line 1: pilot.app.screen._y", "line 1: app.browser()._rows",
            "line 2: monkeypatch.setattr(BrowserScreen, '_w', 1)", "line 2: setattr(screen, '_v', 1)"]
    found = {}
    for path in sorted(TESTS.rglob("*.py")):
        if TESTS / "benchmarks" in path.parents:
            continue
        if reads := private_reads_of_apps_and_screens(path):
            found[str(path.relative_to(ROOT))] = reads
    assert found == {}


def private_reads_of_apps_and_screens_sample() -> list[str]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        sample = Path(folder) / "sample.py"
        sample.write_text("app._x; pilot.app.screen._y; app.browser()._rows; self._z; os._exit; app.__class__\n"
                          "monkeypatch.setattr(BrowserScreen, '_w', 1); setattr(screen, '_v', 1); "
                          "monkeypatch.setattr(store, '_enabled', 1); monkeypatch.setattr(screen, 'notify', 1)\n")
        return private_reads_of_apps_and_screens(sample)


def textual_privates_of(names: list[str]) -> set[str]:
    """The private names (`_x`, not dunders) of the Textual classes `names` and their Textual bases: class
    attributes, and the `self._x = ...` a class sets in its own body."""
    import importlib
    import inspect

    found: set[str] = set()
    for dotted in names:
        module, _, attr = dotted.rpartition(".")
        try:
            obj = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            continue
        if not inspect.isclass(obj):
            continue
        for cls in obj.__mro__:
            if cls.__module__.startswith("textual"):
                found |= privates_set_by_textual_class(cls)
    return found


@functools.cache
def privates_set_by_textual_class(cls: type) -> frozenset[str]:
    """One Textual class's private names: its class attributes and the `self._x = ...` its own body sets.
    Cached (and the source parsed once per file) because every module of tui/ that imports App or Screen asks
    for the same classes: parsing textual/app.py again for each took most of this file's 28 s."""
    import inspect

    found = {n for n in vars(cls) if n.startswith("_") and not n.endswith("__")}
    tree = parsed_source(inspect.getsourcefile(cls))
    body = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__), None)
    for node in ast.walk(body) if body is not None else ():
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id == "self"
                and node.attr.startswith("_") and not node.attr.endswith("__")):
            found.add(node.attr)
    return frozenset(found)


@functools.cache
def parsed_source(path: str | None) -> ast.Module:
    return ast.parse(Path(path).read_text()) if path else ast.Module(body=[], type_ignores=[])


def private_textual_uses(path: Path) -> list[str]:
    """Where a module reaches into Textual's private API: a private Textual module imported, the `__watchers`
    store named, or a private name of a Textual class it imports read, set or overridden."""
    tree = nodes_of(path)
    imported: list[str] = []
    uses: list[str] = []
    for node in tree:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "textual":
            if any(part.startswith("_") for part in node.module.split(".")):
                uses.append(f"line {node.lineno}: imports {node.module}")
            imported += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            uses += [f"line {node.lineno}: imports {a.name}" for a in node.names
                     if a.name.split(".")[0] == "textual" and any(p.startswith("_") for p in a.name.split("."))]
        elif isinstance(node, ast.Constant) and node.value == "__watchers":
            uses.append(f"line {node.lineno}: names __watchers")
    private = textual_privates_of(imported)  # of anything the module may hold (a TreeNode, an App)
    by_name = {name.rpartition(".")[2]: name for name in imported}
    bases = [by_name[b.id] for n in tree if isinstance(n, ast.ClassDef)
             for b in (base.value if isinstance(base, ast.Subscript) else base for base in n.bases)  # Tree[Node]
             if isinstance(b, ast.Name) and b.id in by_name]
    inherited = textual_privates_of(bases)  # what `self` holds: our own `self._cache` is not LRUCache's
    for node in tree:
        if isinstance(node, ast.Attribute):
            on_self = isinstance(node.value, ast.Name) and node.value.id == "self"
            if node.attr in (inherited if on_self else private):
                uses.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in inherited:
            uses.append(f"line {node.lineno}: overrides {node.name}")
    return uses


def test_only_textual_compat_touches_textual_privates():
    """Textual's private API changes without notice: every use sits in the package tui/ui/textual_compat, whose
    test (tests/ui/test_textual_compat.py) pins the version and checks that each private name still exists."""
    compat = ROOT / "tui" / "ui" / "textual_compat"
    assert all(private_textual_uses(path) for path in compat.glob("*.py")), \
        "the check no longer sees the compat modules' own private uses"
    offenders = {str(path.relative_to(ROOT)): uses for path in sorted((ROOT / "tui").rglob("*.py"))
                 if compat not in path.parents and (uses := private_textual_uses(path))}
    assert offenders == {}
