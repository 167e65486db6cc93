# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The results tree on the controller: where each payload goes, atomic writes, and reading it back.

    <root>/<run-id>/<host>/plan.json
    <root>/<run-id>/<host>/<drive>/drive.json, guard.json, write-cache.json, health-after.json
    <root>/<run-id>/<host>/<drive>/<test>/purge.json, wipc.json, wipc.fio
    <root>/<run-id>/<host>/<drive>/<test>/round-NN.json (+ .fio job file, .raw.json fio output, .status.json fio's
        status dumps before it); each round file holds the stop rule's verdict as the run saw it after that round; an
        XSR group's samples are its rounds (its one fio run's job file is round-01.fio, each sample's .raw.json the
        status dump that ended it)
    <root>/<run-id>/<host>/<drive>/<test>/round-NN_<kind>.log: fio's interval logs (bw, iops, lat, clat, slat) of the
        fio run that started with round NN
    <root>/<run-id>/<host>/<drive>/<test>/steady-state.json (the last verdict: where the loop stands)
    <root>/<run-id>/<host>/<drive>/throughput/<block size>/... (throughput: one such set per block size)
    <root>/<run-id>/<host>/<drive>/superseded/<test>-N/ (an earlier attempt of a test started again)
"""

from __future__ import annotations

import datetime
import json
import os
import re
import stat
import sys

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _stop_rules
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _result_files, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._identity import identity_changes

_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")
SCHEMA = 1
_ROUND_RE = re.compile(r"^round-(\d{2,})\.json$")
_COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def collection_version() -> str:
    """The version of this collection: MANIFEST.json when installed, galaxy.yml in a checkout."""
    manifest = os.path.join(_COLLECTION_ROOT, "MANIFEST.json")
    if os.path.exists(manifest):
        # The collection's own file, not the results tree's: where it is installed is the operator's choice.
        with open(manifest, encoding="utf-8") as handle:
            return str((json.load(handle).get("collection_info") or {}).get("version", "unknown"))
    try:
        with open(os.path.join(_COLLECTION_ROOT, "galaxy.yml"), encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("version:"):
                    return line.split(":", 1)[1].strip().strip("'\"")
    except OSError:
        pass
    return "unknown"


def safe_name(text: object) -> str:
    name = _NAME_RE.sub("_", str(text)).strip("._")
    return name or "unnamed"


def now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


# The atomic writer's temporary files: "." + the file's name + "." + 8 characters of [a-z0-9_] (no suffix). A process
# killed between making one and the rename leaves it behind.
_TEMP_RE = re.compile(r"^\..+\.[a-z0-9_]{8}\Z")


def is_leftover(name: str) -> bool:
    """Is ``name`` one of the atomic writer's temporary files?"""
    return bool(_TEMP_RE.match(name))


def remove_leftovers(directory: str, recursive: bool = True) -> list[str]:
    """Remove the temporary files a killed atomic write left in ``directory`` (and, ``recursive``, below it but not in
    ``superseded/``, kept as it was moved): regular files named as the writer names them, nothing else. Return their
    paths. Call it only where no writer of that tree can be running (under the run's lock, before its hosts write)."""
    if recursive:
        found = list(_safe_tree.walk_files(directory, skip=("superseded",)))
    else:
        found = [(directory, name, st) for name, st in _safe_tree.entries(directory)]
    removed = []
    for root, name, st in sorted(found):
        if not is_leftover(name) or not stat.S_ISREG(st.st_mode):
            continue
        path = os.path.join(root, name)
        try:
            _safe_tree.unlink(path)
        except FileNotFoundError:
            continue
        removed.append(path)
    return removed


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write a file of the results tree whole or not at all (module_utils/_safe_path.write_atomic), by directory fds,
    never through a link."""
    _safe_tree.write_bytes(path, data)


def atomic_write_text(path: str, text: str, shared: bool = True) -> None:
    """As atomic_write_bytes; not ``shared``, the file is 0600."""
    if not isinstance(text, str):
        raise TypeError(f"{path}: text to write must be a str, not {type(text).__name__}")
    _safe_tree.write_bytes(path, text.encode("utf-8"), private=not shared)


def atomic_write_json(path: str, data: object) -> None:
    atomic_write_bytes(path, _encoded(data))


def read_json(path: str, dir_fd: int | None = None) -> dict:
    """A JSON record of the results tree (a mapping), read without following a link and within the size and nesting
    bounds of plugin_utils/_safe_tree.py; BadFile (a ValueError) or UnsafePath (an OSError) naming the file.
    ``dir_fd``: its directory's fd, when many files of one directory are read."""
    return _safe_tree.read_record(path, dir_fd=dir_fd)


