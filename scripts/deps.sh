#!/usr/bin/env bash
# System packages the controller (and the demo's localhost target) needs, on Debian/Ubuntu.
# Installs only what is missing, so a second `make` does not touch apt.
set -euo pipefail

missing=()
command -v fio >/dev/null || missing+=(fio)
command -v losetup >/dev/null || missing+=(util-linux)
command -v mkfs.ext4 >/dev/null || missing+=(e2fsprogs)
command -v sfdisk >/dev/null || missing+=(fdisk)
command -v git >/dev/null || missing+=(git)
# The drive tools pts_install would otherwise install in the middle of the first run.
command -v nvme >/dev/null || missing+=(nvme-cli)
command -v hdparm >/dev/null || missing+=(hdparm)
command -v sg_inq >/dev/null || missing+=(sg3-utils)
command -v sdparm >/dev/null || missing+=(sdparm)
command -v smartctl >/dev/null || missing+=(smartmontools)
command -v shellcheck >/dev/null || missing+=(shellcheck)
command -v ip >/dev/null || missing+=(iproute2)
command -v ssh >/dev/null || missing+=(openssh-client)
test -x /usr/sbin/sshd || missing+=(openssh-server)
"${PYTHON:-python3}" -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
# report.pdf: WeasyPrint lays pages out with Pango (and a font); the report tests read PDFs with poppler's
# pdftotext/pdftoppm and load report.html in headless Chromium.
libs=$(/sbin/ldconfig -p 2>/dev/null || true)
[[ $libs == *libpango-1.0.so.0* ]] || missing+=(libpango-1.0-0)
[[ $libs == *libpangoft2-1.0.so.0* ]] || missing+=(libpangoft2-1.0-0)
test -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || missing+=(fonts-dejavu-core)
command -v pdftotext >/dev/null || missing+=(poppler-utils)
command -v chromium >/dev/null || missing+=(chromium)
# The shared history's tests start a real PostgreSQL server of their own (initdb and pg_ctl as a non-root user).
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)

if ((${#missing[@]})); then
  if ! command -v apt-get >/dev/null; then
    echo "missing: ${missing[*]}; install them with your package manager" >&2
    exit 1
  fi
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q "${missing[@]}"
fi
