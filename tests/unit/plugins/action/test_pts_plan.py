# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
import subprocess
import sys
from unittest.mock import MagicMock

import pytest
import yaml

from ansible_collections.fleetqual.pts.plugins.action import pts_plan, pts_run_lock
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _resume, _run_lock
from ansible_collections.fleetqual.pts.tests.unit.plugins.action._controller_action import failure, run_action

VARIABLES = {
    "pts_run_tests": ["iops"], "pts_run_profile": "quick", "pts_run_round_seconds": 0.5, "pts_run_max_rounds": 6,
    "pts_run_window": 5, "pts_run_numjobs": 2, "pts_run_iodepth": 16, "pts_run_max_data_excursion_pct": 20,
    "pts_run_max_slope_excursion_pct": 10, "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
    "pts_allow_destroy": True,
}
LOOP = {"key": "victim", "path": "/dev/loop5", "model": "loop device", "size_bytes": 67108864, "logical_block_size": 512,
        "backing_file": "/srv/a.img", "spec": {"path": "/dev/loop5", "name": "victim"}}


def run(args, task_vars=None, check=False, action=pts_plan):
    return run_action(action, args, task_vars, check)


@pytest.fixture
def said(monkeypatch):
    """The lines pts_plan says through ansible-core's display."""
    display = MagicMock()
    monkeypatch.setattr(pts_plan, "display", display)
    return lambda: [c.args[0] for c in display.display.call_args_list]


def plan_args(**extra):
    args = {"variables": dict(VARIABLES), "listed": [{"path": "/dev/loop5", "name": "victim"}],
            "resume": {"run_id": "it-1", "host": "h1"}, "context": {"host": "h1", "run_id": "it-1"}}
    args.update(extra)
    return args


def lock(host="h1", task_vars=None, check=False):
    """The role's lock step (fleetqual.pts.pts_run_lock), as it runs after pts_plan has validated."""
    return run({"run_id": "it-1", "host": host}, task_vars, check, action=pts_run_lock)


def fail_message(args, task_vars=None, check=False, action=pts_plan) -> str:
    return failure(action, args, task_vars, check)


@pytest.mark.parametrize("variables, message", [
    ({"pts_run_tests": ["cbw"], "pts_run_cbw_bssplit": "1024m/100"},
     "pts_plan: pts_run_cbw_bssplit='1024m/100': its block size 1048576k (1,073,741,824 bytes) is larger than the drive "
     "(67,108,864 bytes, drive victim): fio cannot run it; give a smaller one; nothing was written"),
    ({"pts_run_tests": ["cbw"], "pts_run_cbw_bssplit": "٤k/100"},
     "pts_plan: pts_run_cbw_bssplit='٤k/100': '٤k/100' is not size/percent (e.g. 4k/67) in ASCII digits (0-9); nothing "
     "was written"),
    ({"pts_run_tests": ["cbw"], "pts_run_cbw_distribution": "zoned:١٠٠/100"},
     "pts_plan: pts_run_cbw_distribution='zoned:١٠٠/100': must be a fio zoned distribution such as "
     "zoned:50/5:30/15:20/80 (IO %/LBA %, whole percentages in ASCII digits); nothing was written"),
])
def test_bad_cbw_input_is_refused_by_the_plan_of_the_identified_drive(settings, variables, message):
    assert fail_message(plan_args(variables=dict(VARIABLES, pts_run_profile="quick", **variables),
                                  devices=[LOOP])) == message


def test_a_typo_in_pts_devices_is_named_as_written(settings):
    message = fail_message(plan_args(listed=[{"path": "/dev/loop5", "seral": "S1"}]))
    assert message == ("pts_plan: pts_devices[0]: unknown key 'seral' (did you mean 'serial'?); nothing was written")
    assert "listed" not in fail_message(plan_args(listed="/dev/loop5"))


