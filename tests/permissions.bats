#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Permissions: owners and modes, the checks of every operation for users
# other than root, delegation by chown, and -o allow_other. Users 1234 and
# 1235 (no passwd entry needed) act through setpriv. What the kernel's
# cgroupfs does in each case: docs/kernel-oracle.md, "Permissions".
#
# Every test runs each case twice (in_both): as mounted by default (the
# kernel checks the modes too, before the daemon sees the operation:
# default_permissions) and with -o nodefault_permissions, where the
# daemon's own checks must stand alone. A failure says which one it was in.

load helpers

U1=1234
U2=1235

setup() {
	cg_setup
	# mktemp made it 0700: the users must reach the mount point.
	chmod 755 "$CG_TMP"
	USER_PY=$(user_python)
}

teardown() {
	cg_teardown
}

# An interpreter the users may run: a version manager's under /root is not.
user_python() {
	local py
	for py in "$CG_PYTHON" /usr/bin/python3; do
		if setpriv --reuid=$U1 --regid=$U1 --clear-groups "$py" -c '' 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
	echo "no python3 that uid $U1 may run" >&2
	return 1
}

# as UID[:GID[:GROUPS]] CMD ARGS...: CMD (cg_op, cg_write, or a program)
# run by that user: gid = uid unless given, supplementary groups only if
# given.
as() {
	local ids=$1 uid gid groups
	shift
	IFS=: read -r uid gid groups <<<"$ids"
	local grp=(--clear-groups)
	[[ -n $groups ]] && grp=(--groups="$groups")
	local CG_AS=(setpriv --reuid="$uid" --regid="${gid:-$uid}" "${grp[@]}")
	local CG_PYTHON=$USER_PY
	if declare -F "$1" >/dev/null; then
		"$@"
	else
		"${CG_AS[@]}" "$@"
	fi
}

# in_both CASE ARGS...: runs CASE on a new mount with allow_other, as
# mounted by default, then on another with nodefault_permissions.
in_both() {
	in_both_opts allow_other "$@"
}

# in_both_opts OPTS CASE ARGS...: the same with the options OPTS. $PERMS
# names the run (default_permissions, nodefault_permissions); each run has
# its own state file, and the mount is gone at the end of each.
in_both_opts() {
	local opts=$1
	shift
	for PERMS in default_permissions nodefault_permissions; do
		echo "# in the run with $PERMS:" >&2
		PERM_OPTS=$opts
		if [[ $PERMS == nodefault_permissions ]]; then
			PERM_OPTS+=${opts:+,}nodefault_permissions
		fi
		perm_mount
		"$@"
		unmount
	done
}

# perm_mount: mounts $MNT for the run $PERMS (again, after unmount).
perm_mount() {
	cg_mount ${PERM_OPTS:+-o "$PERM_OPTS"} -o "state=$CG_TMP/$PERMS.state"
}

# unmount: the daemon of $MNT stops.
unmount() {
	cd /
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
}

# stat's "mode uid:gid" of each path.
modes() {
	stat -c '%a %u:%g' "$@"
}

# ---- defaults ----------------------------------------------------------------

defaults_as_seen_by_a_user() {
	mkdir "$MNT/g"
	run setpriv --reuid=$U1 --regid=$U1 --clear-groups stat -c '%a %u:%g' \
		"$MNT" "$MNT/g" "$MNT/g/cpu.shares" "$MNT/g/cpu.stat" "$MNT/tasks" "$MNT/release_agent"
	assert_success
	assert_output "555 0:0
755 0:0
644 0:0
444 0:0
644 0:0
644 0:0"
}

@test "defaults: the root 0555, groups 0755, files 0644 or 0444, all root's, as seen by a user" {
	in_both defaults_as_seen_by_a_user
}

mkdir_takes_the_umask() {
	(umask 077 && mkdir "$MNT/g")
	run modes "$MNT/g" "$MNT/g/cpu.shares" "$MNT/g/cpu.stat"
	assert_output "700 0:0
644 0:0
444 0:0"
}

