# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive's report (report.md, plots/*.png, result.json), rebuilt from its results directory alone."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._sizes import format_bytes
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _iops, _plots, _results

QUICK_BANNER = "quick profile — not a qualification"
DASH = "—"


def _fmt(value, digits: int = 1) -> str:
    if value is None:
        return DASH
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _fit_line(window: dict) -> str:
    if window.get("slope") is None:
        return DASH
    slope = window["slope"]
    sign = "−" if slope < 0 else "+"
    return f"IOPS = {_fmt(window['intercept'])} {sign} {_fmt(abs(slope))} × round"


def _mix(mix: int) -> str:
    return f"{mix}/{100 - mix}"


def build_model(drive_dir: str) -> dict:
    """Everything the report shows, computed from the files on disk."""
    loaded = _results.load_drive(drive_dir)
    identity = loaded["identity"]
    tests = {}
    for name, test in loaded["tests"].items():
        if name == "iops":
            tests[name] = _iops.build(test)
    quick = any((t.get("settings") or {}).get("profile") == "quick" for t in tests.values())
    return {
        "schema": _results.SCHEMA,
        "host": identity.get("host") or os.path.basename(os.path.dirname(drive_dir)),
        "drive_key": os.path.basename(drive_dir),
        "run_id": os.path.basename(os.path.dirname(os.path.dirname(drive_dir))),
        "drive": identity.get("drive") or {},
        "host_info": identity.get("host_info") or {},
        "guard": loaded["guard"],
        "quick_profile": quick,
        "tests": tests,
    }


def _device_rows(model: dict) -> list[tuple[str, str]]:
    drive = model["drive"]
    size = drive.get("size_bytes")
    interface = drive.get("interface") or DASH
    if drive.get("backing_file"):
        interface += f" (backing file `{drive['backing_file']}`, direct I/O {'on' if drive.get('direct_io') else 'off'})"
    purges = {t["purge"]["method"] + (" — **not a secure purge**" if not t["purge"].get("secure") else "")
              for t in model["tests"].values() if t.get("purge")}
    return [
        ("Vendor", drive.get("vendor") or DASH),
        ("Model", drive.get("model") or DASH),
        ("Serial number", drive.get("serial") or DASH),
        ("WWN", drive.get("wwn") or DASH),
        ("Firmware", drive.get("firmware") or DASH),
        ("User capacity", f"{size:,} bytes ({format_bytes(size)})" if size else DASH),
        ("Interface", interface),
        ("Device", f"`{drive.get('path', DASH)}` → `{drive.get('resolved', DASH)}`"),
        ("Logical / physical sector", f"{drive.get('logical_block_size', DASH)} / {drive.get('physical_block_size', DASH)} bytes"),
        ("Rotational", "yes" if drive.get("rotational") else "no"),
        ("Write cache (kernel queue mode)", (drive.get("write_cache") or "not reported")
         + "; the drive's own volatile write cache setting is not read yet"),
        ("Purge method", ", ".join(sorted(purges)) or "not run"),
    ]


def _data_pattern(options: dict) -> str:
    """The data pattern as the job files set it (PTS: random data, reported)."""
    shaping = [f"{k}={options[k]}" for k in ("buffer_pattern", "buffer_compress_percentage", "zero_buffers")
               if options.get(k)]
    if shaping:
        return "non-random: " + ", ".join(shaping)
    flags = [f"{k}={options[k]}" for k in ("refill_buffers", "randrepeat", "norandommap") if k in options]
    return "random (fio's default buffers)" + (", " + ", ".join(flags) if flags else "")


def _active_range(options: dict) -> str:
    if not options.get("offset") and not options.get("size"):
        return "0–100 % of the LBA space"
    return f"offset={options.get('offset', '0')}, size={options.get('size', 'rest of the device')}"


def _versions(model: dict) -> str:
    recorded = sorted({t["collection_version"] for t in model["tests"].values() if t.get("collection_version")})
    shown = ", ".join(recorded) or "unknown"
    if recorded != [_results.collection_version()]:
        shown += f" (report rendered by {_results.collection_version()})"
    return shown


