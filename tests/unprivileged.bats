#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# cgfused without privilege: as root with CAP_SYS_NICE dropped, as a plain
# user (nobody) and as a user namespace's root. Nice values stay within
# what RLIMIT_NICE allows and keep the groups' ratios; what the daemon
# could not take back (cpu.idle) is refused with EPERM; a task the daemon
# may not renice is refused with EACCES; the freezer works on the user's
# own tasks (ptrace of the same user).

load helpers

setup() {
	cg_setup
}

teardown() {
	local pid
	# What ran in a namespace of its own recorded its PIDs.
	for pid in $(cat "$CG_TMP/daemon.pid" 2>/dev/null); do CG_DAEMONS+=("$pid"); done
	for pid in $(cat "$CG_TMP/helpers.pid" 2>/dev/null); do CG_HELPERS+=("$pid"); done
	cg_teardown
}

# nosysnice_mount [cgfused options...]: mounts a cgfused that runs as root
# without CAP_SYS_NICE (bounding and inheritable sets too: nothing gets it
# back), and cds into the mount.
nosysnice_mount() {
	printf '#!/bin/sh\nexec %s %q "$@"\n' "${NOSYSNICE[*]}" "$CGFUSED" \
		>"$CG_TMP/cgfused-nosysnice"
	chmod +x "$CG_TMP/cgfused-nosysnice"
	CGFUSED=$CG_TMP/cgfused-nosysnice cg_mount "$@"
	cd "$MNT"
}

# NOSYSNICE: root without CAP_SYS_NICE, for the daemon and for the tasks it
# may manage (the kernel's cap_safe_nice(): only a task whose capabilities
# are a subset of the daemon's), with RLIMIT_NICE 0 whatever the caller's.
NOSYSNICE=(prlimit --nice=0 setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice)

# busy_on_cpu0 VAR: a busy loop of root without CAP_SYS_NICE held to CPU 0,
# its PID in VAR. Returns once it is the loop: before, it is prlimit or
# setpriv, which still have CAP_SYS_NICE, and the daemon may not take it.
busy_on_cpu0() {
	"${NOSYSNICE[@]}" taskset -c 0 "$CG_PYTHON" -c 'while True: pass' >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	printf -v "$1" %s "$!"
	cg_poll_until -x "$(readlink -f "$CG_PYTHON")" readlink "/proc/$!/exe"
}

# groups_2_to_1: groups A (2048 shares) and B (1024), a busy loop on CPU 0
# in each, their PIDs in the caller's a and b.
groups_2_to_1() {
	local g
	mkdir A B
	echo 2048 >A/cpu.shares
	# Both on CPU 0 by their cpusets: cgfused gives a member its cpuset's
	# CPUs, so the loops' taskset alone would not hold.
	for g in A B; do
		echo 0 >$g/cpuset.cpus
		echo 0 >$g/cpuset.mems
	done
	busy_on_cpu0 a
	busy_on_cpu0 b
	echo "$a" >A/tasks
	echo "$b" >B/tasks
	cg_poll_until -x 0 cg_cpus_of "$a"
	cg_poll_until -x 0 cg_cpus_of "$b"
}

# split_near RATIO A B: over one second, A ran between 0.85 and 1.15 times
# RATIO as long as B (each sharing CPU 0 with the other).
split_near() {
	local a0 b0 a1 b1
	a0=$(cg_cpu_ns "$2") b0=$(cg_cpu_ns "$3")
	sleep 1
	a1=$(cg_cpu_ns "$2") b1=$(cg_cpu_ns "$3")
	"$CG_PYTHON" -c 'import sys
r, a, b = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print("%.2f" % (a / max(b, 1)))
sys.exit(0 if 0.85 * r <= a / max(b, 1) <= 1.15 * r else 1)' "$1" $((a1 - a0)) $((b1 - b0))
}

@test "as root without CAP_SYS_NICE: cgfused.stat and the start-up line say nice only goes up" {
	nosysnice_mount
	run grep -E '^(privileged|nice_range) ' cgfused.stat
	assert_output "privileged 0
nice_range own 19"
	run grep -c "no CAP_SYS_NICE and RLIMIT_NICE 0: nice values can only be raised" \
		"$CG_TMP/cgfused.log"
	assert_output 1
	run "$CGFUSED_TOOLS/cgfused-top" --mount "$MNT" -b -n 1
	assert_line --index 0 --partial "; without CAP_SYS_NICE: nice only raised; heap "
}

@test "as root without CAP_SYS_NICE: shares 2048:1024 split one CPU 2:1, the heavier at its own nice" {
	local a b
	nosysnice_mount
	groups_2_to_1
	# The heavier keeps nice 0 (1024), the other is raised to 3 (526).
	cg_poll_until -x 0 nice_of "$a"
	cg_poll_until -x 3 nice_of "$b"
	cg_poll_until split_near 2 "$a" "$b"
	run grep -x 'failed_calls 0' cgfused.stat
	assert_success
}

