# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive's report (report.md, plots/*.png, result.json), rebuilt from its results directory alone."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _health
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import TITLES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import NAMES as TESTS
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _health_plots, _kinds
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _identity, _drive_verdict, _people
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _html
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _acceptance_section
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots, _previous, _split
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _child, _results, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _summary, _test_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._setup_section import (
    device_rows, health_table, raid_model, setup_rows, tests_table)
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._wear_section import (
    estimate, wear_model, wear_section)
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._health_section import (
    health_entries, health_section)

QUICK_BANNER = "quick profile — not a qualification"
DASH = md.DASH


def build_model(drive_dir: str, history=None) -> dict:
    """Everything the report shows, computed from the files on disk - and what the history (``history``: a
    plugin_utils/_history/_location.Spec, else PTS_HISTORY_URL or SQLite beside the runs) says of earlier runs."""
    loaded = _results.load_drive(drive_dir)
    identity = loaded["identity"]
    raid = raid_model(drive_dir, loaded.get("raid"))
    drive = identity.get("drive") or {}
    if raid and not drive.get("model"):
        # An md array has no model of its own: name it by its layout, so the fleet summary groups like arrays.
        array = raid.get("array") or {}
        models = sorted({m.get("model") or "?" for m in raid["member_drives"]})
        drive = dict(drive, vendor="Linux md", model=f"{array.get('level')} of {len(raid['member_drives'])} × "
                                                     f"{', '.join(models)}")
    tests = {name: _kinds.of(name).build(loaded["tests"][name]) for name in TESTS if name in loaded["tests"]}
    round_health = _health.summarize(health_entries(loaded["tests"]))
    quick = any((t.get("settings") or {}).get("profile") == "quick" for t in tests.values())
    recorded = _drive_verdict.plan(os.path.dirname(drive_dir))
    model = {
        "schema": _results.SCHEMA,
        "host": identity.get("host") or os.path.basename(os.path.dirname(drive_dir)),
        "drive_key": os.path.basename(drive_dir),
        "run_id": os.path.basename(os.path.dirname(os.path.dirname(drive_dir))),
        "drive": drive,
        "host_info": identity.get("host_info") or {},
        "guard": loaded["guard"],
        "guard_refused": loaded.get("guard_refused"),
        "drive_refused": loaded.get("drive_refused"),
        "write_cache": loaded.get("write_cache"),
        "health_after": loaded.get("health_after"),
        "round_health": round_health,
        "raid": raid,
        "raid_member": loaded.get("raid_member"),
        "quick_profile": quick,
        "tests": tests,
        "failed_before_rounds": failed_before_rounds(drive_dir, loaded["tests"]),
        "command": (recorded or {}).get("command"),
        "report_date": report_date(tests, identity),
        "people": people((recorded or {}).get("command"), (recorded or {}).get("plan")),
        "people_notes": people_notes((recorded or {}).get("command")),
        "estimate": estimate((recorded or {}).get("plan"), os.path.basename(drive_dir)),
    }
    model["headline"] = _headline_figures.block(model)
    # Before the verdict: an acceptance rule may judge the drive against its population (population_percentile).
    model.update(_previous.find(drive_dir, model, history, (recorded or {}).get("plan")))
    # The wear first: a requirement may be on it (wear.write_amplification).
    model["wear"] = wear_model(loaded, drive, (recorded or {}).get("plan"), model["drive_key"])
    model["verdict"] = _drive_verdict.judge(drive_dir, model, recorded)
    return model


def device_line(model: dict) -> str:
    """The drive as OakGate names it on every page and plot: model, serial, firmware."""
    drive = model["drive"]
    return (f"{drive.get('model') or 'no model'} · serial {drive.get('serial') or '—'} · firmware "
            f"{drive.get('firmware') or '—'}")


def footer(model: dict) -> str:
    """The running footer of every PDF page (OakGate's): model, serial, firmware, run and date."""
    return f"{device_line(model)} · run {model['run_id']} · {model.get('report_date')}"


