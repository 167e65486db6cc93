#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: fio_job
short_description: Run one fio job file on the host and return its parsed metrics
version_added: 1.0.0
description:
  - Runs C(fio --output-format=json --output=OUTPUT JOB_FILE) on the managed node and parses the JSON
    into the figures the SNIA PTS records per combination run (IOPS, bandwidth, latency mean/min/max and
    percentiles, per direction and combined).
  - Each job section in the file is one combination run. The R/W mix and block size of every result are
    read from the job's own options, so results are found by value, never by their position.
  - fio errors, a time-out and output that is not fio's JSON fail the task with fio's own message and the
    job file in the error; no partial figure is returned as a result.
  - The action plugin runs fio detached from the connection (O(detach)), so an hour-long round survives a dropped SSH
    connection, and waits for it itself (O(wait)) - checking with back-off (1 s doubling, at most 60 s) until a second
    before O(expected_seconds), then letting the host watch for fio's end every 20 ms, so the result is seen within
    hundredths of a second - without a line of output per check. fio's JSON is parsed on the controller.
  - Every fio goes through one runner on the host (the module itself, a detached one-job fio server, or a segment's
    fio server) - the job directory opened from C(/) down and held, the job checked as fio reads it and against the
    guard's record of O(device), written relative to the directory, fio run there with its time limit (O(timeout))
    and wear bound (O(max_write_bytes)) watched.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
  async:
    description: Supports being used with the C(async) keyword.
    support: none
    details: fio runs detached from the connection by itself (O(detach)); the task needs no C(async).
  check_mode:
    support: full
    details: In check mode fio is not started and nothing is returned but the plan.
  diff_mode:
    support: none
