#!/usr/bin/env bash
# Molecule scenarios of the roles (extensions/molecule/<scenario>/), against this machine as root:
#   scripts/molecule.sh              every scenario
#   scripts/molecule.sh pts_guard    only the named ones
# Runs each scenario with `molecule test`, goes on after a failure, and exits non-zero if any failed.
# molecule 26 finds extensions/molecule/ (and its shared config.yml) from the collection root.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if (($#)); then
  scenarios=("$@")
else
  scenarios=()
  for file in extensions/molecule/*/molecule.yml; do
    scenarios+=("$(basename "$(dirname "$file")")")
  done
fi

# Ansible and molecule write their caches, ephemeral scenario directories and module temp files here,
# not under ~/.ansible.
tmp=$(mktemp -d /tmp/fleetqual-molecule.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export ANSIBLE_HOME=$tmp/ansible ANSIBLE_LOCAL_TEMP=$tmp/local ANSIBLE_REMOTE_TMP=$tmp/remote
export ANSIBLE_COLLECTIONS_PATH=$root/.collections
# The repository's ansible.cfg (callbacks, demo inventory) is not for the scenarios: molecule writes its own.
unset ANSIBLE_CONFIG
export PATH=$root/.venv/bin:$PATH

passed=() failed=()
for scenario in "${scenarios[@]}"; do
  start=$SECONDS
  if molecule test --scenario-name "$scenario"; then
    passed+=("$scenario")
    echo "molecule: $scenario passed in $((SECONDS - start)) s"
  else
    failed+=("$scenario")
    echo "molecule: $scenario FAILED in $((SECONDS - start)) s" >&2
  fi
done

echo "molecule: ${#passed[@]} passed, ${#failed[@]} failed${failed[*]:+ (${failed[*]})}"
((${#failed[@]} == 0))
