# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: pts_default
type: stdout
short_description: The default stdout callback, without a "FAILED - RETRYING" line for every PTS round
version_added: 1.0.0
description:
  - The default callback (P(ansible.builtin.default#callback)) for PTS runs. A test's rounds run as one task's
    C(until) loop (M(fleetqual.pts.pts_round)), for which the default callback prints C(FAILED - RETRYING) before
    every round but the last - ansible-core's wording for "run the task again", not a failure, and misleading in a
    log that is searched for failures. This callback leaves those lines out for PTS rounds only; the
    P(fleetqual.pts.pts_report#callback) callback prints one line per round with its figures instead.
  - Everything else, retries of other tasks included, prints as with the default callback.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - ansible.builtin.default_callback
  - ansible.builtin.result_format_callback
"""

EXAMPLES = r"""
# Enable it in ansible.cfg:
ansible_config: |
  [defaults]
  stdout_callback = fleetqual.pts.pts_default

# Or with an environment variable:
environment_variable: |-
  ANSIBLE_STDOUT_CALLBACK=fleetqual.pts.pts_default
"""

from ansible.plugins.callback.default import CallbackModule as Default


class CallbackModule(Default):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "fleetqual.pts.pts_default"

    def v2_runner_retry(self, result):
        data = getattr(result, "result", None)  # 2.19+; older cores only have ._result
        if "pts_round" not in (data if data is not None else result._result):
            super().v2_runner_retry(result)
