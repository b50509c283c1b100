#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# State that survives the daemon: groups, settings, owners, modes
# and members come back after kill -9 of the daemon, on the dead mount it
# left; gone, reused and zombie PIDs stay out; children forked while no
# daemon ran follow their parents; one daemon per state file.

load helpers

setup() {
	cg_setup
	STATE=$CG_TMP/s.state
	DEFAULT_STATE=
	SMALL=
}

teardown() {
	cg_teardown
	if [[ -n $SMALL ]]; then
		umount "$SMALL" || umount -l "$SMALL"
		rmdir "$SMALL"
	fi
	# The one test that uses the machine's default place cleans it up.
	if [[ -n $DEFAULT_STATE ]]; then
		rm -f "$DEFAULT_STATE" "$DEFAULT_STATE.log" "$DEFAULT_STATE.log2" \
			"$DEFAULT_STATE.orig" "$DEFAULT_STATE.idle"
		rmdir /var/lib/cgfused 2>/dev/null || true
	fi
}

# crash: kill -9 of the daemon; its mount is left dead.
crash() {
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
}

# records BODY...: the lines with their checksums, as cgfused writes them.
records() {
	"$CG_PYTHON" -c '
import sys
for body in sys.argv[1:]:
    h = 5381
    for b in body.encode():
        h = (h * 33 + (b - 256 if b > 127 else b)) & 0xffffffff
    sys.stdout.write("%s #%08x\n" % (body, h))
' "$@"
}

# refused FILE WHY...: cgfused with state FILE on $MNT exits non-zero at
# once, mounting nothing, with one line on stderr that contains each WHY.
# One that starts is stopped after 10 s (and killed 5 s later if it hangs).
refused() {
	local file=$1 why
	shift
	CG_MOUNTS+=("$MNT")	# unmounted in teardown if it was mounted after all
	run --separate-stderr timeout -k 5 10 "$CGFUSED" -f -o "state=$file" "$MNT" 3>&-
	[ "$status" -ne 124 ] && [ "$status" -ne 137 ] ||
		{ echo "state=$file: still running after 10 s" >&2; return 1; }
	[ "$status" -ne 0 ] || { echo "state=$file: accepted" >&2; return 1; }
	[ "${#stderr_lines[@]}" -eq 1 ] || { echo "state=$file: $stderr" >&2; return 1; }
	for why; do
		[[ $stderr == *"$why"* ]] || { echo "state=$file: '$stderr' lacks '$why'" >&2; return 1; }
	done
	refute cg_is_mounted "$MNT"
}

@test "groups, settings, owners, modes and members survive kill -9; the dead mount is recovered" {
	local s p
	cg_mount -o "state=$STATE"
	mkdir "$MNT/a" "$MNT/a/b" "$MNT/a/old"
	mv "$MNT/a/old" "$MNT/a/new name"
	echo 2048 >"$MNT/a/cpu.shares"
	echo 0 >"$MNT/a/b/cpuset.cpus"
	echo 50000 >"$MNT/a/cpu.cfs_quota_us"
	chown 1000:1000 "$MNT/a"
	chmod 0700 "$MNT/a/b"
	chmod 0600 "$MNT/a/cpu.shares"
	cg_sleeper s
	cg_threads p
	echo "$s" >"$MNT/a/b/tasks"
	echo "$p" >"$MNT/a/cgroup.procs"
	crash
	run ls "$MNT"
	assert_output --partial "Transport endpoint is not connected"

	cg_mount -o "state=$STATE"
	grep -q "left mounted by a daemon that is gone" "$CG_TMP/cgfused.log"
	[ -d "$MNT/a/new name" ]
	[ ! -e "$MNT/a/old" ]
	cg_expect_read "$MNT/a/cpu.shares" 2048
	cg_expect_read "$MNT/a/b/cpuset.cpus" 0
	cg_expect_read "$MNT/a/cpu.cfs_quota_us" 50000
	cg_expect_read "$MNT/a/b/tasks" "$s"
	cg_expect_read "$MNT/a/cgroup.procs" "$p"
	cg_expect_read "$MNT/a/tasks" "$(cg_tids "$p")"
	cg_expect_done
	run stat -c '%u:%g %a' "$MNT/a" "$MNT/a/b" "$MNT/a/cpu.shares"
	assert_output $'1000:1000 755\n0:0 700\n0:0 600'
}

