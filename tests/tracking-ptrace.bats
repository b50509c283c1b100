#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# -o tracking=ptrace: forks, execs and exits followed by tracing every
# managed thread (cgfused(8), TRACKING TASKS), on the host and in a PID namespace
# without CAP_NET_ADMIN, where the proc connector cannot be had.

load helpers

SPAWN_KINDS=$TESTS_SRCDIR/helpers/spawn-kinds

setup() {
	cg_setup
	cg_mount -o tracking=ptrace
	mkdir "$MNT/g"
}

teardown() {
	# spawn-kinds' children too (its own session).
	[[ -z ${KINDS_PID:-} ]] || pkill -KILL -s "$KINDS_PID"
	cg_teardown
}

# tracer_of PID: its TracerPid; state_of PID: its State letter.
tracer_of() {
	cg_status "$1" TracerPid
}

state_of() {
	cg_status "$1" State
}

# spawn_kinds TASKS OUT GO: runs tests/helpers/spawn-kinds in the
# background, in a session of its own whose id is KINDS_PID, and waits for OUT.
spawn_kinds() {
	setsid "$CG_PYTHON" "$SPAWN_KINDS" "$1" "$2" "$3" >/dev/null 2>&1 3>&- &
	KINDS_PID=$!
	CG_HELPERS+=("$KINDS_PID")
	cg_poll_until test -s "$2"
}

# sorted_tasks TASKS: the ids TASKS lists, ascending.
sorted_tasks() {
	sort -n "$1"
}

# kinds_in_group OUT TASKS: every task spawn-kinds made is listed in TASKS.
kinds_in_group() {
	local kind id
	while read -r kind id; do
		grep -qx "$id" "$2" || { echo "$kind $id is not in $2"; return 1; }
	done <"$1"
}

@test "children, threads, vfork children and an exec from a thread all stay in the group" {
	spawn_kinds "$MNT/g/tasks" "$CG_TMP/kinds" "$CG_TMP/go"
	run kinds_in_group "$CG_TMP/kinds" "$MNT/g/tasks"
	assert_success
	touch "$CG_TMP/go"
	# The exec from the second thread: the process is one thread again,
	# still in the group, and the old threads have left. The kernel shows
	# the new command before the tracer has taken the exec's stop: the
	# group's files are polled, not /proc.
	cg_poll_until -x sleep cat "/proc/$KINDS_PID/comm"
	cg_poll_until -x 1 cg_nthreads "$KINDS_PID"
	cg_poll_until -x "$(awk '$1 != "thread" {print $2}' "$CG_TMP/kinds" | sort -n)" \
		sorted_tasks "$MNT/g/tasks"
	run cat "$MNT/g/cgroup.procs"
	assert_line "$KINDS_PID"
}

# The proc connector names the creator's parent (tasks.bats); ptrace names
# the creator, as the kernel's own cgroup_post_fork does.
@test "a child a member makes with clone(CLONE_PARENT) lands in the member's group" {
	run "$CLONE_PARENT" "$MNT/g/tasks" "$MNT/tasks"
	assert_success
	assert_output --regexp '^[0-9]+ in group$'
}

@test "a member that exits leaves its group, and its parent reaps it" {
	local s
	cg_sleeper s
	echo "$s" >"$MNT/g/tasks"
	run cat "$MNT/g/tasks"
	assert_output "$s"
	kill -TERM "$s"
	cg_wait_gone "$s"
	cg_poll_until -x '' cat "$MNT/g/tasks"
	run grep '^tracked_tasks ' "$MNT/cgfused.stat"
	assert_output 'tracked_tasks 0'
}

