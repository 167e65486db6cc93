# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The job-file check (module_utils/_pts/_job_check.py): what fio would read as another line, another file, a
substitution or an option the collection never sets is refused; every job file the collection writes passes (held by
tests/unit/plugins/plugin_utils/test__job_text.py over every plan)."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _job_check

DEVICE = "/dev/loop9"
GOOD = (f"# a comment: anything but control characters, even ünïcödé\n[global]\nfilename={DEVICE}\nioengine=libaio\n"
        "direct=1\nnumjobs=2\niodepth=16\n\n[wsat]\nstonewall\nrw=randwrite\nbs=4k\nruntime=500ms\n")


def test_a_job_file_of_the_collection_passes():
    assert _job_check.refusals(GOOD, DEVICE) == []


@pytest.mark.parametrize("text, why", [
    # fio breaks lines at \n only: Python's other line breaks must not hide an option inside a line.
    (GOOD.replace("filename=/dev/loop9", "filename=/dev/loop9\u2028:/dev/sda"), "U+2028 (LINE SEPARATOR)"),
    (GOOD.replace("filename=/dev/loop9", "filename=/dev/loop9\u2029"), "U+2029 (PARAGRAPH SEPARATOR)"),
    (GOOD + "rw=read\x85filename=/dev/sda\n", "U+0085"),
    (GOOD + "bs=4k\x0bfilename=/dev/sda\n", "U+000B"),
    (GOOD + "bs=4k\x0cfilename=/dev/sda\n", "U+000C"),
    (GOOD + "bs=4k\x1cfilename=/dev/sda\n", "U+001C"),
    (GOOD + "bs=4k\x1efilename=/dev/sda\n", "U+001E"),
    (GOOD + "bs=4k\rfilename=/dev/sda\n", "U+000D"),
    (GOOD + "bs=4k\x00\n", "U+0000"),
    (GOOD + "# \u202eevil\n", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    (GOOD + "rw=rand\u200bwrite\n", "U+200B (ZERO WIDTH SPACE)"),
    (GOOD + "filename=${HOME}\n", "'$'"),
    (GOOD + "size=$(1+1)\n", "'$'"),
])
def test_what_fio_reads_differently_is_refused(text, why):
    found = _job_check.refusals(text, DEVICE)
    assert found and why in found[0], found


@pytest.mark.parametrize("line", [
    "include /etc/other.fio", "include\t/etc/other.fio", "include\x0b/x", "includex/etc/other.fio",
    "INCLUDE /etc/other.fio", "Include=/etc/x", "  include /x", "\tinclude /x", "include",
])
def test_include_in_any_spelling_is_refused(line):
    found = _job_check.refusals(GOOD + line + "\n", DEVICE)
    assert any("includes another file" in f or "U+0009" in f or "U+000B" in f or "blanks" in f for f in found), found
    assert found


@pytest.mark.parametrize("line, why", [
    ("filename=/dev/sda", "writes to '/dev/sda', not to the guarded device /dev/loop9"),
    ("filename=/dev/loop9:/dev/sda", "writes to '/dev/loop9:/dev/sda'"),
    ("filename = /dev/loop9", "sets 'filename '"),
    (" filename=/dev/loop9", "has blanks around it"),
    ("filename =/dev/sda", "sets 'filename ', which no job file"),
    ("FILENAME=/dev/sda", "sets 'FILENAME'"),
    ("allow_mounted_write=1", "sets 'allow_mounted_write'"),
    ("exec_prerun=rm -rf /", "sets 'exec_prerun'"),
    ("directory=/srv", "sets 'directory'"),
    ("filename_format=/dev/sd$jobnum", "'$'"),
    ("read_iolog=/etc/shadow", "sets 'read_iolog'"),
    ("ioengine=exec", "ioengine='exec' must be one of libaio"),
    ("ioengine=null", "ioengine='null' must be one of"),
    ("ioengine=libaio:x", "ioengine='libaio:x' must be one of"),
    ("iodepth=100000", "iodepth='100000' must be a whole number from 1 to 4096"),
    ("numjobs=0", "numjobs='0' must be a whole number from 1 to 256"),
    ("write_bw_log=/tmp/x", "write_bw_log='/tmp/x' must be a bare file name prefix"),
    ("write_iops_log=../x", "must be a bare file name prefix"),
    ("rw=trimwrite", "rw='trimwrite' must be one of"),
    ("bs=4k,1m", "bs='4k,1m' must be a block size"),
    ("stonewall=1", "stonewall takes no value"),
    ("rw", "rw needs a value"),
    ("bs=4k ; filename=/dev/sda", "bs='4k ; filename=/dev/sda' must be a block size"),
    ("x" * 1100, "longer than 1024 bytes"),
    ("[sec tion]", "is not a section header"),
    ("[a]x", "is not a section header"),
    ("time_based=2", "time_based='2' must be one of 0, 1"),
    ("io_size=4k,8k", "io_size='4k,8k' must be a size"),
])
def test_only_the_collections_options_with_their_own_values_pass(line, why):
    found = _job_check.refusals(GOOD + line + "\n", DEVICE)
    assert any(why in f for f in found), found


def test_a_long_comment_cannot_smuggle_an_option_past_fios_line_length():
    # fio reads at most 8,191 bytes a line and takes the rest as the next line.
    found = _job_check.refusals(GOOD + "#" + "x" * 8190 + "filename=/dev/sda\n", DEVICE)
    assert any("longer than 1024 bytes" in f for f in found)


@pytest.mark.parametrize("text, why", [
    ("[global]\nioengine=libaio\n\n[r]\nrw=read\nfilename=/dev/loop9\n", "the [global] section does not name"),
    ("filename=/dev/loop9\n[global]\n", "an option outside any section"),
    ("# nothing\n", "the job file has no job section"),
])
def test_every_job_writes_the_guarded_device_only(text, why):
    assert any(why in f for f in _job_check.refusals(text, DEVICE))


@pytest.mark.parametrize("device", ["/dev/disk/by-id/x:y", "/dev/sd a", "dev/sda", "/dev/../etc/passwd", "/tmp/x",
                                    "/dev/sda\n", ""])
def test_a_device_fio_would_read_as_something_else_is_refused(device):
    assert _job_check.refusals(GOOD, device)[0].startswith(f"the device {device!r} is not a plain /dev path")


@pytest.mark.parametrize("line", [
    "include /etc/fio/other.fio", "exec_prerun=sh -c 'dd of=/dev/sdb'", "exec_postrun=rm -rf /", "ioengine=exec",
    "ioengine=external:/tmp/engine.so", "directory=/srv", "opendir=/srv", "filename_format=/dev/sd$jobnum",
    "read_iolog=/tmp/replay", "trigger_cmd=reboot", "Exec_Prerun = x", "replay_redirect=/dev/sdb", "cgroup=x",
])
def test_what_the_checks_of_2_0_named_is_refused_still(line):
    assert _job_check.refusals(GOOD + line + "\n", DEVICE)


def test_the_collections_own_log_options_pass():
    text = GOOD + "write_bw_log=round-01\nwrite_iops_log=round-01\nwrite_lat_log=round-01\nlog_avg_msec=100\n"
    assert _job_check.refusals(text, DEVICE) == []


@pytest.mark.parametrize("text, most", [
    (GOOD, 2 * 16 * 4096),
    (GOOD + "\n[r]\nstonewall\nrw=randread\nbs=1m\niodepth=64\n", 2 * 16 * 4096),  # reads are no wear
    (GOOD + "\n[x]\nstonewall\nrw=write\nbs=1m\nnumjobs=1\niodepth=32\n", 32 << 20),
    (GOOD + "\n[c]\nstonewall\nrw=randrw\nrwmixread=40\nbssplit=4k/50:64k/50\n", 2 * 16 * 65536),
])
def test_the_most_writes_fio_can_have_in_flight(text, most):
    assert _job_check.refusals(text, DEVICE) == []
    assert _job_check.most_in_flight(text) == most
