# shellcheck shell=bash
# stack.sh holds what the measuring scripts (cpu-compare.sh, gms-compare.sh) share to start a stack
# of processes on 127.0.0.1, read their CPU time and retry a run that could not start: sourced by
# both, so that a fix to the port wait or the retry rule is made once. A script that sources it
# defines run1 (one run, printing its numbers or failing); giveup_hint, when set, is added to the
# message after the last failed attempt.

# cpu PID: the process's CPU time so far (utime + stime, /proc/<pid>/stat), in clock ticks (tck).
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# shellcheck disable=SC2034 # used by the sourcing scripts
tck=$(getconf CLK_TCK)

# up PORT PID: waits until PORT listens, or fails when PID exits or after 10 s.
up() {
	for _ in $(seq 200); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# run ARGS...: prints what run1 ARGS... prints; a run whose processes do not start (a port taken by
# someone else) or whose calls do not all succeed is tried again, up to three times.
run() {
	local attempt out
	for attempt in 1 2 3; do
		if out=$(run1 "$@"); then
			echo "$out"
			return 0
		fi
		echo "retrying $* (attempt $attempt failed)" >&2
	done
	echo "giving up on $*${giveup_hint:+; $giveup_hint}" >&2
	exit 1
}

# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
