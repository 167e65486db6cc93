# Thin wrapper: one tool per target. `make demo` and `make test` set up everything they need.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
COLLECTIONS := $(CURDIR)/.collections
COLLECTION := $(COLLECTIONS)/ansible_collections/fleetqual/pts
# ansible-test needs a real ansible_collections/<ns>/<name> directory, not a symlink to one.
SANITY_TREE := $(CURDIR)/build/sanity/ansible_collections/fleetqual/pts

export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export ANSIBLE_COLLECTIONS_PATH := $(COLLECTIONS)
export MPLCONFIGDIR := $(CURDIR)/build/mpl
export PATH := $(BIN):$(PATH)

.PHONY: all demo test test-guest test-versions bench deps venv lint docs units integration integration-targets molecule \
	sanity ee build release clean

all: test

deps:
	PYTHON=$(PYTHON) scripts/deps.sh

$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@

$(COLLECTION):
	mkdir -p $(dir $(COLLECTION))
	ln -sfn ../../.. $(COLLECTION)

venv: deps $(VENV)/.installed $(COLLECTION)

demo: venv
	scripts/demo.sh

test: venv lint docs units ee integration integration-targets molecule sanity test-versions

# ansible-lint (--offline: installs nothing into ~/.ansible/collections), antsibull-docs lint-collection-docs,
# antsibull-changelog lint and reuse lint; all run, the failures are named at the end.
lint: venv
	scripts/lint.sh

# The docsite (antsibull-docs + Sphinx) in build/docsite/build/html and build/fleetqual-pts-docsite-<version>.tar.gz;
# offline, intersphinx is off (see scripts/docs.sh). It needs the Python packages only, not scripts/deps.sh's system
# packages (which need root): the forge's CI builds it as a normal user (.github/workflows/docs.yml).
docs: $(VENV)/.installed $(COLLECTION)
	scripts/docs.sh

units: venv
	pytest -q -p no:cacheprovider -n 2 tests/unit

# Three workers on two cores, each taking whole files (a file's tests share fixtures such as one playbook run): much of
# a test is waiting on fio's timed rounds, so three keep the cores busy where two left them half idle (four starve
# fio itself now and then). The slowest tests are listed at the end.
integration: venv
	pytest -q -p no:cacheprovider -n 3 --dist loadfile --durations=10 tests/integration

# The role scenarios as ansible-test integration targets (tests/integration/targets/role_*), as root; T=<target> runs
# one.
integration-targets: venv
	scripts/integration_targets.sh $(T)

# The roles' molecule scenarios (extensions/molecule/) against this machine, as root; S=<scenario> runs one.
molecule: venv
	scripts/molecule.sh $(S)

# A QEMU guest (NVMe, SATA, SCSI drives, md, device-mapper) for what this machine's kernel cannot do;
# the image is built once and cached in /var/cache/fleetqual-guest (see tests/guest/README.md).
test-guest: venv
	pytest -q -p no:cacheprovider tests/guest

# Harness overhead, fidelity, report time and fleet scale; prints tables and writes build/bench/performance.md.
bench: venv
	cd bench && python run_all.py

sanity: venv
	scripts/sanity.sh $(SANITY_TREE)

# The execution environment for AWX / Automation Platform: ansible-builder's build context of
# docs/execution-environment/, checked against requirements.txt and bindep.txt (no container engine needed).
ee: venv
	scripts/ee_check.sh

# units, sanity and an integration playbook on the oldest supported and the newest ansible-core.
test-versions: venv
	scripts/test_versions.sh

# The Galaxy tarball, build/fleetqual-pts-<version>.tar.gz (galaxy.yml's build_ignore decides what ships).
build: venv
	ansible-galaxy collection build --force --output-path build/ .

# make release V=1.0.0: galaxy.yml version, antsibull-changelog release (CHANGELOG.md), lint, build.
release: venv
	scripts/release.sh $(V)

clean:
	rm -rf build .collections tests/output