def plot_footer(model: dict) -> str:
    """The footer of every plot: the device line, so a plot lifted out of the report still names the drive, and the
    run (with the quick profile's warning)."""
    run = f"{QUICK_BANNER} · run {model['run_id']}" if model["quick_profile"] else f"run {model['run_id']}"
    return md.plot_label(f"{device_line(model)} · {run}")


def report_date(tests: dict, identity: dict) -> str:
    """The report's date: when the last result it shows was recorded (its last round, else the drive's
    identification), so a report rebuilt from the same files reads the same, byte for byte."""
    found = [t["finished_at"] for t in tests.values() if t.get("finished_at")]
    if not found and identity.get("recorded_at"):
        found = [identity["recorded_at"]]
    if not found:
        return "not recorded"
    return max(found)[:16].replace("T", " ") + " UTC"


def people(command: dict | None, plan: dict | None) -> dict:
    """Test operator and auditor as the run recorded them (the command that wrote the plan, else the plan's
    variables): the whole name even where Ansible's key=value parsing cut it (_people); None where none was given."""
    given = _people.given((command or {}).get("extra_vars") or [])
    variables = (plan or {}).get("variables") or {}
    out = {}
    for who, key in _people.PEOPLE.items():
        entry = given.get(who) or {}
        out[who] = (entry.get("name") or str(variables.get(key) or "").strip() or None)
    return out


def people_notes(command: dict | None) -> dict:
    """Per person whose name Ansible cut (given unquoted), how to give it whole."""
    given = _people.given((command or {}).get("extra_vars") or [])
    return {who: _people.hint(_people.PEOPLE[who], entry) for who, entry in given.items() if entry["cut"]}


def failed_step_text(test: str, failure: dict) -> str:
    """A test that failed before its first round (its purge, as a rule), in words; the caller escapes it."""
    where = failure.get("phase") or "purge"
    segment = f" {failure['segment']}" if failure.get("segment") else ""
    return f"{test}{segment}: the {where} failed before the first round: {failure.get('msg') or 'no reason recorded'}"


def _failed_step(test: str, failure: dict) -> str:
    return md.text(failed_step_text(TITLES.get(test, test), failure)) + (
        f" ({md.text(failure['recorded_at'])})" if failure.get("recorded_at") else "")


def failed_before_rounds(drive_dir: str, loaded: dict) -> dict:
    """Per test, the failure recorded in a test (or segment) directory that holds nothing else: a purge that was
    refused or failed leaves only failure.json, which the results loader does not count as a test."""
    found = {}
    for name in TESTS:
        if name in loaded:
            continue
        test_dir = os.path.join(drive_dir, name)
        if not _safe_tree.isdir(test_dir):
            continue
        candidates = [("", test_dir)] + [(entry, os.path.join(test_dir, entry)) for entry in _safe_tree.subdirs(test_dir)]
        for segment, path in candidates:
            failure_file = os.path.join(path, "failure.json")
            if _safe_tree.exists(failure_file):
                found[name] = dict(_results.read_json(failure_file), segment=segment or None)
                break
    return found


def _outputs_note(outputs: dict | None) -> list[str]:
    """Which of report.html and report.pdf were made, and why one was not."""
    missing = (outputs or {}).get("not_produced") or {}
    if outputs is None:
        return []
    made = [f"[report.{kind}](report.{kind})" for kind in ("html", "pdf") if kind not in missing]
    lines = []
    if made:
        lines.append(f"This report: [report.md](report.md) · {' · '.join(made)} (self-contained: plots embedded).")
    lines += [f"> **report.{kind} was not produced**: {md.text(reason)}" for kind, reason in missing.items()]
    return lines + [""] if lines else []


