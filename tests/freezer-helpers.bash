# SPDX-License-Identifier: GPL-2.0-or-later
# The freezers' bats helpers (freezer.bats: v1's freezer.state,
# v2-freeze.bats: v2's cgroup.freeze): is a thread stopped, does it run,
# and a shell with job control. Each file defines `freeze GROUP`: freezes
# GROUP and waits until the freezer says it is frozen.

# ran PID: how long the thread ran in the next 0.4 s (ns).
ran() {
	local a b
	a=$(cg_cpu_ns "$1")
	sleep 0.4
	b=$(cg_cpu_ns "$1")
	echo $((b - a))
}

# state PID: its state letter in /proc/PID/stat.
state() {
	local s
	s=$(<"/proc/$1/stat")
	s=${s##*) }
	echo "${s%% *}"
}

# assert_frozen PID / assert_runs PID: it does not run (in a ptrace-stop,
# 't'), or it runs (more than 20 ms of the 0.4 s: the machine is shared).
assert_frozen() {
	[[ $(state "$1") == t ]] || { echo "$1 is in state $(state "$1"), not t" >&2; return 1; }
	local n
	n=$(ran "$1")
	[[ $n -eq 0 ]] || { echo "frozen $1 ran $n ns" >&2; return 1; }
}
assert_runs() {
	local n
	n=$(ran "$1")
	[[ $n -gt 20000000 ]] || { echo "$1 ran only $n ns in 0.4 s (state $(state "$1"))" >&2; return 1; }
}

# passes_later N: the freezer's enforcer has made N passes more (each
# first takes in the kernel's reports of forks and exits).
passes_later() {
	local n
	n=$(grep '^freezer_passes ' "$MNT/cgfused.stat")
	n=${n#* }
	cg_poll_until -ge $((n + $1)) sh -c "grep '^freezer_passes ' '$MNT/cgfused.stat' | cut -d' ' -f2"
}

# frozen_busy VAR GROUP: a busy loop in GROUP, frozen; its PID in VAR.
frozen_busy() {
	cg_busy "$1"
	echo "${!1}" >"$2/cgroup.procs"
	freeze "$2"
	assert_frozen "${!1}"
}

# job_shell STOP: a shell with job control (on a terminal, script(1))
# runs a busy job in the background; STOP freezes or stops it, then the
# shell's `jobs -l` is printed.
job_shell() {
	local p
	rm -f "$CG_TMP/pid" "$CG_TMP/go"
	script -qec "bash --norc -mc '\"\$0\" -c \"while True: pass\" & echo \$! >$CG_TMP/pid
		while [[ ! -e $CG_TMP/go ]]; do sleep 0.05; done; sleep 0.3; jobs -l
		kill -KILL %1' $CG_PYTHON" /dev/null >"$CG_TMP/jobs" 2>&1 </dev/null 3>&- &
	CG_HELPERS+=("$!")
	cg_poll_until test -s "$CG_TMP/pid"
	p=$(<"$CG_TMP/pid")
	CG_HELPERS+=("$p")
	"$1" "$p"
	touch "$CG_TMP/go"
	cg_wait_gone "$p"
	JOB=$p
}

stop_job() {
	kill -STOP "$1"
}
