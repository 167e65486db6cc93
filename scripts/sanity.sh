#!/usr/bin/env bash
# ansible-test sanity on a copy of the working tree's files (tracked and new ones, not ignored ones; a file deleted but
# still in the index is left out) at a real ansible_collections/fleetqual/pts path,
# with its venvs bootstrapped from PyPI (see scripts/get_pip_offline.py).
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:?usage: scripts/sanity.sh TREE}

pip_version=$(python - <<'PY'
from ansible_test._internal.python_requirements import get_venv_packages
from ansible_test._internal.host_configs import NativePythonConfig
print(get_venv_packages(NativePythonConfig(version="3.11"))["pip"])
PY
)
cache=~/.ansible/test/cache/get_pip_${pip_version//./_}.py
mkdir -p "$(dirname "$cache")"
cp scripts/get_pip_offline.py "$cache"

rm -rf "$tree"
mkdir -p "$tree"
git ls-files -z --cached --others --exclude-standard --deduplicate |
  while IFS= read -r -d '' file; do
    if [[ -e $file || -L $file ]]; then printf '%s\0' "$file"; fi
  done |
  xargs -0 cp -P --parents -t "$tree"
cd "$tree"
git init -q && git add -A
python_version=$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
ansible-test sanity --venv --python "$python_version" --color no "${@:2}"