def _notes(model: dict, outputs: dict | None) -> list[str]:
    """The notes above the report's summary: a quick or throttled run, what was not produced, a drive the guard
    refused or that no test ran on, later attempts refused, tests that did not start."""
    lines = []
    if model["quick_profile"]:
        lines += [f"> **{QUICK_BANNER.capitalize()}.** Seconds per combination run on a small device: the "
                  "figures show the harness works; they do not qualify a drive.", ""]
    throttled = sorted({t["fio_options"]["rate_iops"] for t in model["tests"].values()
                        if (t.get("fio_options") or {}).get("rate_iops")})
    if throttled:
        lines += [f"> **Throttled** (fio rate_iops={', '.join(throttled)} per job): a harness benchmark, not a "
                  "qualification.", ""]
    lines += _outputs_note(outputs)
    guard = model.get("guard") or {}
    member = model.get("raid_member")
    if member and not model["tests"]:
        lines += [f"> **Tested as a member of the md array {md.code(member['array'])}** (RAID mode): see "
                  f"[its report](../{_results.safe_name(member['array'])}/report.md).", ""]
    elif guard and not guard.get("passed"):
        lines += ["> **Refused by the guard — nothing was written to this drive:**", ">"]
        lines += [f"> - {md.text(reason)}" for reason in guard.get("refusals") or []]
        lines.append("")
    elif not model["tests"] and model.get("failed_before_rounds"):
        lines += ["> **No test ran on this drive:** a step before the first round failed, so no figure was measured:",
                  ">"]
        lines += [f"> - {_failed_step(name, failure)}" for name, failure in model["failed_before_rounds"].items()]
        lines.append("")
    elif not model["tests"]:
        lines += ["> **No test ran on this drive.** " + (
            "The guard passed it, but the run stopped before its tests (another drive of the host was refused, or "
            "an earlier step failed: see the playbook output)." if guard else
            "The guard did not run for it in this run."), ""]
    later = model.get("guard_refused")
    if later:
        lines += [f"> **A later attempt of this run was refused by the guard** ({md.text(later.get('recorded_at'))}); "
                  "nothing was written then, and the results below are from the attempt the guard passed:", ">"]
        lines += [f"> - {md.text(reason)}" for reason in later.get("refusals") or []]
        lines.append("")
    other = model.get("drive_refused")
    if other:
        lines += [f"> **Another drive was listed under this name in a later attempt** "
                  f"({md.text(_identity.describe(other.get('drive') or {}))}); the run refused it before any write, "
                  "and the results below are this drive's.", ""]
    if model["tests"] and model.get("failed_before_rounds"):
        lines += ["> **Tests that did not start:**", ">"]
        lines += [f"> - {_failed_step(name, failure)}" for name, failure in model["failed_before_rounds"].items()]
        lines.append("")
    return lines