@test "as root without CAP_SYS_NICE: cpu.idle 1 is refused with EPERM, and the log says why" {
	nosysnice_mount
	mkdir g
	run cg_write g/cpu.idle 1
	assert_output "$E_PERM"
	run cat g/cpu.idle
	assert_output 0
	run cg_write g/cpu.idle 0
	assert_output 1
	run grep -c 'cpu.idle 1 refused (EPERM): without CAP_SYS_NICE' "$CG_TMP/cgfused.log"
	assert_output 1
}

@test "as root without CAP_SYS_NICE: a task it may not renice is refused with EACCES" {
	local mine capable theirs
	nosysnice_mount
	mkdir g
	"${NOSYSNICE[@]}" sleep 1000 >/dev/null 2>&1 3>&- &
	mine=$!
	CG_HELPERS+=("$mine")
	cg_poll_until -x sleep cat "/proc/$mine/comm"
	cg_sleeper capable	# root's, with CAP_SYS_NICE: not a subset of ours
	cg_sleeper_as 65534 theirs
	run cg_write g/tasks "$theirs"
	assert_output "$E_ACCES"
	run cg_write g/tasks "$capable"
	assert_output "$E_ACCES"
	run cg_write g/tasks "$mine"
	assert_success
	run cat g/tasks
	assert_output "$mine"
}

@test "as nobody, -o allow_other without user_allow_other in /etc/fuse.conf: one line saying so, no mount" {
	chmod 755 "$CG_TMP"
	chown 65534:65534 "$MNT"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$CGFUSED" -f -o allow_other,state=none "$MNT" 3>&-
	if grep -qx '[[:space:]]*user_allow_other[[:space:]]*' /etc/fuse.conf; then
		[[ $stderr != *"has no user_allow_other line"* ]]	# a machine that allows it
		return
	fi
	assert_failure 1
	[ "${#stderr_lines[@]}" -eq 1 ] || { printf 'stderr: %s\n' "${stderr_lines[@]}"; false; }
	[[ $stderr == "cgfused: -o allow_other: /etc/fuse.conf has no user_allow_other line, "* ]]
	refute cg_is_mounted "$MNT"
}

# ---- a plain user, a user namespace's root --------------------------------------
#
# The newcomer's flow (newcomer_flow, run by the user the daemon runs as):
# a group, a task of its own in it, cpu.shares, cgfused.stat, cpu.idle, a
# task of another user (OTHER, if any), the freezer and the quota. It
# prints one line a step.
newcomer_flow() {
	set -e
	cd "$MNT"
	mkdir g f
	(cd / && exec sleep 1000) >/dev/null 2>&1 3>&- &	# no cwd in the mount
	echo $! >>"$PIDFILE"
	local s=$!
	echo "$s" >g/tasks
	echo "tasks $(cat g/tasks)"
	echo 2048 >g/cpu.shares
	echo "shares $(cat g/cpu.shares)"
	grep -E '^(privileged|nice_range) ' cgfused.stat
	echo "idle $(cg_write g/cpu.idle 1)"
	[[ -z $OTHER ]] || echo "other $(cg_write g/tasks "$OTHER")"
	echo "$s" >f/tasks
	echo FROZEN >f/freezer.state
	cg_poll_until -x FROZEN cat f/freezer.state
	echo "frozen $(cut -d' ' -f3 /proc/$s/stat)"
	echo THAWED >f/freezer.state
	cg_poll_until -x S cut -d' ' -f3 "/proc/$s/stat"
	echo "thawed $(cat f/freezer.state)"
	mkdir q
	echo 10000 >q/cpu.cfs_quota_us	# 10 ms a 100 ms period
	(cd / && exec "$CG_PYTHON" -c 'while True: pass') >/dev/null 2>&1 3>&- &
	echo $! >>"$PIDFILE"
	echo $! >q/tasks
	cg_poll_until -m '^nr_throttled [1-9]' grep '^nr_throttled' q/cpu.stat
	kill $!
	echo "quota throttled"
}

# What the flow prints as a user without CAP_SYS_NICE.
newcomer_expected="tasks @PID@
shares 2048
privileged 0
nice_range own 19
idle $E_PERM
other $E_ACCES
frozen t
thawed THAWED
quota throttled"

export_flow() {
	export CG_TMP MNT CGFUSED E_PERM E_ACCES PIDFILE OTHER
	export -f newcomer_flow cg_poll_until cg_write cg_wait_mounted
}

