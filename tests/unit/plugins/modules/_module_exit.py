# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# A module's main() run in the test process: exit_json and fail_json raise Exit instead of printing and exiting.

from __future__ import annotations

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args


class Exit(Exception):
    def __init__(self, failed: bool, result: dict):
        super().__init__(result.get("msg"))
        self.failed = failed
        self.result = result


def stub_exits(monkeypatch) -> None:
    def exit_json(self, **result):
        raise Exit(False, result)

    def fail_json(self, msg, **result):
        raise Exit(True, dict(result, msg=msg))

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)


def run_main(module, args: dict) -> Exit:
    """``module.main()`` with ``args``; what it exited with (stub_exits must be in force)."""
    with patch_module_args(args), pytest.raises(Exit) as exc:
        module.main()
    return exc.value