def test_an_error_names_pts_tests_when_that_is_what_the_operator_set(settings):
    args = plan_args(variables=dict(VARIABLES, pts_run_tests=["iops", "iosp"]))
    public = plan_args(variables=args["variables"], public_variables={"pts_tests": ["iops", "iosp"]})
    assert fail_message(public).startswith("pts_plan: pts_tests='iosp': unknown test")
    assert fail_message(args).startswith("pts_plan: pts_run_tests='iosp': unknown test")
    # pts_run_tests set to another value than pts_tests: that is what is named.
    other = plan_args(variables=args["variables"], public_variables={"pts_tests": ["iops"]})
    assert fail_message(other).startswith("pts_plan: pts_run_tests='iosp': unknown test")
    # What the task happens to see is no input: only the arguments name the variable.
    assert fail_message(args, {"pts_tests": ["iops", "iosp"]}).startswith("pts_plan: pts_run_tests='iosp'")


def test_the_inputs_are_the_variables_argument_not_the_tasks_variables(settings):
    seen = {"pts_run_tests": ["iosp"], "pts_run_profile": "fast", "pts_run_max_rounds": 7}
    plan = run(plan_args(), seen)["pts_plan"]
    assert [test["name"] for test in plan["tests"]] == ["iops"] and plan["max_rounds"] == 6
    # Without the argument, the tests are as unset (the role's defaults give them), not the ones the task sees.
    assert fail_message({"listed": []}, seen).startswith("pts_plan: pts_run_tests=None: must be a non-empty list")


# --- what the pts_run role passes ------------------------------------------------------------------------------------

ROLE = os.path.join(os.path.dirname(os.path.abspath(pts_plan.__file__)), "..", "..", "roles", "pts_run")

# The role's defaults and vars as the role's tasks see them, the variables the role passes to pts_plan on the console.
_INPUTS_PLAY = """
- name: Template what the pts_run role passes to pts_plan
  hosts: localhost
  gather_facts: false
  vars_files: [{role}/defaults/main.yml, {role}/vars/main.yml]
  vars:
    role_path: {role}
  tasks:
    - name: Show them
      ansible.builtin.debug:
        msg:
          variables: "{{{{ __pts_run_inputs }}}}"
          public_variables: "{{{{ __pts_run_public_inputs }}}}"
"""


def _role_tasks(tasks: list) -> list:
    found = []
    for task in tasks or []:
        found.append(task)
        for key in ("block", "rescue", "always"):
            found.extend(_role_tasks(task.get(key)))
    return found


def test_every_plan_of_the_role_is_given_the_runs_inputs_and_their_public_names():
    tasks_dir = os.path.join(ROLE, "tasks")
    plans = []
    for name in sorted(os.listdir(tasks_dir)):
        with open(os.path.join(tasks_dir, name), encoding="utf-8") as handle:
            plans += [task["fleetqual.pts.pts_plan"] for task in _role_tasks(yaml.safe_load(handle))
                      if "fleetqual.pts.pts_plan" in task]
    assert len(plans) == 3
    for args in plans:
        assert args["variables"] == "{{ __pts_run_inputs }}"
        assert args["public_variables"] == "{{ __pts_run_public_inputs }}"
    with open(os.path.join(ROLE, "vars", "main.yml"), encoding="utf-8") as handle:
        assert sorted(yaml.safe_load(handle)["__pts_run_public_names"]) == sorted(pts_plan.ALIASES.values())


def test_the_role_passes_each_input_the_play_sets_rendered_and_leaves_the_others_out(tmp_path):
    role = os.path.realpath(ROLE)
    play = tmp_path / "inputs.yml"
    play.write_text(_INPUTS_PLAY.format(role=role), encoding="utf-8")
    config = tmp_path / "ansible.cfg"  # not the checkout's (its pts_report callback)
    config.write_text("[defaults]\nretry_files_enabled = false\n", encoding="utf-8")
    extra = {"pts_tests": ["iops"], "pts_run_window": 3, "pts_resume": True}
    done = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,",
                           "-c", "local", str(play), "-e", json.dumps(extra)], capture_output=True, text=True,
                          check=False, cwd=tmp_path, env=dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_CONFIG=str(config)))
    assert done.returncode == 0, done.stdout + done.stderr
    shown = json.loads(done.stdout.split("ok: [localhost] => ", 1)[1].split("\n\nPLAY RECAP", 1)[0])["msg"]
    with open(os.path.join(role, "meta", "argument_specs.yml"), encoding="utf-8") as handle:
        names = list(yaml.safe_load(handle)["argument_specs"]["main"]["options"])
    given = shown["variables"]
    # pts_run_tests is the role default's rendering of pts_tests; names of the spec only.
    assert given["pts_run_tests"] == ["iops"] and given["pts_run_window"] == 3 and given["pts_resume"] is True
    assert set(given) <= set(names)
    # Not set and without a role default: left out, for the plan's own default.
    assert "pts_run_max_rounds" not in given and "pts_run_round_seconds" not in given
    assert given["pts_run_ioengine"] == "libaio" and given["pts_run_profile"] == "standard"
    assert shown["public_variables"] == {"pts_tests": ["iops"]}