@test "mkdir takes the umask; the files keep their modes" {
	in_both mkdir_takes_the_umask
}

# ---- a user in root's tree --------------------------------------------------

user_changes_nothing_of_roots() {
	mkdir "$MNT/g"
	echo 512 >"$MNT/g/cpu.shares"
	run as $U1 cg_op mkdir "$MNT/x"
	assert_output "$E_ACCES"
	run as $U1 cg_op mkdir "$MNT/g/x"
	assert_output "$E_ACCES"
	run as $U1 cg_op mkdir "$MNT/g"		# the lookup answers first
	assert_output "$E_EXIST"
	run as $U1 cg_op rmdir "$MNT/g"
	assert_output "$E_ACCES"
	run as $U1 cg_op rename "$MNT/g" "$MNT/h"
	assert_output "$E_ACCES"
	run as $U1 cg_op unlink "$MNT/g/tasks"
	assert_output "$E_ACCES"
	run as $U1 cg_write "$MNT/g/cpu.shares" 2048
	assert_output "open: $E_ACCES"
	run as $U1 cg_write "$MNT/cpu.shares" 2048
	assert_output "open: $E_ACCES"
	run as $U1 cg_op truncate "$MNT/g/cpu.shares"
	assert_output "$E_ACCES"
	run as $U1 cg_op chmod "$MNT/g" 777
	assert_output "$E_PERM"
	run as $U1 cg_op chown "$MNT/g/tasks" $U1 $U1
	assert_output "$E_PERM"
	run as $U1 cg_op touch "$MNT/g/tasks"
	assert_output "$E_ACCES"
	run as $U1 test -w "$MNT/g/cpu.shares"
	assert_failure
	# Reading and listing are allowed.
	run as $U1 cat "$MNT/g/cpu.shares"
	assert_output 512
	run as $U1 cg_op ls "$MNT/g"
	assert_output ok
	[[ -d $MNT/g && ! -e $MNT/x && ! -e $MNT/h ]]
	run modes "$MNT/g" "$MNT/g/tasks"
	assert_output "755 0:0
644 0:0"
	# Without default_permissions the VFS finds this one itself, before
	# it would ask the daemon.
	run as $U1 cg_op rmdir "$MNT/tasks"
	if [[ $PERMS == default_permissions ]]; then
		assert_output "$E_ACCES"
	else
		assert_output "$E_NOTDIR"
	fi
}

@test "a user cannot make, remove, rename or change root's groups or write their files" {
	in_both user_changes_nothing_of_roots
}

# ---- moving tasks -----------------------------------------------------------

user_moves_only_its_own() {
	local mine theirs roots
	mkdir "$MNT/g" "$MNT/r"
	chown -R $U1:$U1 "$MNT/g"
	cg_sleeper_as $U1 mine
	cg_sleeper_as $U2 theirs
	cg_sleeper roots
	run as $U1 cg_write "$MNT/g/tasks" "$roots"
	assert_output "$E_ACCES"
	run as $U1 cg_write "$MNT/g/cgroup.procs" "$theirs"
	assert_output "$E_ACCES"
	# Errors the kernel finds first: no such task, a kernel thread, garbage.
	run as $U1 cg_write "$MNT/g/tasks" 2
	assert_output "$E_INVAL"
	run as $U1 cg_write "$MNT/g/tasks" abc
	assert_output "$E_INVAL"
	# Its own, yes; but not into root's group, nor back into the root.
	run as $U1 cg_write "$MNT/g/tasks" "$mine"
	assert_output "${#mine}"
	run as $U1 cg_write "$MNT/r/tasks" "$mine"
	assert_output "open: $E_ACCES"
	run as $U1 cg_write "$MNT/tasks" "$mine"
	assert_output "open: $E_ACCES"
	run cat "$MNT/g/tasks"
	assert_output "$mine"
	# Root moves anyone's.
	echo "$theirs" >"$MNT/g/tasks"
	run cat "$MNT/g/tasks"
	assert_output "$(printf '%s\n' "$mine" "$theirs" | sort -n)"
}

