"""The layout is a contract (pyproject [tool.importlinter]), checked on every test run: the layers, textual only in
the UI and the run command, the demo generator only from the command line, no import cycles; and the tests keep the
same shape (a folder per package, each with its conftest.py, no test module importing another)."""

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# where textual and rich may be imported
UI = (ROOT / "tui" / "ui", ROOT / "tui" / "cli" / "run.py")


def imported_modules(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
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


def test_no_test_module_imports_another():
    """Shared helpers and fixtures live in helper modules at the top of tests/ (pyproject's pythonpath), never in
    a test module: importing one runs its tests' module-level code and registers its fixtures twice."""
    for path in TESTS.rglob("*.py"):
        for name in imported_modules(path):
            last = name.rsplit(".", 1)[-1]
            assert not last.startswith("test_") and not name.startswith("tests."), \
                f"{path.relative_to(ROOT)} imports {name}"