@pytest.mark.parametrize("source, value, name", [
    ("extra", "/tmp/x", "pts_run_id"),
    ("env", "../../x", "PTS_RUN_ID (environment)"),
    # "$" matched before the trailing newline: the lock went to results/R1nl\n/, the results to results/R1nl/.
    ("extra", "R1nl\n", "pts_run_id"),
    ("env", "R1nl\n", "PTS_RUN_ID (environment)"),
])
def test_a_bad_run_id_is_refused_naming_where_it_was_set(settings, monkeypatch, tmp_path, source, value, name):
    if source == "extra":
        settings["extra"] = {"pts_run_id": value}
    else:
        monkeypatch.setenv("PTS_RUN_ID", value)
    effective = value if source == "extra" else None
    args = plan_args(resume={"host": "h1", **({"run_id": effective} if effective else {})},
                     context={"host": "h1", "run_id": effective})
    message = fail_message(args)
    assert message.startswith(f"pts_plan: {name}={value!r}: a run id is one directory name")
    assert not os.path.exists(tmp_path / "results")


# --- the plan on disk and on the console ------------------------------------------------------------------------------

def test_the_plan_is_filed_under_its_host_before_any_write_and_said(settings, tmp_path, said):
    run_dir = str(tmp_path / "results" / "it-1")
    plan = run(plan_args(devices=[LOOP], run_dir=run_dir), {"inventory_hostname": "localhost"})["pts_plan"]
    record = _results.read_json(os.path.join(run_dir, "h1", "plan.json"))
    assert record["host"] == "h1" and record["plan"] == json.loads(json.dumps(plan))
    lines = said()
    drive = plan["drives"][0]
    assert lines[0] == (f"PTS plan h1 victim: {drive['mode_reason']}; iops 1 runs; estimated "
                        f"{drive['min_s'] / 60:.1f}-{drive['max_s'] / 60:.1f} min ({plan['estimate_note']})")
    assert lines[1].startswith("PTS wear h1 victim: ") and len(lines) == 2


def test_under_check_the_plan_is_said_with_its_settings_and_not_filed(settings, tmp_path, said):
    run_dir = str(tmp_path / "results" / "it-1")
    plan = run(plan_args(devices=[LOOP], run_dir=run_dir), check=True)["pts_plan"]
    assert not os.path.exists(run_dir)
    assert said()[0].startswith("PTS plan h1 victim: ") and said()[1].startswith("PTS wear h1 victim: ")
    assert said()[-1] == (f"PTS check h1: purge method {plan['settings']['purge_method']}, write cache "
                          f"{plan['settings']['write_cache']}; --check wrote nothing")
    assert plan["settings"]["purge_method"] == "auto" and len(said()) == 3


def test_without_a_run_directory_nothing_is_filed(settings, tmp_path):
    run(plan_args(devices=[LOOP]))
    # A pts_run_dir fact the task happens to see is no place to file: the role passes it as run_dir.
    run(plan_args(devices=[LOOP]), {"pts_run_dir": str(tmp_path / "results" / "it-1")})
    assert not os.path.exists(os.path.join(tmp_path, "results", "it-1", "h1", "plan.json"))


def _first_attempt(tmp_path, **variables):
    """What a first attempt leaves: its plan (filed by pts_plan itself) and the drive it tested, with a round."""
    run_dir = str(tmp_path / "results" / "it-1")
    run(plan_args(variables=dict(VARIABLES, **variables)))
    lock()
    run(plan_args(variables=dict(VARIABLES, **variables), devices=[LOOP], run_dir=run_dir))
    assert os.path.exists(os.path.join(run_dir, "h1", "plan.json"))
    _results.file_payload(run_dir, "h1", {"pts_drives": [LOOP]})
    _results.file_payload(run_dir, "h1", {"pts_purge": {"method": "discard"},
                                          "pts_context": {"drive": "victim", "test": "iops"}})
    assert _run_lock.release(run_dir, os.getppid(), host="h1")
    return run_dir