@test "a user moves its own processes only (EACCES for root's and another user's)" {
	in_both user_moves_only_its_own
}

esrch_before_eacces() {
	mkdir "$MNT/g"
	chown $U1 "$MNT/g/tasks"
	run as $U1 cg_write "$MNT/g/tasks" 4194304
	assert_output "$E_SRCH"
}

@test "ESRCH for a task that does not exist, before EACCES" {
	in_both esrch_before_eacces
}

# ids.py LEADER_UID THREAD_UID: a process whose leader and one thread have
# these user ids (set with the raw syscall, which changes one thread only);
# prints the thread's id, then the leader's.
start_mixed() {
	cat >"$CG_TMP/ids.py" <<'EOF'
import ctypes, os, platform, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
# The raw syscall: glibc's setresuid() would change every thread.
NR = {"x86_64": 117, "aarch64": 147}[platform.machine()]
def setresuid(u):
    if libc.syscall(NR, u, u, u) != 0: sys.exit("setresuid: %d" % ctypes.get_errno())
ready = threading.Event()
def thread():
    setresuid(int(sys.argv[2])); print(threading.get_native_id(), flush=True); ready.set(); time.sleep(1000)
threading.Thread(target=thread, daemon=True).start()
ready.wait()
setresuid(int(sys.argv[1]))
print(os.getpid(), flush=True)
time.sleep(1000)
EOF
	"$CG_PYTHON" "$CG_TMP/ids.py" "$1" "$2" >"$CG_TMP/ids.out" 2>&1 3>&- &
	CG_HELPERS+=("$!")
	cg_poll_until -ge 2 grep -c '' "$CG_TMP/ids.out"	# both ids printed
	{ read -r TID; read -r LEADER; } <"$CG_TMP/ids.out"
	[[ $LEADER == "$!" ]]
}

tasks_checks_the_thread() {
	mkdir "$MNT/g"
	chown -R $U1:$U1 "$MNT/g"
	start_mixed 0 $U1		# root's leader, the user's thread
	run as $U1 cg_write "$MNT/g/tasks" "$TID"
	assert_output "${#TID}"
	run as $U1 cg_write "$MNT/g/cgroup.procs" "$TID"
	assert_output "$E_ACCES"
	run as $U1 cg_write "$MNT/g/tasks" "$LEADER"
	assert_output "$E_ACCES"
	run cat "$MNT/g/tasks"
	assert_output "$TID"
	echo "$LEADER" >"$MNT/cgroup.procs"
	start_mixed $U1 0		# the user's leader, root's thread
	run as $U1 cg_write "$MNT/g/tasks" "$TID"
	assert_output "$E_ACCES"
	run as $U1 cg_write "$MNT/g/cgroup.procs" "$TID"
	assert_output "${#TID}"
	run cat "$MNT/g/tasks"
	assert_output "$(printf '%s\n' "$LEADER" "$TID" | sort -n)"
}

@test "tasks checks the thread; cgroup.procs the process's leader, once for all threads" {
	in_both tasks_checks_the_thread
}

# uids_sleeper VAR RUID EUID SUID: a process with these user ids; its PID
# in VAR.
uids_sleeper() {
	"$CG_PYTHON" -c '
import os, sys, time
os.setresuid(*map(int, sys.argv[1:4]))
time.sleep(1000)
' "$2" "$3" "$4" >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	printf -v "$1" %s "$!"
	cg_poll_until -x "$2 $3 $4" awk '/^Uid:/ { print $2, $3, $4 }' "/proc/$!/status"
}

# The kernel's rule: the writer's euid is the task's real or saved uid.
saved_uid_counts() {
	local suid euid
	mkdir "$MNT/g"
	chown -R $U1:$U1 "$MNT/g"
	uids_sleeper suid $U2 $U2 $U1	# a set-uid program's saved uid
	uids_sleeper euid $U2 $U1 $U2	# the effective uid does not count
	run as $U1 cg_write "$MNT/g/tasks" "$suid"
	assert_output "${#suid}"
	run as $U1 cg_write "$MNT/g/tasks" "$euid"
	assert_output "$E_ACCES"
	run cat "$MNT/g/tasks"
	assert_output "$suid"
}

