# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection's imports go one way - plugins -> plugin_utils -> module_utils (_pts -> _drive) - and the domain
packages too: plugin_utils/_fleet -> plugin_utils/_report -> plugin_utils' run, results and verdicts; no module imports
itself back through another. And its unit tests mirror plugins/: this file, on the tree as a whole, is the only one that
names no source file; a source without a test file of its own is listed here (UNMIRRORED) with where it is tested."""

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


# The sources without a test_<name>.py of their own, and why: tested through another source's tests (named), or no
# logic to test. A new source needs its test file or a line here; a source that gains its test file leaves the list.
THROUGH_FILING = "no logic: _filing.FilingAction runs its module and files the result (test__filing.py)"
THROUGH_ACTION = "no logic: the module's documentation; its action does the work (action/test_{}.py)"
BUILT_BY_THE_PLAN = "tested through module_utils/_pts/test__pts_versions.py: the plan builds its segments"
SWEEP = "tested through module_utils/_pts/test__sweeps.py: the plan builds its steps"
FIGURES = "tested through _figures/test__catalogue.py: every figure parses its example and validates"
UNMIRRORED = {
    "action/pts_compare.py": "tested through _fleet/test__compare.py and test__compare_report.py; the action in "
                             "tests/integration/test_compare.py",
    "action/pts_drive_health.py": THROUGH_FILING,
    "action/pts_drive_info.py": THROUGH_FILING,
    "action/pts_guard.py": THROUGH_FILING,
    "action/pts_md_array.py": THROUGH_FILING,
    "action/pts_publish_s3.py": "tested through plugin_utils/test__publish_s3.py; the action in tests/integration/test_publish.py",
    "action/pts_purge.py": THROUGH_FILING,
    "action/pts_write_cache.py": THROUGH_FILING,
    "doc_fragments/_attributes.py": "no logic: documentation",
    "doc_fragments/_devices.py": "no logic: documentation",
    "doc_fragments/_filing.py": "no logic: documentation",
    "doc_fragments/_history.py": "no logic: documentation (test__action checks it against the actions' specs)",
    "filter/raid_members.py": "tested through plugin_utils/test__raid.py (_raid.resolve_members, validate_arrays)",
    "filter/wipc_job.py": "tested through plugin_utils/test__job_text.py (_job_text.wipc_text)",
    "module_utils/_drive/_guard_record.py": "tested through _drive/test__guard.py and modules/test_pts_drive_hold.py",
    "module_utils/_drive/_holder_program.py": "tested through _drive/test__hold.py",
    "module_utils/_drive/_probe.py": "tested through _drive/test__guard.py and test__listing.py (the fake host's probes)",
    "module_utils/_drive/_signatures.py": "tested through _drive/test__guard.py",
    "module_utils/_pts/_fio_job_args.py": "no logic: fio_job's argument spec (action/test_fio_job.py holds the action to it)",
    "module_utils/_pts/_plan_settings.py": "tested through _pts/test__plan.py (_plan.build_plan)",
    "module_utils/_pts/_tests/_matrix.py": "tested through _pts/test__plan.py: the IOPS and latency tests' segments",
    "module_utils/_pts/_tests/_sections.py": BUILT_BY_THE_PLAN,
    "module_utils/_pts/_tests/cbw.py": BUILT_BY_THE_PLAN,
    "module_utils/_pts/_tests/dirth.py": BUILT_BY_THE_PLAN,
    "module_utils/_pts/_tests/entropy_sweep.py": SWEEP,
    "module_utils/_pts/_tests/hdd_iops.py": SWEEP,
    "module_utils/_pts/_tests/hdd_throughput.py": SWEEP,
    "module_utils/_pts/_tests/hir.py": BUILT_BY_THE_PLAN,
    "module_utils/_pts/_tests/iops.py": "tested through _pts/test__plan.py (_plan.build_plan)",
    "module_utils/_pts/_tests/latency.py": "tested through _pts/test__plan.py (_plan.build_plan)",
    "module_utils/_pts/_tests/latency_demand.py": SWEEP,
    "module_utils/_pts/_tests/mixed_sweep.py": SWEEP,
    "module_utils/_pts/_tests/rw_sweep.py": SWEEP,
    "module_utils/_pts/_tests/throughput.py": "tested through _pts/test__plan.py (_plan.build_plan)",
    "module_utils/_pts/_tests/xsr.py": BUILT_BY_THE_PLAN,
    "modules/fleet_summary.py": THROUGH_ACTION.format("fleet_summary"),
    "modules/pts_compare.py": "no logic: the module's documentation; its action does the work (action/pts_compare.py)",
    "modules/pts_drive_info.py": "runs on the host: tested through _drive/test__listing.py, test__host.py and "
                                 "test__drive_actions.py (what it calls) and by the roles in tests/integration",
    "modules/pts_plan.py": THROUGH_ACTION.format("pts_plan"),
    "modules/pts_publish.py": "runs on the host: tested through module_utils/test__publish.py and "
                              "tests/integration/test_publish.py",
    "modules/pts_publish_s3.py": "no logic: the module's documentation; its action does the work (action/pts_publish_s3.py)",
    "modules/pts_purge.py": "runs on the host: tested by the roles in tests/integration (test_planted_trees.py, "
                            "test_guard_trust.py) and tests/guest",
    "modules/pts_release.py": "runs on the host: tested through _drive/test__hold.py and by the pts_run role in "
                              "tests/integration",
    "modules/pts_run_lock.py": THROUGH_ACTION.format("pts_run_lock"),
    "modules/pts_run_start.py": THROUGH_ACTION.format("pts_run_start"),
    "modules/pts_segment.py": THROUGH_ACTION.format("pts_segment"),
    "modules/pts_write_cache.py": "runs on the host: tested through _drive/test__drive_actions.py "
                                  "(write_cache_commands) and tests/guest (test_guest_drives.py)",
    "modules/report_rebuild.py": THROUGH_ACTION.format("report_rebuild"),
    "modules/steady_state.py": THROUGH_ACTION.format("steady_state"),
    "plugin_utils/_drive_verdict.py": "tested through _report/test__drive_report.py and _fleet/test__fleet_summary.py",
    "plugin_utils/_extra_vars.py": "tested through action/test_pts_run_start.py (_run_steps.start refuses them)",
    "plugin_utils/_figures/_checks.py": FIGURES,
    "plugin_utils/_figures/_drive_health.py": FIGURES,
    "plugin_utils/_figures/_figure.py": FIGURES,
    "plugin_utils/_figures/_iops.py": FIGURES,
    "plugin_utils/_figures/_latency.py": FIGURES,
    "plugin_utils/_figures/_matrix.py": FIGURES,
    "plugin_utils/_figures/_pts2.py": FIGURES,
    "plugin_utils/_figures/_qos.py": FIGURES,
    "plugin_utils/_figures/_throughput.py": FIGURES,
    "plugin_utils/_figures/_units.py": FIGURES,
    "plugin_utils/_figures/_wsat.py": FIGURES,
    "plugin_utils/_fleet/_compare_plots.py": "tested through _fleet/test__compare_report.py (the comparison's plots)",
    "plugin_utils/_fleet/_fleet_figures.py": "tested through _fleet/test__fleet_summary.py (exit_status with fleet.md)",
    "plugin_utils/_fleet/_fleet_history_md.py": "tested through _fleet/test__fleet_history.py",
    "plugin_utils/_fleet/_fleet_plots.py": "tested through _fleet/test__fleet_summary.py",
    "plugin_utils/_fleet/_fleet_requirements.py": "tested through _requirements/test__pass_rates.py (its table with "
                                                  "the pass rates)",
    "plugin_utils/_history/_pg_store.py": "needs a PostgreSQL server: tests/integration/test_history_postgresql.py",
    "plugin_utils/_history/_preflight.py": "needs a PostgreSQL server: tests/integration/test_history_postgresql.py",
    "plugin_utils/_history/_store.py": "tested through _history/test__index.py and test__lookup.py (open_store)",
    "plugin_utils/_report/_acceptance_section.py": "tested through _report/test__qos.py and test__health_section.py",
    "plugin_utils/_report/_characterisation.py": "tested through _report/test__sweep.py (build and section together)",
    "plugin_utils/_report/_hdd.py": "tested through _report/test__kinds.py and tests/guest (HDD mode)",
    "plugin_utils/_report/_health_plots.py": "tested through _report/test__health_section.py",
    "plugin_utils/_report/_history_section.py": "tested through _report/test__previous.py",
    "plugin_utils/_report/_sweep_plots.py": "tested through _report/test__sweep.py and test__iops.py",
    "plugin_utils/_report/_test_summary.py": "tested through _report/test__kinds.py and test__drive_report.py",
    "plugin_utils/_report/_tests.py": "tested through each report kind's tests (what they share)",
    "plugin_utils/_report/_xsr_md.py": "tested through _report/test__xsr.py (build and section together)",
}


def test_every_source_has_its_test_file_or_says_where_it_is_tested():
    here = pathlib.Path(__file__).resolve().parent
    sources = [p.relative_to(PLUGINS) for p in PLUGINS.rglob("*.py") if p.name != "__init__.py" and "__pycache__" not in p.parts]
    unmirrored = sorted(str(source) for source in sources if not (here / source.parent / f"test_{source.name}").is_file())
    assert unmirrored == sorted(UNMIRRORED)
    assert all(UNMIRRORED.values())
