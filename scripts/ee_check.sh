#!/usr/bin/env bash
# `make ee`: the execution environment as AWX / Automation Platform would get it, without a container engine. Builds
# the collection's tarball, writes the build context of docs/execution-environment/ with `ansible-builder create`
# (an image build needs a container engine; where one exists: ansible-builder build -f ... -t ...), checks the
# Containerfile it wrote, and runs the builder's own introspection on the installed tarball: the Python and system
# packages it finds must be the controller's requirements.txt and bindep.txt, and ansible-core the tested range.
# The base image must be a maintained distribution (BASES below: its end of support is still ahead) of the Red Hat
# family, whose dnf ansible-builder 3 installs with. bindep.txt is read by bindep itself for that base's platform: the
# packages dnf would install there are listed. Whether those names exist in the base's repositories cannot be checked
# without them (no AlmaLinux mirror is reachable here): `ansible-builder build` checks that, where a container engine
# runs. The Debian/Ubuntu names (for a controller on Debian or Ubuntu, scripts/deps.sh) are checked against this
# machine's apt index (apt-cache), where there is one.
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
import datetime
import os
import re
import shutil
import subprocess
import sys

import yaml
from bindep.depends import Depends

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

# The base: a maintained image of a distribution ansible-builder 3 builds on (dnf), and when its support ends.
BASES = {"quay.io/almalinuxorg/almalinux:9": {"distro": "almalinux", "release": "9", "eol": "2032-05-31"}}
definition = yaml.safe_load(open(os.path.join(root, "docs", "execution-environment", "execution-environment.yml"),
                                 encoding="utf-8"))
base_name = definition["images"]["base_image"]["name"]
base = BASES.get(base_name)
if base is None:
    problems.append(f"the base image {base_name} is not one of the maintained bases this check knows: {sorted(BASES)}")
elif datetime.date.fromisoformat(base["eol"]) <= datetime.date.today():
    problems.append(f"the base image {base_name} is past its end of support ({base['eol']}): move to a maintained one")
if f'EE_BASE_IMAGE="{base_name}"' not in containerfile:
    problems.append(f"the Containerfile does not build on {base_name}")
interpreter = definition["dependencies"]["python_interpreter"]["python_path"]
if f'PYCMD="{interpreter}"' not in containerfile:
    problems.append(f"the Containerfile does not run {interpreter}")

# bindep.txt as bindep reads it for the base's platform (what dnf installs there) and for Debian/Ubuntu.
depends = Depends(open(os.path.join(root, "bindep.txt"), encoding="utf-8").read())
rpm_names, dpkg_names = [], []
if base:
    rpm_names = [rule[0] for rule in depends.active_rules(
        ["default", "platform:rpm", "platform:dnf", "platform:redhat", f"platform:{base['distro']}",
         f"platform:{base['distro']}-{base['release']}"])]
    if not rpm_names or not any("pango" in name for name in rpm_names):
        problems.append(f"bindep.txt gives {base_name} no Pango (report.pdf): {rpm_names}")
dpkg_names = [rule[0] for rule in depends.active_rules(["default", "platform:dpkg", "platform:debian"])]
unknown, apt_checked = [], shutil.which("apt-cache") is not None
for name in dpkg_names if apt_checked else []:
    found = subprocess.run(["apt-cache", "show", "--no-all-versions", name], capture_output=True, text=True, check=False)
    if found.returncode != 0 or not found.stdout.strip():
        unknown.append(name)
if unknown:
    problems.append(f"bindep.txt names Debian packages this machine's apt index does not know: {unknown}")
for problem in problems:
    print(f"ee_check: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"ee_check: build context in {work}/context on {base_name} ({interpreter}; supported until {base['eol']}); "
      f"{len(want_python)} Python and {len(want_system)} system packages")
print(f"ee_check: bindep.txt for {base_name}: dnf installs {', '.join(rpm_names)} - not checked against its "
      f"repositories (none reachable here; ansible-builder build does)")
print(f"ee_check: bindep.txt for Debian/Ubuntu: {', '.join(dpkg_names)} - "
      + ("each in this machine's apt index" if apt_checked else "not checked (no apt-cache here)"))
PY