@test "a user moves a task whose real or saved uid is the user's, not its effective one" {
	in_both saved_uid_counts
}

# ---- delegation ---------------------------------------------------------------

delegated_subtree() {
	local mine
	mkdir "$MNT/g" "$MNT/r"
	chown -R $U1:$U1 "$MNT/g"
	run modes "$MNT/g" "$MNT/g/cpu.shares" "$MNT/g/cpu.stat"
	assert_output "755 $U1:$U1
644 $U1:$U1
444 $U1:$U1"
	run as $U1 cg_op mkdir "$MNT/g/sub"
	assert_output ok
	# A new group and its files are their maker's, gid included.
	run as $U1:777 cg_op mkdir "$MNT/g/sub2"
	assert_output ok
	run modes "$MNT/g/sub" "$MNT/g/sub/cpu.shares" "$MNT/g/sub/tasks" "$MNT/g/sub2/tasks"
	assert_output "755 $U1:$U1
644 $U1:$U1
644 $U1:$U1
644 $U1:777"
	run as $U1 cg_write "$MNT/g/sub/cpu.shares" 2048
	assert_output 4
	run cat "$MNT/g/sub/cpu.shares"
	assert_output 2048
	cg_sleeper_as $U1 mine
	run as $U1 cg_write "$MNT/g/sub/cgroup.procs" "$mine"
	assert_output "${#mine}"
	run cat "$MNT/g/sub/tasks"
	assert_output "$mine"
	# Within its subtree only.
	run as $U1 cg_write "$MNT/r/tasks" "$mine"
	assert_output "open: $E_ACCES"
	run as $U1 cg_op mkdir "$MNT/r/x"
	assert_output "$E_ACCES"
	run as $U1 cg_op rename "$MNT/g/sub2" "$MNT/g/sub3"
	assert_output ok
	run as $U1 cg_op rmdir "$MNT/g/sub3"
	assert_output ok
	run as $U1 cg_op rmdir "$MNT/g"
	assert_output "$E_ACCES"
	# Another user gets nothing of it.
	run as $U2 cg_op mkdir "$MNT/g/sub/x"
	assert_output "$E_ACCES"
	run as $U2 cg_write "$MNT/g/sub/cpu.shares" 3
	assert_output "open: $E_ACCES"
	run cat "$MNT/g/sub/cpu.shares"
	assert_output 2048
}

@test "after chown -R user g, the user makes subgroups, sets their files, moves its own processes there" {
	in_both delegated_subtree
}

# A group's bits count for its members, supplementary groups included.
group_bits_count() {
	mkdir "$MNT/g"
	chgrp 555 "$MNT/g" "$MNT/g/cpu.shares"
	chmod 775 "$MNT/g"
	chmod 664 "$MNT/g/cpu.shares"
	run as $U1:$U1:555 cg_write "$MNT/g/cpu.shares" 2048
	assert_output 4
	run as $U1:555 cg_write "$MNT/g/cpu.shares" 512
	assert_output 3
	run as $U1:$U1:555 cg_op mkdir "$MNT/g/sub"
	assert_output ok
	run as $U1:$U1:555 cg_op rmdir "$MNT/g/sub"
	assert_output ok
	# Not a member: the others' bits.
	run as $U1 cg_write "$MNT/g/cpu.shares" 3
	assert_output "open: $E_ACCES"
	run as $U1:$U1:556 cg_op mkdir "$MNT/g/sub"
	assert_output "$E_ACCES"
	run cat "$MNT/g/cpu.shares"
	assert_output 512
	[[ ! -e $MNT/g/sub ]]
}

@test "the group's bits count for its members, by primary or supplementary gid" {
	in_both group_bits_count
}

