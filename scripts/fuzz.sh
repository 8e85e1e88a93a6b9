#!/bin/sh
# Runs every fuzz target of the module, each for FUZZTIME (default 60s), starting from its committed
# corpus (testdata/fuzz/<Target>/). Targets are found with `go test -list`, so one added later runs
# without editing this file. A failing input is written to testdata/fuzz/<Target>/ by go test; commit
# it with the fix. Used by `make fuzz` (at length) and by `make test` under CI (a few seconds each).
set -eu
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run_target fuzzes one target. go test sometimes ends a time-bounded run with "context deadline
# exceeded" and no failing input, when the time runs out while a worker is mid-input: that is the
# fuzzer's own stop, not a finding, so the run is tried once more. A real finding always writes its
# failing input to testdata/fuzz and fails.
run_target() {
	for try in 1 2; do
		if $GO test -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 5s "$1" >"$log" 2>&1; then
			cat "$log"
			return 0
		fi
		cat "$log"
		if grep -q "Failing input written" "$log" || ! grep -q "context deadline exceeded" "$log"; then
			return 1
		fi
		echo "fuzz: $2 stopped at its deadline with no failing input (the fuzzer's own stop): try $try of 2"
	done
	return 1
}

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
		run_target "$pkg" "$name"
	done
done
