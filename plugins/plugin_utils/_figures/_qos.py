# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The QoS report kind's acceptance figures: per queue depth and direction (4k random, one thread), the percentiles of
all the run's IOs with the IOs they count, the mean, the maximum and IOPS - a datacenter specification's QoS table."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import qos
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import Figure, measured, needed_ios
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import round_files


def _cell(model: dict, params: dict) -> tuple[dict, dict | None]:
    result = (model.get("tests") or {}).get("qos") or {}
    return result, (result.get("cells") or {}).get(f"{params['dir']} qd{params['qd']}")


def _missing(result: dict, params: dict, unit: str) -> dict:
    if not result.get("rounds_run"):
        return measured(None, unit, "qos", reason="the QoS measurement did not run")
    return measured(None, unit, "qos", state=result.get("status"),
                    reason=f"the QoS measurement ran no 4k random {params['dir']} at QD{params['qd']}")


def _plain(key: str, unit: str):
    def value(model: dict, params: dict) -> dict:
        result, cell = _cell(model, params)
        if cell is None:
            return _missing(result, params, unit)
        return measured(cell.get(key), unit, "qos", round_files("qos", "measure", [cell["round_file"]]),
                        result.get("status"), ios=cell.get("ios"))
    return value


def _percentile(model: dict, params: dict) -> dict:
    result, cell = _cell(model, params)
    if cell is None:
        return _missing(result, params, "ms")
    pct, needed = params["pct"], needed_ios(params["pct"])
    value = (cell.get("percentiles_ms") or {}).get(pct)
    why = None if value is not None else (
        f"the QoS run of 4k random {params['dir']} at QD{params['qd']} counted {cell['ios']:,} IOs; p{pct} needs at "
        f"least {needed:,} (10 beyond it) to be resolved")
    return measured(value, "ms", "qos", round_files("qos", "measure", [cell["round_file"]]), result.get("status"),
                    reason=why, ios=cell.get("ios"), needed=needed)


def _planned(tests: dict, params: dict, plan: dict) -> str | None:
    entry = tests.get("qos")
    if entry is None:
        return "the QoS measurement is not selected (pts_tests)"
    parameters = entry.get("parameters") or {}
    if params["qd"] not in (parameters.get("queue_depths") or []):
        return f"QD{params['qd']} is not among the QoS measurement's queue depths (pts_run_qos_queue_depths)"
    pct = params.get("pct")
    if pct and needed_ios(pct) > int(parameters.get("ios") or 0):
        return (f"the QoS measurement runs {int(parameters.get('ios') or 0):,} IOs per cell (for "
                f"p{parameters.get('percentile')}); p{pct} needs {needed_ios(pct):,} (pts_run_qos_percentile)")
    return None


def _needs(params: dict) -> dict:
    out = {"test": "qos", "only": {"pts_run_qos_queue_depths": ("queue_depths", params["qd"])}}
    if params.get("pct"):
        out["deepest"] = {"pts_run_qos_percentile": ("percentile", params["pct"])}
    return out


_CELL = "QoS (4k random, one thread at the queue depth, after preconditioning to steady state): "
FIGURES = (
    Figure("qos.<dir>.qd<qd>.p<pct>", unit="ms", direction="lower", test="qos",
           what=_CELL + "a percentile of all the run's IOs, from fio's histogram, with the IOs it counts; the run "
                        "holds as many IOs as the deepest percentile asked for needs, so it is not judged only when "
                        "its time cap ended it first", example="qos.read.qd32.p99.99", value=_percentile,
           planned=_planned, needs=_needs, allowed={"pct": qos.PERCENTILES}),
    Figure("qos.<dir>.qd<qd>.mean", unit="ms", direction="lower", test="qos", what=_CELL + "the mean latency",
           example="qos.read.qd1.mean", value=_plain("mean_ms", "ms"), planned=_planned, needs=_needs),
    Figure("qos.<dir>.qd<qd>.max", unit="ms", direction="lower", test="qos", what=_CELL + "the slowest IO",
           example="qos.write.qd1.max", value=_plain("max_ms", "ms"), planned=_planned, needs=_needs),
    Figure("qos.<dir>.qd<qd>.iops", unit="IOPS", direction="higher", test="qos", what=_CELL + "the IOPS",
           example="qos.read.qd32.iops", value=_plain("iops", "IOPS"), planned=_planned, needs=_needs),
)