def _setup_rows(model: dict) -> list[tuple[str, str]]:
    host = model["host_info"]
    settings = next((t.get("settings") for t in model["tests"].values() if t.get("settings")), {}) or {}
    fio = next((t.get("fio_version") for t in model["tests"].values() if t.get("fio_version")), None)
    started = [t["started_at"] for t in model["tests"].values() if t.get("started_at")]
    finished = [t["finished_at"] for t in model["tests"].values() if t.get("finished_at")]
    memory = host.get("memory_bytes")
    options = next((t.get("fio_options") for t in model["tests"].values() if t.get("fio_options")), {}) or {}
    numjobs, iodepth = settings.get("numjobs"), settings.get("iodepth")
    rows = [
        ("Run", f"`{model['run_id']}`"),
        ("Host", f"{model['host']} ({host.get('hostname') or DASH})"),
        ("Operating system", f"{host.get('os') or DASH}, kernel {host.get('kernel') or DASH} ({host.get('architecture') or DASH})"),
        ("CPU", f"{host.get('cpu_model') or DASH} × {host.get('cpu_count') or DASH}"),
        ("Memory", format_bytes(memory) if memory else DASH),
    ]
    if not model["tests"]:
        return rows + [("fio", host.get("fio_version") or DASH)]
    return rows + [
        ("Test software", f"fleetqual.pts {_versions(model)}, {fio or host.get('fio_version') or 'fio'}"),
        ("Test specification", "SNIA SSS PTS Enterprise 1.1 (IOPS test)"),
        ("Test dates (UTC)", f"{min(started) if started else DASH} – {max(finished) if finished else DASH}"),
        ("Threads × queue depth (OIO)", f"{numjobs} × {iodepth} = {numjobs * iodepth}" if numjobs and iodepth else DASH),
        ("I/O engine", f"{options.get('ioengine', DASH)}, direct={options.get('direct', '0')}"),
        ("Data pattern", _data_pattern(options)),
        ("Active range", _active_range(options)),
        ("Time per combination run", f"{settings.get('round_seconds', DASH)} s"),
        ("Profile", f"{settings.get('profile', DASH)}" + (f" — **{QUICK_BANNER}**" if model["quick_profile"] else "")),
    ]


def _table(headers: list[str], rows: list[list[str]], numeric: bool = True) -> list[str]:
    """A Markdown table; the first column left-aligned, the others right-aligned when numeric."""
    align = ["---"] + ["---:" if numeric else "---"] * (len(headers) - 1)
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _summary_table(result: dict, key: str, digits: int) -> list[str]:
    mixes = result["mixes"]
    headers = ["Block size ↓ / R/W mix % →"] + [_mix(m) for m in mixes]
    rows = [[f"**{bs}**"] + [_fmt(result["tables"][key][bs].get(str(m)), digits) for m in mixes]
            for bs in result["block_sizes"]]
    return _table(headers, rows)


def _plots_for(result: dict, plot_dir: str, title_prefix: str, subtitle: str | None) -> dict:
    if not _plots.available():
        return {}
    dv = result["dv"]
    paths = {
        "convergence": _plots.convergence(
            os.path.join(plot_dir, "iops-convergence.png"),
            f"{title_prefix} — IOPS steady-state convergence, random write ({_mix(dv['mix'])})",
            "IOPS (read + write)", result["convergence"], highlight=dv["bs"],
            window_rounds=result["window_rounds"], subtitle=subtitle),
        "verification": _plots.verification(
            os.path.join(plot_dir, "iops-verification.png"),
            f"{title_prefix} — IOPS steady-state verification, DV {dv['bs']} {_mix(dv['mix'])}",
            "IOPS", dv["values"], result["window"], subtitle=subtitle),
        "measurement": _plots.measurement_2d(
            os.path.join(plot_dir, "iops-measurement.png"),
            f"{title_prefix} — IOPS window average vs block size",
            "IOPS (read + write)", result["block_sizes"], result["tables"]["iops"], result["mixes"], subtitle=subtitle),
        "bars": _plots.bars_3d(
            os.path.join(plot_dir, "iops-3d.png"),
            f"{title_prefix} — IOPS window average, R/W mix × block size",
            "IOPS", result["block_sizes"], result["tables"]["iops"], result["mixes"], subtitle=subtitle),
    }
    return {k: os.path.relpath(v, os.path.dirname(plot_dir)) for k, v in paths.items()}


