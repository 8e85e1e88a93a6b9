#!/bin/sh
# Runs every fuzz target of the module from its committed corpus (testdata/fuzz/<Target>/, with the
# seeds the target adds and the inputs the local fuzz cache keeps). Targets are found with
# `go test -list`, so one added later runs without editing this file. A failing input is written to
# testdata/fuzz/<Target>/ by go test; commit it with the fix.
#
# Two budgets:
#   FUZZEXECS=N  each target runs N new inputs beyond its corpus (make test under CI: a count, so a
#                slow or busy machine fuzzes as much as a fast one). go test's -fuzztime Nx counts
#                the corpus's baseline run too, so the script first asks go test how large the
#                corpus is (a 1x run prints "gathering baseline coverage: 0/B") and then runs B+N.
#   FUZZTIME=D   each target runs for the duration D (make fuzz, at length; default 60s).
set -eu
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
FUZZEXECS=${FUZZEXECS:-}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# baseline prints the size of a target's corpus as the fuzzer counts it (committed files, f.Add
# seeds and the fuzz cache's inputs).
baseline() {
	$GO test -run '^$' -fuzz "^$2\$" -fuzztime 1x "$1" >"$log" 2>&1 || { cat "$log"; return 1; }
	sed -n 's/.*gathering baseline coverage: [0-9]*\/\([0-9]*\) completed.*/\1/p' "$log" | head -n 1
}

# run_target fuzzes one target. go test sometimes ends a time-bounded run with "context deadline
# exceeded" and no failing input, when the time runs out while a worker is mid-input: that is the
# fuzzer's own stop, not a finding, so the run is tried once more. A real finding always writes its
# failing input to testdata/fuzz and fails.
run_target() {
	budget=$FUZZTIME
	if [ -n "$FUZZEXECS" ]; then
		b=$(baseline "$1" "$2") || return 1
		if [ -z "$b" ]; then
			echo "fuzz: $2: go test did not say how large its corpus is" >&2
			return 1
		fi
		budget="$((b + FUZZEXECS))x"
		echo "fuzz: $2: corpus of $b inputs, then $FUZZEXECS new ones (-fuzztime $budget)"
	fi
	for try in 1 2; do
		if $GO test -run '^$' -fuzz "^$2\$" -fuzztime "$budget" -fuzzminimizetime 5s "$1" >"$log" 2>&1; then
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
		if [ -n "$FUZZEXECS" ]; then
			echo "fuzz: $pkg $name for $FUZZEXECS inputs beyond its corpus"
		else
			echo "fuzz: $pkg $name for $FUZZTIME"
		fi
		run_target "$pkg" "$name"
	done
done
