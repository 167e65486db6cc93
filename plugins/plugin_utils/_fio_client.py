# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The controller's side of fio on a host: start a segment's fio server (the fio_job module's ``serve``), send it a job
(one shell command: the request, with the job file's text, renamed into place in the server's directory), wait for
fio's exit status on the host - sparsely until a second before fio is expected to end, then letting the host watch for
it every 20 ms - or follow fio's status dumps as they come, fetch its interval logs, stop it. fio's output is parsed
here. The fio_job action, the segment's round loop (pts_segment) and its preconditioning use this one client; every
job it sends is run by the host's one runner (module_utils/_pts/_fio_runner.py), which checks it again.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import shlex
import time

from ansible.errors import AnsibleConnectionFailure
from ansible.utils.display import Display

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_runner, _interval
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import FioOutputError, parse

display = Display()

_MAX_CHECK_INTERVAL = 60.0
# How often a wait between two looks at the host asks whether the controller is still there.
_WANTED_S = 1.0
# From this long before fio's expected end the host itself watches for fio's exit status, every _CLOSE_STEP_S, and
# answers as soon as it is there: a round's result is seen within a few hundredths of a second of fio's end, for one
# command over the connection. Past the expected end by _LATE_S the host looks only every _LATE_STEP_S. A command
# lasts at most 5 s, so a worker whose controller is gone stops its fio within that.
_CLOSE_S = 1.0
_CLOSE_STEP_S = 0.02
_CLOSE_SPAN_S = 5.0
_LATE_S = 30.0
_LATE_STEP_S = 0.25
_LATE_SPAN_S = 5.0
# The host's answers besides 0 (done): fio still runs, fio is gone without an exit status, the fio server is gone.
_NOT_YET = 3
_GONE = 4
_NO_SERVER = 5
_LOG_TAIL = 4000
# A run read as it goes: the host watches for fio's next status dump every _DUMP_STEP_S from _DUMP_EARLY_S before it is
# due, so each dump is read within a few hundredths of a second of fio writing it, for one command per dump.
_DUMP_STEP_S = 0.02
_DUMP_EARLY_S = 0.1
_REQUEST_ONLY = ("status_interval_ms", "logs", "max_write_bytes")


def host_wait_command(started: dict, step: float, span: float) -> str:
    """A POSIX shell loop for the host: as soon as the detached fio's exit status is there, print it (``rc start end``)
    and then fio's JSON output (exit 0) or, when fio failed, the end of its messages; else exit 3 after ``span``
    seconds, or 4 when fio's process is gone without an exit status."""
    count = max(1, int(span / step)) if step else 1
    status, output, log = (shlex.quote(str(started[k])) for k in ("status", "output", "log"))
    pid = int(started["pid"])
    return (f"n={count}; while :; do "
            f"if [ -s {status} ]; then read rc t0 t1 <{status}; echo \"$rc $t0 $t1\"; "
            f"if [ \"$rc\" = 0 ]; then exec cat {output}; else exec tail -c {_LOG_TAIL} {log}; fi; fi; "
            f"kill -0 {pid} 2>/dev/null || [ -s {status} ] || exit {_GONE}; "
            f"n=$((n-1)); [ \"$n\" -gt 0 ] || exit {_NOT_YET}; sleep {step or 0.01:g}; done")


def _looks(span: float) -> int:
    """How many looks host_follow_command's loop makes in ``span`` seconds."""
    return max(1, int(span / _DUMP_STEP_S))


def host_follow_command(started: dict, offset: int, span: float) -> str:
    """A POSIX shell loop for the host: once fio's output has grown past ``offset`` bytes and held still for a look (a
    dump fio has finished writing), or fio's exit status is there, or ``span`` seconds have passed, print ``running N
    SIZE`` (N: the looks it had left, all of them when the output had grown before its first; SIZE: the output's size
    in bytes, where the next look starts) and the output from ``offset`` to SIZE, or the exit status line and the rest
    of the output; exit 4 when fio's server is gone without an exit status. The host counts the bytes: what comes back
    over an SSH pseudo-terminal has its line ends changed."""
    count = _looks(span)
    status, output = shlex.quote(started["status"]), shlex.quote(started["output"])
    skip = int(offset) + 1
    return (f"n={count}; last=-1; while :; do "
            f"if [ -s {status} ]; then head -n 1 {status}; tail -c +{skip} {output} 2>/dev/null; exit 0; fi; "
            f"kill -0 {int(started['pid'])} 2>/dev/null || [ -s {status} ] || exit {_GONE}; "
            f"s=$(( $(stat -c %s {output} 2>/dev/null || {{ wc -c <{output}; }} 2>/dev/null || echo 0) + 0 )); "
            f"if [ \"$s\" -gt {int(offset)} ] && {{ [ \"$s\" = \"$last\" ] || [ \"$n\" -le 1 ]; }}; then "
            f"echo \"running $n $s\"; tail -c +{skip} {output} 2>/dev/null | head -c $((s - {int(offset)})); exit 0; fi; "
            f"[ \"$n\" -gt 1 ] || {{ echo \"running 0 {int(offset)}\"; exit 0; }}; "
            f"last=$s; n=$((n-1)); sleep {_DUMP_STEP_S:g}; done")


