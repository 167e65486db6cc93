#!/usr/bin/env bash
# Cut a release: `scripts/release.sh 1.0.0` (or `make release V=1.0.0`), then review `git diff` and commit.
#   1. galaxy.yml's version becomes VERSION.
#   2. `antsibull-changelog release --version VERSION`: every fragment in changelogs/fragments/ (one of them with the
#      release_summary) goes into changelogs/changelog.yaml under VERSION, with the modules, plugins and roles whose
#      version_added is VERSION; CHANGELOG.md is generated from it; the fragments are deleted (keep_fragments: false).
#   3. `antsibull-changelog lint` and `ansible-galaxy collection build` into build/.
# Fragments added after a release: run the script again with the same VERSION. antsibull-changelog warns
# "release VERSION already exists" (and that the new fragments have no release_summary: the release's is already
# recorded), files the new fragments under it all the same, and CHANGELOG.md is regenerated.
# Needs the venv (antsibull-changelog, ansible-doc) on PATH and ANSIBLE_COLLECTIONS_PATH finding fleetqual.pts:
# `make release V=...` sets both.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/release.sh VERSION (semver, e.g. 1.0.0)}

if [[ ! $version =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "release: '$version' is not a semantic version" >&2
  exit 2
fi
released_summary=$(python - "$version" <<'PY'
import sys, yaml
with open("changelogs/changelog.yaml", encoding="utf-8") as handle:
    releases = (yaml.safe_load(handle) or {}).get("releases") or {}
print(bool(((releases.get(sys.argv[1]) or {}).get("changes") or {}).get("release_summary")))
PY
)
if ! grep -qs '^release_summary:' changelogs/fragments/*.y*ml && [[ $released_summary != True ]]; then
  echo "release: no release_summary fragment in changelogs/fragments/ for $version" >&2
  exit 2
fi

sed -i -E "s/^version: .*/version: $version/" galaxy.yml
antsibull-changelog release --version "$version" --update-existing
antsibull-changelog lint
mkdir -p build
ansible-galaxy collection build --force --output-path build/ .
echo "release: $version - galaxy.yml, changelogs/changelog.yaml, CHANGELOG.md; build/fleetqual-pts-$version.tar.gz"
