# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""An acceptance specification (``pts_acceptance_specs``): a versioned YAML document - its name, version, source
(document and section), the drives it applies to and its requirements, each on one figure of the catalogue
(_figures/_catalogue.py) with a limit or a rated value and the share of it a drive must reach. Validated before the
first write like every input: an unknown key or figure, a unit that is not the figure's, a limit outside its physical
range are refused, naming the file, the requirement and the value."""

from __future__ import annotations

import hashlib
import os
import re
import stat

import yaml

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _text
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _catalogue, _units
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _applies

SPEC_KEYS = ("name", "version", "source", "applies_to", "requirements", "not_judged", "example", "description")
REQUIREMENT_KEYS = ("id", "title", "figure", "comparison", "limit", "unit", "rated", "min_pct_of_rated",
                    "max_pct_of_rated", "source", "not_judged", "note")
SOURCE_KEYS = ("document", "section", "url")
# What a requirement that cannot be judged (a percentile its IOs do not resolve, a figure the drive does not report)
# does to the drive's verdict: INCOMPLETE (the default: nothing says the drive is bad) or FAIL.
NOT_JUDGED = ("incomplete", "fail")
# A comparison and the direction of the figures it fits: a floor for what is better higher, a ceiling for what is
# better lower. The other way round is almost always a mistake (a rated IOPS written as a ceiling), so it is refused.
COMPARISONS = {">=": "higher", ">": "higher", "<=": "lower", "<": "lower"}
MAX_FILE_BYTES = 1 << 20
MAX_REQUIREMENTS = 2000
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,63}", re.ASCII)


class SpecError(PtsError, ValueError):
    """A specification that cannot be used: the message names the file (or entry), the requirement and the value."""


def _keys(where: str, entry: object, known: tuple, what: str) -> dict:
    if not isinstance(entry, dict):
        raise SpecError(f"{where}: {what} must be a mapping, not {type(entry).__name__}")
    unknown = sorted(str(k) for k in set(entry) - set(known))
    if unknown:
        raise SpecError(f"{where}: unknown keys {unknown}; known: {', '.join(known)}")
    return entry


def _string(where: str, value: object, required: bool = False, limit: int = 500) -> str | None:
    if value is None or value == "":
        if required:
            raise SpecError(f"{where}: required")
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise SpecError(f"{where}={value!r}: must be text")
    text = str(value).strip()
    if len(text) > limit:
        raise SpecError(f"{where}: longer than {limit} characters")
    try:
        _text.no_format_characters(where, text)
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    return text


def _source(where: str, value: object) -> dict:
    """A source as a mapping (document, section, url) or the document's title alone."""
    if isinstance(value, dict):
        _keys(where, value, SOURCE_KEYS, "a source")
        return {key: _string(f"{where}.{key}", value.get(key), required=key == "document") for key in SOURCE_KEYS}
    return {"document": _string(where, value, required=True), "section": None, "url": None}


def _choice(where: str, value: object, choices: tuple, default: str) -> str:
    if value is None:
        return default
    if value not in choices:
        raise SpecError(f"{where}={value!r}: must be one of {', '.join(choices)}")
    return value


def requirement(where: str, entry: object, not_judged: str) -> dict:
    """One requirement, checked and normalized: its figure by its canonical name, the limit in the figure's own unit
    (from ``limit``, or ``rated`` times ``min_pct_of_rated`` / ``max_pct_of_rated``), and the comparison."""
    entry = _keys(where, entry, REQUIREMENT_KEYS, "a requirement")
    ident = entry.get("id")
    if isinstance(ident, bool) or not isinstance(ident, (str, int)) or not _ID_RE.fullmatch(str(ident)):
        raise SpecError(f"{where}.id={ident!r}: each requirement needs an id of letters, digits, '.', '_', '/' or "
                        "'-' (at most 64), as the specification numbers it")
    ident = str(ident)
    where = f"{where} ({ident})"
    try:
        figure, params, name = _catalogue.parse(entry.get("figure"))
    except ValueError as exc:
        raise SpecError(f"{where}.figure={entry.get('figure')!r}: {exc}") from None
    given_unit = entry.get("unit", figure.unit)
    try:
        factor = _units.factor(figure.unit, given_unit, f"{where}.unit")
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    comparison = _choice(f"{where}.comparison", entry.get("comparison"), tuple(COMPARISONS),
                         ">=" if figure.direction == "higher" else "<=")
    if COMPARISONS[comparison] != figure.direction:
        raise SpecError(f"{where}.comparison={comparison!r}: {name} is better {figure.direction}, so its requirement "
                        f"is a {'floor (>= or >)' if figure.direction == 'higher' else 'ceiling (<= or <)'}")
    has_limit, has_rated = entry.get("limit") is not None, entry.get("rated") is not None
    if has_limit == has_rated:
        raise SpecError(f"{where}: give either limit or rated (with min_pct_of_rated or max_pct_of_rated)")
    pct_key = "min_pct_of_rated" if figure.direction == "higher" else "max_pct_of_rated"
    other = "max_pct_of_rated" if pct_key == "min_pct_of_rated" else "min_pct_of_rated"
    if entry.get(other) is not None:
        raise SpecError(f"{where}.{other}: {name} is better {figure.direction}: give {pct_key}")
    try:
        if has_limit:
            if entry.get(pct_key) is not None:
                raise SpecError(f"{where}.{pct_key}: only with rated, not with limit")
            given = _units.number(f"{where}.limit", entry["limit"])
            limit = _units.in_range(figure.unit, given * factor, f"{where}.limit={entry['limit']!r} {given_unit}")
            basis = {"limit": entry["limit"], "unit": given_unit}
        else:
            rated = _units.number(f"{where}.rated", entry["rated"])
            _units.in_range(figure.unit, rated * factor, f"{where}.rated={entry['rated']!r} {given_unit}")
            pct = _units.number(f"{where}.{pct_key}", entry.get(pct_key, 100))
            if not 0 < pct <= 1000:
                raise SpecError(f"{where}.{pct_key}={entry.get(pct_key)!r}: must be above 0 and at most 1000 (%)")
            limit = _units.in_range(figure.unit, rated * factor * pct / 100,
                                    f"{where}: {pct:g} % of rated {entry['rated']!r} {given_unit}")
            basis = {"rated": rated, "unit": given_unit, pct_key: pct}
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    return {"id": ident, "title": _string(f"{where}.title", entry.get("title")), "figure": name,
            "unit": figure.unit, "direction": figure.direction, "test": figure.test, "comparison": comparison,
            "limit": limit, "given": basis, "source": _string(f"{where}.source", entry.get("source")),
            "note": _string(f"{where}.note", entry.get("note")),
            "not_judged": _choice(f"{where}.not_judged", entry.get("not_judged"), NOT_JUDGED, not_judged)}


