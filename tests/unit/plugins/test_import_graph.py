# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection's imports go one way - plugins -> plugin_utils -> module_utils (_pts -> _drive) - and the domain
packages too: plugin_utils/_fleet -> plugin_utils/_report -> plugin_utils' run, results and verdicts; no module imports
itself back through another. And its unit tests mirror plugins/: this file, on the tree as a whole, is the only one that
names no source file."""

from __future__ import annotations

import ast
import pathlib

import pytest

PLUGINS = pathlib.Path(__file__).resolve().parents[3] / "plugins"
PREFIX = "ansible_collections.fleetqual.pts.plugins."


def _module_name(path: pathlib.Path) -> str:
    return ".".join(path.relative_to(PLUGINS).with_suffix("").parts)


def _imports(path: pathlib.Path) -> set[str]:
    """The collection modules a file imports (at any depth of its code), as plugins-relative dotted names."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PREFIX):
            base = node.module[len(PREFIX):]
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if (PLUGINS / (candidate.replace(".", "/") + ".py")).is_file() else base)
        elif isinstance(node, ast.Import):
            found.update(a.name[len(PREFIX):] for a in node.names if a.name.startswith(PREFIX))
    return found


GRAPH = {_module_name(p): _imports(p) for p in sorted(PLUGINS.rglob("*.py")) if "__pycache__" not in p.parts}


def _floor(module: str) -> int:
    """Lower floors never import higher ones. module_utils: the drive (_drive) is below the PTS (_pts) - a PTS plan
    knows drives (purge methods, write caches), a drive knows nothing of the PTS."""
    parts = module.split(".")
    if parts[0] == "module_utils":
        return {"_drive": 0, "_pts": 1}.get(parts[1], 0) if len(parts) > 2 else 0
    if parts[0] == "plugin_utils":
        return {"_report": 3, "_fleet": 4}.get(parts[1], 2) if len(parts) > 2 else 2
    return 5


def test_the_graph_is_read():
    # Something to check: a broken walk (no files, no imports) would pass every test below.
    assert len(GRAPH) > 80
    assert "plugin_utils._report._iops" in GRAPH["plugin_utils._report._kinds"]
    assert "module_utils._pts._plan" in GRAPH["action.pts_plan"]


def test_every_import_names_a_module_that_exists():
    missing = {(m, d) for m, deps in GRAPH.items() for d in deps if d not in GRAPH}
    assert not missing


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_go_down_the_floors(module):
    upward = sorted(d for d in GRAPH[module] if _floor(d) > _floor(module))
    assert not upward, f"{module} (floor {_floor(module)}) imports {upward}"


def test_module_utils_stand_alone():
    # What a module ships to the host (Ansiballz) is module_utils only.
    for module, deps in GRAPH.items():
        if module.startswith(("module_utils.", "modules.")):
            assert all(d.startswith("module_utils.") for d in deps), (module, deps)


def test_no_circles():
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in GRAPH.get(node, ()):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1 or node in GRAPH.get(node, ()):
                circles.append(sorted(component))

    for node in GRAPH:
        if node not in index:
            visit(node)
    assert not circles


def test_the_unit_tests_mirror_plugins():
    # A source file's tests are test_<its name>.py in the directory that mirrors its own, all in that one file.
    here = pathlib.Path(__file__).resolve()
    strays = sorted(str(test.relative_to(here.parent)) for test in here.parent.rglob("test_*.py")
                    if test != here and not (PLUGINS / test.relative_to(here.parent).parent / test.name[5:]).is_file())
    assert not strays
