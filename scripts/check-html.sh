#!/usr/bin/env bash
# check-html.sh renders an HTML report to PNG with headless Chromium, so a person can look at what a
# browser really draws (the Go tests only check that the page parses and has one bar group per pattern).
#
#   scripts/check-html.sh [report.html ...]     default: the golden example reports of internal/report
#
# Needs chromium (Debian/Ubuntu: apt-get install -y chromium). Each page is shot at 800 and 1600 px
# wide (WIDTHS to change) as <name>-<width>.png next to each input, or into $OUT_DIR when set. The page is opened from a file: URL with networking off, which also
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
  abs=$(cd "$(dirname "$in")" && pwd)/$(basename "$in")
  for w in ${WIDTHS:-800 1600}; do
    out="$dir/$(basename "${in%.html}")-$w.png"
    rm -f "$out"
    profile=$(mktemp -d)
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
      --user-data-dir="$profile" --proxy-server='127.0.0.1:9' --proxy-bypass-list='<-loopback>' \
      --window-size="$w,2000" --screenshot="$out" "file://$abs" >/dev/null 2>&1 || true
    rm -rf "$profile"
    [ -s "$out" ] || { echo "check-html: $in: no screenshot written at $w px" >&2; exit 1; }
    echo "$out"
  done
done
