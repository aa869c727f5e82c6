"""The model/UI split is a contract (pyproject [tool.importlinter]), checked on every test run."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_linter_contracts_hold():
    script = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(script), "--config", str(ROOT / "pyproject.toml")], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" in result.stdout and "0 broken" in result.stdout


def test_model_sources_never_name_textual():
    for path in (ROOT / "tui" / "model").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith(("textual", "rich")), f"{path.name} imports {name}"
