#!/usr/bin/env bash
# `make demo`: the trial playbook (playbooks/try.yml, `ansible-playbook fleetqual.pts.try` for a Galaxy user) from the
# clone - the four PTS tests in the quick profile on the embedded default target, a loop device over a sparse file that
# the playbook makes, and detaches and removes whatever happens. Results in ./results (PTS_RESULTS_DIR), run id
# demo-<UTC time> (PTS_RUN_ID); PTS_DEMO_SIZE (512M) and PTS_DEMO_DIR (/var/tmp) size and place the file.
set -euo pipefail
cd "$(dirname "$0")/.."

run_id=${PTS_RUN_ID:-demo-$(date -u +%Y%m%dT%H%M%SZ)}
results=${PTS_RESULTS_DIR:-results}

PTS_RUN_ID=$run_id PTS_RESULTS_DIR=$results .venv/bin/ansible-playbook playbooks/try.yml \
  -e "pts_try_size=${PTS_DEMO_SIZE:-512M}" -e "pts_try_dir=${PTS_DEMO_DIR:-/var/tmp}"

report="$results/$run_id/fleetqual-pts-try/trial-loop/report.md"
test -s "$report"
echo "demo: report in $report"
echo "demo: fleet summary (verdict) in $results/$run_id/fleet.md"
