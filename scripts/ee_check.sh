#!/usr/bin/env bash
# `make ee`: the execution environment as AWX / Automation Platform would get it, without a container engine. Builds
# the collection's tarball, writes the build context of docs/execution-environment/ with `ansible-builder create`
# (an image build needs a container engine; where one exists: ansible-builder build -f ... -t ...), checks the
# Containerfile it wrote, and runs the builder's own introspection on the installed tarball: the Python and system
# packages it finds must be the controller's requirements.txt and bindep.txt, and ansible-core the tested range.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=build/ee
rm -rf "$work"
mkdir -p "$work/collections"
cp docs/execution-environment/execution-environment.yml docs/execution-environment/requirements.yml "$work/"
ansible-galaxy collection build --force --output-path "$work" . >/dev/null
mv "$work"/fleetqual-pts-*.tar.gz "$work/fleetqual-pts.tar.gz"
(cd "$work" && ansible-builder create -f execution-environment.yml -c context >/dev/null)
ansible-galaxy collection install --offline --force -p "$work/collections" "$work/fleetqual-pts.tar.gz" >/dev/null 2>&1
python "$work/context/_build/scripts/introspect.py" introspect --sanitize "$work/collections" >"$work/introspect.yml"
python - "$work" "$root" <<'PY'
import os
import re
import sys

import yaml

work, root = sys.argv[1:]
problems = []
containerfile = open(os.path.join(work, "context", "Dockerfile"), encoding="utf-8").read()
for needed in ('ANSIBLE_INSTALL_REFS="ansible-core>=2.19,<2.22 ansible-runner"',
               "ansible-galaxy collection install $ANSIBLE_GALAXY_CLI_COLLECTION_OPTS -r requirements.yml",
               "/output/scripts/assemble"):
    if needed not in containerfile:
        problems.append(f"the Containerfile lacks {needed!r}")
if not os.path.exists(os.path.join(work, "context", "_build", "collections", "fleetqual-pts.tar.gz")):
    problems.append("the build context lacks the collection's tarball")
found = yaml.safe_load(open(os.path.join(work, "introspect.yml"), encoding="utf-8"))


def plain(lines, path):
    return sorted(re.sub(r"\s*#.*$", "", line).strip() for line in lines
                  if line.strip() and not line.lstrip().startswith("#") and "ansible-core" not in line)


want_python = plain(open(os.path.join(root, "requirements.txt"), encoding="utf-8"), "requirements.txt")
want_system = plain(open(os.path.join(root, "bindep.txt"), encoding="utf-8"), "bindep.txt")
if plain(found.get("python") or [], "introspect") != want_python:
    problems.append(f"introspection finds Python {found.get('python')}, requirements.txt says {want_python}")
if plain(found.get("system") or [], "introspect") != want_system:
    problems.append(f"introspection finds system {found.get('system')}, bindep.txt says {want_system}")
if not any("pango" in line for line in want_system):
    problems.append("bindep.txt has no Pango: report.pdf could not be made in the execution environment")
for problem in problems:
    print(f"ee_check: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"ee_check: build context in {work}/context; {len(want_python)} Python and {len(want_system)} system packages")
PY
