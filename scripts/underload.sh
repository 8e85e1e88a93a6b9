#!/bin/sh
# Runs `make test` RUNS times in a row (default 3) beside a CPU burner: one busy loop per core
# (BURNERS, default the machine's cores), so every test shares the CPU with work that never yields.
# It shows the suite does not depend on a quiet machine (issue 44): no wall-clock deadline, no
# real date. It stops at the first failing run and exits with its status; the burners are stopped
# on every exit path, Ctrl-C included. Each run's output goes to $OUT/run-N.log (default a temp dir).
set -u
RUNS=${RUNS:-3}
BURNERS=${BURNERS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
MAKE=${MAKE:-make}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT" || exit 2
pids=""
stop() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap 'stop' EXIT
trap 'stop; exit 130' INT TERM
i=0
while [ "$i" -lt "$BURNERS" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
echo "underload: $BURNERS busy loops started; $RUNS runs of '$MAKE test', logs in $OUT"
n=1
while [ "$n" -le "$RUNS" ]; do
	start=$(date +%s)
	if $MAKE test >"$OUT/run-$n.log" 2>&1; then
		echo "underload: run $n of $RUNS passed in $(( $(date +%s) - start )) s (load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
	else
		status=$?
		echo "underload: run $n of $RUNS FAILED (exit $status) after $(( $(date +%s) - start )) s; the end of its log:"
		tail -n 40 "$OUT/run-$n.log"
		exit "$status"
	fi
	n=$((n + 1))
done
echo "underload: $RUNS runs of '$MAKE test' passed beside $BURNERS busy loops"