@test "a member that is gone or whose PID was reused does not rejoin" {
	local s out gone reused
	cg_mount -o "state=$STATE"
	mkdir "$MNT/a"
	"$REUSE_PID" --signal "$MNT/a/tasks" >"$CG_TMP/reuse.out" 2>&1 3>&- &
	CG_HELPERS+=("$!")
	cg_wait_for "$CG_TMP/reuse.out" '^[0-9]'
	reused=$(head -1 "$CG_TMP/reuse.out")
	sleep 1000 >/dev/null 2>&1 3>&- &
	gone=$!
	echo "$gone" >"$MNT/a/tasks"
	cg_sleeper s
	echo "$s" >"$MNT/a/tasks"
	run cat "$MNT/a/tasks"
	assert_output "$(printf '%s\n' "$reused" "$gone" "$s" | sort -n)"
	crash
	kill -KILL "$gone"
	wait "$gone" 2>/dev/null || true
	kill -USR1 "${CG_HELPERS[0]}"
	cg_wait_for "$CG_TMP/reuse.out" "reused"
	[ -d "/proc/$reused" ]	# the same PID, another process

	cg_mount -o "state=$STATE"
	run cat "$MNT/a/tasks"
	assert_output "$s"
}

@test "children forked while no daemon ran rejoin their parent's group; zombies do not" {
	local p zombie child
	cg_mount -o "state=$STATE"
	mkdir "$MNT/a"
	# SIGUSR1: fork a child that sleeps (and dies with its parent); SIGUSR2:
	# fork one that exits at once and is never reaped. Each writes its PID.
	"$CG_PYTHON" -c '
import ctypes, os, signal, sys, time
def child(stay):
    pid = os.fork()
    if pid == 0:
        ctypes.CDLL(None).prctl(1, 9)	# PR_SET_PDEATHSIG, SIGKILL
        if stay:
            time.sleep(1000)
        os._exit(0)
    with open(sys.argv[1], "a") as f:
        f.write("%s %d\n" % ("child" if stay else "zombie", pid))
signal.signal(signal.SIGUSR1, lambda *a: child(True))
signal.signal(signal.SIGUSR2, lambda *a: child(False))
with open(sys.argv[1], "a") as f:
    f.write("ready\n")
while True:
    time.sleep(1000)
' "$CG_TMP/kids" >/dev/null 2>&1 3>&- &
	p=$!
	CG_HELPERS+=("$p")
	cg_wait_for "$CG_TMP/kids" ready	# the handlers are set
	echo "$p" >"$MNT/a/cgroup.procs"
	kill -USR2 "$p"
	cg_wait_for "$CG_TMP/kids" zombie
	zombie=$(awk '$1 == "zombie" { print $2 }' "$CG_TMP/kids")
	cg_poll_until -x Z awk '{ print $3 }' "/proc/$zombie/stat"
	crash
	kill -USR1 "$p"
	cg_wait_for "$CG_TMP/kids" child
	child=$(awk '$1 == "child" { print $2 }' "$CG_TMP/kids")
	[[ $(awk '{ print $3 }' "/proc/$zombie/stat") == Z ]]

	cg_mount -o "state=$STATE"
	run cat "$MNT/a/cgroup.procs"
	assert_output "$(printf '%s\n' "$p" "$child" | sort -n)"
}

@test "a clean stop leaves a snapshot and an empty log; everything comes back" {
	local s id
	cg_mount -o "state=$STATE"
	mkdir "$MNT/g"
	echo 512 >"$MNT/g/cpu.shares"
	cg_sleeper s
	echo "$s" >"$MNT/g/tasks"
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	refute cg_is_mounted "$MNT"
	run wc -l <"$STATE.log"
	assert_output 1
	# The member's record names g by the id its mkdir record gave it.
	id=$(sed -n 's/^mkdir =[^ ]* \([0-9]*\) 0 =g .*/\1/p' "$STATE")
	[ -n "$id" ]
	grep -q "^task =[^ ]* $id $s " "$STATE"

	cg_mount -o "state=$STATE"
	cg_expect_read "$MNT/g/cpu.shares" 512
	cg_expect_read "$MNT/g/tasks" "$s"
	cg_expect_done
}

