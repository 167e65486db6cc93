#!/usr/bin/env bash
# `make test-versions`: the collection on each ansible-core release of tests/versions.yml, on the controller Python
# named there - the first is meta/runtime.yml's requires_ansible lower bound exactly, the last the newest release tried
# - each in its own venv, build/venv-core-<version> (made once, reused). README.md's "Tested with" table is generated
# from the same list (scripts/tested_with.py). In each venv:
#   units        the unit tests whose imports reach ansible-core (action, module and callback plugins, and the
#                helpers they use); the others never import it, and `make units` runs them (on the main venv's
#                Python only)
#   sanity       ansible-test sanity of that release (its own checks, on its own Python)
#                (units and sanity are left out for a release of the main venv's series - 2.19.0 beside 2.19.14 -
#                which `make units` and `make sanity` have just run; the line saying so names both releases)
#   integration  one real playbooks/pts.yml run on a loop device, with that venv's ansible-playbook; the Galaxy
#                tarball built, installed and run by FQCN from an unrelated directory with that venv's ansible-galaxy;
#                and the trial (fleetqual.pts.try) from the installed tarball as the README's "Try it" runs it, every
#                file it writes validated against the collection's JSON Schemas (meta/schemas/)
# The versions run at the same time, each step's output in build/test-versions/<version>-<step>.log. Every step
# runs even after one fails; the exit status is non-zero if any failed, a failed step shows the end of its log and
# the last line names each failed version and step. PTS_TEST_VERSIONS="2.19.0:3.11 2.21.5:3.12" tries other pairs
# (the README's table then says less than what ran); pytest's temporary files go under PTS_VERSIONS_TMP (default
# /var/tmp/fleetqual-test-versions).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$PWD

main_python=$root/.venv/bin/python
# "<ansible-core>:<python>" pairs, tests/versions.yml's unless PTS_TEST_VERSIONS names others.
if [[ -n ${PTS_TEST_VERSIONS:-} ]]; then
  read -r -a PAIRS <<<"$PTS_TEST_VERSIONS"
else
  mapfile -t PAIRS < <("$main_python" scripts/tested_with.py --pairs | tr ' ' ':') || exit 2
