#!/usr/bin/env bash
# `make lint`: the static checks, one tool each. All of them run even after one fails; the exit status is non-zero
# if any failed, and the last line names them.
#   ansible-lint           production profile; --offline: installs nothing (no requirements, and not this collection
#                          into ~/.ansible/collections, where it would shadow a later `ansible-galaxy collection install`)
#   antsibull-docs         lint-collection-docs --plugin-docs: the markup and references of every plugin, module and
#                          role doc (P(fqcn#type) for callbacks, roles and filters) and docs/docsite/links.yml
#   antsibull-changelog    lint: the fragments in changelogs/fragments/ and changelogs/changelog.yaml
#   reuse                  lint: every file has its copyright and license (headers or REUSE.toml), texts in LICENSES/
#   flake8                 what galaxy-importer runs on a collection's plugins (E, F, W with W503 and W504 - so no line
#                          break beside a binary operator - E402 ignored, 160 columns); plugin_utils is not content
#   fragment-links         scripts/fragment_links.py: every release-note entry of a fragment ends with its issue or
#                          pull request link (CONTRIBUTING)
#   version                scripts/version_label.py: galaxy.yml's version is the one the pending fragments call for
#                          (semver), and every version_added is released or that version
#   links                  scripts/release_links.py --check: README.md's and the docsite's links into the repository
#                          name the release's tag (galaxy.yml's version), not main
#   tested-with            scripts/tested_with.py --check: README.md's "Tested with" table is tests/versions.yml's, the
#                          list make test-versions runs
#   schemas                check-jsonschema --check-metaschema: meta/schemas/*.json are valid draft 2020-12 schemas
#   workflows              check-jsonschema against GitHub's workflow schema (vendored in the package): .github/workflows
# Needs ANSIBLE_COLLECTIONS_PATH to find fleetqual.pts (the Makefile points it at .collections/).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

failed=()
check() {
  local name=$1
  shift
  local start=$SECONDS
  if "$@"; then
    echo "lint: $name passed in $((SECONDS - start)) s"
  else
    echo "lint: $name FAILED in $((SECONDS - start)) s" >&2
    failed+=("$name")
  fi
}

check ansible-lint ansible-lint --offline --profile production
check antsibull-docs antsibull-docs lint-collection-docs --plugin-docs --validate-collection-refs dependent \
  --disallow-unknown-collection-refs .
check antsibull-changelog antsibull-changelog lint
check reuse reuse lint --lines
check flake8 flake8 --isolated --extend-ignore E402 --select E,F,W --max-line-length 160 --exclude plugins/plugin_utils plugins
check version python scripts/version_label.py
check fragment-links python scripts/fragment_links.py
check links python scripts/release_links.py --check
check tested-with python scripts/tested_with.py --check
check schemas check-jsonschema --check-metaschema meta/schemas/*.schema.json
check workflows check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml

if ((${#failed[@]})); then
  echo "lint: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "lint: all passed"
