# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_round
short_description: Run one round of a PTS test - its job file, fio on the host, the stop rule - as one task
version_added: 1.0.0
description:
  - Renders the round's fio job file from the role's template O(template) (the template sees the round as
    C(pts_round.number) and, in a sweep, its row as C(pts_round.row)), runs it on the host through
    M(fleetqual.pts.fio_job) (detached under C(async), every write re-checked against the guard's record
    O(expect)), and judges the test's stop rule after the round - steady state over every DV (as
    M(fleetqual.pts.steady_state)), bytes written or hours passed (as M(fleetqual.pts.wsat_progress)), or the sweep's
    rows and a demand ramp's misses (as M(fleetqual.pts.sweep_progress)).
  - Made to be the only task of a test's round loop, run with C(until), C(retries) and C(delay=0). ansible-core
    then runs it again in the same worker while the rule says go on, registering each round's result before the
    next one; the task's arguments are templated once, so the next round's state is read from that registered
    result (it must be registered). The loop's depth and the controller's memory do not grow with the rounds, so a
    write saturation of 1,500 rounds costs per round what one of 10 does.
  - Round N+1 starts only once the P(fleetqual.pts.pts_report#callback) callback has round N on disk (it records
    every round's result as it arrives); a round that cannot be recorded stops the test with the reason.
  - Every result carries the round's C(pts_fio), its verdict (C(pts_steady_state), C(pts_wsat) or C(pts_sweep)) and
    C(pts_context) for the callback, which prints one line per round.
  - Just before fio starts and just after it ends, outside fio's measuring time, it reads the drive's own health on
    the host (temperature, thermal-management counters, errors, wear, bytes written) and returns both readings with
    the round in RV(pts_fio.health). The first round of a loop finds how with M(fleetqual.pts.pts_drive_health)
    (O(fleetqual.pts.pts_drive_health#module:mode=round)); after that a round costs one shell command, with no
    module run - the reading after it ends, which is also the next round's reading before (nothing touches the
    drive between two rounds). A drive whose identity record says it has no health (loop, zram, virtio, md) is not
    read at all.
  - A standard stdout callback prints ansible-core's C(FAILED - RETRYING) line for every round but the last - its
    wording for "the until loop runs again", not a failure. The collection's
    P(fleetqual.pts.pts_default#callback) stdout callback leaves those lines out.
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
    support: full
  check_mode:
    support: none
  diff_mode:
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: N/A
    platforms: posix
options:
  loop_id:
    description:
      - Names this loop, so that its rounds never continue another loop's state. Templated once per loop, it must
        differ between loops; the role uses drive, test, segment and the time the loop started.
    type: str
    required: true
  test:
    description: The test's entry in the plan of P(fleetqual.pts.pts_plan#module) (its stop rule, round seconds, target).
    type: dict
    required: true
  segment:
    description: The segment of the test this loop runs (its combinations and DVs, or a sweep's rows as C(rounds)).
    type: dict
    required: true
  limits:
    description: The steady-state limits - C(window), C(max_rounds), C(max_data_excursion_pct), C(max_slope_excursion_pct).
    type: dict
    default: {}
  template:
    description: The round's job file template, a file in the role's C(templates/).
    type: str
    default: round.fio.j2
  job_dir:
    description: Where the round's job file C(round-NN.fio) and fio's output go on the host.
    type: path
    required: true
  device:
    description: The device the guard passed; every C(filename=) of the job file must be it.
    type: path
    required: true
  expect:
    description: The guard's record of the device, re-checked right before fio starts (see M(fleetqual.pts.fio_job)).
    type: dict
    required: true
  timeout:
    description: Seconds after which the round's fio is stopped and the round fails; C(0) waits for ever.
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
  record_wait:
    description:
      - How long (seconds) a round waits for the callback to have the previous round on disk before it fails the
        test; C(0) does not wait (for use without the callback only - rounds may then run unrecorded).
    type: float
    default: 60
  context:
    description: Labels (host, run id, drive, test, segment, settings) for the callback; the round adds its number.
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
  fleetqual.pts.pts_round:
    loop_id: "disk1/iops@{{ now(utc=true).timestamp() }}"
    test: "{{ pts_run_plan.drives[0].tests[0] }}"
    segment: "{{ pts_run_plan.drives[0].tests[0].segments[0] }}"
    limits:
      window: 5
      max_rounds: 25
    job_dir: /var/lib/fleetqual-pts/disk1/iops
    device: /dev/nvme0n1
    expect: "{{ pts_guard_passed['/dev/nvme0n1'] }}"
    timeout: 7200
    context:
      run_id: "{{ pts_run_id }}"
      host: stor-12-01
      drive: disk1
      test: iops
  async: 7320
  poll: 0
  register: rounds
  until: rounds is failed or rounds.pts_round.stop
  retries: 25
  delay: 0
"""

RETURN = r"""
pts_round:
  description: Where the loop stands after this round.
  returned: always
  type: dict
  contains:
    round:
      description: This round's number, from 1.
      type: int
    stop:
      description: Whether the loop stops after this round (its rule holds, or the round failed).
      type: bool
    state:
      description: The state for the next round (see O(fleetqual.pts.steady_state#module:state)).
      type: dict
pts_fio:
  description: The round's parsed fio output (see RV(fleetqual.pts.fio_job#module:pts_fio)).
  returned: success
  type: dict
  contains:
    health:
      description:
        - The drive's health read before and after the round - C(before) and C(after) (readings, as C(reading) of
          RV(fleetqual.pts.pts_drive_health#module:pts_health_probe)), C(thresholds), C(tool), C(device),
          C(before_from) (when the reading before is the one taken after the previous round) and C(cost_s) (seconds
          the reads took), C(error) when a read failed - or C(none) (why the drive has no health
          to read) and C(cost_s). fio's own figures beside it are not touched.
      returned: success
      type: dict
      version_added: 1.1.0
pts_fio_raw:
  description: fio's JSON output as it printed it.
  returned: success
  type: str
pts_steady_state:
  description: After a round of a steady-state test, its verdict (see RV(fleetqual.pts.steady_state#module:pts_steady_state)).
  returned: success, steady-state tests
  type: dict
pts_wsat:
  description: After a write saturation round, what it wrote and whether the test stops (see M(fleetqual.pts.wsat_progress)).
  returned: success, write saturation
  type: dict
pts_sweep:
  description: After a sweep's row, its cells and whether the sweep stops (see M(fleetqual.pts.sweep_progress)).
  returned: success, sweep tests
  type: dict
pts_context:
  description: The O(context) with the round's C(phase), C(round), sweep C(row) and C(loop) id.
  returned: always
  type: dict
"""