def render_markdown(model: dict, plots: dict, outputs: dict | None = None) -> str:
    lines = [f"# PTS report — {md.text(model['drive_key'])} on {md.text(model['host'])}", ""]
    lines += _notes(model, outputs)
    lines += _summary.section(model, html=outputs is not None and "html" not in (outputs.get("not_produced") or {}))
    # The steady-state rule matters to the PTS tests; a report of sweeps alone (characterisation, HDD) leaves it out.
    steady_rule = has_steady_rule(model)
    per_round = bool((model.get("round_health") or {}).get("read"))
    sections = ["Device information", "Setup information"] + (["Steady state"] if steady_rule else []) + \
        [t["title"] for t in model["tests"].values()] + (["Drive health per round"] if per_round else []) + \
        (["Wear"] if model["tests"] and model.get("wear") else []) + \
        (["Acceptance"] if (model.get("verdict") or {}).get("requirements") else [])
    lines += ["## Contents", "", f"[{_summary.TITLE}](#{md.anchor(_summary.TITLE)}) (above), then:", ""]
    for number, title in enumerate(sections, 1):
        lines.append(f"{number}. [{title}](#{md.anchor(f'{number} {title}')})")
    lines += ["", "## 1 Device information", ""]
    lines += md.table(["Item", "Value"], device_rows(model), numeric=False)
    lines += health_table(model)
    lines += ["", "## 2 Setup information", ""]
    lines += md.table(["Item", "Value"], setup_rows(model), numeric=False)
    if model["tests"]:
        lines += ["", "Tests run, in order:", ""]
        lines += tests_table(model)
    settings = next((t.get("settings") for t in model["tests"].values() if t.get("settings")), {}) or {}
    window = settings.get("window", 5)
    kinds = _kinds.present(model["tests"])
    lines += [] if not steady_rule else [
        "", "## 3 Steady state", "",
        "A test runs in rounds; each round yields its dependent variables (DV). Steady state is judged over the "
        f"measurement window, the last {window} rounds (SNIA PTS definition 2.1.18), and holds when both:", "",
        f"- the data excursion, max − min of the DV in the window, is at most "
        f"{settings.get('max_data_excursion_pct', 20):g} % of the window average, and",
        f"- the slope excursion, the change of the least-squares best-fit line across the window "
        f"(|slope| × {window - 1} rounds), is at most {settings.get('max_slope_excursion_pct', 10):g} % of the window "
        "average.", "",
        f"Measurement window: **{window} rounds**. Maximum rounds: **{settings.get('max_rounds', DASH)}**. Rounds are "
        "numbered from 1. When the limit is reached without a steady window, the last rounds are reported and "
        "marked *not steady*. Write saturation has no steady state: it runs until its capacity or time limit"
        + "".join(dict.fromkeys(kind.steady_clause for kind in kinds)) + "."
        + "".join(dict.fromkeys(kind.steady_note for kind in kinds)), "",
    ]
    capacity = int(model["drive"].get("size_bytes") or 0)
    for number, (name, result) in enumerate(model["tests"].items(), test_number(steady_rule)):
        part = _kinds.of(name).section(result, plots.get(name, {}), number, capacity)
        # OakGate's one-page summary of the test under its heading (the PDF starts each test on a page).
        lines += part[:2] + (_test_summary.lines(model, name, result) if result.get("rounds_run") else []) + part[2:]
    if per_round:
        lines += health_section(model, plots, sections.index("Drive health per round") + 1)
    if "Wear" in sections:
        lines += wear_section(model, sections.index("Wear") + 1)
    if "Acceptance" in sections:
        lines += _acceptance_section.section(model, sections.index("Acceptance") + 1)
    return "\n".join(lines).rstrip() + "\n"


def has_steady_rule(model: dict) -> bool:
    """Whether the report has its steady-state section: the PTS tests' rule, which a report of sweeps alone
    (characterisation, HDD) leaves out."""
    return not model["tests"] or any(kind.steady_rule for kind in _kinds.present(model["tests"]))


def test_number(steady_rule: bool) -> int:
    """The number of the first test's section: after the device, setup (and steady-state) sections."""
    return 4 if steady_rule else 3


def test_anchors(model: dict) -> tuple[str, ...]:
    """The heading ids of the tests' sections: each starts a page in the PDF, its summary at the top."""
    first = test_number(has_steady_rule(model))
    return tuple(md.anchor(f"{number} {result['title']}")
                 for number, result in enumerate(model["tests"].values(), first))


FORMATS = ("html", "pdf")


def formats_from_env() -> tuple[str, ...]:
    """PTS_REPORT_FORMATS (say "html", or "" for report.md alone) picks the extra outputs; both by default."""
    text = os.environ.get("PTS_REPORT_FORMATS")
    if text is None:
        return FORMATS
    return tuple(f for f in FORMATS if f in {part.strip().lower() for part in text.split(",")})


def _drop_stale_plots(plot_dir: str, plots: dict) -> None:
    """A plot an earlier render drew and this one does not (a 3D plot of an older version, a test since removed)
    would sit beside the report as if it belonged to it."""
    drawn = {os.path.basename(p) for names in plots.values() for p in names.values()}
    for name, dummy in _safe_tree.entries(plot_dir):
        if name.endswith(".png") and not name.startswith(".") and name not in drawn:
            _safe_tree.unlink(os.path.join(plot_dir, name))