def drive_dir(run_dir: str, host: str, drive: str) -> str:
    return os.path.join(run_dir, safe_name(host), safe_name(drive))


def segment_dir(run_dir: str, host: str, drive: str, test: str, segment: str = "") -> str:
    """Where one segment's rounds go: the test's directory, or its block size's / part's below it."""
    test_dir = os.path.join(drive_dir(run_dir, host, drive), safe_name(test))
    return os.path.join(test_dir, safe_name(segment)) if segment else test_dir


# The key of a round file's stop-rule verdict, one per rule.
VERDICT_KEYS = _stop_rules.PAYLOAD_KEYS
# An extra variable or option that may carry a secret is recorded as hidden (a become password given with -e, say).
_SECRET_RE = re.compile(r"pass(word)?\b|passwd|secret|token|vault|private_key|api_key", re.I)
_EXTRA_FLAGS = ("-e", "--extra-vars")
HIDDEN = "(hidden: it names a secret)"
# A URL's password (postgresql://user:password@host/db, pts_history_url): the password goes, the rest stays.
_URL_PASSWORD_RE = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@?#\"']*):[^\s/?#\"']*@")


def without_url_passwords(text: str) -> str:
    """``text`` with the password of every URL in it replaced."""
    return _URL_PASSWORD_RE.sub(r"\1:********@", text)


def command_line(argv: list[str] | None = None) -> dict | None:
    """The ansible-playbook command line of this run and its extra variables (PTS common reporting), with anything
    that may be a secret hidden; None outside an ansible-playbook process (unit tests, benchmarks)."""
    argv = list(sys.argv if argv is None else argv)
    if not argv or not os.path.basename(argv[0]).startswith("ansible"):
        return None
    shown, extra = [os.path.basename(argv[0])], []
    expect_extra = False
    for arg in argv[1:]:
        safe = HIDDEN if _SECRET_RE.search(arg) else without_url_passwords(arg)
        if expect_extra:
            expect_extra = False
            extra.append(safe)
        elif arg in _EXTRA_FLAGS:
            expect_extra = True
        elif arg.startswith("--extra-vars="):
            value = arg.split("=", 1)[1]
            extra.append(HIDDEN if _SECRET_RE.search(value) else without_url_passwords(value))
            safe = "--extra-vars=" + extra[-1]
        shown.append(safe)
    return {"argv": shown, "extra_vars": extra, "recorded_at": now_iso()}


def file_payload(run_dir: str, host: str, data: dict) -> list[str]:
    """Write one task result's pts_* payload where it belongs; return the paths written."""
    context = data.get("pts_context") or {}
    host = context.get("host") or host
    written: list[str] = []

    def put(path: str, content: object) -> None:
        atomic_write_bytes(path, _encoded(content))
        written.append(path)

    _file_drives(run_dir, host, data, put)
    drive = context.get("drive")
    test = context.get("test")
    if drive:
        _file_drive_steps(run_dir, host, drive, context, data, put)
    if not drive or not test:
        return written
    test_dir = os.path.join(drive_dir(run_dir, host, drive), safe_name(test))
    segment = context.get("segment") or ""
    segment_dir = os.path.join(test_dir, safe_name(segment)) if segment else test_dir
    if "pts_purge" in data:
        # A purge starts a test (or a throughput block size) again: an earlier attempt under this run id,
        # found by this purge's own directory already holding files, moves aside as a whole.
        if _safe_tree.isdir(segment_dir) and _safe_tree.listdir(segment_dir):
            _supersede(test_dir)
        put(os.path.join(segment_dir, "purge.json"), dict(data["pts_purge"], recorded_at=now_iso()))
    if data.get("failed"):
        # A step that touched the drive failed (fio error, I/O error, time-out, purge): the evidence, not a figure.
        put(os.path.join(segment_dir, "failure.json"), {
            "phase": context.get("phase"), "round": context.get("round"), "msg": data.get("msg"),
            "rc": data.get("rc"), "stderr": (data.get("stderr") or "")[-4000:], "job_file": data.get("job_file"),
            "job_text": data.get("job_text"), "recorded_at": now_iso(),
        })
    verdict = next((data[key] for key in VERDICT_KEYS if key in data), None)
    where = {"host": host, "drive": drive, "test": test, "segment": segment}
    # The round's files - all in its segment's directory - are made durable together (an XSR sample every half
    # second in the quick profile): in this order, the parsed round after fio's files, the loop's state last.
    together: list[tuple[str, bytes]] = []
    _file_round(segment_dir, where, context, data, verdict,
                lambda path, content: together.append((os.path.basename(path), _encoded(content))))
    if verdict is not None:
        # Where the loop stands, not its history (that is in the round files): the same size at every round.
        together.append(("steady-state.json", _encoded({
            "test": test, "last_round": verdict.get("round"), "steady": verdict.get("steady"),
            "stop": verdict.get("stop"), "reason": verdict.get("reason"), "loop": context.get("loop"),
            "recorded_at": now_iso()})))
    if together:
        _safe_tree.write_all(segment_dir, together)
        written += [os.path.join(segment_dir, name) for name, dummy in together]
    return written