fi
((${#PAIRS[@]})) || { echo "test_versions: no ansible-core release to test" >&2 && exit 2; }
VERSIONS=()
declare -A PYTHON_OF
for pair in "${PAIRS[@]}"; do
  VERSIONS+=("${pair%%:*}")
  PYTHON_OF[${pair%%:*}]=${pair#*:}
done
# The cheapest tests that run playbooks/pts.yml end to end: one quick IOPS run (validate, identify, guard, purge,
# precondition, two rounds, report), then a resume of the same run id on another device, refused before any write;
# the Galaxy tarball built, installed into an empty collections path and run by FQCN (--check) from elsewhere; and the
# trial playbook from that tarball, as a Galaxy user runs it.
INTEGRATION=(tests/integration/test_run_integrity.py::test_a_resume_refuses_another_device_under_the_same_name
  tests/integration/test_galaxy_install.py::test_tarball_ships_the_collection_and_no_development_files
  tests/integration/test_galaxy_install.py::test_playbook_by_fqcn_checks_a_drive_from_an_unrelated_directory
  tests/integration/test_try.py)
tmp_root=${PTS_VERSIONS_TMP:-/var/tmp/fleetqual-test-versions}

# Every version must lie in requires_ansible, and the oldest must be its lower bound: the range says what is tested.
if ! "$main_python" - "${VERSIONS[@]}" <<'PY'; then
import sys

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

with open("meta/runtime.yml", encoding="utf-8") as handle:
    spec = SpecifierSet(yaml.safe_load(handle)["requires_ansible"])
versions = sys.argv[1:]
oldest = min(versions, key=Version)
problems = [f"{v} is outside requires_ansible {spec}" for v in versions if Version(v) not in spec]
if [s.version for s in spec if s.operator == ">="] != [oldest]:
    problems.append(f"the oldest version tested, {oldest}, is not requires_ansible's lower bound ({spec})")
for problem in problems:
    print(f"test_versions: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PY
  echo "test_versions: FAILED: meta/runtime.yml and the versions tested disagree" >&2
  exit 1
fi

# The controller Python a version is tested on: python3.N on PATH, else pyenv's 3.N.x (the newest).
python_for() {
  local minor=$1 python
  local pyenv
  mapfile -t pyenv < <(printf '%s\n' ~/.pyenv/versions/"$minor".*/bin/python3 | sort -V -r)
  for python in "python$minor" "${pyenv[@]}"; do
    python=$(command -v "$python" 2>/dev/null) || continue
    # A pyenv shim of a version that is not active fails here and is left out.
    [[ $("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) == "$minor" ]] || continue
    echo "$python"
    return 0
  done
  return 1
}

# build/venv-core-<version>: ansible-core on the Python tests/versions.yml names, the controller's runtime requirements
# (requirements.txt without its ansible-core pin), pytest, pytest-timeout (pytest.ini's limit) and jsonschema (the
# trial's files against the schemas). The roles use only ansible.builtin and fleetqual.pts, so no other collection is
# installed. .installed lists what was installed: a venv made from other requirements is made again.
make_venv() {
  local version=$1 venv=$2 minor=$3 python requirements wanted
  requirements=$(
    grep -v '^ansible-core' requirements.txt
    grep -E '^(pytest|pytest-timeout|jsonschema)([=<>~!]|$)' requirements-dev.txt
  )
  wanted=$(printf 'python %s ansible-core==%s\n%s' "$minor" "$version" "$requirements")
  if [[ -e $venv/.installed ]] && [[ $(<"$venv/.installed") == "$wanted" ]]; then
    return 0
  fi
  rm -rf "$venv"
  python=$(python_for "$minor") || { echo "test_versions: no Python $minor here (python$minor or pyenv's)" >&2 && return 1; }
  "$python" -m venv "$venv" || return 1
  "$venv/bin/pip" install -q --disable-pip-version-check "ansible-core==$version" || return 1
  echo "$requirements" >"$venv/requirements.txt"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$venv/requirements.txt" || return 1
  echo "$wanted" >"$venv/.installed"
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
  PATH=$venv/bin:$PATH "$venv/bin/pytest" -q -p no:cacheprovider \
    --basetemp="$tmp_root/$version-integration" "${INTEGRATION[@]}"
}

# Each version in the background, its steps one after the other: each step is one process at a time (pytest,
# ansible-test's checks one by one, the playbook and fio), so on two cores the two versions take about as long as one.
# <version>.done says the version got to its end: a shell killed on the way cannot pass.
one_version() {
  local venv=$root/build/venv-core-$version start=$SECONDS
  if ! make_venv "$version" "$venv" "${PYTHON_OF[$version]}" >"$logs/$version-venv.log" 2>&1; then
    {
      echo "=== ansible-core $version: no venv; the end of ${logs#"$root"/}/$version-venv.log:"
      tail -n 30 "$logs/$version-venv.log" | cut -c1-400
    } >&2
    echo "$version venv" >>"$logs/$version.failed"
    touch "$logs/$version.done"
    return
  fi
  echo "=== ansible-core $version: $("$venv/bin/python" -V) in ${venv#"$root"/} (ready in $((SECONDS - start)) s)"
  if [[ ${version%.*} == "${main_core%.*}" ]]; then
    echo "=== ansible-core $version: units and sanity not run here: make units and make sanity ran them on the main" \
      "venv's ansible-core $main_core, the same release series"
  else
    step units units
    step sanity sanity
  fi
  step integration integration
  touch "$logs/$version.done"
}

# The main venv's ansible-core, which `make units` and `make sanity` test.
main_core=$("$main_python" -c 'from ansible.release import __version__; print(__version__)') || exit 2
logs=$root/build/test-versions
rm -rf "$logs"
mkdir -p "$logs" "$tmp_root" || exit 2
pids=()
for version in "${VERSIONS[@]}"; do
  one_version &
  pids+=($!)
done
wait "${pids[@]}"
for version in "${VERSIONS[@]}"; do
  [[ -e $logs/$version.done ]] || echo "$version (stopped before its end)" >>"$logs/$version.failed"
done

failed=$(cat "$logs"/*.failed 2>/dev/null | paste -sd, - | sed 's/,/, /g')
if [[ -n $failed ]]; then
  echo "test_versions: FAILED: $failed" >&2
  exit 1
fi
echo "test_versions: ansible-core ${VERSIONS[*]} passed every step above in $SECONDS s"
