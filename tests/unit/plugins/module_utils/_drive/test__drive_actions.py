# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
import stat

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _drive_actions

NVME = {"name": "nvme0n1", "resolved": "/dev/nvme0n1", "kind": "disk", "interface": "NVMe", "discard": True}
SATA = {"name": "sda", "resolved": "/dev/sda", "kind": "disk", "interface": "SATA", "discard": False}
LOOP = {"name": "loop3", "resolved": "/dev/loop3", "kind": "disk", "interface": "loop", "discard": True}
# QEMU 7.2's emulated controller: Format NVM, no crypto erase, no sanitize, a volatile write cache.
QEMU_ID_CTRL = {"vid": 6966, "sn": "GUESTNVME1          ", "mn": "QEMU NVMe Ctrl", "fr": "7.2.0   ",
                "oacs": 10, "fna": 0, "sanicap": 0, "vwc": 7}
HDPARM_SECURE = """
/dev/sda:

ATA device, with non-removable media
\tModel Number:       SAMSUNG MZ7LH960HAJR-00005
\tSerial Number:      S45NNA0M123456
\tFirmware Revision:  HXT7404Q
Commands/features:
\tEnabled\tSupported:
\t   *\tSMART feature set
\t   *\tWrite cache
Security:
\tMaster password revision code = 65534
\t\tsupported
\tnot\tenabled
\tnot\tlocked
\tnot\tfrozen
\tnot\texpired: security count
\t\tsupported: enhanced erase
\t2min for SECURITY ERASE UNIT. 8min for ENHANCED SECURITY ERASE UNIT.
"""


class Tools:
    """Stands in for nvme-cli, hdparm and smartctl: answers by the command's first words, records every call."""

    def __init__(self, answers: dict, missing=()):
        self.answers, self.missing, self.calls = answers, set(missing), []

    def which(self, name):
        return None if name in self.missing else f"/usr/sbin/{name}"

    def run(self, argv):
        self.calls.append(argv)
        key = " ".join([argv[0].rsplit("/", 1)[-1]] + argv[1:2])
        answer = self.answers.get(key, (1, "", f"no answer for {key}"))
        return answer.pop(0) if isinstance(answer, list) else answer


def test_qemu_nvme_offers_format_erase_then_discard_and_reads_its_cache_and_health():
    tools = Tools({"nvme id-ctrl": (0, json.dumps(QEMU_ID_CTRL), ""),
                   "nvme get-feature": (0, "get-feature:0x06 (Volatile Write Cache), Current value:0x00000001\n", ""),
                   "nvme smart-log": (0, json.dumps({"critical_warning": 0, "temperature": 323, "percent_used": 0,
                                                     "data_units_written": 2, "media_errors": 0}), "")})
    facts = _drive_actions.tool_facts(NVME, tools.run, tools.which)
    assert facts["purge_methods"] == ["nvme_format_erase", "discard"]
    assert facts["identity"] == {"model": "QEMU NVMe Ctrl", "serial": "GUESTNVME1", "firmware": "7.2.0"}
    assert (facts["device_write_cache"], facts["write_cache_tool"]) == (True, "nvme")
    assert facts["health"]["temperature_c"] == 50 and facts["health"]["bytes_written"] == 1_024_000
    assert ["/usr/sbin/nvme", "id-ctrl", "/dev/nvme0", "-o", "json"] in tools.calls  # the controller, not the namespace


def test_sata_with_security_erase_not_frozen():
    tools = Tools({"hdparm -I": (0, HDPARM_SECURE, ""), "smartctl -j": (0, json.dumps({"smart_status": {"passed": True}}), "")})
    facts = _drive_actions.tool_facts(SATA, tools.run, tools.which)
    assert facts["purge_methods"] == ["ata_security_erase_enhanced", "ata_security_erase"]
    assert facts["device_write_cache"] is True and facts["health"]["passed"] is True
    assert _drive_actions.ata_frozen_reason(facts) is None


