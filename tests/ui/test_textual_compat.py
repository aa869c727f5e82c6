"""tui/ui/textual_compat is the only package that touches Textual's private API. These tests make a Textual
upgrade fail here, by name, instead of somewhere in a screen: the installed Textual is the one pyproject pins, and
every private name the compat module relies on still exists."""

import importlib
import importlib.metadata
import inspect
import re
import tomllib
from pathlib import Path

import pytest
import textual
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.widgets import DataTable, Tree

from tui.ui.textual_compat import PRIVATE_NAMES

ROOT = Path(__file__).resolve().parents[2]


def pinned_textual() -> str:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = [m.group(1) for dep in deps if (m := re.fullmatch(r"textual\s*==\s*([\w.]+)", dep.strip()))]
    assert len(pins) == 1, f"pyproject must pin textual exactly once (textual==X.Y.Z): {deps}"
    return pins[0]


def test_the_installed_textual_is_the_pinned_one():
    pin = pinned_textual()
    assert importlib.metadata.version("textual") == pin
    assert textual.__version__ == pin


def live_objects() -> dict[str, object]:
    """Instances, for the private attributes Textual only sets in __init__."""
    tree = Tree("root")
    return {"App": App(), "DataTable": DataTable(), "Tree": tree, "TreeNode": tree.root, "DOMNode": tree,
            "Stylesheet": Stylesheet()}


@pytest.mark.parametrize(("module", "owner", "name"), PRIVATE_NAMES, ids=[".".join(filter(None, n)) for n in PRIVATE_NAMES])
def test_each_private_name_still_exists(module, owner, name):
    mod = importlib.import_module(module)
    if not owner:  # a name used as a string (getattr(obj, "__watchers")): the module must still use it
        assert f'"{name}"' in inspect.getsource(mod), f"{module} no longer uses {name!r}"
        return
    assert hasattr(mod, owner), f"{module}.{owner} is gone"
    if not name:
        return
    cls = getattr(mod, owner)
    if hasattr(cls, name):
        return
    instance = live_objects().get(owner)
    assert instance is not None and hasattr(instance, name), f"{module}.{owner}.{name} is gone"


def test_the_list_covers_every_private_name_the_module_touches():
    """A private attribute used in textual_compat but missing from PRIVATE_NAMES would escape the check above."""
    body = "\n".join(path.read_text() for path in (ROOT / "tui" / "ui" / "textual_compat").glob("*.py")
                     if path.name != "__init__.py")  # the code (the package's __init__ holds the list)
    used = set(re.findall(r"\.(_[a-z]\w*)\b", body)) | set(re.findall(r"def (_[a-z]\w*)\(", body))
    listed = {name for _, _, name in PRIVATE_NAMES}
    ours = {"_footer", "_styles_cache", "_tree"}  # module names, listed as modules
    assert used - listed - ours == set()