# Where only a supplementary group decides (listing, access(2), chgrp by the
# owner, chmod keeping setgid), each way: the daemon reads the groups from
# /proc only for such checks, and asks the core again with them.
supplementary_groups_decide() {
	mkdir "$MNT/g" "$MNT/h"
	chgrp 555 "$MNT/g"
	chmod 750 "$MNT/g"
	run as $U1:$U1:555 cg_op ls "$MNT/g"
	assert_output ok
	run as $U1 cg_op ls "$MNT/g"
	assert_output "$E_ACCES"
	if [[ $PERMS == nodefault_permissions ]]; then	# access(2) reaches the daemon
		run as $U1:$U1:555 cg_op access "$MNT/g" 5
		assert_output ok
		run as $U1 cg_op access "$MNT/g" 5
		assert_output "$E_ACCES"
	fi
	chown $U1:$U1 "$MNT/h/cpu.shares"
	run as $U1:$U1:555 cg_op chown "$MNT/h/cpu.shares" -1 555
	assert_output ok
	run as $U1 cg_op chown "$MNT/h/cpu.shares" -1 556
	assert_output "$E_PERM"
	run as $U1:$U1:555 cg_op chmod "$MNT/h/cpu.shares" 2664
	assert_output ok
	run stat -c '%a %u:%g' "$MNT/h/cpu.shares"
	assert_output "2664 $U1:555"
	chgrp 556 "$MNT/h/cpu.shares"
	run as $U1:$U1:555 cg_op chmod "$MNT/h/cpu.shares" 2664
	assert_output ok
	run stat -c '%a %u:%g' "$MNT/h/cpu.shares"
	assert_output "664 $U1:556"
}

@test "a check only a supplementary group decides asks for the groups, and holds" {
	in_both supplementary_groups_decide
}

# A group a user made stays the user's, and a group keeps the mode it was
# made with, when the daemon starts again: from the log the first time,
# from the snapshot made at that start the second time.
users_groups_survive_a_restart() {
	local i out
	mkdir "$MNT/g"
	chown -R $U1:$U1 "$MNT/g"
	run as $U1:777 cg_op mkdir "$MNT/g/sub"
	assert_output ok
	out=$(umask 077 && as $U1 cg_op mkdir "$MNT/g/private")
	[ "$out" = ok ]
	(umask 077 && mkdir "$MNT/roots")
	run as $U1 cg_write "$MNT/g/sub/cpu.shares" 2048
	assert_output 4
	for i in 1 2; do
		unmount
		perm_mount
		run modes "$MNT/g" "$MNT/g/sub" "$MNT/g/sub/cpu.shares" "$MNT/g/sub/tasks" \
			"$MNT/g/private" "$MNT/roots"
		assert_output "755 $U1:$U1
755 $U1:777
644 $U1:777
644 $U1:777
700 $U1:$U1
700 0:0"
		run cat "$MNT/g/sub/cpu.shares"
		assert_output 2048
	done
	run as $U1 cg_write "$MNT/g/sub/cpu.shares" 512
	assert_output 3
	run as $U1 cg_op mkdir "$MNT/g/sub/x"
	assert_output ok
	run as $U1 cg_op rmdir "$MNT/g/sub/x"
	assert_output ok
	run as $U1 cg_op rmdir "$MNT/g/sub"
	assert_output ok
}

@test "a user's groups stay the user's after the daemon restarts" {
	in_both users_groups_survive_a_restart
}

# In a sticky group, users remove and rename only their own subgroups.
sticky_group() {
	mkdir "$MNT/shared"
	chmod 1777 "$MNT/shared"
	run as $U1 cg_op mkdir "$MNT/shared/a"
	assert_output ok
	run as $U2 cg_op mkdir "$MNT/shared/b"
	assert_output ok
	run as $U2 cg_op rmdir "$MNT/shared/a"
	assert_output "$E_PERM"
	run as $U2 cg_op rename "$MNT/shared/a" "$MNT/shared/c"
	assert_output "$E_PERM"
	run as $U1 cg_op rename "$MNT/shared/a" "$MNT/shared/c"
	assert_output ok
	run as $U1 cg_op rmdir "$MNT/shared/c"
	assert_output ok
	rmdir "$MNT/shared/b"
}

