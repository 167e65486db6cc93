#!/usr/bin/env bash
# ansible-test sanity on a copy of the working tree's files (tracked and new ones, not ignored ones; a file deleted but
# still in the index is left out) at a real ansible_collections/fleetqual/pts path, with the ansible-test and Python
# first on PATH (`make sanity`: the main venv; scripts/test_versions.sh: each version's venv), its venvs
# bootstrapped from PyPI (see scripts/get_pip_offline.py).
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:?usage: scripts/sanity.sh TREE}

python_version=$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
pip_version=$(python - "$python_version" <<'PY'
import sys

from ansible_test._internal.host_configs import NativePythonConfig
from ansible_test._internal.python_requirements import get_venv_packages

print(get_venv_packages(NativePythonConfig(version=sys.argv[1]))["pip"])
PY
)
cache=~/.ansible/test/cache/get_pip_${pip_version//./_}.py
mkdir -p "$(dirname "$cache")"
# Replaced, never rewritten in place: test_versions.sh runs two sanity checks at once, and the other may be reading it.
cp scripts/get_pip_offline.py "$cache.$$"
mv -f "$cache.$$" "$cache"

scripts/copy_tree.sh "$tree"
cd "$tree"
ansible-test sanity --venv --python "$python_version" --color no "${@:2}"