_KILLED_PURGE = """
import os, signal, sys
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)
_results.file_payload(sys.argv[1], "h1", {"pts_purge": {"method": "discard"},
                                          "pts_context": {"drive": "victim", "test": "iops"}})
"""


def test_a_resume_removes_what_a_killed_write_left_and_its_purge_supersedes_nothing(settings, tmp_path):
    run_dir = _first_attempt(tmp_path)
    test_dir = os.path.join(run_dir, "h1", "victim", "iops")
    os.unlink(os.path.join(test_dir, "purge.json"))
    # The step filing it killed (SIGKILL) while it wrote the purge record: only its temporary file is left.
    subprocess.run([sys.executable, "-c", _KILLED_PURGE, run_dir], check=False,
                   env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    (leftover,) = os.listdir(test_dir)
    assert leftover.startswith(".purge.json.")
    run(plan_args())
    result = lock()
    _results.file_payload(run_dir, "h1", {"pts_purge": {"method": "discard"},
                                          "pts_context": {"drive": "victim", "test": "iops"}})
    assert sorted(os.listdir(os.path.join(run_dir, "h1", "victim"))) == ["drive.json", "iops"]
    assert os.listdir(test_dir) == ["purge.json"]
    assert result["pts_run_leftovers_removed"] == [os.path.join(test_dir, leftover)]


def test_resuming_with_changed_settings_is_refused_and_plan_json_is_left_alone(settings, tmp_path):
    run_dir = _first_attempt(tmp_path)
    plan_file = os.path.join(run_dir, "h1", "plan.json")
    with open(plan_file, encoding="utf-8") as handle:
        before = handle.read()
    args = plan_args(variables=dict(VARIABLES, pts_run_max_rounds=8, pts_run_iops_block_sizes=["4k", "8k"]))
    message = fail_message(args)
    assert "pts_run_iops_block_sizes: [4096] → [4096, 8192]; pts_run_max_rounds: 6 → 8" in message
    with open(plan_file, encoding="utf-8") as handle:
        assert handle.read() == before
    args["resume"]["allow_changed_settings"] = "yes"
    assert "pts_allow_changed_settings='yes': must be a YAML boolean" in fail_message(args)
    args["resume"]["allow_changed_settings"] = True
    allowed = run(args)["pts_plan"]["changed_settings"]
    assert allowed[0]["changes"] == ["pts_run_iops_block_sizes: [4096] → [4096, 8192]", "pts_run_max_rounds: 6 → 8"]


def test_resuming_with_another_device_under_the_name_is_refused_naming_both(settings, tmp_path):
    run_dir = _first_attempt(tmp_path)
    # This attempt's identification has already rewritten drive.json; the plan's record still knows the first drive.
    _results.file_payload(run_dir, "h1", {"pts_drives": [dict(LOOP, backing_file="/srv/b.img")]})
    message = fail_message(plan_args(devices=[dict(LOOP, backing_file="/srv/b.img")]))
    assert "pts_devices[0] (name 'victim'): run it-1 recorded model 'loop device', size_bytes 67108864, backing_file " \
           "'/srv/a.img'" in message and "is now model 'loop device', size_bytes 67108864, backing_file '/srv/b.img'" in message
    same = run(plan_args(devices=[dict(LOOP, path="/dev/loop7")]))["pts_plan"]
    assert same["identities"]["victim"]["backing_file"] == "/srv/a.img"
    with open(os.path.join(run_dir, "h1", "plan.json"), encoding="utf-8") as handle:
        assert json.load(handle)["plan"]["identities"]["victim"]["backing_file"] == "/srv/a.img"


# The loop device at the fastest interface's bound (16 GB/s): 6 rounds x 0.5 s of 4k random writes = 48 GB, plus
# WIPC 2 x 64 MiB; 0.5 TBW is 9.6 % of it.
WEAR_RULE = {"name": "tiny", "model": "loop device", "endurance_tbw": 0.5}
LOOP_WRITES = 6 * 0.5 * 16e9 + 2 * 67108864


def test_a_run_over_the_wear_budget_is_refused_before_anything_with_the_figures(settings):
    for check in (False, True):
        message = fail_message(plan_args(devices=[LOOP], acceptance=[WEAR_RULE]), check=check)
        assert message.startswith("pts_plan: the wear budget refuses drive victim (loop device): the run writes up to "
                                  "0.0481 TB")
        for part in ("9.63 % of the remaining life of 0.5 TB", "rated endurance 0.5 TBW from endurance_tbw 0.5",
                     "percentage used 0 %, the drive reports no percentage used: 0 % assumed",
                     "budget 5 % (pts_wear_budget_pct)", "Raise pts_wear_budget_pct"):
            assert part in message, part
        assert message.endswith("; nothing was written")


def test_the_wear_estimate_is_recorded_per_drive_in_the_plan(settings):
    variables = dict(VARIABLES, pts_run_wear_budget_pct="10")  # -e pts_wear_budget_pct=10 arrives as a string
    plan = run(plan_args(variables=variables, devices=[LOOP], acceptance=[WEAR_RULE]))["pts_plan"]
    wear = plan["drives"][0]["wear"]
    assert plan["wear_budget_pct"] == 10.0
    assert wear["judged"] and not wear["refused"] and wear["budget_pct"] == 10.0 and wear["rule"] == "tiny"
    assert wear["estimated_bytes"] == int(LOOP_WRITES)
    assert wear["use_pct"] == pytest.approx(100 * LOOP_WRITES / 0.5e12)
    # Without an endurance in the drive's rule it is estimated, not judged.
    plan = run(plan_args(devices=[LOOP], acceptance=[{"model": "loop*", "min_iops_4k_write": 1}]))["pts_plan"]
    wear = plan["drives"][0]["wear"]
    assert wear["judged"] is False and wear["reason"] == "its acceptance rule (loop*) gives no endurance_tbw or dwpd"
    assert wear["estimated_bytes"] == int(LOOP_WRITES)
    assert run(plan_args(devices=[LOOP]))["pts_plan"]["drives"][0]["wear"]["reason"] == \
        "no acceptance rule matches the drive"


def test_a_rate_outside_the_physical_range_is_refused_before_anything(settings):
    rule = dict(WEAR_RULE, rated_write_mb_s=1e-9)
    for check in (False, True):
        assert fail_message(plan_args(devices=[LOOP], acceptance=[rule]), check=check) == (
            "pts_plan: pts_acceptance[0].rated_write_mb_s=1e-09: must be from 1 to 1e+06 MB/s: a value outside that "
            "range is no drive's; nothing was written")


def test_a_bad_wear_budget_is_named_as_the_operator_set_it(settings):
    args = plan_args(variables=dict(VARIABLES, pts_run_wear_budget_pct=250))
    assert fail_message(dict(args, public_variables={"pts_wear_budget_pct": 250})) == (
        "pts_plan: pts_wear_budget_pct=250: a share of the drive's remaining life cannot exceed 100 %; "
        "nothing was written")
    assert fail_message(args).startswith("pts_plan: pts_run_wear_budget_pct=250: ")
    args = plan_args(acceptance=[{"model": "loop*", "dwpd": 1}])
    assert fail_message(args).startswith("pts_plan: pts_acceptance[0].dwpd=1: needs warranty_years")


def test_a_resumed_run_counts_only_the_tests_left(settings, tmp_path, monkeypatch):
    _first_attempt(tmp_path, pts_run_tests=["iops", "wsat"])
    # The first attempt finished iops (as its round files would say), not wsat.
    monkeypatch.setattr(_resume, "finished_tests", lambda drive_dir, planned: {"iops": "steady"})
    plan = run(plan_args(variables=dict(VARIABLES, pts_run_tests=["iops", "wsat"]), devices=[LOOP]))["pts_plan"]
    assert [t["done"] for t in plan["drives"][0]["tests"]] == [True, False]
    tests = {t["test"]: t for t in plan["drives"][0]["wear"]["tests"]}
    assert tests["iops"]["bytes"] == 0 and tests["iops"]["note"] == "finished in this run already"
    assert tests["wsat"]["bytes"] > 0 and plan["drives"][0]["wear"]["estimated_bytes"] == tests["wsat"]["bytes"]


def test_planning_and_the_resume_check_import_neither_the_report_nor_matplotlib():
    # pts_plan runs in a fresh worker process for every host, twice: the report code and matplotlib cost ~0.8 s a time.
    probe = ("import sys; from ansible_collections.fleetqual.pts.plugins.action import pts_plan; "
             "print(sorted(m for m in sys.modules if m.startswith('matplotlib') or m.endswith(('._report', '._plots'))))")
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert found.stdout.strip() == "[]"


QOS_SPEC = {"name": "Loop QoS", "version": "1", "source": {"document": "QoS table", "section": "2"},
            "applies_to": {"model": "loop*"},
            "requirements": [{"id": "Q8", "figure": "qos.read.qd8.p99", "limit": 2, "unit": "ms"}]}


def test_a_specification_file_is_validated_and_recorded_with_the_plan(settings, tmp_path, said):
    path = tmp_path / "qos.yml"
    path.write_text(json.dumps(QOS_SPEC))
    plan = run(plan_args(devices=[LOOP], acceptance_specs=[str(path)]))["pts_plan"]
    (spec,) = plan["acceptance_specs"]
    assert (spec["name"], spec["file"], len(spec["sha256"])) == ("Loop QoS", str(path), 64)
    # The run measures what it asks: the QoS measurement at QD8, added before the first write and said.
    assert [(a["variable"], a["value"]) for a in plan["acceptance_measure"]["added"]] == [
        ("pts_run_tests", "qos"), ("pts_run_qos_queue_depths", 8), ("pts_run_qos_percentile", "99")]
    assert [t["test"] for t in plan["drives"][0]["tests"]] == ["iops", "qos"]
    assert plan["variables"]["pts_run_qos_queue_depths"] == [8]
    assert "PTS acceptance h1: adds pts_run_tests += qos for Loop QoS 1: Q8 (qos.read.qd8.p99)" in said()
    # The wear estimate counts what was added.
    assert {t["test"] for t in plan["drives"][0]["wear"]["tests"]} == {"iops", "qos"}


def test_a_specification_the_run_does_not_measure_is_refused_when_the_operator_says_so(settings, tmp_path):
    path = tmp_path / "qos.yml"
    path.write_text(json.dumps(QOS_SPEC))
    for check in (False, True):
        assert fail_message(plan_args(devices=[LOOP], acceptance_specs=[str(path)], acceptance_measure="refuse"),
                            check=check) == (
            f"pts_plan: acceptance specification 'Loop QoS 1' ({path}) requirement 'Q8' asks for qos.read.qd8.p99 on "
            "drive victim, which no selected test measures: the QoS measurement is not selected (pts_tests); set "
            "pts_acceptance_measure: add to let the plan add what they need; nothing was written")


@pytest.mark.parametrize("specs, message", [
    ([dict(QOS_SPEC, requirements=[{"id": "Q8", "figure": "qos.read.qd8.p99", "limit": 2, "unit": "MB/s"}])],
     "pts_plan: pts_acceptance_specs[0]: requirements[0] (Q8).unit='MB/s': not a unit of this figure, which is "
     "measured in ms: give ms, us, µs, ns, s; nothing was written"),
    (["relative/missing.yml"], None),
    ("one.yml", "pts_plan: pts_acceptance_specs='one.yml': must be a list of specification files (or mappings); "
                "nothing was written"),
])
def test_a_bad_specification_fails_validation_before_anything(settings, specs, message):
    found = fail_message(plan_args(acceptance_specs=specs))
    if message:
        assert found == message
    else:
        assert found.startswith("pts_plan: pts_acceptance_specs[0] (relative/missing.yml): cannot be read")


def test_the_measure_choice_is_add_or_refuse(settings):
    assert fail_message(plan_args(acceptance_measure="sometimes")) == (
        "pts_plan: pts_acceptance_measure='sometimes': must be add (the plan adds the measurement a specification asks "
        "for) or refuse (the run is refused before any write); nothing was written")
