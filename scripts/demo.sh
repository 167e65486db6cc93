#!/usr/bin/env bash
# `make demo`: the PTS IOPS test in the quick profile on the embedded default target, a loop device
# over a sparse file, attached here and detached again whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

image=${PTS_DEMO_IMAGE:-/var/tmp/fleetqual-demo.img}
size=${PTS_DEMO_SIZE:-512M}
run_id=${PTS_RUN_ID:-demo-$(date -u +%Y%m%dT%H%M%SZ)}
results=${PTS_RESULTS_DIR:-results}

rm -f "$image"
truncate -s "$size" "$image"
device=$(losetup --show -f --direct-io=on "$image")
cleanup() {
  losetup -d "$device" 2>/dev/null || true
  rm -f "$image"
  echo "demo: detached $device and removed $image"
}
trap cleanup EXIT
# The loop driver calls a device rotational when it cannot tell its backing store's kind; drive mode auto
# would then test the demo target as a disk (HDD mode). The sparse file is on this machine's flash or memory.
echo 0 >"/sys/block/$(basename "$device")/queue/rotational"
echo "demo: $device is a $size loop device over $image"

PTS_RUN_ID=$run_id PTS_RESULTS_DIR=$results .venv/bin/ansible-playbook playbooks/pts.yml -i inventories/demo \
  -e "pts_demo_device=$device" -e "pts_demo_backing_file=$image"

report="$results/$run_id/localhost/demo-loop/report.md"
test -s "$report"
echo "demo: report in $report"
echo "demo: fleet summary (verdict) in $results/$run_id/fleet.md"