# settings DIR: every setting of every group under DIR ("path: value",
# sorted): the writable files but the actions (tasks, cgroup.procs,
# cpuacct.usage).
settings() {
	local f
	find "$1" -type f -perm -u+w ! -name tasks ! -name cgroup.procs ! -name cpuacct.usage |
		LC_ALL=C sort | while read -r f; do
		printf '%s: %s\n' "${f#"$1"}" "$(cat "$f")"
	done
}

# group_id NAME: the id the snapshot's mkdir record gives group NAME.
group_id() {
	sed -n "s/^mkdir =[^ ]* \([0-9]*\) [0-9]* =$1 .*/\1/p" "$STATE"
}

@test "a clean stop saves what differs from what mkdir gives; every setting, inherited or not, comes back" {
	local all before e d
	cg_mount -o "state=$STATE"
	all=$(cat "$MNT/cpuset.cpus")
	mkdir "$MNT/a"				# notify_on_release 0, the root's
	echo 1 >"$MNT/notify_on_release"
	mkdir "$MNT/b"				# notify_on_release 1, inherited
	echo 2048 >"$MNT/b/cpu.shares"
	echo 0 >"$MNT/a/cpuset.cpus"
	mkdir "$MNT/a/c"			# cpuset.cpus 0, a's at its mkdir
	echo "$all" >"$MNT/a/cpuset.cpus"
	echo 0 >"$MNT/a/cgroup.clone_children"
	mkdir "$MNT/a/d"			# no CPUs, no memory nodes
	echo 1 >"$MNT/a/cgroup.clone_children"
	mkdir "$MNT/a/e"			# what a mkdir gives now
	echo 50000 >"$MNT/a/e/cpu.cfs_quota_us"
	echo -1 >"$MNT/a/e/cpu.cfs_quota_us"	# back to the default
	cg_expect_read "$MNT/a/notify_on_release" 0
	cg_expect_read "$MNT/b/notify_on_release" 1
	cg_expect_read "$MNT/a/c/cpuset.cpus" 0
	cg_expect_read "$MNT/a/d/cpuset.cpus" ""
	cg_expect_read "$MNT/a/d/cpuset.mems" ""
	cg_expect_done
	before=$(settings "$MNT")
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	e=$(group_id e)
	d=$(group_id d)
	[ -n "$e" ] && [ -n "$d" ]
	# e's settings are a mkdir's under a: none is written; d's clone_children,
	# CPUs and memory nodes are not.
	run grep -c "^write =[^ ]* $e " "$STATE"
	assert_output 0
	run grep -c "^write =[^ ]* $d " "$STATE"
	assert_output 3

	cg_mount -o "state=$STATE"
	run settings "$MNT"
	assert_output "$before"
	# And after kill -9, from the snapshot the restart wrote.
	crash
	cg_mount -o "state=$STATE"
	run settings "$MNT"
	assert_output "$before"
}

@test "release_agent does not run while the state is replayed" {
	cat >"$CG_TMP/agent" <<EOF
#!/bin/sh
echo "\$1" >>"$CG_TMP/agent.out"
EOF
	chmod +x "$CG_TMP/agent"
	cg_mount -o "state=$STATE"
	echo "$CG_TMP/agent" >"$MNT/release_agent"
	mkdir "$MNT/a"
	echo 1 >"$MNT/a/notify_on_release"
	mkdir "$MNT/a/c"
	rmdir "$MNT/a/c"
	cg_wait_for "$CG_TMP/agent.out" /a
	crash

	cg_mount -o "state=$STATE"
	[ -d "$MNT/a" ]
	# A call after the replay (for /b) is the new daemon's first agent:
	# none was started for the replay (they start in the order of calls).
	mkdir -p "$MNT/b/c"
	echo 1 >"$MNT/b/notify_on_release"
	rmdir "$MNT/b/c"
	cg_wait_for "$CG_TMP/agent.out" /b
	assert_equal "$(grep '^release_agent_runs ' "$MNT/cgfused.stat")" "release_agent_runs 1"
	run cat "$CG_TMP/agent.out"
	assert_output $'/a\n/b'
}

