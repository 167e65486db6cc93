# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_segment
short_description: Run every round of one segment of a PTS test - job file, fio on the host, the round on disk, the stop rule
version_added: 2.0.0
description:
  - One task runs all the rounds of one segment of a test (a test, or one block size of throughput, one part of a
    sweep) until its stop rule holds - steady state over every DV (as M(fleetqual.pts.steady_state)), bytes written or
    hours passed (write saturation), the rows of a sweep and a demand ramp's misses, or a group's samples.
  - First, what the plan puts before the segment's rounds - with O(first), the test's purge and preconditioning; the
    segment's own when the test purges every segment - M(fleetqual.pts.pts_purge) on the host, and the preconditioning
    (SNIA PTS WIPC at the plan's block size and capacity multiple, or the Myce/OakGate timed 4k random writes) as one
    fio run like a round's, each filed where its test's rounds go.
  - For each round it renders the round's fio job file from the collection's template (C(roles/pts_run/templates/))
    in a sandbox, from O(test), O(segment) and O(settings) alone - never from play variables - and checks it as fio
    reads it; runs it on the host through the segment's fio server (M(fleetqual.pts.fio_job)'s one runner - the job
    file checked again and written relative to the job directory, every write re-checked against the guard's record
    of the device on the host, the wear bound watched while fio runs); writes the round
    on the controller under O(run_dir) - C(round-NN.json) with the stop rule's verdict after it, its job file and
    fio's own output, atomically - judges the rule and prints one line through ansible-core's display (which every
    stdout callback shows, AWX's included) with the round's DVs and steady-state figures. The next round starts only
    once this one is on disk.
  - The loop is plain Python inside the task - no C(until), no retries, nothing that grows or nests per round but the
    round files on disk - so round 1,500 costs what round 1 does. The task's result is small whatever the round count
    or fio's output - where the rounds are, how many ran, the stop reason - so callback events (AWX stores each one)
    stay small.
  - Just before fio starts and just after it ends, outside fio's measuring time, it reads the drive's own health on the
    host (temperature, thermal-management counters, errors, wear, bytes written) and files both readings with the
    round. The first round finds how with M(fleetqual.pts.pts_drive_health)
    (O(fleetqual.pts.pts_drive_health#module:mode=round)); after that a round costs one shell command. A drive whose
    identity record says it has no health (loop, zram, virtio, md) is not read at all.
  - A failed round (fio's error, a time-out, a round that cannot be written) ends the segment and fails the task, with
    the evidence in C(failure.json); a host lost for longer than O(reconnect_timeout) is recorded in the drive's
    C(lost.json).
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
    details: Each round's fio runs detached on the host by itself; the task needs no C(async).
  check_mode:
    support: none
  diff_mode:
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: N/A
    platforms: posix
options:
  test:
    description: The test's entry in the plan of P(fleetqual.pts.pts_plan#module) (its stop rule, round seconds, target).
    type: dict
    required: true
  segment:
    description: The segment of the test to run (its combinations and DVs, or a sweep's rows as C(rounds)).
    type: dict
    required: true
  limits:
    description: The plan's limits of the segment's rounds, and the drive's.
    type: dict
    default: {}
    suboptions:
      window:
        description: The steady-state window, in rounds (a steady stop rule needs it).
        type: int
      max_rounds:
        description: The round limit of a steady stop rule.
        type: int
      max_data_excursion_pct:
        description: The steady-state data excursion's limit, in % of the window's average (unset, 20).
        type: float
      max_slope_excursion_pct:
        description: The steady-state best-fit slope excursion's limit, in % of the window's average (unset, 10).
        type: float
      capacity:
        description: The drive's capacity in bytes (a sequential stream's wrap-around).
        type: int
      max_write_bytes:
        description:
          - The plan's upper bound of what the run writes to the drive, on which its wear budget was judged. Counting
            what fio wrote in every round and preconditioning of the run on disk, the segment stops (and fails, with the
            figures) before a round that would pass it, and every fio run (round 1, an XSR group, the preconditioning
            included) is handed what is left, and the host stops fio once the device's own write counter passes it,
            and the test fails - a drive faster than the rule's C(rated_write_mb_s) cannot write past its budget.
          - Unset or C(0) - no bound.
        type: float
  settings:
    description:
      - The plan's settings (C(pts_run_plan.settings)), validated by P(fleetqual.pts.pts_plan#module) - C(ioengine),
        C(rate_iops), C(purge_method), C(allow_destroy) and the preconditioning's C(wipc_block_size),
        C(wipc_capacity_multiple), C(wipc_iodepth), C(wipc_min_bytes_per_second). The job files are rendered from
        them and the test's plan record alone.
    type: dict
    required: true
    version_added: 3.0.0
  first:
    description: Whether this is the test's first segment, before which the test's own purge and preconditioning run.
    type: bool
    default: true
    version_added: 3.0.0
  host_dir:
    description: The drive's directory of this run on the host (the purge keeps an ATA password there, if one is set).
    type: path
    required: true
    version_added: 3.0.0
  job_dir:
    description: Where each round's job file C(round-NN.fio) and fio's output go on the host.
    type: path
    required: true
  device:
    description: The device the guard passed; every C(filename=) of the job file must be it.
    type: path
    required: true
  expect:
    description: The guard's record of the device, re-checked right before each round's fio starts (see M(fleetqual.pts.fio_job)).
    type: dict
    required: true
  run_dir:
    description: The run's results directory on the controller (C(pts_run_dir)); the rounds go under it.
    type: path
    required: true
  timeout:
    description: Seconds after which a round's fio is stopped and the round fails; C(0) waits for ever.
    type: int
    default: 0
  reconnect_timeout:
    description: How long (seconds) the host may stay unreachable while fio runs before the round gives up.
    type: float
    default: 300
  expected_seconds:
    description: How long round 1 is expected to take; later rounds expect the previous round's run time.
    type: float
    default: 0
  context:
    description:
      - Labels the rounds are filed and printed under - C(host), C(drive), C(test) (required), C(segment), C(run_id),
        C(settings); each round adds its number.
    type: dict
    default: {}
notes:
  - The job file decides what is written. Run it only for devices that M(fleetqual.pts.pts_guard) passed.
seealso:
  - module: fleetqual.pts.fio_job
  - module: fleetqual.pts.steady_state
"""

EXAMPLES = r"""
- name: Run IOPS rounds until steady state or the round limit
  fleetqual.pts.pts_segment:
    test: "{{ pts_run_plan.drives[0].tests[0] }}"
    segment: "{{ pts_run_plan.drives[0].tests[0].segments[0] }}"
    limits:
      window: 5
      max_rounds: 25
    job_dir: /var/lib/fleetqual-pts/run1/disk1/iops
    device: /dev/nvme0n1
    expect: "{{ pts_guard_passed['/dev/nvme0n1'] }}"
    run_dir: "{{ pts_run_dir }}"
    timeout: 7200
    context:
      run_id: "{{ pts_run_id }}"
      host: stor-12-01
      drive: disk1
      test: iops
  delegate_to: stor-12-01
"""

RETURN = r"""
pts_segment:
  description:
    - Where the segment's rounds are on the controller (C(dir)), how many ran (C(rounds)), why the loop stopped
      (C(reason)), whether the last verdict was steady (C(steady), steady-state rules only); on a failure the round
      that failed (C(failed_round)) and whether the host was lost (C(lost)).
  returned: always
  type: dict
  sample:
    dir: results/20261126T071500Z-3f9a1c/stor-12-01/disk1/iops
    rounds: 7
    stop: true
    reason: steady after round 7
    steady: true
"""
