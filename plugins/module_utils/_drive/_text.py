# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Text from the host (device paths, backing files, serials, process names) made safe for a message."""

from __future__ import annotations

import re


# C0 and C1 control characters, DEL, and the surrogates Python uses for bytes that are not UTF-8.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def show(text: object) -> str:
    """``text`` for a message: control characters written as escapes, so a newline cannot start a new line."""
    return _CONTROL_RE.sub(lambda match: repr(match.group())[1:-1], str(text))


def has_control(text: str | None) -> bool:
    return bool(text) and bool(_CONTROL_RE.search(text))
