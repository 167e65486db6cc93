# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The acceptance figures of the drive's own health and wear (the report's "Drive health per round" and "Wear"
sections): read by every run, so no test has to be selected for them; a drive that does not report one leaves it not
judged."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import Figure, measured, round_files


def _at(where: dict | None) -> list[str]:
    if not where or where.get("round") is None:
        return []
    return round_files(where["test"], where.get("segment") or "", [f"round-{int(where['round']):02d}"])


def _temperature(model: dict, params: dict) -> dict:
    health = model.get("round_health") or {}
    if health.get("max_c") is None:
        return measured(None, "°C", None, reason="the drive reported no temperature in any round")
    return measured(health["max_c"], "°C", None, _at(health.get("max_at")), "read")


def _marked(kind: str, unit: str):
    def value(model: dict, params: dict) -> dict:
        health = model.get("round_health") or {}
        if not health.get("read"):
            return measured(None, unit, None, reason="the drive's health was not read in any round")
        if kind == "throttled" and not health.get("throttle_counters"):
            return measured(None, unit, None, reason="the drive reports no thermal-management counters, so "
                                                     "throttling cannot be judged")
        rounds = [m for m in health.get("marked") or [] if kind in m["kinds"]]
        return measured(len(rounds), unit, None, [f for m in rounds[:20] for f in _at(m)], "read")
    return value


def _amplification(model: dict, params: dict) -> dict:
    wear = model.get("wear") or {}
    found = wear.get("write_amplification")
    why = None if found is not None else "the drive reports no media (NAND) write counter"
    return measured(found, "×", None, [], "read" if found is not None else None, reason=why)


def _percentage_used(model: dict, params: dict) -> dict:
    before = ((model.get("drive") or {}).get("health") or {}).get("percentage_used")
    after = (model.get("health_after") or {}).get("percentage_used")
    if not isinstance(before, int) or not isinstance(after, int) or isinstance(before, bool):
        return measured(None, "%", None, reason="the drive reports no percentage used before and after the run")
    return measured(after - before, "%", None, ["drive.json", "health-after.json"], "read")


FIGURES = (
    Figure("health.max_temperature", unit="°C", direction="lower", test=None,
           what="Drive health: the highest temperature read just before or after any round",
           example="health.max_temperature", value=_temperature),
    Figure("health.throttled_rounds", unit="rounds", direction="lower", test=None,
           what="Drive health: the rounds in which a thermal-management counter grew (0: never throttled); not judged "
                "for a drive without such counters (SATA, SAS)", example="health.throttled_rounds",
           value=_marked("throttled", "rounds")),
    Figure("health.error_rounds", unit="rounds", direction="lower", test=None,
           what="Drive health: the rounds in which an error counter grew", example="health.error_rounds",
           value=_marked("errors", "rounds")),
    Figure("wear.write_amplification", unit="×", direction="lower", test=None,
           what="Wear: the drive's media writes over the host's in the run (its own counters)",
           example="wear.write_amplification", value=_amplification),
    Figure("wear.percentage_used_added", unit="%", direction="lower", test=None,
           what="Wear: the percentage used the drive reports after the run less before it",
           example="wear.percentage_used_added", value=_percentage_used),
)
