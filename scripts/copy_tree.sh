#!/usr/bin/env bash
# Copies the working tree's files (tracked and new ones, not ignored ones; a file deleted but still in the index is
# left out) to TREE, replacing what was there, and makes TREE a git repository of its own: ansible-test run inside a
# copy at build/... would otherwise find the enclosing checkout, where build/ is ignored, and see no files.
# Used by scripts/sanity.sh and scripts/integration_targets.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:?usage: scripts/copy_tree.sh TREE}

rm -rf "$tree"
mkdir -p "$tree"
git ls-files -z --cached --others --exclude-standard --deduplicate |
  while IFS= read -r -d '' file; do
    if [[ -e $file || -L $file ]]; then printf '%s\0' "$file"; fi
  done |
  xargs -0 cp -P --parents -t "$tree"
cd "$tree"
git init -q && git add -A