def _iops_section(result: dict, plots: dict, number: int, capacity: int) -> list[str]:
    if result.get("status") == "no rounds":
        return [f"## {number} IOPS", "", "No round finished; nothing was measured.", ""]
    settings = result["settings"]
    window = result["window"]
    dv = result["dv"]
    mixes = ", ".join(str(m) for m in result["mixes"])
    sizes = ", ".join(reversed(result["block_sizes"]))
    verdict_line = {
        "steady": f"**Steady state reached at round {result['steady_round']}.**",
        "not steady": f"**Not steady**: the round limit ({settings.get('max_rounds')}) was reached without a steady window; "
                      "the figures below are the last rounds' averages and are not steady-state figures.",
        "incomplete": f"**Incomplete**: the test stopped after {result['rounds_run']} of at most "
                      f"{settings.get('max_rounds')} rounds without reaching steady state.",
    }[result["status"]]
    wipc_plan = settings.get("wipc") or {}
    lines = [
        f"## {number} IOPS", "",
        f"Purge, workload-independent preconditioning ({wipc_plan.get('capacity_multiple', DASH)} × user capacity, "
        f"{wipc_plan.get('block_size', DASH)} sequential writes), then rounds of:",
        "", "```",
        "While not steady state and round < max rounds",
        f"  For R/W mix % in [{mixes}]",
        f"    For block size in [{sizes}]",
        f"      random I/O for {settings.get('round_seconds')} s (numjobs {settings.get('numjobs')}, iodepth {settings.get('iodepth')})",
        "```", "",
        f"Dependent variable: IOPS of {dv['bs']} random write ({_mix(dv['mix'])}), found by mix and block size in each round.",
        "",
    ]
    lines += [f"> Note: {note}" for note in result.get("notes") or []]
    lines += ["", f"### {number}.1 Steady state information", "", verdict_line, ""]
    data_pct = window.get("data_excursion_pct")
    slope_pct = window.get("slope_excursion_pct")
    lines += _table(["Item", "Value", "Allowed"], numeric=False, rows=[
        ["Measurement window", f"rounds {', '.join(str(r) for r in window['rounds'])}", f"{window['window']} rounds"],
        ["Window values (IOPS)", ", ".join(_fmt(v) for v in window["values"]), DASH],
        ["Window average", _fmt(window.get("average")) + " IOPS" if window.get("average") is not None else DASH, DASH],
        ["Data excursion (max − min)",
         f"{_fmt(window.get('data_excursion'))} IOPS = {_fmt(data_pct, 2)} %" if data_pct is not None else window["reason"],
         f"≤ {window['max_data_excursion_pct']:g} % of average"],
        ["Slope excursion (best fit across window)",
         f"{_fmt(window.get('slope_excursion'))} IOPS = {_fmt(slope_pct, 2)} %" if slope_pct is not None else DASH,
         f"≤ {window['max_slope_excursion_pct']:g} % of average"],
        ["Best-fit line", _fit_line(window), DASH],
        ["Steady state reached at", f"round {result['steady_round']}" if result["steady_round"] else "not reached", DASH],
        ["Rounds run", f"{result['rounds_run']}", f"≤ {settings.get('max_rounds')}"],
    ])
    lines += ["", "Every round as the steady-state check saw it:", ""]
    rows = []
    for verdict, value in zip(result["verdicts"], dv["values"]):
        rows.append([
            str(verdict["round"]), _fmt(value), _fmt(verdict.get("average")),
            _fmt(verdict.get("data_excursion_pct"), 2), _fmt(verdict.get("slope_excursion_pct"), 2),
            "**yes**" if verdict["steady"] else "no",
        ])
    lines += _table(["Round", f"DV IOPS ({dv['bs']} {_mix(dv['mix'])})", "Window avg", "Data exc. %", "Slope exc. %",
                     "Steady"], rows)
    if result.get("live_verdict_mismatch"):
        lines += ["", f"> Warning: the live verdicts of rounds {result['live_verdict_mismatch']} differ from the ones "
                      "recomputed from the round files."]
    lines += ["", f"### {number}.2 Measurement plots", ""]
    captions = {
        "convergence": "Steady State Convergence Plot: IOPS of every block size at 100 % random write, per round; the "
                       "DV in bold, the measurement window shaded.",
        "verification": "Steady State Verification Plot: the DV in the window, its average and the least-squares "
                        "best-fit line; the ±10 % band around the average is for orientation (OakGate's form), the "
                        "rule itself is max − min ≤ 20 % of the average and a best-fit excursion ≤ 10 %.",
        "measurement": "Measurement Plot: window-average IOPS against block size, one line per R/W mix.",
        "bars": "Measurement 3D Plot: window-average IOPS per R/W mix and block size.",
    }
    if not plots:
        lines += ["Plots were not drawn: matplotlib is not installed on the controller.", ""]
    for key, caption in captions.items():
        if key in plots:
            lines += [f"![{caption.split(':', maxsplit=1)[0]}]({plots[key]})", "", f"*{caption}*", ""]
    lines += [f"### {number}.3 Measurement window summary tables", "",
              f"Average IOPS (read + write) over rounds {', '.join(str(r) for r in result['window_rounds'])}:", ""]
    lines += _summary_table(result, "iops", 1)
    lines += ["", "Average throughput, MB/s (10⁶ bytes/s), read + write:", ""]
    lines += _summary_table(result, "mb_per_s", 2)
    lines += ["", "Average latency, ms (IO-weighted mean of read and write):", ""]
    lines += _summary_table(result, "mean_latency_ms", 3)
    lines += ["", f"### {number}.4 Purge, preconditioning and files", ""]
    purge = result.get("purge") or {}
    wipc = result.get("wipc") or {}
    if wipc:
        wanted = int(wipc_plan.get("capacity_multiple", 2)) * capacity
        wipc_text = (f"{wipc['bytes_written']:,} bytes ({format_bytes(wipc['bytes_written'])}) written, "
                     f"{wipc.get('block_size')} sequential, {_fmt(wipc.get('mb_per_s'))} MB/s")
        if capacity and wipc["bytes_written"] < wanted:
            wipc_text += f" — **short of the {wanted:,} bytes asked for**"
    else:
        wipc_text = "not run"
    rows = [
        ["Purge", f"{purge.get('method', 'not run')}" + (f" ({purge.get('note')})" if purge.get("note") else ""),
         _fmt(purge.get("elapsed_s"), 3) + " s" if purge.get("elapsed_s") is not None else DASH],
        ["Workload-independent preconditioning", wipc_text,
         _fmt(wipc.get("elapsed_s")) + " s" if wipc.get("elapsed_s") is not None else DASH],
    ]
    elapsed = [e for e in result.get("round_elapsed_s") or [] if e is not None]
    rows.append(["Rounds", f"{result['rounds_run']} rounds, {result['started_at']} – {result['finished_at']}",
                 _fmt(sum(elapsed)) + " s" if elapsed else DASH])
    lines += _table(["Step", "What", "Time"], rows, numeric=False)
    links = ", ".join(f"[{i + 1:02d}](iops/round-{i + 1:02d}.fio)" for i in range(result["rounds_run"]))
    lines += ["", f"fio job files: [WIPC](iops/wipc.fio); rounds {links}. The parsed results of round NN are in "
                  "`iops/round-NN.json`, fio's own output in `iops/round-NN.raw.json`.", ""]
    return lines


