#!/usr/bin/env bash
# `make test-versions`: the collection on the two ends of meta/runtime.yml's requires_ansible - its lower bound
# exactly (OLDEST) and the newest ansible-core release it admits (NEWEST) - each in its own venv,
# build/venv-core-<version> (made once, reused). In each venv:
#   units        the unit tests whose imports reach ansible-core (action, module and callback plugins, and the
#                helpers they use); the others never import it, and `make units` runs them (on the main venv's
#                Python only)
#   sanity       ansible-test sanity of that release (its own checks, on its own Python)
#   integration  one real playbooks/pts.yml run on a loop device, with that venv's ansible-playbook, and the Galaxy
#                tarball built, installed and run by FQCN from an unrelated directory with that venv's ansible-galaxy
# The two versions run at the same time, each step's output in build/test-versions/<version>-<step>.log. Every step
# runs even after one fails; the exit status is non-zero if any failed, a failed step shows the end of its log and
# the last line names each failed version and step. Override the versions with PTS_CORE_OLDEST / PTS_CORE_NEWEST;
# pytest's temporary files go under PTS_VERSIONS_TMP (default /var/tmp/fleetqual-test-versions).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$PWD

OLDEST=${PTS_CORE_OLDEST:-2.19.0}
NEWEST=${PTS_CORE_NEWEST:-2.21.5}
# The cheapest tests that run playbooks/pts.yml end to end: one quick IOPS run (validate, identify, guard, purge,
# precondition, two rounds, report), then a resume of the same run id on another device, refused before any write;
# and the Galaxy tarball built, installed into an empty collections path and run by FQCN (--check) from elsewhere.
INTEGRATION=(tests/integration/test_run_integrity.py::test_a_resume_refuses_another_device_under_the_same_name
  tests/integration/test_galaxy_install.py::test_tarball_ships_the_collection_and_no_development_files
  tests/integration/test_galaxy_install.py::test_playbook_by_fqcn_checks_a_drive_from_an_unrelated_directory)
tmp_root=${PTS_VERSIONS_TMP:-/var/tmp/fleetqual-test-versions}
main_python=$root/.venv/bin/python

# Both versions must lie in requires_ansible, and OLDEST must be its lower bound: the range says what is tested.
if ! "$main_python" - "$OLDEST" "$NEWEST" <<'PY'; then
import sys

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

with open("meta/runtime.yml", encoding="utf-8") as handle:
    spec = SpecifierSet(yaml.safe_load(handle)["requires_ansible"])
oldest, newest = sys.argv[1:]
problems = [f"{v} is outside requires_ansible {spec}" for v in (oldest, newest) if Version(v) not in spec]
if [s.version for s in spec if s.operator == ">="] != [oldest]:
    problems.append(f"the oldest version tested, {oldest}, is not requires_ansible's lower bound ({spec})")
