#!/usr/bin/env bash
# ansible-test integration targets (tests/integration/targets/<name>/: the roles' molecule scenarios as targets)
# against this machine, as root:
#   scripts/integration_targets.sh              every target (not the setup_* helpers, which the targets pull in)
#   scripts/integration_targets.sh pts_guard    only the named ones
# Runs `ansible-test integration --local` once per target, on a copy of the working tree's files (tracked and new
# ones, not ignored ones: scripts/copy_tree.sh) at a real ansible_collections/fleetqual/pts path:
# build/integration-targets/ansible_collections/fleetqual/pts, kept after the run (its tests/output/ has the logs).
# --local needs no pip bootstrap: the targets run with the main venv's Python. Goes on after a failure; exits
# non-zero if any target failed or did not run (ansible-test skips a target it may not run and still exits 0).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tree=$root/build/integration-targets/ansible_collections/fleetqual/pts

if ((EUID != 0)); then
  echo "integration-targets: needs root (loop devices, mount, drive holds)" >&2
  exit 1
fi

if (($#)); then
  targets=("$@")
else
  targets=()
  for dir in tests/integration/targets/*/; do
    name=$(basename "$dir")
    case $name in setup_* | prepare_*) ;; *) targets+=("$name") ;; esac
  done
fi
if ((${#targets[@]} == 0)); then
  echo "integration-targets: no targets in tests/integration/targets/" >&2
  exit 1
fi

export PATH=$root/.venv/bin:$PATH
python_version=$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')

scripts/copy_tree.sh "$tree"
cd "$tree"

log=$(mktemp /tmp/fleetqual-integration-targets.XXXXXX)
trap 'rm -f "$log"' EXIT

passed=() failed=() skipped=()
for target in "${targets[@]}"; do
  start=$SECONDS
  # --allow-destructive: the targets change this machine's block devices and mounts (and clean up after themselves).
  if ansible-test integration --local --python "$python_version" --allow-destructive --color no "$target" 2>&1 |
    tee "$log"; then
    if grep -qx "Running $target integration test role" "$log"; then
      passed+=("$target")
      echo "integration-targets: $target passed in $((SECONDS - start)) s"
    else
      skipped+=("$target")
      echo "integration-targets: $target did NOT run (skipped by ansible-test, see above)" >&2
    fi
  else
    failed+=("$target")
    echo "integration-targets: $target FAILED in $((SECONDS - start)) s" >&2
  fi
done

echo "integration-targets: ${#passed[@]} passed, ${#failed[@]} failed${failed[*]:+ (${failed[*]})}," \
  "${#skipped[@]} did not run${skipped[*]:+ (${skipped[*]})}"
((${#failed[@]} == 0 && ${#skipped[@]} == 0 && ${#passed[@]} > 0))
