# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The job-file check against fio itself: thousands of job texts built to reach a second device - line and paragraph
separators, control characters, blanks, case, quoting, ``include`` in every spelling, ``$VAR`` and ``$(...)``,
``:``-lists, over-long lines - mixed with harmless variations. Whatever the check lets through is run by real fio
against the guarded loop device; the other loop device's sha256 never changes."""

from __future__ import annotations

import itertools
import os
import subprocess

from conftest import sh

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _job_check

SEPARATORS = ["\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r", "\t", " ", "\\",
              "\u200b", "\u202e", "\ufeff", "\x00", "\x7f"]
NAMES = ["filename", "FILENAME", "Filename", " filename", "filename ", "\tfilename", "file_name", "filename_format",
         "directory", "read_iolog", "exec_prerun", "allow_mounted_write"]


def base(guarded: str, extra_global: str = "", extra_job: str = "") -> str:
    return (f"# the guarded device\n[global]\nfilename={guarded}\nioengine=libaio\ndirect=1\nsize=1M\n{extra_global}"
            f"\n[w]\nstonewall\nrw=write\nbs=64k\n{extra_job}")


def variants(guarded: str, other: str, include_file: str):
    """(label, text): each an attempt to write ``other``, or a harmless variation that must still run."""
    values = [other, f'"{other}"', f"'{other}'", "${PTS_OTHER}", "$PTS_OTHER", f"{guarded}:{other}",
              f"{guarded}\\:{other}", "$(echo)", guarded]
    for name, eq, value in itertools.product(NAMES, ["=", " = ", "=\t", ""], values):
        line = f"{name}{eq}{value}"
        for sep in SEPARATORS:
            yield f"global line {name!r}{eq!r}{value!r} after {sep!r}", base(guarded, extra_global=f"{sep}{line}\n")
            yield f"job line {name!r}{eq!r}{value!r} after {sep!r}", base(guarded, extra_job=f"{sep}{line}\n")
    # Commented out: fio skips them (run below, like anything the check lets through).
    for mark, name, value in itertools.product(["#", ";", " #", "\t;"], NAMES[:2], values[:3]):
        yield f"commented {mark!r} {name!r}={value!r}", base(guarded, extra_job=f"{mark}{name}={value}\n")
    for word, sep in itertools.product(["include", "INCLUDE", "Include", "includex", " include", "#include"],
                                       [" ", "\t", "x", "\x0b", "="]):
        yield f"{word!r}{sep!r}", base(guarded, extra_job=f"{word}{sep}{include_file}\n")
    for sep in SEPARATORS + [";", "#"]:
        yield f"filename list {sep!r}", base(guarded).replace(f"filename={guarded}", f"filename={guarded}{sep}:{other}")
        yield f"comment {sep!r}", base(guarded, extra_job=f"# note{sep}filename={other}\n")
    yield "long comment", base(guarded, extra_job="#" + "x" * 8190 + f"filename={other}\n")
    # Harmless: what the check must let through, and fio must run against the guarded device alone.
    for comment, blank, depth, rw in itertools.product(["# ünïcödé comment", "; note", "#"], ["", "\n\n"],
                                                       ["", "iodepth=4\n"], ["write", "randwrite", "rw"]):
        text = base(guarded, extra_global=f"{comment}\n{blank}", extra_job=depth).replace("rw=write", f"rw={rw}")
        yield f"harmless {comment!r} {blank!r} {depth!r} {rw}", text


def test_whatever_the_check_lets_through_fio_writes_only_the_guarded_device(loop_device, tmp_path):
    guarded, other = loop_device("16M"), loop_device("16M")
    sh("dd", "if=/dev/urandom", f"of={other.path}", "bs=1M", "count=16", "oflag=direct", "status=none")
    before = other.checksum()
    include_file = tmp_path / "other.fio"
    include_file.write_text(f"filename={other.path}\n")
    env = dict(os.environ, PTS_OTHER=other.path)
    tried = passed = 0
    for label, text in variants(guarded.path, other.path, str(include_file)):
        tried += 1
        found = _job_check.refusals(text, guarded.path)
        if found:
            assert "harmless" not in label, (label, found)
            continue
        passed += 1
        job = tmp_path / "job.fio"
        job.write_text(text)
        done = subprocess.run(["fio", "--output-format=json", f"--output={tmp_path / 'out.json'}", str(job)],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, (label, done.stdout, done.stderr)
    # Every harmless variation ran; of the attempts only comments and the guarded device itself named again did.
    assert tried > 10000 and 36 <= passed <= 80, (tried, passed)
    assert other.checksum() == before