def _encoded(content: object) -> bytes:
    """A file's bytes as atomic_write_text and atomic_write_json write them."""
    if isinstance(content, str):
        return content.encode("utf-8")
    return (json.dumps(content, indent=2, sort_keys=True, default=str) + "\n").encode("utf-8")


def _file_drives(run_dir: str, host: str, data: dict, put) -> None:
    """The host's plan, its drives' identities and the guard's verdicts."""
    if "pts_plan" in data:
        put(os.path.join(run_dir, safe_name(host), "plan.json"),
            {"host": host, "plan": data["pts_plan"], "command": command_line()})
    for drive in data.get("pts_drives") or []:
        path = drive_dir(run_dir, host, drive["key"])
        record = {"schema": SCHEMA, "host": host, "drive": drive, "host_info": data.get("pts_host") or {},
                  "recorded_at": now_iso()}
        if _measured(path) and identity_changes(read_json(os.path.join(path, "drive.json")).get("drive") or {}, drive):
            # Another drive under a name that has results (a resume, refused by the plan): the results keep theirs.
            put(os.path.join(path, "drive-refused.json"), record)
            continue
        put(os.path.join(path, "drive.json"), record)
    for verdict in data.get("pts_guard") or []:
        path = drive_dir(run_dir, host, verdict["key"])
        passed = os.path.join(path, "guard.json")
        if not verdict.get("passed") and _measured(path) and _safe_tree.exists(passed) and read_json(passed).get("passed"):
            # A later attempt refused (a resume of a drive now in use): the rounds stay under the guard that passed them.
            put(os.path.join(path, "guard-refused.json"), dict(verdict, recorded_at=now_iso()))
            continue
        put(passed, dict(verdict, recorded_at=now_iso()))


def _file_drive_steps(run_dir: str, host: str, drive: str, context: dict, data: dict, put) -> None:
    """What a drive's steps outside its tests record: the write cache's events, its md array, its health after."""
    if "pts_write_cache" in data:
        path = os.path.join(drive_dir(run_dir, host, drive), "write-cache.json")
        events = read_json(path).get("events", []) if _safe_tree.exists(path) else []
        event = dict(data["pts_write_cache"], phase=context.get("phase"), member=context.get("member"),
                     failed=bool(data.get("failed")), msg=data.get("msg"), recorded_at=now_iso())
        put(path, {"events": events + [event]})
    if "pts_md_array" in data:
        path = os.path.join(drive_dir(run_dir, host, drive), "raid.json")
        record = read_json(path) if _safe_tree.exists(path) else {}
        event = dict(data["pts_md_array"], failed=bool(data.get("failed")), msg=data.get("msg"), recorded_at=now_iso())
        if context.get("phase") == "teardown":
            record["teardown"] = event
        else:
            record.update(array=event, members=context.get("members") or [], cmd=data.get("cmd"))
            # Only a built array stands for its members (a refused build leaves them to be judged as themselves).
            for member in [] if data.get("failed") else context.get("members") or []:
                put(os.path.join(drive_dir(run_dir, host, member), "raid-member.json"),
                    {"array": drive, "recorded_at": now_iso()})
        put(path, record)
    if data.get("pts_health"):
        put(os.path.join(drive_dir(run_dir, host, drive), "health-after.json"),
            dict(data["pts_health"], recorded_at=now_iso()))