def test_a_frozen_sata_drive_offers_no_security_erase():
    tools = Tools({"hdparm -I": (0, HDPARM_SECURE.replace("\tnot\tfrozen", "\t\tfrozen"), "")}, missing={"smartctl"})
    facts = _drive_actions.tool_facts(SATA, tools.run, tools.which)
    assert facts["purge_methods"] == []
    assert "frozen" in _drive_actions.ata_frozen_reason(facts)


def test_a_loop_device_has_discard_only_and_no_tools_are_asked():
    tools = Tools({})
    facts = _drive_actions.tool_facts(LOOP, tools.run, tools.which)
    assert facts["purge_methods"] == ["discard"] and facts["device_write_cache"] is None and facts["health"] is None
    assert tools.calls == []


def test_a_failing_tool_is_reported_not_guessed():
    tools = Tools({"nvme id-ctrl": (1, "", "NVMe status: INVALID_OPCODE"), "nvme smart-log": (1, "", "x")})
    facts = _drive_actions.tool_facts(NVME, tools.run, tools.which)
    assert facts["purge_methods"] == ["discard"]
    assert "INVALID_OPCODE" in facts["tool_errors"][0]
    assert facts["health"]["error"].startswith("/usr/sbin/nvme smart-log /dev/nvme0 -o json failed")


@pytest.mark.parametrize("method, argvs", [
    ("nvme_format_erase", [["nvme", "format", "/dev/nvme0n1", "--ses=1", "--force"]]),
    ("nvme_format_crypto", [["nvme", "format", "/dev/nvme0n1", "--ses=2", "--force"]]),
    ("nvme_sanitize_crypto", [["nvme", "sanitize", "/dev/nvme0", "--sanact=4"]]),
    ("discard", [["blkdiscard", "/dev/nvme0n1"]]),
])
def test_purge_commands_for_nvme(method, argvs):
    got = _drive_actions.purge_commands(method, NVME, lambda name: name)
    assert got == argvs


@pytest.mark.parametrize("held, argv", [
    (False, ["blkdiscard", "/dev/loop3"]),  # blkdiscard's own O_EXCL open refuses a device someone else claims
    (True, ["blkdiscard", "--force", "/dev/loop3"]),  # the claim is the run's verified hold: O_EXCL would hit it
])
def test_discard_forces_only_under_the_runs_own_hold(held, argv):
    assert _drive_actions.purge_commands("discard", LOOP, lambda name: name, held=held) == [argv]
    # Only blkdiscard opens the device exclusively: no other method changes under a hold.
    assert _drive_actions.purge_commands("nvme_format_erase", NVME, lambda name: name, held=held) == [
        ["nvme", "format", "/dev/nvme0n1", "--ses=1", "--force"]]


def test_ata_security_erase_sets_the_runs_password_then_erases():
    got = _drive_actions.purge_commands("ata_security_erase_enhanced", SATA, lambda name: name, "c0ffee")
    assert got == [["hdparm", "--user-master", "u", "--security-set-pass", "c0ffee", "/dev/sda"],
                   ["hdparm", "--user-master", "u", "--security-erase-enhanced", "c0ffee", "/dev/sda"]]
    with pytest.raises(ValueError, match="needs the run's ATA password"):
        _drive_actions.purge_commands("ata_security_erase", SATA, lambda name: name)
    with pytest.raises(ValueError, match="unknown purge method 'shred'"):
        _drive_actions.purge_commands("shred", SATA, lambda name: name)


def test_sanitize_is_polled_until_it_completes_or_fails():
    log = [(0, json.dumps({"nvme0": {"sprog": 32768, "sstat": 2}}), ""),
           (0, json.dumps({"nvme0": {"sprog": 65535, "sstat": 2}}), ""),
           (0, json.dumps({"nvme0": {"sprog": 0, "sstat": 1}}), "")]
    tools = Tools({"nvme sanitize-log": log})
    sleeps = []
    assert _drive_actions.wait_for_sanitize(NVME, tools.run, tools.which, sleep=sleeps.append) is None
    assert len(sleeps) == 2
    tools = Tools({"nvme sanitize-log": (0, json.dumps({"sprog": 0, "sstat": 3}), "")})
    assert "failed" in _drive_actions.wait_for_sanitize(NVME, tools.run, tools.which, sleep=sleeps.append)