def outcome(started: dict, text: str, job_text: str | None, timeout: int) -> dict:
    """The module-shaped result of a finished fio from what the host printed: ``pts_fio`` (parsed on the controller),
    ``pts_fio_raw``, or the failure with fio's own words."""
    head, dummy, body = text.partition("\n")
    try:
        rc, start, end = head.split()
        rc, elapsed = int(rc), max(float(end) - float(start), 0.0)
    except ValueError:
        return {"failed": True, "msg": f"fio_job: unreadable exit status of {started['job_file']}: {head[:200]!r}"}
    failure = {"job_file": started["job_file"], "job_text": job_text, "rc": rc, "stderr": body[-_LOG_TAIL:]}
    if rc == _fio_runner.REFUSED:
        return dict(failure, failed=True, msg=body.strip() or f"fio_job refused {started['job_file']}")
    if rc == _fio_runner.OVER_BUDGET:
        said = body.strip().splitlines()
        return dict(failure, failed=True, pts_over_budget=True,
                    msg=f"{said[-1].removeprefix('fleetqual.pts: ') if said else 'fio was stopped at the wear bound'} "
                        f"(running {started['job_file']})")
    # The runner stops fio at its time limit: 124 after TERM, 137 after KILL; 137 also means someone else killed fio.
    if timeout and (rc == _fio_runner.TIMED_OUT or (rc == _fio_runner.KILLED and elapsed >= timeout)):
        return dict(failure, failed=True, msg=f"fio timed out after {timeout} s running {started['job_file']}")
    if rc != 0:
        detail = body.strip().splitlines()[-5:]
        return dict(failure, failed=True,
                    msg=f"fio exited with rc {rc} running {started['job_file']}: {' | '.join(detail)}")
    # With --status-interval fio's output is its status documents and then its final report: the last document.
    found, dummy = _interval.documents(body)
    try:
        parsed = parse(found[-1] if len(found) > 1 else body)
    except FioOutputError as exc:
        return dict(failure, failed=True, msg=f"unusable fio output for {started['job_file']}: {exc}")
    parsed.update(job_file=started["job_file"], job_text=job_text, elapsed_s=round(elapsed, 3),
                  command=started.get("command"))
    wrote = any(job["write"]["io_bytes"] for job in parsed["jobs"])
    if len(found) > 1:
        return {"changed": wrote, "pts_fio": parsed, "pts_fio_raw": found[-1], "pts_fio_status": found[:-1]}
    return {"changed": wrote, "pts_fio": parsed, "pts_fio_raw": body}


def _connection_lost(since: float | None, reconnect: float, exc: Exception, doing: str, job_file: str,
                     detail: str = "") -> tuple[float, dict | None]:
    """A connection lost while fio runs on the host: when it was first lost, and the drive's result once it has been
    away for ``reconnect`` seconds (None before: a warning, and the caller tries again)."""
    since = since or time.monotonic()
    if time.monotonic() - since >= reconnect:
        return since, {"unreachable": True, "pts_lost": True,
                       "msg": f"fio_job: no connection to the host for {reconnect:g} s while {doing} fio "
                              f"({job_file}{detail}, which may still run there): {exc}"}
    display.warning(f"fio_job: lost the connection while {doing} {job_file}, retrying: {exc}")
    return since, None


