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
    type: str
  output:
    description: Where fio writes its JSON output. Defaults to the job file with a C(.json) suffix.
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
      - How long fio is planned to run. The action plugin polls sparsely until a second before then, every quarter
        second around it, and every second after.
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
      - Labels (drive, test, phase, round, settings) returned unchanged as RV(pts_context), so the
        P(fleetqual.pts.pts_report#callback) callback can file the result without parsing task names.
    type: dict
    default: {}
requirements:
  - fio 3.x on the managed node
notes:
  - The job file decides what is written. Render it only for devices that M(fleetqual.pts.pts_guard) passed.
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
    - With O(detach), the detached fio - C(pid) (the shell around it), C(output), C(status) (C(rc start end), written
      last), C(log) (fio's messages), C(job_file), C(job_text), C(command).
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

import os
import shlex
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._drive._guard import recheck
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_server, _remote_dir, _run_io
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import FioOutputError, job_targets, parse
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import forbidden_options, log_targets


def _job_text(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _write_job(path: str, text: str) -> None:
    # The job directory is the run's own (0700 at every level it makes, root's): made here, so a round needs no task of
    # its own to make it, and checked from / down, so nobody else can swap a job file between the check and fio.
    _remote_dir.ensure(os.path.dirname(os.path.abspath(path)))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def _device_refusal(job_text: str, device: str, expect: dict) -> str | None:
    resolved = os.path.realpath(device)
    targets = job_targets(job_text)
    if not targets:
        return "the job file names no filename= (fio would write a file named after the job)"
    strays = [t for t in targets if os.path.realpath(t) != resolved]
    if strays:
        return f"the job file writes to {', '.join(strays)}, not to the guarded device {resolved}"
    forbidden = forbidden_options(job_text)
    if forbidden:
        return f"the job file has options a PTS round never uses: {'; '.join(forbidden)}"
    # fio's interval logs land in its working directory (the segment's job directory), nowhere else.
    elsewhere = [t for t in log_targets(job_text) if not t or "/" in t or t in (".", "..")]
    if elsewhere:
        return f"the job file writes its logs to {', '.join(repr(t) for t in elsewhere)}, not into its own directory"
    return "; ".join(recheck(resolved, expect)) or None


def detached_paths(output: str) -> dict:
    """Where a detached fio leaves its exit status (``rc start end``, written last) and its own messages."""
    return {"output": output, "status": output + ".status", "log": output + ".log"}


def _detach(command: list[str], output: str, job_file: str) -> dict:
    """Start fio in a session of its own (a dropped connection or the end of this module does not stop it) and
    return at once; a shell around it writes fio's exit status and start and end times when it ends."""
    paths = detached_paths(output)
    for path in paths.values():
        if os.path.exists(path):
            os.unlink(path)
    script = (f"start=$(date +%s.%N); {shlex.join(command)} >{shlex.quote(paths['log'])} 2>&1; rc=$?; "
              f"end=$(date +%s.%N); echo \"$rc $start $end\" >{shlex.quote(paths['status'])}.tmp && "
              f"mv {shlex.quote(paths['status'])}.tmp {shlex.quote(paths['status'])}")
    reader, writer = os.pipe()
    if os.fork():
        os.close(writer)
        with os.fdopen(reader) as pipe:
            pid = pipe.read().strip()
        return dict(paths, pid=int(pid) if pid.isdigit() else None, job_file=job_file, command=command)
    # The child: a session of its own, then a grandchild that runs the shell (nothing of the module's process stays
    # attached: no pipe of the connection's, no process group a hang-up reaches).
    os.close(reader)
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        nothing = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(nothing, fd)
        os.write(writer, f"{os.getpid()}\n".encode())
        os.close(writer)
        os.execv("/bin/sh", ["/bin/sh", "-c", script])
    finally:
        os._exit(127)


def _start_server(module, directory: str, device: str, expect: dict, fio: str, timeout_bin: str, idle_s: float) -> dict:
    """Fork the segment's fio server (module_utils/_pts/_fio_server.py) into a session of its own and return its PID;
    it checks every round's job file against the guard's record right before fio starts, as this module does."""
    try:
        _remote_dir.ensure(directory)
    except _remote_dir.RemoteDirError as exc:
        module.fail_json(msg=f"fio_job refused to serve {directory}, nothing was written: {exc}")
    # An earlier attempt's server of this directory (a run cancelled mid-segment, resumed): one server per directory.
    _run_io.stop(_run_io.processes([directory]))
    for name in (_fio_server.REQUEST, _fio_server.STOP):
        if os.path.exists(os.path.join(directory, name)):
            os.unlink(os.path.join(directory, name))
    reader, writer = os.pipe()
    if os.fork():
        os.close(writer)
        with os.fdopen(reader) as pipe:
            pid = pipe.read().strip()
        if not pid.isdigit():
            module.fail_json(msg=f"the fio server for {directory} did not start: {pid or 'no answer'}")
        return {"pid": int(pid), "dir": directory, "idle_s": idle_s}
    # The child: a session of its own, then a grandchild that serves (nothing of the module's process stays attached).
    os.close(reader)
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        # Working in its directory is also how a release of the run finds it (module_utils/_pts/_run_io.py).
        os.chdir(directory)
        nothing = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(nothing, fd)
        with open(os.path.join(directory, _fio_server.PIDFILE), "w", encoding="ascii") as handle:
            handle.write(f"{os.getpid()}\n")
        os.write(writer, f"{os.getpid()}\n".encode())
        os.close(writer)

        def refusal(job_file: str) -> str | None:
            try:
                return _device_refusal(_job_text(job_file), device, expect)
            except OSError as exc:
                return f"cannot read {job_file}: {exc.strerror}"

        _fio_server.serve(directory, refusal, fio, timeout_bin, idle_s)
    finally:
        os._exit(0)


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            job_file=dict(type="path", required=True),
            job_text=dict(type="str"),
            output=dict(type="path"),
            output_format=dict(type="str", choices=["json", "json+"], default="json"),
            timeout=dict(type="int", default=0),
            context=dict(type="dict", default={}),
            device=dict(type="path", required=True),
            expect=dict(type="dict", required=True),
            wait=dict(type="bool", default=True),
            expected_seconds=dict(type="float", default=0),
            reconnect_timeout=dict(type="float", default=300),
            detach=dict(type="bool", default=False),
            serve=dict(type="float", default=0),
        ),
        supports_check_mode=True,
    )
    job_file = module.params["job_file"]
    output = module.params["output"] or os.path.splitext(job_file)[0] + ".json"
    context = module.params["context"]
    timeout = module.params["timeout"]
    if timeout < 0:
        module.fail_json(msg=f"timeout={timeout}: must be 0 (no limit) or a positive number of seconds")
    try:
        if module.params["job_text"] is not None and not module.check_mode:
            _write_job(job_file, module.params["job_text"])
        job_text = module.params["job_text"] if module.params["job_text"] is not None else _job_text(job_file)
    except _remote_dir.RemoteDirError as exc:
        module.fail_json(msg=f"fio_job refused {job_file}, nothing was written: {exc}", job_file=job_file,
                         pts_context=context)
    except OSError as exc:
        module.fail_json(msg=f"cannot write or read fio job file {job_file}: {exc.strerror}", pts_context=context)

    refusal = _device_refusal(job_text, module.params["device"], module.params["expect"])
    if refusal:
        module.fail_json(msg=f"fio_job refused {job_file}, nothing was written: {refusal}", job_file=job_file,
                         pts_context=context)

    fio = module.get_bin_path("fio", required=True)
    if module.params["serve"]:
        if module.params["serve"] < 0:
            module.fail_json(msg=f"serve={module.params['serve']}: must be the seconds the server may wait for a round")
        if module.check_mode:
            module.exit_json(changed=False, msg="check mode: no fio server started", pts_context=context)
        module.exit_json(changed=False, pts_fio_server=_start_server(
            module, os.path.dirname(job_file), module.params["device"], module.params["expect"], fio,
            module.get_bin_path("timeout", required=True), module.params["serve"]), pts_context=context)
    command = [fio, f"--output-format={module.params['output_format']}", f"--output={output}", job_file]
    if timeout:
        # coreutils timeout: TERM first so fio can finish its output, KILL if it hangs on a dead drive.
        command = [module.get_bin_path("timeout", required=True), "--kill-after=30", str(timeout)] + command
    if module.check_mode:
        module.exit_json(changed=False, msg="check mode: fio not started", command=command, pts_context=context)

    if module.params["detach"]:
        module.exit_json(changed=True, pts_fio_started=dict(_detach(command, output, job_file), job_text=job_text),
                         pts_context=context)

    if os.path.exists(output):
        os.unlink(output)
    started = time.monotonic()
    rc, stdout, stderr = module.run_command(command)
    elapsed = time.monotonic() - started
    failure = dict(job_file=job_file, job_text=job_text, rc=rc, stdout=stdout, stderr=stderr, pts_context=context)
    # coreutils timeout exits 124 after TERM, 137 after KILL; 137 also means someone else killed fio.
    if timeout and (rc == 124 or (rc == 137 and elapsed >= timeout)):
        module.fail_json(msg=f"fio timed out after {timeout} s running {job_file}", **failure)
    if rc != 0:
        detail = (stderr or stdout).strip().splitlines()[-5:]
        module.fail_json(msg=f"fio exited with rc {rc} running {job_file}: {' | '.join(detail)}", **failure)
    try:
        raw = _job_text(output)
        parsed = parse(raw)
    except (OSError, FioOutputError) as exc:
        module.fail_json(msg=f"unusable fio output for {job_file}: {exc}", **failure)

    parsed.update(job_file=job_file, job_text=job_text, elapsed_s=round(elapsed, 3), command=command)
    wrote = any(job["write"]["io_bytes"] for job in parsed["jobs"])
    module.exit_json(changed=wrote, pts_fio=parsed, pts_fio_raw=raw, pts_context=context)


if __name__ == "__main__":
    main()
