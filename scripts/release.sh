#!/usr/bin/env bash
# Cut a release: `scripts/release.sh 2.1.0` (or `make release V=2.1.0`), from a clean tree, then push the commit and
# the tag it made.
#   1. galaxy.yml's version becomes VERSION.
#   2. `antsibull-changelog release --version VERSION`: every fragment in changelogs/fragments/ (one of them with the
#      release_summary) goes into changelogs/changelog.yaml under VERSION, with the modules, plugins and roles whose
#      version_added is VERSION; CHANGELOG.md is generated from it; the fragments are deleted (keep_fragments: false).
#   3. The links into the repository that README.md and the docsite's pages give name the tag VERSION
#      (scripts/release_links.py): Galaxy and Automation Hub show the README of the tarball, which must link its own
#      release's files, not main's.
#   4. `antsibull-changelog lint`, then one commit "Release VERSION" of what the release changed, the annotated tag
#      VERSION on it, and `ansible-galaxy collection build` of that commit into build/.
# A version that is tagged already is not cut again (a tag, once pushed, is what users and Galaxy refer to): fragments
# that come after it go into the next release.
# Needs the venv (antsibull-changelog, ansible-doc) on PATH and ANSIBLE_COLLECTIONS_PATH finding fleetqual.pts:
# `make release V=...` sets both; git needs an identity (user.name, user.email) for the commit and the tag.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/release.sh VERSION (semver, e.g. 1.0.0)}

if [[ ! $version =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "release: '$version' is not a semantic version" >&2
  exit 2
fi
if git rev-parse -q --verify "refs/tags/$version" >/dev/null; then
  echo "release: $version is tagged already ($(git rev-list -n 1 "$version" | cut -c1-12)); cut the next version" >&2
  exit 2
fi
if [[ -n $(git status --porcelain --untracked-files=no) ]]; then
  echo "release: the tree has uncommitted changes; commit or stash them first (the release is one commit of its own)" >&2
  git status --short --untracked-files=no >&2
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
python scripts/release_links.py "$version"
antsibull-changelog lint
git add galaxy.yml CHANGELOG.md changelogs README.md docs/docsite
git commit -q -m "Release $version (antsibull-changelog): galaxy.yml, CHANGELOG.md and changelogs/changelog.yaml, the links to the tag"
git tag -a "$version" -m "fleetqual.pts $version"
mkdir -p build
ansible-galaxy collection build --force --output-path build/ .
echo "release: $version - commit $(git rev-parse --short HEAD) tagged $version; build/fleetqual-pts-$version.tar.gz"
echo "release: next, git push origin HEAD $version; ansible-galaxy collection publish build/fleetqual-pts-$version.tar.gz"