def render_markdown(model: dict, plots: dict) -> str:
    key = model["drive_key"]
    lines = [f"# PTS report — {key} on {model['host']}", ""]
    if model["quick_profile"]:
        lines += [f"> **{QUICK_BANNER.capitalize()}.** Seconds per combination run on a small device: the "
                  "figures show the harness works; they do not qualify a drive.", ""]
    verdicts = []
    for name, result in model["tests"].items():
        verdicts.append(f"{result.get('title', name)}: **{result.get('status')}**"
                        + (f" (round {result['steady_round']})" if result.get("steady_round") else ""))
    lines += [f"Run `{model['run_id']}`" + "".join(" · " + v for v in verdicts), ""]
    guard = model.get("guard") or {}
    if guard and not guard.get("passed"):
        lines += ["> **Refused by the guard — nothing was written to this drive:**", ">"]
        lines += [f"> - {reason}" for reason in guard.get("refusals") or []]
        lines.append("")
    elif not model["tests"]:
        lines += ["> **No test ran on this drive.** " + (
            "The guard passed it, but the run stopped before its tests (another drive of the host was refused, or "
            "an earlier step failed: see the playbook output)." if guard else
            "The guard did not run for it in this run."), ""]
    sections = ["Device information", "Setup information", "Steady state"] + [
        t.get("title", n) for n, t in model["tests"].items()]
    lines += ["## Contents", ""]
    for i, title in enumerate(sections, 1):
        anchor = f"{i}-{title.lower().replace(' ', '-')}"
        lines.append(f"{i}. [{title}](#{anchor})")
    lines += ["", "## 1 Device information", ""]
    lines += _table(["Item", "Value"], [list(r) for r in _device_rows(model)], numeric=False)
    lines += ["", "## 2 Setup information", ""]
    lines += _table(["Item", "Value"], [list(r) for r in _setup_rows(model)], numeric=False)
    settings = next((t.get("settings") for t in model["tests"].values() if t.get("settings")), {}) or {}
    window = settings.get("window", 5)
    lines += [
        "", "## 3 Steady state", "",
        "A test runs in rounds; each round yields one dependent variable (DV). Steady state is judged over the "
        f"measurement window, the last {window} rounds (SNIA PTS definition 2.1.18), and holds when both:", "",
        f"- the data excursion, max − min of the DV in the window, is at most "
        f"{settings.get('max_data_excursion_pct', 20):g} % of the window average, and",
        f"- the slope excursion, the change of the least-squares best-fit line across the window "
        f"(|slope| × {window - 1} rounds), is at most {settings.get('max_slope_excursion_pct', 10):g} % of the window average.", "",
        f"Measurement window: **{window} rounds**. Maximum rounds: **{settings.get('max_rounds', DASH)}**. Rounds are "
        "numbered from 1. When the limit is reached without a steady window, the last rounds are reported and "
        "marked *not steady*.", "",
    ]
    number = 4
    for name, result in model["tests"].items():
        if name == "iops":
            lines += _iops_section(result, plots.get(name, {}), number, int(model["drive"].get("size_bytes") or 0))
        number += 1
    return "\n".join(lines).rstrip() + "\n"


def write_drive_report(drive_dir: str) -> dict:
    """Rebuild report.md, plots/*.png and result.json for one drive; return their paths."""
    model = build_model(drive_dir)
    subtitle = f"{QUICK_BANNER} · run {model['run_id']}" if model["quick_profile"] else f"run {model['run_id']}"
    title_prefix = f"{model['drive_key']} ({model['drive'].get('model') or 'drive'})"
    plots = {}
    for name, result in model["tests"].items():
        if name == "iops" and result.get("status") != "no rounds":
            plots[name] = _plots_for(result, os.path.join(drive_dir, "plots"), title_prefix, subtitle)
    model["plots"] = plots
    report = os.path.join(drive_dir, "report.md")
    result_json = os.path.join(drive_dir, "result.json")
    _results.atomic_write_text(report, render_markdown(model, plots))
    _results.atomic_write_json(result_json, model)
    return {"report": report, "result": result_json, "plots": plots, "model": model}
