# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The collection's one error type. Every exception class the collection defines derives from ``PtsError``: a
refusal, or data on disk or from a tool that cannot be used, whose message is written for the operator. An action
plugin turns a ``PtsError`` into its failed result (plugin_utils/_action.py); anything else is a bug and stays a
traceback. Classes that were a ``ValueError`` or an ``OSError`` before keep that base too, so code that catches those
still catches them.
"""

from __future__ import annotations


class PtsError(Exception):
    """A failure whose message is meant for the operator (not a programming error)."""


class InputError(PtsError, ValueError):
    """An input refused - a variable, an option, a file the operator gave - named with the value given."""


class DataError(PtsError, ValueError):
    """Data the collection reads and cannot use: a results tree's files, a lock file, a tool's answer."""