@test "state=none keeps nothing" {
	cg_mount -o state=none
	mkdir "$MNT/a"
	crash
	cg_mount -o state=none
	[ ! -e "$MNT/a" ]
	run ls "$CG_TMP"
	refute_output --partial .state
}

@test "two daemons on one state file: the second fails with a clear message" {
	cg_mount -o "state=$STATE"
	mkdir "$CG_TMP/mnt2"
	run --separate-stderr timeout 20 "$CGFUSED" -f -o "state=$STATE" "$CG_TMP/mnt2" 3>&-
	assert_failure
	[ "$status" -ne 124 ]
	[[ $stderr == *"$STATE is in use by another cgfused"* ]]
	refute cg_is_mounted "$CG_TMP/mnt2"
	[ -d "$MNT" ]
	mkdir "$MNT/still-works"
}

@test "the default state is /var/lib/cgfused/<mount path>.state, in a 0700 directory" {
	local name=${MNT#/}
	name=${name//%/%25}
	name=${name//-/%2D}
	DEFAULT_STATE=/var/lib/cgfused/${name//\//-}.state
	[ ! -e "$DEFAULT_STATE" ]
	"$CGFUSED" -f "$MNT" >>"$CG_TMP/cgfused.log" 2>&1 3>&- &
	CG_PID=$!
	CG_DAEMONS+=("$CG_PID")
	CG_MOUNTS+=("$MNT")
	cg_wait_mounted "$MNT" "$CG_PID"
	mkdir "$MNT/a"
	grep -q "^mkdir =[^ ]* [0-9]* 0 =a " "$DEFAULT_STATE.log"
	run stat -c %a /var/lib/cgfused
	assert_output 700
}

@test "a symbolic link as FILE, FILE.log or FILE.tmp is refused; its target is left as it is" {
	local suffix
	printf precious >"$CG_TMP/victim"
	cp "$CG_TMP/victim" "$CG_TMP/victim.orig"
	for suffix in "" .log .tmp; do
		ln -s "$CG_TMP/victim" "$STATE$suffix"
		refused "$STATE" "$STATE$suffix is not a cgfused state file" "symbolic link"
		cmp "$CG_TMP/victim" "$CG_TMP/victim.orig"
		rm "$STATE$suffix"
	done
	[ ! -e "$STATE" ] && [ ! -e "$STATE.tmp" ]
}

@test "a FILE.log another user made, or one others may write, is refused: nothing in it is replayed" {
	records "cgfused-log 2 0" "write =cpuset,cpu,cpuacct 0 =release_agent =$CG_TMP/evil" \
		>"$STATE.log"
	chmod 0600 "$STATE.log"
	cp "$STATE.log" "$CG_TMP/log.orig"
	chown nobody "$STATE.log"
	refused "$STATE" "$STATE.log is not a cgfused state file" "belongs to another user"
	cmp "$STATE.log" "$CG_TMP/log.orig"
	chown root "$STATE.log"
	chmod 0620 "$STATE.log"
	refused "$STATE" "$STATE.log" "writable by its group or others"
	chmod 0606 "$STATE.log"
	refused "$STATE" "$STATE.log" "writable by its group or others"
	cmp "$STATE.log" "$CG_TMP/log.orig"
	# The same log, root's and 0600, is replayed: what was refused was its owner or mode.
	chmod 0600 "$STATE.log"
	cg_mount -o "state=$STATE"
	run cat "$MNT/release_agent"
	assert_output "$CG_TMP/evil"
}

@test "a state directory others may write, or below one that is not sticky, or not ours, is refused" {
	local p=$CG_TMP/p d=$CG_TMP/p/d
	mkdir -m 0700 "$p" "$d"
	chmod 0770 "$d"
	refused "$d/s.state" "a directory on the path of $d/s.state, $d, is writable by its group:"
	chmod 0702 "$d"
	refused "$d/s.state" "a directory on the path of $d/s.state, $d, is writable by others"
	chmod 1777 "$d"		# sticky is not enough for the state's own directory
	refused "$d/s.state" "a directory on the path of $d/s.state, $d, is writable by its group and others"
	chmod 0700 "$d"
	chown nobody "$d"
	refused "$d/s.state" "a directory on the path of $d/s.state, $d, belongs to uid $(id -u nobody)"
	chown root "$d"
	chmod 0775 "$p"
	refused "$d/s.state" "a directory on the path of $d/s.state, $p, is writable by its group:"
	chown nobody "$p"
	chmod 0755 "$p"
	refused "$d/s.state" "a directory on the path of $d/s.state, $p, belongs to uid $(id -u nobody)"
	chown root "$p"
	# A link to the directory is followed, and what it leads to checked.
	chmod 0757 "$p"
	ln -s "$d" "$CG_TMP/link"
	refused "$CG_TMP/link/s.state" "a directory on the path of $CG_TMP/link/s.state, $p, is writable by others"
	[ ! -e "$d/s.state" ] && [ ! -e "$d/s.state.log" ]
	# Above the state's own directory, a sticky one (like /tmp) is fine.
	chmod 1777 "$p"
	cg_mount -o "state=$CG_TMP/link/s.state"
	mkdir "$MNT/a"
	grep -q "^mkdir =[^ ]* [0-9]* 0 =a " "$d/s.state.log"
}

@test "a FILE or FILE.log that does not start with cgfused's header is refused and left byte for byte" {
	local name kind
	mkdir -m 0700 "$CG_TMP/kinds"
	: >"$CG_TMP/kinds/empty"
	cp /bin/true "$CG_TMP/kinds/elf"
	printf '\0cgfused-state 1 0\n' >"$CG_TMP/kinds/nul-led"
	head -c 4096 /dev/urandom | tr -d '\000\n' >"$CG_TMP/kinds/random"
	printf 'some notes, no newline' >"$CG_TMP/kinds/text"
	printf 'cgfused-state 1 0 =x' >"$CG_TMP/kinds/torn-header"
	for name in "$STATE" "$STATE.log" "$STATE.log2"; do
		for kind in empty elf nul-led random text torn-header; do
			cp "$CG_TMP/kinds/$kind" "$name"
			chmod 0600 "$name"
			refused "$STATE" "$name is not a cgfused state file"
			cmp "$name" "$CG_TMP/kinds/$kind" || { echo "$kind as $name was changed" >&2; return 1; }
			rm "$name"
			# FILE.log2 is checked after FILE.log is made (and locked).
			[[ $name != "$STATE.log2" ]] || rm "$STATE.log"
		done
	done
	[ ! -e "$STATE" ] && [ ! -e "$STATE.log" ] && [ ! -e "$STATE.log2" ] && [ ! -e "$STATE.tmp" ]
}

@test "a FIFO, a directory or a file with another hard link as FILE is refused at once" {
	mkfifo -m 0600 "$STATE"
	refused "$STATE" "$STATE is not a cgfused state file" "not a regular file"
	rm "$STATE"
	mkdir "$STATE"
	refused "$STATE" "not a regular file"
	rmdir "$STATE"
	records "cgfused-state 1 0 =x" >"$CG_TMP/other"
	chmod 0600 "$CG_TMP/other"
	ln "$CG_TMP/other" "$STATE"
	refused "$STATE" "other hard links"
}

@test "what a crash leaves is used: an empty or zero-filled log beside the snapshot, a cut FILE.tmp" {
	cg_mount -o "state=$STATE"
	mkdir "$MNT/a"
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	: >"$STATE.log"
	cg_mount -o "state=$STATE"
	[ -d "$MNT/a" ]
	mkdir "$MNT/b"
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	head -c 1048576 /dev/zero >"$STATE.log"
	printf 'cgfused-state 1 9 =x #000' >"$STATE.tmp"
	chmod 0600 "$STATE.tmp"
	cg_mount -o "state=$STATE"
	[ -d "$MNT/a" ] && [ -d "$MNT/b" ]
	[ ! -e "$STATE.tmp" ]
	run head -c 12 "$STATE.log"
	assert_output "cgfused-log "
}

@test "a state file inside the mount point, or in any cgfused mount, is refused at start" {
	local m2=$CG_TMP/m2
	refused "$MNT/in.state" "state file $MNT/in.state is inside the mount point $MNT"
	refused "$MNT/not/yet/in.state" "inside the mount point"
	ln -s "$MNT" "$CG_TMP/link"
	refused "$CG_TMP/link/in.state" "inside the mount point"
	[ ! -e "$MNT/in.state" ] && [ ! -e "$MNT/in.state.log" ]
	# In another daemon's mount: $MNT is now a cgfused mount, m2 the new one.
	cg_mount -o state=none
	mkdir "$MNT/g" "$m2"
	CG_MOUNTS+=("$m2")
	run --separate-stderr timeout -k 5 10 "$CGFUSED" -f -o "state=$MNT/g/x.state" "$m2" 3>&-
	[ "$status" -ne 124 ] && [ "$status" -ne 137 ]
	assert_failure
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"state file $MNT/g/x.state is in the cgfused mount $MNT"* ]]
	refute cg_is_mounted "$m2"
}

# small_fs SIZE: a tmpfs of SIZE on $SMALL, for the state (outside
# $CG_TMP, which cg_teardown removes while it is still mounted).
small_fs() {
	SMALL=$(mktemp -d /tmp/cgfused-small.XXXXXX)
	mount -t tmpfs -o "size=$1,mode=0700" cgfused-test "$SMALL"
	STATE=$SMALL/s.state
}

@test "the state grows with the groups and their names' bytes, not their depth" {
	local name i n=100 size names
	name=$(printf 'n%.0s' {1..200})
	cg_mount -o "state=$STATE,max_depth=$n"
	(
		cd "$MNT"
		for ((i = 0; i < n; i++)); do
			mkdir "$name" && cd "$name" || exit 1
		done
	)
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	# Names: n * 200 bytes; paths would have been n^2 / 2 * 200 (1 MB) in
	# each of a group's records.
	size=$(stat -c %s "$STATE")
	names=$((n * 200))
	echo "state: $size bytes for $names bytes of names" >&2
	[ "$size" -lt $((2 * names + 2000 * n)) ]

	cg_mount -o "state=$STATE,max_depth=$n"
	[ -d "$MNT/$name/$name/$name" ]
	(
		cd "$MNT"
		for ((i = 0; i < n - 1; i++)); do
			cd "$name" || exit 1
		done
		[ -d "$name" ] && [ ! -e "$name/$name" ]
	)
}

@test "mkdir past max_depth or max_descendants is EAGAIN" {
	cg_mount -o "state=$STATE,max_depth=3,max_descendants=5"
	mkdir -p "$MNT/a/b/c"
	run mkdir "$MNT/a/b/c/d"
	assert_failure
	assert_output --partial "Resource temporarily unavailable"
	mkdir "$MNT/x" "$MNT/y"
	run mkdir "$MNT/z"
	assert_failure
	assert_output --partial "Resource temporarily unavailable"
	rmdir "$MNT/y"
	mkdir "$MNT/z"
	[ ! -e "$MNT/y" ]
}

@test "on a full disk a change is refused (ENOSPC); every change answered survives kill -9" {
	local i long agent= shares=1024 made=() refused=0
	small_fs 512k
	cg_mount -o "state=$STATE"
	mkdir "$MNT/g"
	# What the state did not take: the disk is full from now on.
	dd if=/dev/zero of="$SMALL/fill" bs=4k >/dev/null 2>&1 || true
	# Long release agents (3 KiB records) use the log's room up quickly.
	long=$(printf 'a%.0s' {1..3000})
	for ((i = 0; i < 200 && refused == 0; i++)); do
		if echo "/$i/$long" >"$MNT/release_agent" 2>"$CG_TMP/err"; then
			agent=/$i/$long
		else
			grep -q "No space left on device" "$CG_TMP/err"
			refused=1
		fi
	done
	echo "$i release agents written" >&2
	[ "$refused" -eq 1 ]
	[ -n "$agent" ]
	# Short records may still fit in the room left; then they are refused.
	for ((i = 0; i < 400; i++)); do
		echo $((i + 2)) >"$MNT/g/cpu.shares" 2>/dev/null && shares=$((i + 2))
		mkdir "$MNT/n$i" 2>"$CG_TMP/err" && made+=("n$i")
	done
	grep -q "No space left on device" "$CG_TMP/err"
	echo "${#made[@]} groups made" >&2
	[ "${#made[@]}" -lt 400 ]
	run ls "$MNT"
	assert_output --partial g
	crash
	rm "$SMALL/fill"

	cg_mount -o "state=$STATE"
	cg_expect_read "$MNT/release_agent" "$agent"
	cg_expect_read "$MNT/g/cpu.shares" "$shares"
	cg_expect_done
	run bash -c "cd '$MNT' && ls -d n[0-9]* 2>/dev/null | sort"
	assert_output "$(printf '%s\n' "${made[@]}" | sort)"
}

@test "a state on a 256 KiB file system starts and keeps what it is told" {
	small_fs 256k
	cg_mount -o "state=$STATE"
	mkdir "$MNT/a"
	echo 300 >"$MNT/a/cpu.shares"
	crash
	cg_mount -o "state=$STATE"
	cg_expect_read "$MNT/a/cpu.shares" 300
	cg_expect_done
}

@test "cpu.cfs_burst_us, cpu.idle and the RT bandwidth come back after kill -9" {
	cg_mount -o "state=$STATE"
	mkdir -p "$MNT/g/sub"
	echo 50000 >"$MNT/g/cpu.cfs_quota_us"
	echo 20000 >"$MNT/g/cpu.cfs_burst_us"
	echo 1 >"$MNT/g/cpu.idle"
	echo 2000000 >"$MNT/g/cpu.rt_period_us"
	echo 1500000 >"$MNT/g/cpu.rt_runtime_us"
	echo 300000 >"$MNT/g/sub/cpu.rt_runtime_us"
	crash
	cg_mount -o "state=$STATE"
	cg_expect_read "$MNT/g/cpu.cfs_burst_us" 20000
	cg_expect_read "$MNT/g/cpu.idle" 1
	cg_expect_read "$MNT/g/cpu.rt_period_us" 2000000
	cg_expect_read "$MNT/g/cpu.rt_runtime_us" 1500000
	cg_expect_read "$MNT/g/sub/cpu.rt_runtime_us" 300000
	cg_expect_done
}

@test "the cpuset flags come back after kill -9 and after a clean stop, exclusive siblings included" {
	cg_mount -o "state=$STATE"
	# New groups start with their parent's sets (clone_children): b
	# leaves a's CPU and node before a becomes exclusive.
	mkdir "$MNT/a" "$MNT/b"
	echo '' >"$MNT/b/cpuset.mems"
	echo 1 >"$MNT/b/cpuset.cpus"
	echo 0 >"$MNT/a/cpuset.cpus"
	echo 1 >"$MNT/a/cpuset.cpu_exclusive"
	echo 1 >"$MNT/a/cpuset.mem_exclusive"
	mkdir "$MNT/a/sub"
	echo 1 >"$MNT/a/sub/cpuset.cpu_exclusive"
	echo 1 >"$MNT/b/cpuset.cpu_exclusive"
	echo 0 >"$MNT/b/cpuset.sched_load_balance"
	echo 2 >"$MNT/b/cpuset.sched_relax_domain_level"
	echo 1 >"$MNT/b/cpuset.memory_spread_page"
	echo 1 >"$MNT/b/cpuset.memory_migrate"
	echo 1 >"$MNT/cpuset.memory_pressure_enabled"
	local round
	for round in crash stop; do
		if [ $round = crash ]; then
			crash
		else
			kill -TERM "$CG_PID"
			cg_wait_gone "$CG_PID"
		fi
		cg_mount -o "state=$STATE"
		cg_expect_read "$MNT/a/cpuset.cpu_exclusive" 1
		cg_expect_read "$MNT/a/cpuset.mem_exclusive" 1
		cg_expect_read "$MNT/a/sub/cpuset.cpu_exclusive" 1
		cg_expect_read "$MNT/a/sub/cpuset.cpus" 0
		cg_expect_read "$MNT/b/cpuset.cpus" 1
		cg_expect_read "$MNT/b/cpuset.mems" ''
		cg_expect_read "$MNT/b/cpuset.cpu_exclusive" 1
		cg_expect_read "$MNT/b/cpuset.sched_load_balance" 0
		cg_expect_read "$MNT/b/cpuset.sched_relax_domain_level" 2
		cg_expect_read "$MNT/b/cpuset.memory_spread_page" 1
		cg_expect_read "$MNT/b/cpuset.memory_migrate" 1
		cg_expect_read "$MNT/b/cpuset.mem_hardwall" 0
		cg_expect_read "$MNT/cpuset.memory_pressure_enabled" 1
		cg_expect_done
	done
}

# generation FILE: the generation in FILE's header.
generation() {
	sed -n '1s/^cgfused-state [0-9]* \([0-9]*\) .*/\1/p' "$1"
}

@test "kill -9 while writes and mkdirs set off compactions: every change answered survives, once" {
	local round gen0 gen last py i got
	cg_mount -o "state=$STATE"
	for round in 1 2 3; do
		gen0=$(generation "$STATE")
		# A setting written again and again (a small snapshot: a
		# compaction every 4096 records) and a group every 64 writes, as
		# fast as a client can; a line once each was answered.
		mkdir "$MNT/r$round"
		"$CG_PYTHON" -c '
import os, sys
top = sys.argv[1]
i = 0
while True:
    try:
        with open(top + "/cpu.shares", "w") as f:
            f.write(str(i + 2))
        if i % 64 == 0:
            os.mkdir("%s/g%d" % (top, i))
    except OSError:
        break
    print(i, flush=True)
    i += 1
' "$MNT/r$round" >"$CG_TMP/acked.$round" 2>/dev/null 3>&- &
		py=$!
		CG_HELPERS+=("$py")
		# Killed in round 1 as soon as a compaction's FILE.tmp appears
		# (before its rename if the kill is quick enough: then FILE and
		# both logs are replayed; test-state's compaction-crash kills at
		# each step for sure), later once a snapshot has been renamed
		# into place (the old log then being emptied, the new one taking
		# records), and a little after.
		if ((round == 1)); then
			SECONDS=0
			until [ -e "$STATE.tmp" ] || ((SECONDS > 20)); do :; done
		else
			for ((i = 0; i < 1000; i++)); do
				[ "$(generation "$STATE")" -gt "$gen0" ] && break
				sleep 0.02
			done
			sleep "0.0$((round - 2))"
		fi
		crash
		gen=$(generation "$STATE")
		[ -e "$STATE.tmp" ] && echo "round $round: killed before the rename" >&2
		wait "$py" || true
		echo "round $round: $(wc -l <"$CG_TMP/acked.$round") changes answered," \
			"snapshot generation $gen0 -> $gen" >&2
		[ "$gen" -gt "$gen0" ] || [ -e "$STATE.tmp" ]
		cg_mount -o "state=$STATE"
		for ((r = 1; r <= round; r++)); do
			last=$(tail -n 1 "$CG_TMP/acked.$r")
			[ -n "$last" ]
			# The last write answered, or the one after it (made, not
			# answered).
			got=$(cat "$MNT/r$r/cpu.shares")
			[ "$got" -eq $((last + 2)) ] || [ "$got" -eq $((last + 3)) ] ||
				{ echo "r$r/cpu.shares: $got, last answered $((last + 2))" >&2; false; }
			for ((i = 0; i <= last; i += 64)); do
				[ -d "$MNT/r$r/g$i" ] || { echo "r$r/g$i lost" >&2; false; }
			done
		done
		# A record applied twice (a mkdir again) would be refused, and said.
		run grep -c "not applied" "$CG_TMP/cgfused.log"
		assert_output 0
	done
}