def validate(document: object, where: str) -> dict:
    """A specification as its file gives it, checked; the normalized specification (``where`` names it in every
    message and is kept as ``file``)."""
    spec = _keys(where, document, SPEC_KEYS, "a specification")
    name = _string(f"{where}: name", spec.get("name"), required=True, limit=120)
    version = _string(f"{where}: version", spec.get("version"), required=True, limit=40)
    source = _source(f"{where}: source", spec.get("source"))
    try:
        applies = _applies.validate(spec.get("applies_to"), f"{where}: applies_to")
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    not_judged = _choice(f"{where}: not_judged", spec.get("not_judged"), NOT_JUDGED, "incomplete")
    example = spec.get("example", False)
    if not isinstance(example, bool):
        raise SpecError(f"{where}: example={example!r}: must be true or false")
    entries = spec.get("requirements")
    if not isinstance(entries, list) or not entries:
        raise SpecError(f"{where}: requirements must be a non-empty list")
    if len(entries) > MAX_REQUIREMENTS:
        raise SpecError(f"{where}: more than {MAX_REQUIREMENTS} requirements")
    requirements, seen = [], set()
    for index, entry in enumerate(entries):
        found = requirement(f"{where}: requirements[{index}]", entry, not_judged)
        if found["id"] in seen:
            raise SpecError(f"{where}: requirements[{index}]: id {found['id']!r} is given twice")
        seen.add(found["id"])
        requirements.append(found)
    return {"name": name, "version": version, "source": source, "applies_to": applies, "not_judged": not_judged,
            "example": example, "description": _string(f"{where}: description", spec.get("description"), limit=2000),
            "requirements": requirements, "file": where}


def read(path: str, where: str) -> tuple[str, str]:
    """A specification file's text and its SHA-256: a regular file of at most MAX_FILE_BYTES (never a FIFO or a
    device, which would hang or feed anything: opened without blocking and checked before it is read)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise SpecError(f"{where}: not a regular file")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise SpecError(f"{where}: larger than {MAX_FILE_BYTES:,} bytes")
    try:
        return data.decode("utf-8"), hashlib.sha256(data).hexdigest()
    except UnicodeDecodeError as exc:
        raise SpecError(f"{where}: not UTF-8 text: {exc}") from None


def load(entries: object, resolve) -> list[dict]:
    """``pts_acceptance_specs``: a list of specification files (``resolve(path)`` finds each, as a playbook's relative
    paths are found) or specifications given inline as mappings; each validated, with where it came from."""
    if entries in (None, ""):
        return []
    if not isinstance(entries, list):
        raise SpecError(f"pts_acceptance_specs={entries!r}: must be a list of specification files (or mappings)")
    specs = []
    for index, entry in enumerate(entries):
        if isinstance(entry, dict):
            spec = validate(entry, f"pts_acceptance_specs[{index}]")
            spec["sha256"] = None
        elif isinstance(entry, str) and entry.strip():
            path = resolve(entry.strip())
            where = f"pts_acceptance_specs[{index}] ({entry.strip()})"
            try:
                text, digest = read(path, where)
                document = yaml.safe_load(text)
            except OSError as exc:
                raise SpecError(f"{where}: cannot be read: {exc.strerror or exc}") from None
            except yaml.YAMLError as exc:
                raise SpecError(f"{where}: not YAML: {exc}") from None
            spec = validate(document, where)
            spec.update(file=entry.strip(), path=path, sha256=digest)
        else:
            raise SpecError(f"pts_acceptance_specs[{index}]={entry!r}: must be a file's path or a specification")
        specs.append(spec)
    names = [(s["name"], s["version"]) for s in specs]
    twice = sorted({f"{n} {v}" for n, v in names if names.count((n, v)) > 1})
    if twice:
        raise SpecError(f"pts_acceptance_specs: {', '.join(twice)} given twice (name and version name a "
                        "specification in every report)")
    return specs
