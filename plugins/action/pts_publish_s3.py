# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError, PtsError
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _destinations, _publish_s3
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import PtsAction

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError
except ImportError:
    boto3 = None
    BotoCoreError = ClientError = OSError  # pylint: disable=invalid-name


class ActionModule(PtsAction):
    _requires_connection = False  # the run directory is on the controller, the bucket is reached from it
    ARGUMENT_SPEC = dict(
        run_dir=dict(type="path", required=True),
        name=dict(type="str", required=True),
        bucket=dict(type="str", required=True),
        prefix=dict(type="str", default=""),
        endpoint_url=dict(type="str"),
        region=dict(type="str"),
    )

    def run_action(self, result, args, task_vars):
        # Every failure is returned with its pts_publish_s3_error record (the fleet summary lists it), not raised.
        result["changed"] = False
        where = f"s3://{args['bucket']}/{_publish_s3.base_key(args['prefix'] or '', args['name'])}"
        try:
            target = _destinations.targets([{"s3": {k: args[k] for k in _destinations.S3_KEYS if args[k]}}])[0]
            if os.path.basename(args["name"]) != args["name"] or args["name"] in ("", ".", ".."):
                raise InputError(f"name={args['name']!r}: must be one directory name")
        except PtsError as exc:
            return self._failed(result, where, str(exc))
        if boto3 is None:
            return self._failed(result, where, "boto3 is not installed on the controller (pip install boto3; the "
                                               "execution environment's requirements.txt lists it)")
        try:
            client = boto3.session.Session().client(
                "s3", endpoint_url=target["endpoint_url"], region_name=target["region"],
                config=Config(s3={"addressing_style": "path"}) if target["endpoint_url"] else None)
            published = _publish_s3.publish(client, args["run_dir"], target["bucket"], target["prefix"], args["name"])
        except _publish_s3.S3PublishError as exc:
            return self._failed(result, where, str(exc))
        except (BotoCoreError, ClientError) as exc:
            # botocore's own words (the operation, the server's error code and message): never a credential.
            return self._failed(result, where, f"{type(exc).__name__}: {exc}")
        except OSError as exc:
            return self._failed(result, where, f"cannot read the run directory: {exc}")
        result.update(changed=True, pts_publish_s3=published)
        return result

    @staticmethod
    def _failed(result: dict, where: str, why: str) -> dict:
        msg = f"the run was not uploaded to {where}: {why}"
        result.update(failed=True, msg=msg, pts_publish_s3_error={"host": where, "task": "publishing", "msg": msg})
        return result