# as_nobody_mounted FLOW [cgfused options...]: runs cgfused as nobody on
# $MNT (which nobody owns), then the exported function FLOW as nobody,
# unmounts, and prints what FLOW printed. A plain user mounts through
# fusermount3, which libfuse tries only after mount(2) failed: it must open
# /dev/fuse first (0666 on most systems). Here it is 0600: a node every
# user may open, in a mount namespace of the test's own, stands for it.
# Tracking tasks without CAP_NET_ADMIN is the task-watch source's (branch
# watch): until then the daemon gets CAP_NET_ADMIN alone, which changes
# nothing else.
as_nobody_mounted() {
	chmod 755 "$CG_TMP"
	chown 65534:65534 "$MNT"
	mknod -m 666 "$CG_TMP/fuse" c 10 229
	PIDFILE=$CG_TMP/helpers.pid
	install -m 666 /dev/null "$PIDFILE"
	# An interpreter nobody may run: a version manager's under /root is not.
	CG_PYTHON=/usr/bin/python3
	export_flow
	unshare -m --propagation private bash -c '
flow=$1
shift
mount --bind "$CG_TMP/fuse" /dev/fuse
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+net_admin \
	--ambient-caps=+net_admin "$CGFUSED" -f "$@" "$MNT" >>"$CG_TMP/cgfused.log" 2>&1 3>&- &
echo $! >"$CG_TMP/daemon.pid"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@" 3>&-; }
# Without allow_other only the mounting user may look into it, root too.
as_nobody bash -c "cg_wait_mounted $MNT $!" >&2 || exit 1
as_nobody bash -c "$flow"
st=$?
fusermount3 -u "$MNT" || fusermount3 -uz "$MNT"
wait
exit $st' _ "$@"
}

@test "as nobody: mounts on a directory it owns, and a newcomer's flow works or is refused as documented" {
	OTHER=$$	# the test's shell: root's
	run as_nobody_mounted newcomer_flow -o state=none,config=none,rules=none
	assert_success
	assert_output "${newcomer_expected/@PID@/$(head -1 "$CG_TMP/helpers.pid")}"
}

# The defaults flow: the config's group, the rules' placing of a process
# that execs, the state file.
defaults_flow() {
	set -e
	cat "$MNT/build/cpu.shares"
	(cd / && exec sleep 1000) >/dev/null 2>&1 3>&- &
	echo $! >>"$PIDFILE"
	cg_poll_until grep -qx $! "$MNT/build/tasks"	# with nobody's others
	echo "placed by the rules"
	ls "$XDG_STATE_HOME/cgfused" | grep '\.state$'
}

@test "as nobody: config and rules default to \$XDG_CONFIG_HOME/cgfused/, the state to \$XDG_STATE_HOME/cgfused/" {
	export XDG_CONFIG_HOME=$CG_TMP/config XDG_STATE_HOME=$CG_TMP/state
	mkdir -p "$XDG_CONFIG_HOME/cgfused" "$XDG_STATE_HOME"
	printf '[/build]\ncpu.shares = 512\n' >"$XDG_CONFIG_HOME/cgfused/cgfused.conf"
	printf 'nobody cpu /build\n' >"$XDG_CONFIG_HOME/cgfused/cgfused.rules"
	chown -R 65534:65534 "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"
	export -f defaults_flow
	run as_nobody_mounted defaults_flow
	assert_success
	local state=${MNT:1}
	state=${state//-/%2D}
	assert_output "512
placed by the rules
${state//\//-}.state"
}

@test "as a user namespace's root: a newcomer's flow works or is refused as documented" {
	# The kernel hears no connector listener from a user namespace: auto
	# follows forks by ptrace there (the flow's child must follow). No
	# other user's task is in its PID namespace; its helpers die with the
	# namespace (their PIDs are the namespace's, not the teardown's to
	# kill).
	PIDFILE=$CG_TMP/ns-helpers.pid OTHER=
	export_flow
	run unshare -Urpfm --mount-proc bash -c '
"$CGFUSED" -f -o state=none,config=none,rules=none "$MNT" >>"$CG_TMP/cgfused.log" 2>&1 3>&- &
d=$!
cg_wait_mounted "$MNT" $d >&2 || exit 1
bash -c newcomer_flow 3>&-
st=$?
fusermount3 -u "$MNT" || fusermount3 -uz "$MNT"
wait $d
exit $st'
	assert_success
	# The flow's PIDs are the namespace's: its sleeper is the one it listed.
	local want=${newcomer_expected/@PID@/$(head -1 "$PIDFILE")}
	assert_output "${want/$'\n'other $E_ACCES/}"
	grep -q "tracking forks by ptrace: the proc connector is refused" "$CG_TMP/cgfused.log"
}
