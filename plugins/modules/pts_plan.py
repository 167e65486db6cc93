# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_plan
short_description: Validate a PTS run's inputs together and return the plan with a time estimate
version_added: 1.0.0
description:
  - Cross-checks what argument specs cannot - known test names, block size syntax, R/W mixes 0-100, the
    DV combination present in the matrix, a measurement window no larger than the round limit, positive
    durations - and fails naming the variable and the bad value, before any drive is touched.
  - Numbers and sizes given as strings (as C(-e) gives them) are read in ASCII digits only; other scripts' digits,
    which Python would read and fio would not, are refused. Every size and workload text a job file gets (block sizes,
    C(pts_run_cbw_bssplit), C(pts_run_cbw_distribution), C(pts_precondition_block_size)) is the parsed value written
    again, not the text as given.
  - With identified drives, returns per drive the matrix actually run (block sizes below the logical
    sector size dropped, with a note) and an estimate of the wall time, and refuses, naming the variable, a block
    size of a test the drive runs that is larger than the drive (a throughput stream's slice of it, an HDD test's
    smallest LBA zone) - what fio would refuse only after the purge.
  - Refuses a run id that is not one directory name (see O(resume.run_id)) - a control character, a trailing newline
    included, or anything that would make its results directory another one than the one
    M(fleetqual.pts.pts_run_lock) locks - naming where it was set - C(-e pts_run_id) or the C(PTS_RUN_ID) environment
    variable.
  - Resuming a run (a run id with results already) refuses a drive whose identity (serial, WWN, model, firmware,
    size, sector size, backing file) is not the one the run recorded under its name, and test settings other than the
    ones the run recorded, naming each change, unless O(resume.allow_changed_settings=true).
  - With identified drives, estimates per drive an upper bound of the bytes the run writes (purges that overwrite,
    preconditioning, every round the stop rules allow, at the rate bound of the drive's interface or the rule's
    C(rated_write_mb_s)) and, for a drive whose acceptance rule gives its rated endurance, refuses the run before any
    write when it would use more than C(pts_run_wear_budget_pct) (C(pts_wear_budget_pct), default 5) % of the drive's
    remaining life (the rated endurance less its percentage used), with every figure in the message.
    See R(Wear,ansible_collections.fleetqual.pts.docsite.wear).
  - Refuses an O(history_url) (or C(PTS_HISTORY_URL)) that is not a C(postgresql://) URL, or one the controller
    lacks the C(psycopg) Python package for, naming it without its password; the server itself is not asked (a
    server that is down does not stop a run - the summary says the run was not written, and
    M(fleetqual.pts.report_rebuild) writes it later).
  - Runs on the controller only.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._attributes.ACTION
  - fleetqual.pts._history
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
options:
  variables:
    description:
      - The run's inputs by name - the options of the P(fleetqual.pts.pts_run#role) role's argument spec, for example
        C(pts_run_max_rounds) - each as the operator set it, so errors name what the operator set. An input not given
        is unset (the plan's default where it has one); nothing is read from the task's variables (since 3.0.0).
      - The role passes every one the play sets, rendered (C(pts_run_tests) from C(pts_tests), say).
      - C(pts_run_wear_budget_pct) is the wear budget in % of a drive's remaining rated life, above 0 and at most
        100 (default 5).
    type: dict
    default: {}
  public_variables:
    description:
      - The shorter public variables the role's defaults read - C(pts_tests), C(pts_profile), C(pts_purge_method),
        C(pts_write_cache), C(pts_drive_mode), C(pts_wear_budget_pct) - those the operator set, by name. An error about
        C(pts_run_tests) (say) names C(pts_tests) instead when that is set to the value in O(variables).
    type: dict
    default: {}
    version_added: 3.0.0
  devices:
    description: Identified drives (RV(fleetqual.pts.pts_drive_info#module:pts_drives)) to estimate for.
    type: list
    elements: dict
    default: []
  guarded:
    description:
      - The guard's verdicts of the drives it passed, by listed path (C(pts_guard_passed)). A drive that identify read
        on one device and the guard passed on another (a path that came to point elsewhere in between) is refused, so
        the plan, the drive's identity and its report always name the device that is tested.
    type: dict
    default: {}
    version_added: 3.0.0
  listed:
    description:
      - The drives listed for the host (C(pts_devices)), recorded so a fleet summary knows what to expect.
      - Each entry is checked first - known keys only (a typo is named with the key it resembles), string values
        without control characters, absolute paths, a path, serial or wwn, unique names.
    type: raw
    default: []
  acceptance:
    description:
      - Acceptance rules (C(pts_acceptance)) - a list of dicts with a C(model) glob, an optional C(firmware) glob,
        C(require_steady) (default true) and limits C(min_iops_4k_write), C(min_throughput_1024k_write_mb_s),
        C(min_throughput_1024k_read_mb_s), C(max_latency_4k_write_mean_ms), C(max_latency_4k_write_p9999_ms),
        and on the drive's health per round C(max_temperature_c) (the hottest reading of any round, in degrees
        Celsius) and C(allow_throttling) (V(false) fails the drive when it throttled in any round). Validated here,
        recorded with the plan, applied by M(fleetqual.pts.fleet_summary).
      - Against the fleet's memory, C(population_percentile) (above 0, below 50) fails a drive with a headline figure
        worse than that percentile of every earlier run of its model and firmware in the history (counted from the
        worse end), C(population_figures) naming the figures (default every figure the drive measured), in a
        population of at least C(population_min_size) earlier measurements (default 10; fewer leaves the drive
        INCOMPLETE, as does a history that cannot be read). See
        R(History and comparison,ansible_collections.fleetqual.pts.docsite.compare).
      - For the wear budget, a rule may give the model's rated endurance - C(endurance_tbw) (terabytes written,
        decimal) or C(dwpd) with C(warranty_years) (C(dwpd) requires it; given both forms, the smaller endurance
        counts) - and C(rated_write_mb_s), its rated sequential write in MB/s, which bounds the estimate's write
        rate instead of the drive's interface.
      - Every number of a rule must lie in a physical range (C(rated_write_mb_s) 1 to 1,000,000 MB/s, C(endurance_tbw)
        0.000001 to 1,000,000 TB, C(dwpd) 0.01 to 1,000, C(warranty_years) one day to 100, C(min_iops_4k_write) 1 to
        100,000,000, the throughput limits 1 to 1,000,000 MB/s, the latency limits 0.001 to 3,600,000 ms); a value
        outside it is refused naming the rule, the key and the value.
        See R(Wear,ansible_collections.fleetqual.pts.docsite.wear).
      - A rule is an anonymous acceptance specification - its limits above become requirements named by their keys -
        and may also list C(requirements) in the specification files' form (see O(acceptance_specs)) and say with
        C(not_judged) (V(incomplete), the default, or V(fail)) what a requirement it cannot judge does to the verdict.
    type: raw
    default: []
  acceptance_specs:
    description:
      - Acceptance specifications (C(pts_acceptance_specs)) - YAML files (paths relative to the playbook, or absolute)
        or mappings, each with a C(name), C(version), C(source) (C(document), C(section), C(url)), C(applies_to)
        (C(model) glob, optional C(firmware) glob, C(interface), C(capacity) class such as V(3.84TB) or a C(min)/C(max)
        range), optional C(not_judged) and C(example), and C(requirements) - each an C(id), optional C(title) and
        C(source), a C(figure), a C(comparison) (V(>=), V(>), V(<=), V(<); by default the figure's direction), and either
        a C(limit) (in C(unit), by default the figure's) or C(rated) with C(min_pct_of_rated) (a figure better higher)
        or C(max_pct_of_rated) (better lower).
      - Every file is read and validated here, before the first write; an unknown key or figure, a unit that is not
        the figure's, a comparison against the figure's direction or a limit outside its physical range is refused,
        naming the file, the requirement and the value. The specifications are recorded with the plan (and each file's
        SHA-256), so a report rebuilt later judges against what the run was given.
      - 'The figures, each a family named with its parameters (C(<bs>) a block size, C(<mix>) an R/W mix such as
        V(65/35), C(<dir>) V(read) or V(write), C(<pct>) a percentile, C(<qd>) a queue depth, C(<point>) V(max), V(mid)
        or V(min), C(<ws>) a wait state): C(iops.<bs>.<mix>), C(throughput.<bs>.<dir>), C(latency.<bs>.<mix>.mean),
        C(latency.<bs>.<mix>.max), C(latency.<bs>.<mix>.iops), C(latency.<bs>.<mix>.<dir>.mean),
        C(latency.<bs>.<mix>.<dir>.p<pct>), C(latency.<bs>.<mix>.p<pct>), C(wsat.level.iops), C(wsat.level.mean),
        C(hir.ws<ws>.gain), C(xsr.recovery), C(cbw.<point>.iops), C(cbw.<point>.art), C(cbw.<point>.mrt),
        C(cbw.<point>.p99.999), C(dirth.<point>.iops), C(dirth.<point>.art), C(dirth.<point>.mrt),
        C(dirth.<point>.p99.999), C(qos.<dir>.qd<qd>.p<pct>), C(qos.<dir>.qd<qd>.mean), C(qos.<dir>.qd<qd>.max),
        C(qos.<dir>.qd<qd>.iops), C(health.max_temperature), C(health.throttled_rounds), C(health.error_rounds),
        C(wear.write_amplification), C(wear.percentage_used_added). See
        R(Acceptance,ansible_collections.fleetqual.pts.docsite.acceptance) for what each is and which test measures it.'
    type: raw
    default: []
    version_added: 3.0.0
  acceptance_measure:
    description:
      - C(pts_acceptance_measure) - what the plan does when a specification that applies to a planned drive asks for a
        figure no selected test measures (a test not selected, a block size not in the matrix, a queue depth the QoS
        measurement does not run, a percentile the latency test's window cannot resolve).
      - V(add) adds the measurement - the test, the block size, mix or wait state, a QoS queue depth or a deeper
        percentile (a latency percentile at queue depth 1 of 4k random reads or writes is measured by the QoS
        measurement instead) - prints what it added and for which requirement, and records it with the plan;
        V(refuse) refuses the run before any write, naming the specification, the requirement, the figure and why.
    type: raw
    default: add
    version_added: 3.0.0
  resume:
    description:
      - Where this run's results are. With a O(resume.run_id) whose results already hold finished tests of a
        drive (steady, not steady at the round limit, write saturation complete or at its time limit), those
        tests are marked C(done) and not run again; a test that was interrupted starts again from its purge.
    type: dict
    suboptions:
      results_dir:
        description:
          - Root of the results tree (the directory of the C(pts_run_dir) fact); defaults to the C(PTS_RESULTS_DIR)
            environment variable, else C(results).
        type: path
      run_id:
        description:
          - The run id (the C(pts_run_id) variable); defaults to C(run_id) of O(context), else the C(PTS_RUN_ID)
            environment variable. Without one nothing is resumed.
          - One directory name - letters, digits, C(.), C(_) and C(-), at most 128, starting and ending with a letter
            or digit.
        type: str
      host:
        description: The inventory name of the host the plan is for.
        type: str
        required: true
      allow_changed_settings:
        description:
          - Resume with test settings other than the ones the run recorded (C(pts_allow_changed_settings)); the
            changes are recorded with the plan. A YAML boolean; a string is refused.
        type: raw
        default: false
  context:
    description: Labels returned unchanged as RV(pts_context); in a run the action plugin files the result under them.
    type: dict
    default: {}
  run_dir:
    description:
      - The run's results directory on the controller (the C(pts_run_dir) fact of a run of
        P(fleetqual.pts.pts_run#role)); with drives to plan, the plan is filed there under the host of O(context)
        (its C(plan.json)) before any write, except under C(--check). Without it nothing is filed.
    type: path
    version_added: 3.0.0
"""

EXAMPLES = r"""
- name: Validate the plan before any drive is touched
  fleetqual.pts.pts_plan:
    variables:
      pts_run_tests: [iops]
      pts_run_profile: quick
      pts_run_round_seconds: 1
      pts_run_max_rounds: 6
      pts_run_window: 5
      pts_run_numjobs: 2
      pts_run_iodepth: 16
      pts_run_max_data_excursion_pct: 20
      pts_run_max_slope_excursion_pct: 10
      pts_run_iops_mixes: [100, 95, 65, 50, 35, 5, 0]
      pts_run_iops_block_sizes: [1024k, 128k, 64k, 32k, 16k, 8k, 4k, 512]
"""

RETURN = r"""
pts_plan:
  description: The validated plan.
  returned: success
  type: dict
  contains:
    spec:
      description: The SNIA PTS version the run follows, V(1.1) or V(2.0) (C(pts_spec)).
      type: str
      version_added: 2.0.0
    spec_name:
      description: Its name as the reports give it.
      type: str
      version_added: 2.0.0
    tests:
      description: Per test, the mixes, block sizes (bytes) and DV (DVs for IOPS); a PTS 2.0 test's own parameters.
      type: list
      elements: dict
    drives:
      description:
        - Per drive and test, the segments (purge-to-stop units) with their combinations and DVs, notes, whether
          the run already finished the test (C(done)), the estimated wall time (min/max s), and the record every
          round file of the test keeps of how it was run (C(round_settings), since 3.0.0).
        - Per drive, C(wear) - the upper bound of the bytes the run writes (C(estimated_bytes), per test by part -
          purge, precondition, rounds), the rate bound and its source, and C(judged). When judged, the rated
          endurance and its basis, the percentage used and its source, the remaining life, C(use_pct) (the share of
          it the run would use) and C(budget_pct); when not, the C(reason). C(text) says it in one line.
      type: list
      elements: dict
    wear_budget_pct:
      description: The wear budget in force, in % of a drive's remaining rated life.
      type: float
    variables:
      description: The validated value of every variable that shapes the selected tests' measurements, by name.
      type: dict
    identities:
      description: Per drive key, the identity this run tests under that name (compared when the run is resumed).
      type: dict
    changed_settings:
      description: Settings changed on resume with O(resume.allow_changed_settings=true), each with when.
      type: list
      elements: dict
pts_context:
  description: The O(context) given, unchanged.
  returned: success
  type: dict
"""