def which(name):
    return name


def test_write_cache_commands_per_tool():
    assert _drive_actions.write_cache_commands(NVME, "nvme", False, which) == [
        ["nvme", "set-feature", "/dev/nvme0", "--namespace-id=0", "-f", "6", "-v", "0"]]
    assert _drive_actions.write_cache_commands(SATA, "hdparm", True, which) == [["hdparm", "-W", "1", "/dev/sda"]]
    assert _drive_actions.write_cache_commands(LOOP, None, False, which) is None


def test_purge_record_says_when_a_purge_is_not_secure():
    assert _drive_actions.purge_record("discard")["note"] == "blkdiscard of the whole device: not a secure purge"
    record = _drive_actions.purge_record("nvme_format_erase", 1.5)
    assert record["secure"] is True and "not a secure purge" not in record["note"] and record["elapsed_s"] == 1.5


HDPARM_ENABLED = HDPARM_SECURE.replace("\tnot\tenabled", "\t\tenabled")
PASSWORD = "0123456789abcdef0123456789abcdef"


def _read_secret(path: str) -> str:
    """The password a run keeps for a drive, as an operator reads it back (``$(cat FILE)``)."""
    with open(path, encoding="ascii") as handle:
        return handle.read().strip()


def _erase(tmp_path, answers, method="ata_security_erase_enhanced", security=None):
    tools = _Answers(answers)
    secret = str(tmp_path / "remote" / "ata-security" / "sda.password")
    error, ran = _drive_actions.ata_security_erase(method, SATA, tools.run, tools.which, secret, security, PASSWORD)
    return error, ran, secret


def _argv(step, password=PASSWORD):
    flags = {"set": "--security-set-pass", "erase": "--security-erase-enhanced", "disable": "--security-disable"}
    return ["/usr/sbin/hdparm", "--user-master", "u", flags[step], password, "/dev/sda"]


def test_a_security_erase_keeps_its_password_root_only_until_it_is_verified(tmp_path):
    seen = {}

    def watch(argv):
        # While the erase runs, the password is on disk, readable by its owner only, in a directory only it enters.
        path = str(tmp_path / "remote" / "ata-security" / "sda.password")
        seen["mode"] = stat.S_IMODE(os.stat(path).st_mode)
        seen["dir"] = stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode)
        with open(path, encoding="ascii") as handle:
            seen["content"] = handle.read().strip()
        return (0, "", "")

    error, ran, secret = _erase(tmp_path, {"hdparm --user-master": [(0, "", ""), watch], "hdparm -I": (0, HDPARM_SECURE, "")})
    assert error is None
    assert ran == [_argv("set"), _argv("erase")]
    assert seen == {"mode": 0o600, "dir": 0o700, "content": PASSWORD}
    assert not os.path.exists(secret)


class _Answers(Tools):
    """Tools whose answers may be functions of the command (to look at the disk while a step runs)."""

    def run(self, argv):
        self.calls.append(argv)
        key = " ".join([argv[0].rsplit("/", 1)[-1]] + argv[1:2])
        answer = self.answers.get(key, (1, "", f"no answer for {key}"))
        answer = answer.pop(0) if isinstance(answer, list) else answer
        return answer(argv) if callable(answer) else answer