for problem in problems:
    print(f"test_versions: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PY
  echo "test_versions: FAILED: meta/runtime.yml and the versions tested disagree" >&2
  exit 1
fi

# Controller Pythons to try, from the main venv's own version up (a newer ansible-core never needs an older one):
# python3.N on PATH and pyenv's, one per version. The first one pip installs ansible-core for makes the venv.
candidates() {
  local python version minor
  minor=$("$main_python" -c 'import sys; print(sys.version_info[1])')
  for python in "$main_python" python3.{11,12,13,14} ~/.pyenv/versions/3.*/bin/python3; do
    python=$(command -v "$python" 2>/dev/null) || continue
    # A pyenv shim of a version that is not active fails here and is left out.
    version=$("$python" -c 'import sys; print(sys.version_info[1])' 2>/dev/null) || continue
    ((version >= minor)) && echo "$version $python"
  done | sort -s -n -k1,1 -u | cut -d' ' -f2-
}

# build/venv-core-<version>: ansible-core on the first Python that pip installs it for, the controller's runtime
# requirements (requirements.txt without its ansible-core pin) and pytest. The roles use only ansible.builtin and
# fleetqual.pts, so no other collection is installed.
make_venv() {
  local version=$1 venv=$2 python pythons
  [[ -e $venv/.installed ]] && return 0
  rm -rf "$venv"
  mapfile -t pythons < <(candidates)
  for python in "${pythons[@]}"; do
    "$python" -m venv "$venv" || return 1
    if "$venv/bin/pip" install -q --disable-pip-version-check "ansible-core==$version"; then
      grep -v '^ansible-core' requirements.txt >"$venv/requirements.txt"
      "$venv/bin/pip" install -q --disable-pip-version-check -r "$venv/requirements.txt" \
        "$(grep -E '^pytest([=<>~!]|$)' requirements-dev.txt)" || return 1
      touch "$venv/.installed"
      return 0
    fi
    echo "test_versions: ansible-core $version does not install on $("$python" -V); trying the next Python"
    rm -rf "$venv"
  done
  echo "test_versions: no Python here installs ansible-core $version" >&2
  return 1
}

# The unit test files whose imports, followed through the collection's own modules, test helpers and the
# conftest.py files above them, reach ansible-core.
core_unit_tests() {
  "$main_python" - <<'PY'
import ast
import os

PREFIX = "ansible_collections.fleetqual.pts."


def imported(path):
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def source(module, here):
    if module.startswith(PREFIX):
        base = module[len(PREFIX):].replace(".", "/")
    elif "." not in module:  # a helper next to the test (from conftest import ...)
        base = os.path.join(here, module)
    else:
        return None
    for path in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(path):
            return path
    return None


def reaches_core(path, seen):
    if path in seen:
        return False
    seen.add(path)
    for module in imported(path):
        if module == "ansible" or module.startswith("ansible."):
            return True
        found = source(module, os.path.dirname(path))
        if found and reaches_core(found, seen):
            return True
    return False


for folder, dirs, files in sorted(os.walk("tests/unit")):
    conftests = []
    parent = folder
    while parent:
        if os.path.isfile(os.path.join(parent, "conftest.py")):
            conftests.append(os.path.join(parent, "conftest.py"))
        parent = os.path.dirname(parent)
    for name in sorted(files):
        if name.startswith("test_") and name.endswith(".py"):
            path = os.path.join(folder, name)
            seen = set()
            if any(reaches_core(p, seen) for p in [path] + conftests):
                print(path)
PY
}

# Sets cpu to the CPU time of this shell's finished children (utime + stime in /proc/PID/stat, in clock ticks): on a
# busy machine a step's wall time says little, its CPU time what it costs. Called directly, not in $(...), whose
# subshell has no children of its own.
cpu_ticks() {
  local stat
  read -r -a stat <"/proc/$BASHPID/stat"
  cpu=$((stat[15] + stat[16]))
}

# One step of one version: its output goes to build/test-versions/<version>-<step>.log, shown (the end of it) only
# when the step fails; a failure is noted in <version>.failed.
step() {
  local name=$1 start=$SECONDS log=$logs/$version-$1.log cpu ticks summary
  shift
  cpu_ticks
  ticks=$cpu
  if "$@" >"$log" 2>&1; then
    cpu_ticks
    summary=$(grep -E '^[0-9]+ passed' "$log" | tail -n 1)
    summary=${summary:-$(grep -c '^Running sanity test' "$log") sanity tests}
    echo "=== ansible-core $version: $name passed in $((SECONDS - start)) s" \
      "(CPU $(((cpu - ticks) / $(getconf CLK_TCK))) s): $summary"
  else
    {
      echo "=== ansible-core $version: $name FAILED in $((SECONDS - start)) s; the end of ${log#"$root"/}:"
      tail -n 60 "$log" | cut -c1-400
    } >&2
    echo "$version $name" >>"$logs/$version.failed"
  fi
}

units() {
  local tests
  mapfile -t tests < <(core_unit_tests)
  if ((${#tests[@]} == 0)); then
    echo "no unit test reaches ansible-core: nothing would be tested" >&2
    return 1
  fi
  # pytest exits 5 when it collects nothing: non-zero, so a step that tests nothing fails.
  "$venv/bin/pytest" -q -p no:cacheprovider --basetemp="$tmp_root/$version-units" "${tests[@]}"
}

# scripts/sanity.sh (ansible-test sanity on a copy of the working tree) with this version's venv first on PATH.
sanity() {
  local tree=$root/build/versions-sanity/$version/ansible_collections/fleetqual/pts
  mkdir -p "${tree%/*}" || return 1
  PATH=$venv/bin:$PATH scripts/sanity.sh "$tree" 2>&1 | tee "$tree.log" || return 1
  grep -q '^Running sanity test' "$tree.log" || { echo "ansible-test ran no sanity test" >&2 && return 1; }
}

integration() {
  PATH=$venv/bin:$PATH "$venv/bin/pytest" -q -p no:cacheprovider --basetemp="$tmp_root/$version-integration" \
    "${INTEGRATION[@]}"
}

# Each version in the background, its steps one after the other: each step is one process at a time (pytest,
# ansible-test's checks one by one, the playbook and fio), so on two cores the two versions take about as long as one.
# <version>.done says the version got to its end: a shell killed on the way cannot pass.
one_version() {
  local venv=$root/build/venv-core-$version start=$SECONDS
  if ! make_venv "$version" "$venv" >"$logs/$version-venv.log" 2>&1; then
    {
      echo "=== ansible-core $version: no venv; the end of ${logs#"$root"/}/$version-venv.log:"
      tail -n 30 "$logs/$version-venv.log" | cut -c1-400
    } >&2
    echo "$version venv" >>"$logs/$version.failed"
    touch "$logs/$version.done"
    return
  fi
  echo "=== ansible-core $version: $("$venv/bin/python" -V) in ${venv#"$root"/} (ready in $((SECONDS - start)) s)"
  step units units
  step sanity sanity
  step integration integration
  touch "$logs/$version.done"
}

logs=$root/build/test-versions
rm -rf "$logs"
mkdir -p "$logs" "$tmp_root" || exit 2
pids=()
for version in "$OLDEST" "$NEWEST"; do
  one_version &
  pids+=($!)
done
wait "${pids[@]}"
for version in "$OLDEST" "$NEWEST"; do
  [[ -e $logs/$version.done ]] || echo "$version (stopped before its end)" >>"$logs/$version.failed"
done

failed=$(cat "$logs"/*.failed 2>/dev/null | paste -sd, - | sed 's/,/, /g')
if [[ -n $failed ]]; then
  echo "test_versions: FAILED: $failed" >&2
  exit 1
fi
echo "test_versions: ansible-core $OLDEST and $NEWEST passed units, sanity and integration in $SECONDS s"