# Job control through the tracer: a group-stop is left to the kernel
# (PTRACE_LISTEN), so the parent sees the stop and SIGCONT resumes it.
@test "kill -STOP and kill -CONT of a member behave as without cgfused: its parent sees both" {
	"$CG_PYTHON" - "$MNT/g/tasks" "$CG_TMP/jobs" "$CG_TMP/go" >/dev/null 2>&1 3>&- <<'EOF' &
import os, sys, time
with open(sys.argv[1], "w") as f:
    f.write("0")
child = os.fork()
if child == 0:
    while True:
        pass
out = open(sys.argv[2], "w", buffering=1)
print("child", child, file=out)
_, st = os.waitpid(child, os.WUNTRACED)
print("stopped" if os.WIFSTOPPED(st) else "other", file=out)
while not os.path.exists(sys.argv[3]):
    time.sleep(0.05)
_, st = os.waitpid(child, os.WCONTINUED)
print("continued" if os.WIFCONTINUED(st) else "other", file=out)
EOF
	CG_HELPERS+=("$!")
	cg_wait_for "$CG_TMP/jobs" '^child '
	local c
	c=$(awk '$1 == "child" {print $2}' "$CG_TMP/jobs")
	CG_HELPERS+=("$c")
	cg_placed "$c" "$MNT/g/tasks"
	kill -STOP "$c"
	cg_wait_for -x "$CG_TMP/jobs" stopped
	cg_poll_until -m '^[Tt]$' state_of "$c"
	# Stopped, not merely reported so: it gets no more CPU.
	local before after
	before=$(cg_cpu_ns "$c")
	sleep 0.3
	after=$(cg_cpu_ns "$c")
	assert_equal "$after" "$before"
	kill -CONT "$c"
	touch "$CG_TMP/go"
	cg_wait_for -x "$CG_TMP/jobs" continued
	cg_poll_until -m '^[RS]$' state_of "$c"
	cg_poll_until -ge $((after + 1)) cg_cpu_ns "$c"
	# Still watched: a tracee of the daemon.
	run tracer_of "$c"
	refute_output 0
}

@test "kill -9 of the daemon leaves every member running and untraced, frozen ones too" {
	local a b
	cg_busy a
	cg_sleeper b
	echo "$a" >"$MNT/g/tasks"
	mkdir "$MNT/f"
	echo "$b" >"$MNT/f/tasks"
	cg_poll_until -m '^[1-9]' tracer_of "$a"
	echo FROZEN >"$MNT/f/freezer.state"
	cg_poll_until -x FROZEN cat "$MNT/f/freezer.state"
	run state_of "$b"
	assert_output t
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	cg_poll_until -x 0 tracer_of "$a"
	cg_poll_until -x 0 tracer_of "$b"
	cg_poll_until -x S state_of "$b"
	cg_poll_until -m '^[RS]$' state_of "$a"
	local before
	before=$(cg_cpu_ns "$a")
	cg_poll_until -ge $((before + 1)) cg_cpu_ns "$a"
}

@test "a process under strace is refused with EBUSY, and the log says why" {
	local s t
	cg_sleeper s
	strace -qq -e trace=none -p "$s" >/dev/null 2>&1 3>&- &
	t=$!
	CG_HELPERS+=("$t")
	cg_wait_for "/proc/$s/status" "^TracerPid:[[:space:]]*$t\$"
	run cg_write "$MNT/g/tasks" "$s"
	assert_output "$E_BUSY"
	run cat "$MNT/g/tasks"
	assert_output ''
	run grep -c "thread $s is traced by process $t" "$CG_TMP/cgfused.log"
	assert_output 1
	run grep -E '^(task_watch|task_watch_refused) ' "$MNT/cgfused.stat"
	assert_output - <<-EOF
	task_watch ptrace
	task_watch_refused 1
	EOF
	# Once strace lets go, it can be moved.
	kill -INT "$t"
	cg_wait_gone "$t"
	cg_poll_until -x 0 tracer_of "$s"
	echo "$s" >"$MNT/g/tasks"
	run cat "$MNT/g/tasks"
	assert_output "$s"
}

@test "moving a member back to the root lets it go, so that strace can attach" {
	local s t
	cg_sleeper s
	echo "$s" >"$MNT/g/tasks"
	cg_poll_until -m '^[1-9]' tracer_of "$s"
	echo "$s" >"$MNT/tasks"
	cg_poll_until -x 0 tracer_of "$s"
	run state_of "$s"
	assert_output S
	strace -qq -e trace=none -p "$s" >/dev/null 2>&1 3>&- &
	t=$!
	CG_HELPERS+=("$t")
	cg_wait_for "/proc/$s/status" "^TracerPid:[[:space:]]*$t\$"
	kill -INT "$t"
	cg_wait_gone "$t"
	# Into a group again: watched again.
	echo "$s" >"$MNT/g/tasks"
	cg_poll_until -m '^[1-9]' tracer_of "$s"
}