@test "in a sticky (1777) group users remove and rename only their own subgroups" {
	in_both sticky_group
}

# ---- chmod, chown, times ------------------------------------------------------

owner_and_mode_rules() {
	mkdir "$MNT/g"
	chown -R $U1:$U1 "$MNT/g"
	run as $U1 cg_op chmod "$MNT/g" 700
	assert_output ok
	run as $U1 cg_op chmod "$MNT/g/cpu.shares" 600
	assert_output ok
	run modes "$MNT/g" "$MNT/g/cpu.shares"
	assert_output "700 $U1:$U1
600 $U1:$U1"
	# The mode now keeps the other user out of the group.
	run as $U2 cg_op ls "$MNT/g"
	assert_output "$E_ACCES"
	run as $U1 cg_op chmod "$MNT/g" 755
	assert_output ok
	# Only root gives away; the owner may chgrp to its own groups.
	run as $U1 cg_op chown "$MNT/g" $U2 -1
	assert_output "$E_PERM"
	run as $U1 cg_op chown "$MNT/g" -1 555
	assert_output "$E_PERM"
	run as $U1:$U1:555 cg_op chown "$MNT/g" -1 555
	assert_output ok
	run as $U2 cg_op chmod "$MNT/g/tasks" 666
	assert_output "$E_PERM"
	chown $U2:$U2 "$MNT/g/tasks"
	chmod 640 "$MNT/g/tasks"
	run modes "$MNT/g" "$MNT/g/tasks"
	assert_output "755 $U1:555
640 $U2:$U2"
	# Times: the owner sets them, who may write touches them.
	run as $U1 cg_op settime "$MNT/g/notify_on_release" 1000
	assert_output ok
	run stat -c %Y "$MNT/g/notify_on_release"
	assert_output 1000
	run as $U2 cg_op settime "$MNT/g/notify_on_release" 5
	assert_output "$E_PERM"
	chmod 666 "$MNT/g/notify_on_release"
	run as $U2 cg_op touch "$MNT/g/notify_on_release"
	assert_output ok
	run stat -c %Y "$MNT/g/notify_on_release"
	refute_output 1000
	# truncate: allowed to who may write, changes nothing.
	echo 1 >"$MNT/g/notify_on_release"
	run as $U2 cg_op truncate "$MNT/g/notify_on_release"
	assert_output ok
	run cat "$MNT/g/notify_on_release"
	assert_output 1
}

@test "chmod and chown work and show in stat: the owner chmods, only root chowns" {
	in_both owner_and_mode_rules
}

release_agent_roots_only() {
	chown $U1 "$MNT/release_agent"
	run as $U1 cg_write "$MNT/release_agent" /bin/true
	assert_output "$E_PERM"
	run cat "$MNT/release_agent"
	assert_output ""
}

@test "release_agent: only root sets it, even when a user owns it (EPERM)" {
	in_both release_agent_roots_only
}

access_from_the_modes() {
	mkdir "$MNT/g"
	chown $U1 "$MNT/g/cpu.shares"
	run as $U1 test -w "$MNT/g/cpu.shares"
	assert_success
	run as $U2 test -w "$MNT/g/cpu.shares"
	assert_failure
	run as $U1 test -w "$MNT/g/tasks"
	assert_failure
}

@test "access(2) answers from the modes (nodefault_permissions: the daemon answers)" {
	in_both access_from_the_modes
}

# ---- allow_other -----------------------------------------------------------------

others_kept_out() {
	mkdir "$MNT/g"
	chown -R $U1:$U1 "$MNT/g"
	run as $U1 cg_op stat "$MNT"
	assert_output "$E_ACCES"
	run as $U1 cg_op stat "$MNT/g/tasks"
	assert_output "$E_ACCES"
	run as $U1 cg_op ls "$MNT/g"
	assert_output "$E_ACCES"
	run as 0 cg_op stat "$MNT/g/tasks"
	assert_output ok
}

@test "without allow_other another user gets EACCES, even on stat" {
	in_both_opts '' others_kept_out
}
