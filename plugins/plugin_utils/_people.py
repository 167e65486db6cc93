# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The report's people (PTS common reporting: test operator, auditor) as the command line gave them.

ansible-playbook reads an ``-e key=value`` argument with its key=value parser: a value ends at the first space unless
it is quoted *inside* the argument. ``-e pts_report_operator="J. Doe"`` reaches ansible-playbook as
``pts_report_operator=J. Doe`` (the shell took the quotes), so Ansible reads ``J.`` and leaves ``Doe`` as a bare word.
The name is recorded whole - the bare words that follow a person's key in the same argument belong to it - and the
cut is named, with a form that works: ``-e 'pts_report_operator="J. Doe"'`` or ``-e '{"pts_report_operator": "J.
Doe"}'``."""

from __future__ import annotations

import json

import yaml
from ansible.parsing.splitter import parse_kv, split_args

PEOPLE = {"operator": "pts_report_operator", "auditor": "pts_report_auditor"}


def _mapping(text: str) -> dict:
    """A JSON or YAML mapping given to -e ({...}), as Ansible loads it; {} when it is none."""
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            value = None
    return value if isinstance(value, dict) else {}


def _key_value(text: str) -> dict:
    """One key=value -e argument: per key what Ansible reads (its parser: quotes inside the argument honoured) and
    the bare words that follow it in the argument (what Ansible leaves out of it)."""
    try:
        read = parse_kv(text)
        words = split_args(text)
    except Exception:  # pylint: disable=broad-exception-caught  # Ansible refuses it too; nothing read from it
        return {}
    found: dict = {}
    key = None
    for word in words:
        name = word.split("=", 1)[0] if "=" in word else None
        if name and name in read:
            key = name
            found[key] = {"read": str(read[key]), "after": []}
        elif key is not None:
            found[key]["after"].append(word)
    return found


def given(extra_vars: list | None) -> dict:
    """Per person the name as given on the command line ({who: {"name", "read", "cut"}}: ``read`` what Ansible read,
    ``cut`` when that is only its first word); a person not given is absent. An @file is not read."""
    out: dict = {}
    for entry in extra_vars or []:
        text = str(entry).strip()
        if not text or text.startswith("@"):
            continue
        if text[0] in "{[":
            found = {k: {"read": str(v), "after": []} for k, v in _mapping(text).items() if v is not None}
        else:
            found = _key_value(text)
        for who, key in PEOPLE.items():
            if key not in found:
                continue
            read, after = found[key]["read"].strip(), found[key]["after"]
            name = " ".join([read] + after).strip()
            out[who] = {"name": name or None, "read": read or None, "cut": bool(after)}
    return out


def hint(key: str, entry: dict) -> str:
    """Why a name was cut, and a form of -e that gives it whole."""
    whole = entry["name"].replace('"', '\\"')
    return (f"{key} was given without quotes around the name: ansible-playbook read {entry['read']!r} and left "
            f"{entry['name'][len(entry['read']):].strip()!r} out; give it as -e '{key}=\"{whole}\"' (or -e "
            f"'{{\"{key}\": \"{whole}\"}}')")