# In a PID namespace, without CAP_NET_ADMIN and CAP_SYS_NICE: the connector
# is refused there (a forced one stops cgfused); auto takes ptrace, which
# follows everything all the same.
@test "in a PID namespace without CAP_NET_ADMIN, every kind of child stays in its group" {
	cat >"$CG_TMP/inside.sh" <<'EOF'
set -u
mnt=$1 tmp=$2
"$CGFUSED" -f -o state=none,config=none,rules=none,tracking=connector "$mnt" \
	>"$tmp/connector.log" 2>&1 3>&-
echo "connector: $?"
"$CGFUSED" -f -o state=none,config=none,rules=none "$mnt" >"$tmp/ptrace.log" 2>&1 3>&- &
for ((i = 0; i < 200; i++)); do
	[[ -e $mnt/tasks ]] && break
	sleep 0.05
done
mkdir "$mnt/g"
setsid "$CG_PYTHON" "$SPAWN_KINDS" "$mnt/g/tasks" "$tmp/kinds" "$tmp/go" >/dev/null 2>&1 3>&- &
kinds=$!
for ((i = 0; i < 400; i++)); do
	[[ -s $tmp/kinds ]] && break
	sleep 0.05
done
while read -r kind id; do
	grep -qx "$id" "$mnt/g/tasks" && echo "$kind in group" || echo "$kind not in group"
done <"$tmp/kinds"
touch "$tmp/go"
for ((i = 0; i < 400; i++)); do
	[[ $(cat "/proc/$kinds/comm") == sleep ]] && break
	sleep 0.05
done
grep -qx "$kinds" "$mnt/g/cgroup.procs" && echo "exec in group" || echo "exec not in group"
"$CLONE_PARENT" "$mnt/g/tasks" "$mnt/tasks" | sed 's/^[0-9]* /clone-parent /'
EOF
	mkdir "$CG_TMP/ns-mnt"
	run timeout -k 5 120 unshare --pid --fork --mount-proc \
		setpriv --inh-caps=-net_admin,-sys_nice --bounding-set=-net_admin,-sys_nice \
		env CGFUSED="$CGFUSED" CG_PYTHON="$CG_PYTHON" SPAWN_KINDS="$SPAWN_KINDS" \
		CLONE_PARENT="$CLONE_PARENT" bash "$CG_TMP/inside.sh" "$CG_TMP/ns-mnt" "$CG_TMP"
	cat "$CG_TMP"/connector.log "$CG_TMP"/ptrace.log >&2
	assert_success
	assert_output - <<'EOF'
connector: 1
fork in group
thread in group
vfork in group
leader in group
exec in group
clone-parent in group
EOF
	run grep -c 'proc connector' "$CG_TMP/connector.log"
	assert_output 1
	grep -q "tracking forks by ptrace: the proc connector is refused" "$CG_TMP/ptrace.log"
}

# Daemonizing forks after the state is replayed: the process that serves
# the mount traces the members the state put back (its tracer thread is
# named ptrace-watch).
@test "a daemonized cgfused traces the members its state put back" {
	local s tracer
	cg_sleeper s
	echo "$s" >"$MNT/g/tasks"
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	cg_poll_until -x 0 tracer_of "$s"
	"$CGFUSED" -o "state=$CG_TMP/mnt.state,config=none,rules=none,tracking=ptrace" "$MNT" 3>&-
	cg_wait_mounted "$MNT"
	run cat "$MNT/g/tasks"
	assert_output "$s"
	cg_poll_until -m '^[1-9]' tracer_of "$s"
	tracer=$(tracer_of "$s")
	run cat "/proc/$tracer/comm"
	assert_output ptrace-watch
	run readlink "/proc/$tracer/exe"
	assert_output "$(readlink -f "$CGFUSED")"
}

# The kernel checks the writer's right to move a task first: another
# user's debugged process is EACCES to a user who may not move it, never
# EBUSY.
@test "a user who may not move a debugged process gets EACCES, not EBUSY" {
	local s t
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	chmod 755 "$CG_TMP"
	cg_mount -o tracking=ptrace,allow_other
	chown 1234 "$MNT/g/tasks" "$MNT/g/cgroup.procs"
	cg_sleeper s
	strace -qq -e trace=none -p "$s" >/dev/null 2>&1 3>&- &
	t=$!
	CG_HELPERS+=("$t")
	cg_wait_for "/proc/$s/status" "^TracerPid:[[:space:]]*$t\$"
	local file CG_AS=(setpriv --reuid=1234 --regid=1234 --clear-groups)
	local CG_PYTHON=/usr/bin/python3	# one that user may run
	for file in tasks cgroup.procs; do
		run cg_write "$MNT/g/$file" "$s"
		assert_output "$E_ACCES"
	done
	CG_AS=()
	# Root may move it, but it is debugged.
	run cg_write "$MNT/g/cgroup.procs" "$s"
	assert_output "$E_BUSY"
}
