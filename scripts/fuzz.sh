#!/bin/sh
# Runs every fuzz target of the module, each for FUZZTIME (default 60s), starting from its committed
# corpus (testdata/fuzz/<Target>/). Targets are found with `go test -list`, so one added later runs
# without editing this file. A failing input is written to testdata/fuzz/<Target>/ by go test; commit
# it with the fix. Used by `make fuzz` (at length) and by `make test` under CI (a few seconds each).
set -eu
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
targets=$($GO test -list '^Fuzz' ./... | awk '
	/^Fuzz/ { names = names " " $1; next }
	/^ok/   { if (names != "") print $2 names; names = "" }')
if [ -z "$targets" ]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi
echo "$targets" | while read -r pkg names; do
	for name in $names; do
		echo "fuzz: $pkg $name for $FUZZTIME"
		$GO test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 5s "$pkg"
	done
done