@pytest.mark.parametrize("answers, steps, disabled", [
    # set-pass fails: security is taken off again (it may have been set), the file goes.
    ({"hdparm --user-master": [(5, "", "SG_IO: bad/missing sense data"), (0, "", "")],
      "hdparm -I": (0, HDPARM_SECURE, "")}, ["set", "disable"], True),
    # the erase fails, disabling works: unlocked, the file goes.
    ({"hdparm --user-master": [(0, "", ""), (5, "", "erase failed " + PASSWORD), (0, "", "")],
      "hdparm -I": (0, HDPARM_SECURE, "")}, ["set", "erase", "disable"], True),
    # the erase fails and so does disabling: the file stays and the message says how to unlock.
    ({"hdparm --user-master": [(0, "", ""), (5, "", "erase failed"), (5, "", "disable failed")],
      "hdparm -I": (0, HDPARM_ENABLED, "")}, ["set", "erase", "disable"], False),
    # the erase ends but the drive still reports security enabled, and will not disable it.
    ({"hdparm --user-master": [(0, "", ""), (0, "", ""), (5, "", "")], "hdparm -I": (0, HDPARM_ENABLED, "")},
     ["set", "erase", "disable"], False),
])
def test_a_failed_security_erase_disables_security_or_says_how_to_unlock(tmp_path, answers, steps, disabled):
    tools = _Answers(answers)
    secret = str(tmp_path / "remote" / "ata-security" / "sda.password")
    error, ran = _drive_actions.ata_security_erase("ata_security_erase_enhanced", SATA, tools.run, tools.which, secret,
                                                   None, PASSWORD)
    assert ran == [_argv(step) for step in steps]
    assert error and PASSWORD not in error
    if disabled:
        assert "ATA security was disabled again, the drive is unlocked" in error
        assert not os.path.exists(secret)
    else:
        assert os.path.exists(secret) and _read_secret(secret) == PASSWORD
        assert (f'hdparm --user-master u --security-unlock "$(cat {secret})" /dev/sda && '
                f'hdparm --user-master u --security-disable "$(cat {secret})" /dev/sda') in error


def test_a_drive_with_security_already_enabled_is_refused_before_any_command(tmp_path):
    error, ran, secret = _erase(tmp_path, {}, security={"enabled": True})
    assert ran == [] and "already has ATA security enabled" in error and "not one this collection set" in error
    assert not os.path.exists(secret)
    _drive_actions.store_secret(secret, "5ecret-0f-an-old-run")
    error, ran, dummy = _erase(tmp_path, {}, security={"enabled": True})
    assert ran == [] and f'"$(cat {secret})"' in error and "5ecret-0f-an-old-run" not in error
    assert _read_secret(secret) == "5ecret-0f-an-old-run"  # the only way to unlock it is kept


def test_each_erase_gets_a_new_password_and_a_file_per_drive():
    assert _drive_actions.new_ata_password() != _drive_actions.new_ata_password()
    assert len(_drive_actions.new_ata_password()) == 32
    assert _drive_actions.ata_password_file("/var/lib/fleetqual-pts", SATA) == \
        "/var/lib/fleetqual-pts/ata-security/sda.password"


def test_a_secret_replaces_an_older_one_and_never_follows_a_link(tmp_path):
    secret = str(tmp_path / "d" / "x.password")
    _drive_actions.store_secret(secret, "one")
    os.chmod(os.path.dirname(secret), 0o755)
    _drive_actions.store_secret(secret, "two")
    assert _read_secret(secret) == "two"
    assert stat.S_IMODE(os.stat(os.path.dirname(secret)).st_mode) == 0o700
    os.symlink(str(tmp_path / "d"), str(tmp_path / "link"))
    with pytest.raises(OSError, match="symbolic link"):
        _drive_actions.store_secret(str(tmp_path / "link" / "y.password"), "three")


def _fixture(name: str) -> str:
    with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", name), encoding="utf-8") as handle:
        return handle.read()


@pytest.mark.parametrize("info, fixture, argv, used", [
    # ATA keeps its endurance indicator in the device statistics log (page 7), which smartctl -a leaves out.
    (SATA, "health-smartctl-7.3-ata-devstat.json", ["-j", "-a", "-l", "devstat", "/dev/sda"], 3),
    (dict(SATA, name="sdb", resolved="/dev/sdb", interface="SCSI/SAS"), "health-smartctl-7.3-scsi.json",
     ["-j", "-a", "/dev/sdb"], 1),
])
def test_identify_reads_the_percentage_used_of_sata_and_sas_drives(info, fixture, argv, used):
    tools = Tools({"smartctl -j": (4, _fixture(fixture), "")})
    snapshot = _drive_actions.health(info, tools.run, tools.which)
    assert tools.calls == [["/usr/sbin/smartctl", *argv]]
    assert snapshot["percentage_used"] == used and snapshot["tool"] == "smartctl" and snapshot["smartctl_status"] == 4
