# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The collection's action base (community.crypto's ``plugin_utils/_action_module.py`` in small): the task's arguments
checked against the action's ``ARGUMENT_SPEC`` (the options its docs-only module documents), then the action's own
``run_action``. A ``PtsError`` it raises is the one failure an operator reads: this is the one place that turns it into
the task's failed result, its message after the action's name. Anything else is a bug and stays a traceback.
"""

from __future__ import annotations

import abc
import copy

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError


class ActionRefused(PtsError):
    """A refusal the action words itself (the action's name is put before it)."""


class PtsAction(ActionBase):
    """An action plugin of the collection: validate, run, and word a ``PtsError`` as the action's failure."""

    TRANSFERS_FILES = False
    # The options, as its module's DOCUMENTATION has them; None: the module of the same name validates its own.
    ARGUMENT_SPEC: dict | None = None
    # validate_argument_spec's other rules (mutually_exclusive, required_together...).
    ARGUMENT_RULES: dict | None = None

    @property
    def action_name(self) -> str:
        """The plugin's name (its file's), which every message of its failures starts with."""
        return type(self).__module__.rsplit(".", 1)[-1]

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = dict(self._task.args)
        if self.ARGUMENT_SPEC is not None:
            # A copy: ansible-core 2.21 fills a dict option's default with its sub-options in place.
            dummy, args = self.validate_argument_spec(argument_spec=copy.deepcopy(self.ARGUMENT_SPEC),
                                                      **(self.ARGUMENT_RULES or {}))
        try:
            return self.run_action(result, args, task_vars or {})
        except PtsError as exc:
            raise AnsibleActionFail(f"{self.action_name}: {exc}") from None

    @abc.abstractmethod
    def run_action(self, result: dict, args: dict, task_vars: dict) -> dict:
        """The action's work on the validated arguments; returns ``result`` updated."""