options:
  job_file:
    description: Path of the fio job file on the managed node.
    type: path
    required: true
  job_text:
    description:
      - The job file's content. When given, it is written to O(job_file) (mode 0600, its directory made with mode 0700
        when missing) before fio starts, which saves a separate template task per round; otherwise O(job_file) must
        exist.
      - Either way the job is checked as fio reads it before anything runs - lines broken at newlines only; no other
        control character, Unicode line or paragraph separator, format character or C($); no C(include) in any
        spelling; only the options the collection's own job files set, each with a value of its own kind; every
        C(filename=) the guarded O(device) - and refused otherwise, before anything is written.
    type: str
  output:
    description:
      - Where fio writes its JSON output, in the job file's directory. Defaults to the job file with a C(.json) suffix.
    type: path
  output_format:
    description:
      - fio's output format. V(json+) adds each section's latency histogram (its bins), returned as C(histogram) of
        each direction in RV(pts_fio.jobs).
    type: str
    choices: [json, json+]
    default: json
    version_added: 2.0.0
  timeout:
    description: Seconds after which fio is stopped and the task fails; C(0) waits for ever.
    type: int
    default: 0
  wait:
    description:
      - Wait for fio to finish and return its result (V(true)), or return the detached fio at once
        (RV(pts_fio_started); V(false), fire and forget). Used by the action plugin only.
    type: bool
    default: true
  reconnect_timeout:
    description:
      - How long (seconds) the host may stay unreachable while fio runs before the
        task gives up and reports the host unreachable (fio may still finish there). Used by the action plugin only.
    type: float
    default: 300
  expected_seconds:
    description:
      - How long fio is planned to run. The action plugin checks with back-off until a second before then and lets the
        host watch for fio's end from then on (see the description).
    type: float
    default: 0
  detach:
    description:
      - Start fio in a session of its own and return at once with where its output, exit status and messages will be
        (RV(pts_fio_started)), instead of waiting for it; the action plugin then waits for fio on the host and parses
        its output on the controller. This is how the action plugin runs every fio - a dropped connection does not
        stop it, and a round costs one short module run.
    type: bool
    default: false
    version_added: 2.0.0
  serve:
    description:
      - Start the fio server of a segment's rounds in the directory of O(job_file), detached, and return its PID
        (RV(pts_fio_server)) - the action plugin then sends it each round's job file and waits for fio on the host.
        Before every round the server checks the job file against O(device) and O(expect), as the module does. The
        value is how long (seconds) it waits for the next round before it ends; V(0) starts none.
    type: float
    default: 0
    version_added: 2.0.0
  max_write_bytes:
    description:
      - The most this fio run may write to the device (the run's wear bound, less what it has written already); V(0)
        for no bound. While fio runs the device's own write counter is watched; past the bound fio is stopped and the
        task fails - the run is never recorded as a result.
    type: int
    default: 0
    version_added: 3.0.0
  device:
    description:
      - The block device the guard passed. The job is refused unless every C(filename=) in the job file is this
        device, and unless, right before fio starts, the device is still not mounted, held, swap or open by any
        process, and still reports the identity in O(expect).
    type: path
    required: true
  expect:
    description:
      - The guard's record of the device in this run (an entry of C(pts_guard_passed)); without one the job is
        refused. Its identity the device must still report - C(devnum) (major:minor), C(serial), C(wwn).
      - With the run's C(hold) (see M(fleetqual.pts.pts_drive_hold)), its holder must still be alive, this run's and
        holding the device; it is then the one process whose open does not count.
    type: dict
    required: true
  context:
    description:
      - Labels (drive, test, phase, round, settings) returned unchanged as RV(pts_context), so the result is filed
        where it belongs without parsing task names.
    type: dict
    default: {}
  run_dir:
    description:
      - The run's results directory on the controller (the C(pts_run_dir) fact of a run of
        P(fleetqual.pts.pts_run#role)); the action plugin files the result under it (preconditioning) and keeps only a
        summary of fio's output in the task's result. Without it nothing is filed.
      - Used on the controller only; it is not sent to the host.
    type: path
requirements:
  - fio 3.x on the managed node
notes:
  - The job file's directory is opened from C(/) down without following links; each level must be root's (or the run
    user's) and writable by nobody else, and the levels it makes are 0700. The job file, fio's output and its logs are
    written and read relative to that directory, never through its path again.
  - The device must be one M(fleetqual.pts.pts_guard) passed and holds for the run O(expect) names; the guard's record
    of it on the host decides, not O(expect).
seealso:
  - module: fleetqual.pts.steady_state
"""

EXAMPLES = r"""
- name: Run IOPS round 3
  fleetqual.pts.fio_job:
    job_file: /var/lib/fleetqual-pts/disk1/iops/round-03.fio
    device: /dev/nvme0n1
    expect:
      devnum: "259:0"
      serial: S64HNE0T123456
    timeout: 7200
    context:
      drive: disk1
      test: iops
      phase: round
      round: 3
    expected_seconds: 3400
  register: round_result
"""

RETURN = r"""
pts_fio:
  description: Parsed fio output.
  returned: success and not check mode
  type: dict
  contains:
    fio_version:
      description: What fio reported as its version.
      type: str
      sample: fio-3.33
    jobs:
      description:
        - One entry per combination run with C(mix), C(bs) (bytes), C(read), C(write), C(total), C(cpu) (fio's
          C(usr_pct) and C(sys_pct)); with O(output_format=json+) each direction also has C(histogram) (C(source),
          C(lat_ns) or C(clat_ns), and C(bins), pairs of latency in ns and IOs).
      type: list
      elements: dict
    job_file:
      description: Path of the job file that ran.
      type: str
    job_text:
      description: The job file's content, kept with the results on the controller.
      type: str
    elapsed_s:
      description: Wall time of the fio process in seconds.
      type: float
pts_fio_raw:
  description: fio's JSON output as it printed it.
  returned: success and not check mode
  type: str
pts_fio_started:
  description:
    - With O(detach), the detached fio - C(pid) (the fio server running the one job), C(output), C(status)
      (C(rc start end), written last), C(log) (fio's messages), C(job_file), C(job_text), C(command).
  returned: with O(detach), not in check mode
  type: dict
  version_added: 2.0.0
pts_fio_server:
  description: With O(serve), the segment's fio server - C(pid), C(dir) (where it takes requests), C(idle_s).
  returned: with O(serve), not in check mode
  type: dict
  version_added: 2.0.0
pts_context:
  description: The O(context) given, unchanged.
  returned: always
  type: dict
"""

import json
import os
import subprocess
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _hold, _signatures
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._guard import host_record, recheck
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_job_args, _fio_runner, _job_check, _remote_dir, _run_io
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import FioOutputError, parse


def _tool(argv: list[str]) -> tuple[int, str, str]:
    """A read-only tool (wipefs) run from the detached server, which has no module to run it."""
    try:
        # The server runs detached from any module (no AnsibleModule, so no run_command).
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)  # pylint: disable=ansible-bad-function
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, "", str(exc)
    return done.returncode, done.stdout, done.stderr


def guard_refusal(device: str, expect: dict, wipefs: str | None):
    """The check right before every fio: the guard's record of the device on the host, its hold, its identity, and no
    signature the guard did not see."""
    def refusal(dummy_text: str) -> str | None:
        return "; ".join(recheck(device, expect, signatures=lambda info: _signatures.read(info, _tool, wipefs))) or None
    return refusal


def _detached(directory_fd: int, argv_run, pidfile_ids: tuple[str, str]) -> int:
    """Fork ``argv_run(dirfd)`` into a session of its own, working in the held directory, and return its PID once its
    pidfile is written. Nothing of the module's process stays attached (no pipe of the connection's, no process group
    a hang-up reaches)."""
    reader, writer = os.pipe()
    if os.fork():
        os.close(writer)
        with os.fdopen(reader) as pipe:
            pid = pipe.read().strip()
        if not pid.isdigit():
            raise OSError(f"the fio server did not start: {pid or 'no answer'}")
        return int(pid)
    os.close(reader)
    try:  # pragma: no cover - runs in the forked children only
        os.setsid()
        if os.fork():
            os._exit(0)
        os.fchdir(directory_fd)
        nothing = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(nothing, fd)
        state = _hold.process_state(os.getpid())
        _fio_runner.write_pidfile(directory_fd, os.getpid(), state[1] if state else None, *pidfile_ids)
        os.write(writer, f"{os.getpid()}\n".encode())
        os.close(writer)
        argv_run(directory_fd)
    finally:
        os._exit(0)


def _request(module: AnsibleModule, job_file: str, output: str, where: str) -> dict:
    """What the host's fio runner is asked to run, from the checked arguments (fails the module on bad ones)."""
    params = module.params
    context = params["context"]
    directory, job = os.path.split(job_file)
    if params["timeout"] < 0 or params["max_write_bytes"] < 0 or params["serve"] < 0:
        module.fail_json(msg=f"{where}: timeout, serve and max_write_bytes must be 0 or more", pts_context=context)
    if os.path.dirname(os.path.abspath(output)) != directory:
        module.fail_json(msg=f"{where}: output {output} must be in the job file's directory {directory}",
                         pts_context=context)
    try:
        return {"job": _fio_runner.bare(job, "job file"), "output": _fio_runner.bare(os.path.basename(output), "output"),
                "timeout": params["timeout"], "output_format": params["output_format"], "status_interval_ms": 0,
                "logs": "", "max_write_bytes": params["max_write_bytes"]}
    except ValueError as exc:
        module.fail_json(msg=f"{where}: {exc}", pts_context=context)
        raise  # fail_json does not return


def _fail_unless_done(module: AnsibleModule, rc: int, dirfd: int, output: str, elapsed: float, failure: dict) -> None:
    """Fails the module with fio's own words unless fio ended with rc 0: refused, over the wear bound, timed out."""
    job_file, timeout = failure["job_file"], module.params["timeout"]
    try:
        messages = _fio_runner.read_file(dirfd, _fio_runner.log_name(output))
    except (OSError, ValueError):
        messages = ""
    if rc == _fio_runner.REFUSED:
        module.fail_json(msg=messages.strip() or f"fio_job refused {job_file}", **failure)
    if rc == _fio_runner.OVER_BUDGET:
        module.fail_json(msg=f"{messages.strip().splitlines()[-1].removeprefix('fleetqual.pts: ')} (running {job_file})",
                         **failure)
    if rc in (_fio_runner.TIMED_OUT, _fio_runner.KILLED) and timeout and elapsed >= timeout:
        module.fail_json(msg=f"fio timed out after {timeout} s running {job_file}", **failure)
    if rc != 0:
        detail = messages.strip().splitlines()[-5:]
        module.fail_json(msg=f"fio exited with rc {rc} running {job_file}: {' | '.join(detail)}", stderr=messages,
                         **failure)


def main() -> None:
    module = AnsibleModule(argument_spec=_fio_job_args.ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    context = params["context"]
    job_file = os.path.abspath(params["job_file"])
    directory, job = os.path.split(job_file)
    output = params["output"] or os.path.splitext(job_file)[0] + ".json"
    where = f"fio_job refused {job_file}, nothing was written"
    request = _request(module, job_file, output, where)
    device = os.path.realpath(params["device"])
    fio = module.get_bin_path("fio", required=True)
    command = _fio_runner.command(fio, dict(request, job=job_file, output=output))
    if module.check_mode:
        if params["job_text"] is not None:
            refused = _job_check.refusals(params["job_text"], device)
            if refused:
                module.fail_json(msg=f"{where}: {'; '.join(refused)}", pts_context=context)
        module.exit_json(changed=False, msg="check mode: fio not started", command=command, pts_context=context)
    if params["job_text"] is not None:
        refused = _job_check.refusals(params["job_text"], device)
        if refused:
            module.fail_json(msg=f"{where}: {'; '.join(refused)}", job_file=job_file, pts_context=context)
    try:
        dirfd = _remote_dir.open_dir(directory)
    except _remote_dir.RemoteDirError as exc:
        module.fail_json(msg=f"{where}: {exc}", job_file=job_file, pts_context=context)
    try:
        job_text = params["job_text"] if params["job_text"] is not None else _fio_runner.read_file(dirfd, job)
    except (OSError, ValueError) as exc:
        module.fail_json(msg=f"cannot read fio job file {job_file}: {exc}", pts_context=context)
    request["job_text"] = job_text
    refusal = guard_refusal(device, params["expect"], module.get_bin_path("wipefs"))
    refused = "; ".join(_job_check.refusals(job_text, device)) or refusal(job_text)
    if refused:
        module.fail_json(msg=f"{where}: {refused}", job_file=job_file, pts_context=context)
    # The run's token for the server's pidfile (a release of the run finds its fio by it): from the host's own guard
    # record, which the check above matched to this run - the controller's record carries only its token id.
    record = host_record(device, params["expect"])[0] or {}
    ids = (str(record.get("run_id") or ""), str(record.get("token") or ""))

    if params["serve"] or params["detach"]:
        # An earlier attempt's server of this directory (a run cancelled mid-segment, resumed): one server per
        # directory.
        _run_io.stop(_run_io.processes([directory]))
        for name in (_fio_runner.REQUEST, _fio_runner.STOP):
            _fio_runner.remove(dirfd, name)
        if params["detach"] and not params["serve"]:
            _fio_runner.write_file(dirfd, _fio_runner.REQUEST, json.dumps(request))
        idle = params["serve"] or 60.0

        def serving(held: int) -> None:
            _fio_runner.serve(held, device, refusal, fio, idle, once=not params["serve"])

        try:
            pid = _detached(dirfd, serving, ids)
        except OSError as exc:
            module.fail_json(msg=f"the fio server for {directory} did not start: {exc}", pts_context=context)
        if params["serve"]:
            module.exit_json(changed=False, pts_fio_server={"pid": pid, "dir": directory, "idle_s": params["serve"]},
                             pts_context=context)
        started = {"pid": pid, "output": output, "status": _fio_runner.status_name(output),
                   "log": _fio_runner.log_name(output), "job_file": job_file, "command": command, "job_text": job_text}
        module.exit_json(changed=True, pts_fio_started=started, pts_context=context)

    started = time.monotonic()
    line = _fio_runner.run_job(dirfd, request, device, refusal, fio)
    elapsed = time.monotonic() - started
    rc = int(line.split()[0])
    failure = dict(job_file=job_file, job_text=job_text, rc=rc, pts_context=context)
    _fail_unless_done(module, rc, dirfd, request["output"], elapsed, failure)
    try:
        raw = _fio_runner.read_file(dirfd, request["output"], 256 << 20)
        parsed = parse(raw)
    except (OSError, ValueError, FioOutputError) as exc:
        module.fail_json(msg=f"unusable fio output for {job_file}: {exc}", **failure)
    parsed.update(job_file=job_file, job_text=job_text, elapsed_s=round(elapsed, 3), command=command)
    wrote = any(item["write"]["io_bytes"] for item in parsed["jobs"])
    module.exit_json(changed=wrote, pts_fio=parsed, pts_fio_raw=raw, pts_context=context)


if __name__ == "__main__":
    main()
