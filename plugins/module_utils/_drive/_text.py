# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Text from the host or the operator (device paths, backing files, serials, host and drive names) made safe for a
message, and refused where it would not display as it is."""

from __future__ import annotations

import re
import unicodedata

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError


# C0 and C1 control characters, DEL, and the surrogates Python uses for bytes that are not UTF-8.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# Beyond ASCII, every character of these Unicode categories as well: controls (Cc), surrogates (Cs), format characters
# (Cf: the bidirectional overrides and isolates U+202A-U+202E and U+2066-U+2069 that reorder what follows them,
# zero-width spaces and joiners, the soft hyphen, U+FEFF) and the line and paragraph separators U+2028 and U+2029
# (Zl, Zp), which start a new line in a report or on the console as a newline would.
_HIDDEN = ("Cc", "Cs", "Cf", "Zl", "Zp")


def _is_hidden(char: str) -> bool:
    return unicodedata.category(char) in _HIDDEN


def show(text: object) -> str:
    """``text`` for a message: control and format characters written as escapes, so a newline cannot start a new line
    and a right-to-left override cannot reverse what follows."""
    text = str(text)
    if text.isascii():
        return _CONTROL_RE.sub(lambda match: repr(match.group())[1:-1], text)
    return "".join(repr(c)[1:-1] if _is_hidden(c) else c for c in text)


def has_control(text: str | None) -> bool:
    """Does ``text`` hold a control or format character (see _HIDDEN)?"""
    if not text:
        return False
    if text.isascii():
        return bool(_CONTROL_RE.search(text))
    return any(_is_hidden(c) for c in text)


def hidden_characters(text: str) -> list[str]:
    """The control and format characters of ``text``, each as U+XXXX and its Unicode name, in order, once each."""
    found = []
    for char in text:
        if _is_hidden(char):
            label = f"U+{ord(char):04X}" + (f" {unicodedata.name(char)}" if unicodedata.name(char, "") else "")
            if label not in found:
                found.append(label)
    return found


def no_format_characters(variable: str, value: object) -> object:
    """``value``, or ValueError naming ``variable`` when a string in it (a mapping's keys and values, a list's items)
    holds a control or format character: a name or path shows as it is, or is refused."""
    if isinstance(value, str):
        if has_control(value):
            raise InputError(f"{variable}='{show(value)}': contains {', '.join(hidden_characters(value))} - a control "
                             "or format character (a newline, a line or paragraph separator, a bidirectional override "
                             "or a zero-width character) would show the name otherwise than it is: refused")
    elif isinstance(value, dict):
        for key, item in value.items():
            no_format_characters(f"{variable}.{show(key)}", key)
            no_format_characters(f"{variable}.{show(key)}", item)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            no_format_characters(f"{variable}[{index}]", item)
    return value
