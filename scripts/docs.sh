#!/usr/bin/env bash
# `make docs`: the collection's docsite as docs.ansible.com builds it - antsibull-docs renders the plugin, module and
# role docs (and docs/docsite/links.yml) to RST, Sphinx builds the HTML - into build/docsite/build/html/, with the JSON
# Schemas of meta/schemas/ under schemas/<version>/ (their $id), and the whole site as the archive
# build/fleetqual-pts-docsite-<version>.tar.gz (.github/workflows/docs.yml publishes the site).
# The Sphinx project (conf.py, antsibull-docs.cfg) is generated fresh by `antsibull-docs sphinx-init`, so it follows
# the pinned antsibull-docs (requirements-dev.txt) and nothing generated is kept in the repository.
#
# Offline (the default): intersphinx is switched off, since its inventories (docs.ansible.com, docs.python.org)
# need the internet. The only warnings then allowed are the references into ansible-core's own docs that intersphinx
# would resolve (labels such as common_return_values, ansible.builtin plugins, ANSIBLE_* settings); they are counted
# and listed in build/docsite/offline-references.txt. Any other warning fails the build.
# PTS_DOCS_INTERSPHINX=1 (with internet): intersphinx on and `sphinx-build -W`, every warning fails.
# Needs ANSIBLE_COLLECTIONS_PATH to find fleetqual.pts (the Makefile points it at .collections/).
set -euo pipefail
cd "$(dirname "$0")/.."

dest=build/docsite
rm -rf "$dest"
mkdir -p "$dest"
chmod 755 "$dest" # antsibull-docs refuses a destination others can write to

# Their output goes to a log, shown when a step fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
quiet() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "docs: FAILED: $*" >&2
    return 1
  fi
}

quiet antsibull-docs sphinx-init --use-current --squash-hierarchy --fail-on-error --dest-dir "$dest" \
  --project fleetqual.pts --copyright "fleetqual.pts contributors" --title "fleetqual.pts" fleetqual.pts
if [[ ${PTS_DOCS_INTERSPHINX:-0} != 1 ]]; then
  printf '\n# make docs, offline: no intersphinx inventories (they would be fetched from the internet).\nintersphinx_mapping = {}\n' \
    >>"$dest/conf.py"
fi

mkdir -p "$dest/rst"
chmod 755 "$dest/rst"
quiet antsibull-docs --config-file "$dest/antsibull-docs.cfg" collection --cleanup everything --use-current \
  --squash-hierarchy --fail-on-error --dest-dir "$dest/rst" fleetqual.pts

if [[ ${PTS_DOCS_INTERSPHINX:-0} == 1 ]]; then
  sphinx-build -M html "$dest/rst" "$dest/build" -c "$dest" -q -W --keep-going
  echo "docs: build/docsite/build/html/index.html (with intersphinx, no warnings)"
  exit 0
fi

quiet sphinx-build -M html "$dest/rst" "$dest/build" -c "$dest" -q -w "$dest/warnings.log"
# References that only intersphinx resolves: labels outside this collection's own pages, ansible-core's settings.
external="WARNING: (undefined label: '(ansible_collections\.ansible\.builtin\.[a-z0-9_.]+|action_plugins|callback_plugins|common_return_values|ansible_configuration_settings|[a-z_]+_plugins)'|'envvar' reference target not found: ANSIBLE_[A-Z_]+) \[ref\.(ref|envvar)\]$"
grep -E "$external" "$dest/warnings.log" | sed -E 's/^.*WARNING: //' | sort | uniq -c >"$dest/offline-references.txt" || true
others=$(grep -E "WARNING|ERROR|CRITICAL" "$dest/warnings.log" | grep -Ev "$external" || true)
if [[ -n $others ]]; then
  printf 'docs: Sphinx warnings (see %s):\n%s\n' "$dest/warnings.log" "$others" >&2
  exit 1
fi
# Every page of docs/docsite/extra-docs.yml is in the built site.
missing=$(python - "$dest/build/html" <<'PY'
import os, sys, yaml
with open("docs/docsite/extra-docs.yml", encoding="utf-8") as handle:
    pages = [e if isinstance(e, str) else e["ref"] for s in yaml.safe_load(handle)["sections"] for e in s["toctree"]]
print(" ".join(p for p in pages if not os.path.isfile(os.path.join(sys.argv[1], "docsite", p + ".html"))))
PY
)
if [[ -n $missing ]]; then
  echo "docs: pages of docs/docsite/extra-docs.yml missing from the built site: $missing" >&2
  exit 1
fi
# The results files' JSON Schemas at their $id (https://fleetqual.github.io/pts/schemas/<version>/<name>.schema.json),
# the version being the results format's (every schema's "schema" const, the same in all).
schema_version=$(python - <<'PY'
import glob, json
versions = {json.load(open(p, encoding="utf-8"))["properties"]["schema"]["const"] for p in glob.glob("meta/schemas/*.schema.json")}
if len(versions) != 1:
    raise SystemExit(f"docs: meta/schemas/ holds schemas of versions {sorted(versions)}; one version at a time")
print(versions.pop())
PY
)
mkdir -p "$dest/build/html/schemas/$schema_version"
cp meta/schemas/*.schema.json "$dest/build/html/schemas/$schema_version/"
# The built site as one archive too (what the forge's CI deploys, and what a release can attach).
version=$(python -c 'import yaml; print(yaml.safe_load(open("galaxy.yml", encoding="utf-8"))["version"])')
archive=build/fleetqual-pts-docsite-$version.tar.gz
tar -czf "$archive" -C "$dest/build" --transform "s,^html,fleetqual-pts-docsite-$version," html
echo "docs: build/docsite/build/html/index.html with $(find "$dest/build/html/docsite" -name '*.html' | wc -l) pages of docs/docsite; no warnings apart from $(grep -cE "$external" "$dest/warnings.log" || true)" \
  "references into docs.ansible.com that need intersphinx (the internet): $dest/offline-references.txt;" \
  "the schemas in schemas/$schema_version/; the site as $archive"