def write_drive_report(drive_dir: str, formats: tuple[str, ...] | None = None, history=None, extra_core=None) -> dict:
    """Rebuild report.md, plots/*.png, result.json - and report.html and report.pdf where the controller has the
    libraries - for one drive; return their paths and, per output not made, why. ``history``: as build_model;
    ``extra_core``: what takes a second core for the plots (_split.run), where the cores are shared out."""
    formats = formats_from_env() if formats is None else formats
    model = build_model(drive_dir, history)
    subtitle = plot_footer(model)
    prefix = md.plot_label(f"{model['drive_key']} ({model['drive'].get('model') or 'drive'})")
    plot_dir = os.path.join(drive_dir, "plots")
    plots = {}
    if _plots.available():
        health = model.get("round_health") or {}

        def draw(name: str, result: dict) -> dict:
            per_test = (health.get("tests") or {}).get(name) or {}
            # Rounds the drive throttled or ran hot in are marked on the test's convergence plot.
            with _plots.round_marks(per_test.get("marks")):
                drawn = _kinds.of(name).plots(result, plot_dir, prefix, subtitle)
            if per_test.get("series"):
                drawn["temperature"] = _health_plots.temperature(
                    os.path.join(plot_dir, f"{name}-temperature.png"),
                    f"{prefix} — drive temperature per round, {TITLES.get(name, name)}", per_test["series"],
                    {k: health.get(k) for k in ("warning_c", "critical_c")}, subtitle)
            return {k: os.path.relpath(v, drive_dir) for k, v in drawn.items()}

        # Most of a report's time: its tests' plots, drawn on two cores where the process allows it (_split), shared
        # out by how long each kind says they take.
        jobs = [(name, _kinds.of(name).weight(name), lambda name=name, result=result: draw(name, result))
                for name, result in model["tests"].items() if result.get("rounds_run")]
        drawn_by_test = _split.run(jobs, extra_core)
        plots = {name: drawn_by_test[name] for name in model["tests"] if name in drawn_by_test}
        _drop_stale_plots(plot_dir, plots)
    model["plots"] = plots
    report = os.path.join(drive_dir, "report.md")
    result_json = os.path.join(drive_dir, "result.json")
    # Say in the report itself what will not be made, and why; a failure while making it is added afterwards.
    expected = {"not_produced": _html.not_produced(formats)}
    expected["not_produced"].update({k: "not asked for (PTS_REPORT_FORMATS)" for k in FORMATS if k not in formats})
    _results.atomic_write_text(report, render_markdown(model, plots, expected))
    outputs = {"html": None, "pdf": None, "not_produced": dict(expected["not_produced"])}
    wanted = [kind for kind in FORMATS if kind in formats and kind not in expected["not_produced"]]
    if wanted:
        title = f"PTS report — {model['drive_key']} on {model['host']}"
        # Page 1 holds the summary alone: the contents start page 2, and every section flows on from there. The PDF
        # is printed from the page without report.html when only the PDF is asked for.
        outputs = _html.write(report, title, pdf="pdf" in wanted, footer=footer(model),
                              page_breaks=("contents",) + test_anchors(model), html="html" in wanted)
        outputs["not_produced"] = dict(expected["not_produced"], **outputs["not_produced"])
        if outputs["not_produced"] != expected["not_produced"]:
            # The engine failed on this report: the Markdown says so too.
            _results.atomic_write_text(report, render_markdown(model, plots, outputs))
    model["outputs"] = {k: os.path.basename(v) if v else None for k, v in outputs.items() if k != "not_produced"}
    model["outputs"]["not_produced"] = outputs["not_produced"]
    # What a test's plots alone use (fio's interval logs as series, "_"-keys) stays in the logs, out of result.json.
    for result in model["tests"].values():
        for key in [k for k in result if k.startswith("_")]:
            del result[key]
    _results.atomic_write_json(result_json, model)
    return {"report": report, "result": result_json, "plots": plots, "model": model, "html": outputs.get("html"),
            "pdf": outputs.get("pdf"), "not_produced": outputs["not_produced"]}


def draw(drive_dir: str, formats: tuple[str, ...] | None = None, history=None, extra_core=None) -> dict:
    """write_drive_report in a short-lived child (_child), so that its memory - the figures, WeasyPrint's layout - is
    returned when it is done; the paths it wrote and, per output not made, why. A failure comes back as
    _child.ChildError with its message."""
    def work() -> dict:
        written = write_drive_report(drive_dir, formats, history, extra_core)
        return {key: written[key] for key in ("report", "result", "html", "pdf", "not_produced")}
    return _child.run(work)