def _file_round(segment_dir: str, where: dict, context: dict, data: dict, verdict, put) -> None:
    """A round's fio run - job file, fio's raw output and status dumps, the parsed round last - or a verdict alone."""
    if "pts_fio" in data:
        fio = dict(data["pts_fio"])
        job_text = fio.pop("job_text", "")
        phase = context.get("phase", "round")
        stem = "wipc" if phase == "wipc" else f"round-{int(context['round']):02d}"
        if job_text:
            put(os.path.join(segment_dir, stem + ".fio"), job_text)
        if data.get("pts_fio_raw"):
            put(os.path.join(segment_dir, stem + ".raw.json"), data["pts_fio_raw"])
        if data.get("pts_fio_status"):
            # fio's status dumps before its final report (--status-interval), as it wrote them.
            put(os.path.join(segment_dir, stem + ".status.json"), "\n".join(data["pts_fio_status"]) + "\n")
        # The parsed round last: its presence means the round is complete on disk, with its verdict.
        record = {
            "schema": SCHEMA, **where, "phase": phase,
            "round": context.get("round"), "row": context.get("row"), "settings": context.get("settings") or {},
            "loop": context.get("loop"), "fio": fio, "recorded_at": now_iso(),
            "collection_version": collection_version(),
        }
        if verdict is not None and phase == "round":
            record["verdict"] = verdict
        put(os.path.join(segment_dir, stem + ".json"), record)
    elif verdict is not None and context.get("round"):
        # A stop rule judged apart from its fio run: its verdict joins the round file it judges.
        path = os.path.join(segment_dir, f"round-{int(context['round']):02d}.json")
        if _safe_tree.exists(path):
            put(path, dict(read_json(path), verdict=verdict))


def _measured(path: str) -> bool:
    """Whether a drive directory holds a drive record and anything a test recorded."""
    if not _safe_tree.exists(os.path.join(path, "drive.json")):
        return False
    return any(e not in ("plots", "superseded") for e in _safe_tree.subdirs(path))


def _supersede(test_dir: str) -> None:
    """A test that starts again (purge) under the same run id must not mix with the earlier attempt's rounds."""
    if not _safe_tree.isdir(test_dir) or not _safe_tree.listdir(test_dir):
        return
    parent = os.path.join(os.path.dirname(test_dir), "superseded")
    _safe_tree.makedirs(parent)
    attempt = 1
    while _safe_tree.exists(os.path.join(parent, f"{os.path.basename(test_dir)}-{attempt}")):
        attempt += 1
    _safe_tree.rename(test_dir, os.path.join(parent, f"{os.path.basename(test_dir)}-{attempt}"))


def written_by_fio(drive: str) -> int:
    """Bytes fio wrote to a drive in this run so far, from its files on disk: every round and preconditioning record
    under the drive's directory, earlier attempts (superseded/) included - they wrote to the drive too."""
    total = 0
    for root, name, dummy in _safe_tree.walk_files(drive):
        if name == "wipc.json" or _ROUND_RE.match(name):
            try:
                jobs = read_round(os.path.join(root, name))["fio"]["jobs"]
            except (OSError, _safe_tree.BadFile):
                continue  # not a round pts_segment filed: nothing it wrote
            total += sum(int(job["write"].get("io_bytes") or 0) for job in jobs)
    return total


def round_files(directory: str) -> list[str]:
    """The parsed round files of one segment, in round order (write saturation may pass round 99)."""
    try:
        names = _safe_tree.listdir(directory)
    except FileNotFoundError:
        return []
    numbered = sorted((int(m.group(1)), name) for name in names if (m := _ROUND_RE.match(name)))
    return [os.path.join(directory, name) for dummy, name in numbered]


def _has_results(directory: str) -> bool:
    return bool(round_files(directory)) or _safe_tree.exists(os.path.join(directory, "purge.json"))


def live_verdicts(segment: dict) -> list[dict]:
    """The stop rule's verdict after each round, as the run saw it: from the round files (older results trees
    kept them all in steady-state.json)."""
    verdicts = [dict(r["verdict"], round=r.get("round")) for r in segment.get("rounds") or [] if r.get("verdict")]
    return verdicts or list((segment.get("steady_state") or {}).get("verdicts") or [])


_LOG_RE = re.compile(r"^(round-\d{2,})_([a-z]+)\.log$")


