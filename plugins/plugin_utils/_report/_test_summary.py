# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""OakGate's one-page summary of a test, at the top of its section (which starts a page in the PDF): the device,
the test date, how it was run and what it gave - so a page printed on its own still says what it shows."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, format_bytes
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _kinds
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

# Parameters that repeat another row, or that no reader of the summary needs.
_SKIP = ("bssplit_sizes",)


def _when(result: dict) -> str:
    started, finished = result.get("started_at"), result.get("finished_at")
    if not started:
        return "not recorded"
    text = f"{started[:19].replace('T', ' ')} – {(finished or '?')[:19].replace('T', ' ')} UTC"
    wall = result.get("wall_s")
    return text + (f" ({_headline_figures.duration(wall)})" if wall is not None else "")


def _value(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _stimulus(settings: dict) -> str:
    numjobs, iodepth = settings.get("numjobs"), settings.get("iodepth")
    parts = []
    if numjobs and iodepth:
        parts.append(f"{md.plural(int(numjobs), 'thread')} × queue depth {iodepth} "
                     f"({int(numjobs) * int(iodepth)} IOs outstanding)")
    if settings.get("block_sizes"):
        parts.append("block sizes " + ", ".join(block_size_label(int(b)) for b in settings["block_sizes"]))
    if settings.get("mixes"):
        parts.append("R/W mixes " + ", ".join(md.mix(int(m)) for m in settings["mixes"]))
    if settings.get("round_seconds"):
        parts.append(f"{float(settings['round_seconds']):g} s per run")
    parts.append(f"{settings.get('ioengine') or 'libaio'}, direct I/O")
    return "; ".join(parts)


def _outcome(result: dict) -> str:
    text = result.get("steady_text") or ""
    status = result.get("status") or "not run"
    return f"**{md.text(status)}**" + (f": {md.text(text)}" if text and text != status else "")


def rows(model: dict, name: str, result: dict) -> list[list[str]]:
    """The summary's rows for one test."""
    drive = model["drive"]
    settings = result.get("settings") or {}
    kind = _kinds.of(name)
    capacity = int(drive.get("size_bytes") or 0)
    device = f"{md.text(drive.get('model') or 'no model')} · serial {md.text(drive.get('serial') or None)} · firmware " \
             f"{md.text(drive.get('firmware') or None)}" + (f" · {format_bytes(capacity)}" if capacity else "")
    quick = " (**quick: not a qualification**)" if model.get("quick_profile") else ""
    out = [["Device", device],
           ["Test date", _when(result)],
           ["Run", f"{md.code(model['run_id'])} · profile {md.text(settings.get('profile') or None)} · SNIA PTS "
                   f"{md.text(settings.get('spec') or '1.1')}{quick}"],
           ["Stimulus", md.text((kind.stimulus or _stimulus)(settings))]]
    if kind.steady_row and settings.get("window"):
        out.append(["Steady state", f"window {settings['window']} rounds, at most {settings.get('max_rounds')} rounds, "
                                    f"max − min ≤ {settings.get('max_data_excursion_pct', 20):g} %, best-fit change ≤ "
                                    f"{settings.get('max_slope_excursion_pct', 10):g} % of the window average"])
    parameters = {k: v for k, v in (settings.get("parameters") or {}).items() if k not in _SKIP and v is not None}
    if parameters:
        out.append(["Parameters", md.text("; ".join(f"{k.replace('_', ' ')} {_value(v)}"
                                                    for k, v in sorted(parameters.items())))])
    out.append(["Outcome", _outcome(result)])
    return out


def lines(model: dict, name: str, result: dict) -> list[str]:
    """The summary table of one test, to follow its heading."""
    return [f"**{md.text(result.get('title') or name)} — test summary**", "",
            *md.table(["Item", "Value"], rows(model, name, result), numeric=False), ""]
