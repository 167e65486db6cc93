# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Where the history is, and how it is named where anyone can read it.

The first of: an action's ``history_url`` option (the playbooks pass the ``pts_history_url`` variable: ``-e``, the
inventory, an AWX survey or credential), the ``PTS_HISTORY_URL`` environment variable. Unset: SQLite,
``<results root>/pts-history.sqlite`` beside the runs (nothing to install). ``postgresql://`` (or ``postgres://``): one
PostgreSQL database, a libpq URL.

The password is never shown: it may come from the URL, the action's ``history_password`` option (the playbooks pass
``pts_history_password``: vault it), or what libpq reads itself (``PGPASSWORD``, ``~/.pgpass``, a service file:
``?service=NAME``). Everything said about the history names it by ``shown`` (the URL without its password or any
``password`` parameter), and every message that passes through ``scrub`` has each known secret replaced."""

from __future__ import annotations

import dataclasses
import os
import urllib.parse

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError

SQLITE, POSTGRESQL = "sqlite", "postgresql"
DB_NAME = "pts-history.sqlite"
ENV = "PTS_HISTORY_URL"
VARIABLE = "pts_history_url"
PASSWORD_VARIABLE = "pts_history_password"
# How a message names the actions' options: by the option and the variable the playbooks pass to it.
URL_OPTION = f"history_url ({VARIABLE})"
PASSWORD_OPTION = f"history_password ({PASSWORD_VARIABLE})"
# The options of every action that reads or writes the history (their docs: the _history doc fragment).
ARGUMENT_SPEC = dict(history_url=dict(type="str", no_log=True), history_password=dict(type="str", no_log=True))
SCHEMES = ("postgresql", "postgres")
HIDDEN = "********"
# A secret shorter than this is not searched for in messages: every such run of letters would be replaced.
_MIN_SECRET = 4


@dataclasses.dataclass(frozen=True)
class Spec:
    """The history in force: ``url`` None for SQLite beside the runs; ``source`` where it was set."""

    url: str | None = dataclasses.field(default=None, repr=False)
    password: str | None = dataclasses.field(default=None, repr=False)
    source: str = "default"

    def __repr__(self) -> str:
        # A traceback or a debug line shows the history as everything else does: without its password.
        return f"Spec({self.shown()!r}, source={self.source!r})"

    @property
    def kind(self) -> str:
        return POSTGRESQL if self.url else SQLITE

    def sqlite_path(self, root: str) -> str:
        return os.path.join(root, DB_NAME)

    def shown(self, root: str | None = None) -> str:
        """The history as messages, reports and result files name it: the SQLite file, or the URL without secrets."""
        if self.url:
            return redact(self.url)
        return self.sqlite_path(root) if root else f"<results>/{DB_NAME}"

    def secrets(self) -> list[str]:
        """Every secret this history may carry, for scrub: the URL's password (as written and decoded), its
        ``password`` parameter, the password variable, PGPASSWORD."""
        found = [self.password, os.environ.get("PGPASSWORD")]
        if self.url:
            parts = urllib.parse.urlsplit(self.url)
            userinfo = parts.netloc.rpartition("@")[0]
            if ":" in userinfo:
                raw = userinfo.split(":", 1)[1]
                found += [raw, urllib.parse.unquote(raw)]
            for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
                if key == "password":
                    found.append(value)
        return sorted({s for s in found if isinstance(s, str) and len(s) >= _MIN_SECRET}, key=len, reverse=True)

    def scrub(self, text: object) -> str:
        """``text`` with every secret of this history replaced."""
        out = str(text)
        for secret in self.secrets():
            out = out.replace(secret, HIDDEN)
        return out


def redact(url: str) -> str:
    """A URL as it may be shown: its user and hosts kept, its password and ``password`` parameters left out."""
    if "://" not in url:
        # Not a URL: a path, or a mistake - only what could be a password (before an '@') goes.
        userinfo, at, rest = url.rpartition("@")
        return f"{userinfo.split(':', 1)[0]}@{rest}" if at else url
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "(a URL that cannot be read)"
    userinfo, at, hosts = parts.netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    netloc = f"{user}@{hosts}" if at and user else hosts
    query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True) if k != "password"]
    text = urllib.parse.urlencode(query, safe="/")
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{text}" if text else "")


def resolve(url: object = None, password: object = None, env: dict | None = None) -> Spec:
    """The history in force (see the module's docstring): ``url`` and ``password`` are an action's ``history_url``
    and ``history_password``; InputError naming where a value that is not one came from (shown without its
    password)."""
    env = os.environ if env is None else env
    for value, source in ((url, URL_OPTION), (env.get(ENV), ENV)):
        if value in (None, ""):
            continue
        if not isinstance(value, str):
            raise InputError(f"{source}: must be a postgresql:// URL, or unset for SQLite beside the runs")
        checked = check_url(value, source)
        if password not in (None, "") and not isinstance(password, str):
            raise InputError(f"{PASSWORD_OPTION}: must be a string (vault it: ansible-vault encrypt_string)")
        return Spec(checked, password or None, source)
    return Spec(None, None, "default")


def check_url(url: str, source: str) -> str:
    """A PostgreSQL URL libpq can read; ValueError naming ``source`` and the URL without its password."""
    text = url.strip()
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError as exc:
        raise InputError(f"{source}={redact(text)!r}: not a URL ({exc})") from None
    if parts.scheme.lower() not in SCHEMES:
        raise InputError(f"{source}={redact(text)!r}: must be a postgresql:// URL (one PostgreSQL database for every "
                         f"controller), or unset for SQLite beside the runs ({DB_NAME})")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise InputError(f"{source}={redact(text)!r}: has control characters")
    return text