def log_files(directory: str) -> dict:
    """fio's interval logs in a segment's directory: {round stem: {kind: path}} (kind bw, iops, lat, clat, slat)."""
    found: dict = {}
    try:
        names = _safe_tree.listdir(directory)
    except FileNotFoundError:
        return found
    for name in names:
        match = _LOG_RE.match(name)
        if match:
            found.setdefault(match.group(1), {})[match.group(2)] = os.path.join(directory, name)
    return found


def read_round(path: str, dir_fd: int | None = None) -> dict:
    """A round file (or wipc.json), checked to be one: BadFile naming it and why otherwise (plugin_utils/_result_files)."""
    return _result_files.check_round(read_json(path, dir_fd), path)


def load_segment(directory: str) -> dict:
    paths = round_files(directory)
    if paths:
        # Hundreds of rounds in one directory: walked once, each file opened by its fd.
        with _safe_tree.directory(directory) as dir_fd:
            rounds = [read_round(p, dir_fd) for p in paths]
    else:
        rounds = []
    loaded: dict = {"dir": directory, "rounds": rounds, "logs": log_files(directory)}
    for key in ("purge", "wipc", "steady-state", "failure"):
        path = os.path.join(directory, key + ".json")
        if not _safe_tree.exists(path):
            loaded[key.replace("-", "_")] = None
        else:
            loaded[key.replace("-", "_")] = read_round(path) if key == "wipc" else read_json(path)
    return loaded


def load_test(test_dir: str) -> dict:
    """Everything on disk for one test of one drive: its segments ("" for the test directory itself,
    one per block size for throughput), each with rounds, purge, WIPC and the live verdicts."""
    segments = {}
    if _has_results(test_dir):
        segments[""] = load_segment(test_dir)
    for entry in _safe_tree.subdirs(test_dir):
        sub = os.path.join(test_dir, entry)
        if _has_results(sub):
            segments[entry] = load_segment(sub)
    whole = segments.get("") or load_segment(test_dir)
    superseded = os.path.join(os.path.dirname(test_dir), "superseded")
    earlier = [e for e in _safe_tree.subdirs(superseded) if e.rsplit("-", 1)[0] == os.path.basename(test_dir)]
    return {"name": os.path.basename(test_dir), "dir": test_dir, "segments": segments,
            "purge": whole["purge"], "wipc": whole["wipc"], "failure": whole["failure"],
            "superseded": [f"superseded/{e}" for e in earlier]}


def _optional_json(path: str) -> dict | None:
    return read_json(path) if _safe_tree.exists(path) else None


def load_drive(path: str) -> dict:
    """Everything on disk for one drive: identity, guard verdict and each test."""
    drive_file = os.path.join(path, "drive.json")
    guard_file = os.path.join(path, "guard.json")
    tests = {}
    for entry in _safe_tree.subdirs(path):
        sub = os.path.join(path, entry)
        if entry == "superseded":
            continue
        if _has_results(sub) or any(_has_results(os.path.join(sub, s)) for s in _safe_tree.subdirs(sub)):
            tests[entry] = load_test(sub)
    return {
        "dir": path,
        "identity": read_json(drive_file) if _safe_tree.exists(drive_file) else {},
        "guard": read_json(guard_file) if _safe_tree.exists(guard_file) else None,
        "guard_refused": _optional_json(os.path.join(path, "guard-refused.json")),
        "drive_refused": _optional_json(os.path.join(path, "drive-refused.json")),
        "write_cache": _optional_json(os.path.join(path, "write-cache.json")),
        "health_after": _optional_json(os.path.join(path, "health-after.json")),
        "raid": _optional_json(os.path.join(path, "raid.json")),
        "raid_member": _optional_json(os.path.join(path, "raid-member.json")),
        "tests": tests,
    }


def drive_dirs(run_dir: str) -> list[str]:
    """Every drive directory of a run (those with a drive.json); directories only, never through a link."""
    return [d for host in _safe_tree.subdirs(run_dir) for d in drive_dirs_of_host(os.path.join(run_dir, host))]


def drive_dirs_of_host(host_dir: str) -> list[str]:
    """Every drive directory of one host of a run (those with a drive.json, and those that cannot be read: the reader
    of each says why)."""
    found = []
    for name in _safe_tree.subdirs(host_dir):
        try:
            if not _safe_tree.exists(os.path.join(host_dir, name, "drive.json")):
                continue
        except OSError:
            pass  # a directory root will not enter (another user's): its drive fails alone, with why
        found.append(os.path.join(host_dir, name))
    return found