def _whole(text: str) -> str:
    """Text whose undecodable bytes came back escaped (surrogateescape), decoded again: a character the host's cut split
    in two is whole once both halves are there."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")


def _next_due(head: str, body: str, period: float, span: float) -> float:
    """When the next status dump is due, from a look's answer (host_follow_command's): a period after a dump the look
    saw come; half a period from now when it was there before the look began (it came some time since the look
    before); at once when none came."""
    now = time.monotonic()
    if not body:
        return now
    try:
        left = int(head.split()[1])
    except (IndexError, ValueError):
        return now
    # The host prints a dump once it has held still for a look: at the second look when it was there at the first.
    return now + period / 2 if left >= _looks(span) - 1 else now + period


class FioClient:
    """fio on one host through the calling action's connection: ``execute_module`` and ``command`` are that action's
    ``_execute_module`` and ``_low_level_execute_command``."""

    def __init__(self, execute_module, command):
        self._execute_module = execute_module
        self._low_level_execute_command = command
        # Asked between two looks at the host while fio runs: False stops the wait (the caller's controller is gone).
        self.wanted = lambda: True

    def start_server(self, task_vars: dict, args: dict, idle_s: float) -> dict:
        """Start the fio server of a segment's rounds on the host (the module's ``serve``): the module result, with
        ``pts_fio_server`` (its PID and directory) when it started. ``args`` are the module's, for round 1."""
        # What only the server's requests take (status dumps, interval logs) is no option of the module.
        module_args = {k: v for k, v in args.items() if k not in _REQUEST_ONLY}
        return self._execute_module(module_name="fleetqual.pts.fio_job", module_args=dict(module_args, serve=idle_s),
                                    task_vars=task_vars)

    def run_round(self, server: dict, args: dict, on_document=None) -> dict:
        """One round through the segment's fio server: write its job file and the request with one shell command,
        wait for fio's exit status on the host, and return the module-shaped result (fio's output parsed here).

        With ``status_interval_ms`` in ``args`` fio dumps its status every that many milliseconds; with
        ``on_document`` the controller reads each new dump as fio writes it (one shell command per dump) and passes its
        text to ``on_document(text, final)``; the last call has ``final`` True, with fio's final report (or with None
        when the final report came in an earlier call, before fio's exit status did) - before this returns. What
        ``on_document`` raises stops fio (cancel) and goes up to the caller."""
        job_file = args["job_file"]
        if os.path.dirname(job_file) != server["dir"]:
            return {"failed": True, "msg": f"fio_job: {job_file} is not in the fio server's directory {server['dir']}"}
        output = os.path.splitext(job_file)[0] + ".json"
        timeout = int(float(args.get("timeout") or 0))
        interval = int(args.get("status_interval_ms") or 0)
        fields = {"job": os.path.basename(job_file), "output": os.path.basename(output), "timeout": timeout,
                  "output_format": args.get("output_format") or "json", "status_interval_ms": interval,
                  "logs": args.get("logs") or "", "max_write_bytes": int(args.get("max_write_bytes") or 0),
                  "job_text": str(args["job_text"])}
        where = shlex.quote(os.path.join(server["dir"], _fio_runner.REQUEST))
        stale = " ".join(shlex.quote(p) for p in (output, _fio_runner.status_name(output), _fio_runner.log_name(output)))
        # The request (with the job file's text, which the server checks and writes itself) goes over stdin: a job file
        # of thousands of sections is no command line's size.
        res = self._low_level_execute_command(
            f"kill -0 {int(server['pid'])} 2>/dev/null || exit {_NO_SERVER}; "
            # An earlier attempt's files of this round (a resume of the run) must not be read as this round's.
            f"rm -f {stale} && cat >{where}.tmp && mv {where}.tmp {where}",
            in_data=json.dumps(fields).encode("utf-8"))
        if res.get("rc") == _NO_SERVER:
            return {"failed": True, "msg": f"fio_job: the fio server of {server['dir']} (PID {server['pid']}) is gone"}
        if res.get("rc") != 0:
            return {"failed": True, "msg": f"fio_job: cannot send {job_file} to the host: rc {res.get('rc')}, "
                                           f"{(res.get('stderr') or '').strip()[:500]}"}
        started = {"pid": server["pid"], "job_file": job_file, "output": output,
                   "status": _fio_runner.status_name(output), "log": _fio_runner.log_name(output)}
        limit = timeout + 120 if timeout else 86400.0
        reconnect = float(args.get("reconnect_timeout") or 300)
        if on_document is not None and interval:
            final = self._follow(server, started, interval / 1000.0, limit, reconnect, on_document)
        else:
            final = self.wait(started, float(args.get("expected_seconds") or 0), limit, reconnect)
        if "text" not in final:
            return final
        found = outcome(started, final["text"], args["job_text"], timeout)
        if "pts_fio" in found:
            found["pts_fio"]["command"] = _fio_runner.command("fio", fields)
        return found

    def _follow(self, server: dict, started: dict, period: float, limit: float, reconnect: float,
                on_document) -> dict:
        """Read fio's output as it grows, one shell command per status dump (the host watches for it): pass each new
        complete document to ``on_document``; once fio's exit status is there, the rest, the last document as
        ``final``. Returns what _wait returns (``text``: the exit status line and, when fio succeeded, its whole
        output)."""
        offset, pending, last = 0, "", None
        start = time.monotonic()
        # fio dumps every period counted from its start, a moment after the request. A look starts a little before the
        # next dump is due and lasts up to a period: one that sees the dump come knows when the next one is due; one
        # that finds it there already looks earlier next time.
        span = min(max(period, 0.2), 2.0)
        due = start + period
        lost_since = None
        while True:
            if not self.wanted():
                self.cancel(server)
                return {"failed": True, "msg": f"fio_job: stopped following {started['job_file']}: the controller "
                                               "(ansible-playbook) is gone; its fio was stopped"}
            if time.monotonic() - start >= limit:
                self.cancel(server)
                return {"failed": True, "msg": f"fio_job: fio did not finish within {limit:g} s ({started['job_file']})"}
            self._nap(due - _DUMP_EARLY_S - time.monotonic())
            try:
                res = self._low_level_execute_command(host_follow_command(started, offset, span),
                                                      encoding_errors="surrogate_or_strict")
            except AnsibleConnectionFailure as exc:
                lost_since, gone = _connection_lost(lost_since, reconnect, exc, "following", started["job_file"])
                if gone:
                    return gone
                due = time.monotonic() + 1.0
                continue
            lost_since = None
            if res.get("rc") == _GONE:
                return {"failed": True, "msg": f"fio_job: the fio server of {server['dir']} ended without an exit "
                                               f"status for {started['job_file']}: killed, or the host restarted"}
            if res.get("rc") != 0:
                return {"failed": True, "msg": f"fio_job: cannot read the output of {started['job_file']}: rc "
                                               f"{res.get('rc')}, {(res.get('stderr') or '').strip()[:500]}"}
            head, dummy, body = (res.get("stdout") or "").replace("\r\n", "\n").partition("\n")
            done = not head.startswith("running")
            if not done:
                try:
                    offset = int(head.split()[2])
                except (IndexError, ValueError):
                    self.cancel(server)
                    return {"failed": True, "msg": f"fio_job: unreadable answer while following {started['job_file']}: "
                                                   f"{head[:200]!r}"}
            # Bytes the host cut in the middle of a character come back escaped, and whole with the rest next time.
            found, pending = _interval.documents(_whole(pending + body))
            # A dump read while fio was still writing it: the rest at once.
            due = time.monotonic() if pending else _next_due(head, body, period, span)
            if done:
                try:
                    rc = int(head.split()[0])
                except (IndexError, ValueError):
                    rc = -1
                if rc != 0:
                    return self._check(started, 0, 0) or {"failed": True, "msg": "fio_job: fio failed"}
            try:
                for index, text in enumerate(found):
                    on_document(text, done and index == len(found) - 1)
                if done and not found:
                    # The final report came in an earlier read, before fio's exit status did.
                    on_document(None, True)
            except Exception:
                self.cancel(server)
                raise
            last = found[-1] if found else last
            if done:
                if last is None:
                    return {"failed": True, "msg": f"fio_job: fio ended without a final report in {started['output']}"}
                return {"text": head + "\n" + last}

    def cancel(self, server: dict) -> None:
        """Stop the fio the server runs (SIGTERM: fio ends its job, writes its output and logs); the server goes on.
        ``server``: the server, or the round it was sent (its ``pid`` is the server's)."""
        try:
            self._low_level_execute_command(f"pkill -TERM -P {int(server['pid'])} 2>/dev/null; true")
        except AnsibleConnectionFailure as exc:
            display.warning(f"fio_job: could not stop the fio of {server.get('dir') or server['job_file']}: {exc}")

    def _nap(self, seconds: float) -> None:
        """Sleep ``seconds``, or less once the controller is gone."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0 and self.wanted():
            time.sleep(min(left, _WANTED_S))

    def fetch_logs(self, server: dict, prefix: str) -> dict:
        """fio's interval logs of a finished run (``<prefix>_<kind>.log`` in the server's directory): {name: text},
        compressed on the host for the way over. ValueError when the host's answer cannot be read."""
        if not prefix or "/" in prefix:
            raise ValueError(f"{prefix!r} is not a log prefix")
        res = self._low_level_execute_command(
            f"cd {shlex.quote(server['dir'])} || exit 1; for f in {shlex.quote(prefix)}_*.log; do "
            "[ -f \"$f\" ] || continue; echo \"#FILE $f\"; gzip -c \"$f\" | base64; done")
        if res.get("rc") != 0:
            raise DataError(f"rc {res.get('rc')}, {(res.get('stderr') or '').strip()[:300]}")
        files, name, chunks = {}, None, []
        for line in (res.get("stdout") or "").splitlines() + ["#FILE"]:
            if line.startswith("#FILE"):
                if name:
                    files[name] = gzip.decompress(base64.b64decode("".join(chunks))).decode("utf-8", "replace")
                name, chunks = line[len("#FILE"):].strip(), []
            else:
                chunks.append(line.strip())
        return files

    def stop_server(self, server: dict) -> None:
        """The segment is over: the server ends (it would by itself once idle)."""
        try:
            self._low_level_execute_command(f"touch {shlex.quote(os.path.join(server['dir'], _fio_runner.STOP))}")
        except AnsibleConnectionFailure as exc:
            display.warning(f"fio_job: could not stop the fio server of {server['dir']}: {exc}")

    def _check(self, started: dict, step: float, span: float) -> dict | None:
        """One look at the host (``step``: it watches for up to ``span`` seconds): ``{"text": ...}`` once fio has
        ended, None while it runs, a failure when it is gone."""
        res = self._low_level_execute_command(host_wait_command(started, step, span))
        if res.get("rc") == _NOT_YET:
            return None
        if res.get("rc") == _GONE:
            return {"failed": True, "msg": f"fio_job: fio (PID {started['pid']}) ended without an exit status for "
                                           f"{started['job_file']}: killed, or the host restarted"}
        if res.get("rc") != 0:
            return {"failed": True, "msg": f"fio_job: cannot read the end of {started['job_file']}: rc {res.get('rc')}, "
                                           f"{(res.get('stderr') or '').strip()[:500]}"}
        return {"text": res.get("stdout") or ""}

    def wait(self, started: dict, expected: float, limit: float, reconnect: float = 300.0) -> dict:
        start = time.monotonic()
        lost_since = None
        deadline = start + limit
        expected_end = start + expected
        interval = 1.0
        while True:
            now = time.monotonic()
            if not self.wanted():
                # Nobody files this round any more: its fio would go on writing the drive to the round's end, opening
                # it again for each of its sections.
                self.cancel(started)
                return {"failed": True, "msg": f"fio_job: stopped waiting for {started['job_file']}: the controller "
                                               "(ansible-playbook) is gone; its fio was stopped"}
            if now >= deadline:
                return {"failed": True, "msg": f"fio_job: fio did not finish within {limit:g} s ({started['job_file']}, "
                                               f"PID {started['pid']} on the host)"}
            remaining = expected_end - now
            step = span = 0.0
            if remaining > _CLOSE_S:
                # One look at the host after a doubling interval, one at the controller every second.
                self._nap(max(min(interval, remaining - _CLOSE_S, _MAX_CHECK_INTERVAL), 0.05))
                interval *= 2
            elif remaining > -_LATE_S:
                step, span = _CLOSE_STEP_S, min(_CLOSE_SPAN_S, max(deadline - now, _CLOSE_STEP_S))
            else:
                step, span = _LATE_STEP_S, min(_LATE_SPAN_S, max(deadline - now, _LATE_STEP_S))
            try:
                found = self._check(started, step, span)
            except AnsibleConnectionFailure as exc:
                # fio goes on on the host; look again at the next check, unless the host stays away too long.
                lost_since, gone = _connection_lost(lost_since, reconnect, exc, "waiting for", started["job_file"],
                                                    f", PID {started['pid']}")
                if gone:
                    return gone
                time.sleep(1.0)
                continue
            lost_since = None
            if found is not None:
                return found
