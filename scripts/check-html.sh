#!/usr/bin/env bash
# check-html.sh renders an HTML report to PNG with headless Chromium, so a person can look at what a
# browser really draws (the Go tests only check that the page parses and has one bar group per pattern).
#
#   scripts/check-html.sh [report.html ...]     default: the golden example reports of internal/report
#
# Needs chromium (Debian/Ubuntu: apt-get install -y chromium). PNGs go next to each input as .png,
# or into $OUT_DIR when set. The page is opened from a file: URL with networking off, which also
# proves it needs nothing from the network.
set -euo pipefail

cd "$(dirname "$0")/.."
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  echo "check-html: chromium not found (apt-get install -y chromium)" >&2
  exit 2
fi

if [ "$#" -eq 0 ]; then
  set -- internal/report/testdata/embedded.html internal/report/testdata/service.html internal/report/testdata/placeholder.html
fi

for in in "$@"; do
  [ -f "$in" ] || { echo "check-html: $in: no such file" >&2; exit 2; }
  dir=${OUT_DIR:-$(dirname "$in")}
  mkdir -p "$dir"
  out="$dir/$(basename "${in%.html}").png"
  abs=$(cd "$(dirname "$in")" && pwd)/$(basename "$in")
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$(mktemp -d)" --proxy-server='127.0.0.1:9' --proxy-bypass-list='<-loopback>' \
    --window-size=1280,1800 --screenshot="$out" "file://$abs" >/dev/null 2>&1
  [ -s "$out" ] || { echo "check-html: $in: no screenshot written" >&2; exit 1; }
  echo "$out"
done
