#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The daemon as a service: its log lines in syslog once in the background,
# the line a user without privileges gets, mount(8) and fstab through
# mount.fuse3, and the systemd units (docs/cgfused.8.scd, LOGS, MOUNT(8)
# AND FSTAB, SERVICE).

load helpers

setup() {
	cg_setup
}

teardown() {
	cg_teardown
}

# cg_syslog_listen: a unix datagram socket at $CG_TMP/log.sock, as a syslog
# daemon's /dev/log; each message it receives is one line of $CG_TMP/syslog.
cg_syslog_listen() {
	"$CG_PYTHON" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as out:
    while True:
        out.write(s.recv(65536).decode("utf-8", "replace").rstrip("\n") + "\n")
        out.flush()
' "$CG_TMP/log.sock" "$CG_TMP/syslog" >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	touch "$CG_TMP/syslog"
	cg_poll_until test -S "$CG_TMP/log.sock"	# the listener has started
}

# cg_in_logns SCRIPT [ARGS...]: runs bash SCRIPT in a mount namespace of
# its own whose /dev holds null, fuse, the random devices and, as /dev/log,
# the listener's socket if there is one: glibc's syslog() writes there and
# nowhere else; and as /dev/console the FIFO $CG_TMP/console if there is
# one (cg_console_listen), where syslog() writes with LOG_CONS when nothing
# listens.
# What the script mounts stays in that namespace (and goes with it).
cg_in_logns() {
	local dev=$CG_TMP/dev n
	mkdir "$dev"
	for n in null fuse random urandom; do
		touch "$dev/$n"
	done
	[ ! -S "$CG_TMP/log.sock" ] || touch "$dev/log"
	[ ! -p "$CG_TMP/console" ] || touch "$dev/console"
	unshare -m --propagation private bash -c '
set -e
dev=$1; shift
for n in null fuse random urandom; do mount --bind "/dev/$n" "$dev/$n"; done
[ ! -e "$dev/log" ] || mount --bind "${dev%/dev}/log.sock" "$dev/log"
[ ! -e "$dev/console" ] || mount --bind "${dev%/dev}/console" "$dev/console"
ln -s /proc/self/fd "$dev/fd"
mount --rbind "$dev" /dev
bash -c "$@"
' _ "$dev" "$@"
}

# ---- logs --------------------------------------------------------------------

# bg_failing_agent LOG: in cg_in_logns, the daemon in the background (no
# -f), 10 groups released to an agent that cannot run until $CG_TMP/LOG
# has the 10th failure, then an unmount, which stops it. The EXIT trap
# unmounts whatever happened, so the daemon ends.
bg_failing_agent() {
	run cg_in_logns '
set -e
t=$1
trap "umount -l $t/mnt 2>/dev/null || true" EXIT
"$CGFUSED" -o "state=$t/s.state,controllers=cpu:cpuset" "$t/mnt"
echo /nonexistent/agent > "$t/mnt/cpu/release_agent"
for i in 1 2 3 4 5 6 7 8 9 10; do
	mkdir "$t/mnt/cpu/g$i"
	echo 1 > "$t/mnt/cpu/g$i/notify_on_release"
	sh -c "echo \$\$ > $t/mnt/cpu/g$i/tasks"
done
for i in $(seq 200); do
	grep -q "10 times in a row" "$t/$2" && break
	sleep 0.05
done
umount "$t/mnt"
' _ "$CG_TMP" "$1"
}

@test "in the background it logs to syslog: a start line, a failing release_agent once then counted, a stop line" {
	cg_syslog_listen
	bg_failing_agent syslog
	assert_success
	# Its one line on the terminal, before it went to the background.
	assert_output "cgfused: mounted at $CG_TMP/mnt; messages go to syslog (journalctl -t cgfused)"
	# The daemon's PID from its lines, for teardown if it did not stop.
	local pid
	pid=$(sed -n 's/^<[0-9]*>.* cgfused\[\([0-9]*\)\]: .*/\1/p' "$CG_TMP/syslog" | head -1)
	[[ $pid =~ ^[0-9]+$ ]]
	CG_DAEMONS+=("$pid")
	cg_wait_for -E "$CG_TMP/syslog" 'stopped: .*/mnt was unmounted'
	cg_wait_gone "$pid"
	# Facility daemon (3): <30> is info, <28> a warning.
	grep -qE "^<30>.* cgfused\[$pid\]: cgfused [0-9.]+ serving $CG_TMP/mnt: controllers cpu:cpuset, state $CG_TMP/s.state$" "$CG_TMP/syslog"
	run grep -E '^<28>.*release_agent' "$CG_TMP/syslog"
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --regexp "release_agent /nonexistent/agent /g[0-9]+: .*No such file or directory.* \(said once; repeats are counted\)$"
	assert_line --index 1 --regexp "release_agent /nonexistent/agent /g[0-9]+: .* \(10 times in a row\)$"
	grep -qE "^<30>.* cgfused\[$pid\]: cgfused stopped: $CG_TMP/mnt was unmounted$" "$CG_TMP/syslog"
}

# cg_console_listen: a FIFO at $CG_TMP/console, as a console: each line
# written to it goes to $CG_TMP/console.log. (A file would not do: glibc
# opens the console for each message, without O_APPEND.) Its reader holds
# it open for writing too, so that it sees no end when a writer closes.
cg_console_listen() {
	mkfifo "$CG_TMP/console"
	touch "$CG_TMP/console.log"
	cat <>"$CG_TMP/console" >"$CG_TMP/console.log" 2>/dev/null 3>&- &
	CG_HELPERS+=("$!")
}

@test "in the background with no syslog listening: the start line says so, and its lines reach /dev/console" {
	cg_console_listen
	bg_failing_agent console.log
	assert_success
	assert_output "cgfused: mounted at $CG_TMP/mnt; messages go to /dev/console (nothing listens on /dev/log)"
	local pid
	pid=$(sed -n 's/^cgfused\[\([0-9]*\)\]: .*/\1/p' "$CG_TMP/console.log" | head -1)
	[[ $pid =~ ^[0-9]+$ ]]
	CG_DAEMONS+=("$pid")
	cg_wait_for -E "$CG_TMP/console.log" "^cgfused\[$pid\]: cgfused stopped: $CG_TMP/mnt was unmounted"
	cg_wait_gone "$pid"
	grep -qE "^cgfused\[$pid\]: cgfused [0-9.]+ serving $CG_TMP/mnt: controllers cpu:cpuset, state $CG_TMP/s.state" "$CG_TMP/console.log"
	grep -qE "^cgfused\[$pid\]: release_agent /nonexistent/agent /g[0-9]+: .*No such file.*said once" "$CG_TMP/console.log"
	grep -qE "^cgfused\[$pid\]: release_agent /nonexistent/agent /g[0-9]+: .*10 times in a row" "$CG_TMP/console.log"
}

@test "in the foreground (-f) its lines stay on stderr, syslog hears nothing" {
	cg_syslog_listen
	run cg_in_logns '
t=$1
"$CGFUSED" -f -o "state=none" "$t/mnt" 2>"$t/stderr" &
for i in $(seq 200); do
	grep -q serving "$t/stderr" && break
	sleep 0.05
done
echo /nonexistent/agent > "$t/mnt/release_agent"
mkdir "$t/mnt/g"
echo 1 > "$t/mnt/g/notify_on_release"
sh -c "echo \$\$ > $t/mnt/g/tasks"
for i in $(seq 200); do
	grep -q "release_agent /nonexistent" "$t/stderr" && break
	sleep 0.05
done
umount "$t/mnt"
wait
' _ "$CG_TMP"
	assert_success
	run cat "$CG_TMP/stderr"
	assert_line --index 0 --regexp "^cgfused: cgfused [0-9.]+ serving $CG_TMP/mnt: controllers cpu,cpuacct,cpuset,freezer, state none$"
	assert_line --regexp "^\*\* \(cgfused:[0-9]+\): WARNING \*\*: .*release_agent /nonexistent/agent /g: .*No such file"
	assert_line "cgfused: cgfused stopped: $CG_TMP/mnt was unmounted"
	[ ! -s "$CG_TMP/syslog" ]
}

# ---- not root ----------------------------------------------------------------

# As nobody (65534), with the capabilities given as setpriv options.
cg_as_user() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# mount_as_user CAPS [OPTIONS]: with a usable /dev/fuse, as nobody with CAPS
# (setpriv --inh-caps=CAPS --ambient-caps=CAPS), cgfused mounts on $MNT
# (with -o state=none,OPTIONS); nobody
# makes a group there and reads it; output: its owner, its cpu.shares, and
# the daemon's exit status. The daemon's stderr goes to $CG_TMP/stderr.
mount_as_user() {
	chmod 755 "$CG_TMP"
	chown 65534 "$MNT"
	# A /dev/fuse every user may open, in a mount namespace of the test's
	# own: the machine's stays as it is.
	mknod -m 666 "$CG_TMP/fuse" c 10 229
	unshare -m --propagation private bash -c '
t=$1
mount --bind "$t/fuse" /dev/fuse
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=$2 \
	--ambient-caps=$2 "$CGFUSED" -f -o state=none$3 "$t/mnt" 2>"$t/stderr" 3>&- &
pid=$!
for i in $(seq 200); do
	grep -q serving "$t/stderr" && break
	kill -0 $pid || break
	sleep 0.05
done
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "
	mkdir $t/mnt/mine && stat -c %u $t/mnt/mine && cat $t/mnt/mine/cpu.shares"
umount "$t/mnt" || umount -l "$t/mnt"
wait $pid
echo "exit $?"
' _ "$CG_TMP" "$1" "${2:+,$2}"
}

@test "as a user with CAP_NET_ADMIN and a usable /dev/fuse it mounts a hierarchy the user owns" {
	run mount_as_user +net_admin
	assert_success
	assert_output "65534
1024
exit 0"
	run cat "$CG_TMP/stderr"
	assert_line --partial "no CAP_SYS_NICE and RLIMIT_NICE 0: nice values can only be raised"
	refute_line --regexp "proc connector (is refused|does not deliver)"
	assert_line "cgfused: tracking forks by the proc connector"
}

# The proc connector refuses it: forks are followed by ptrace (no Yama
# here: a user may trace its own tasks), or by the /proc scan when asked.
@test "as a user without CAP_NET_ADMIN it mounts too, following forks by ptrace" {
	run mount_as_user -all
	assert_success
	assert_output "65534
1024
exit 0"
	run cat "$CG_TMP/stderr"
	assert_line --partial "tracking forks by ptrace: the proc connector is refused (Operation not permitted"
}

@test "as a user without CAP_NET_ADMIN, tracking=scan follows forks by the /proc scan" {
	run mount_as_user -all tracking=scan
	assert_success
	assert_output "65534
1024
exit 0"
	run cat "$CG_TMP/stderr"
	assert_line --partial "tracking forks by /proc scan every 50 ms"
}

# ---- mount(8) and fstab ----------------------------------------------------------

@test "mount -t fuse.cgfused and an fstab line mount it through mount.fuse3, with their options; umount stops it" {
	# mount.fuse3 finds "cgfused" in the default PATH: in a mount namespace
	# of the test's own, /usr/local/sbin holds the binary under test.
	mkdir "$CG_TMP/sbin"
	ln -s "$CGFUSED" "$CG_TMP/sbin/cgfused"
	printf 'cgfused %s fuse.cgfused state=%s,controllers=cpu:cpuset,nofail 0 0\n' \
		"$MNT" "$CG_TMP/s.state" >"$CG_TMP/fstab"
	run unshare -m --propagation private bash -c '
set -e
t=$1
trap "umount -l $t/mnt 2>/dev/null || true" EXIT
mount --bind "$t/sbin" /usr/local/sbin
# Waits for the daemon of the mount to go, as umount does not.
gone() {
	for i in $(seq 200); do
		pgrep -f "cgfused cgfused $t/mnt " >/dev/null || return 0
		sleep 0.05
	done
	return 1
}
mount -t fuse.cgfused cgfused "$t/mnt" -o "state=$t/s.state,controllers=cpu:cpuset" 2>"$t/said"
grep " $t/mnt fuse.cgfused " /proc/mounts | cut -d" " -f1,3
# mount(8) passes dev,suid: the mount is nosuid,nodev all the same.
grep " $t/mnt fuse.cgfused " /proc/mounts | cut -d" " -f4 | tr , "\n" | grep -E "^no(suid|dev)$"
ls "$t/mnt"
mkdir "$t/mnt/cpu/kept"
umount "$t/mnt"
gone
mount -T "$t/fstab" "$t/mnt" 2>>"$t/said"
ls "$t/mnt/cpu/kept/cpu.shares"
umount "$t/mnt"
gone
grep -c " $t/mnt " /proc/mounts || true
# The daemon, in the background, said where it is, once each time.
cut -d";" -f1 "$t/said"
' _ "$CG_TMP"
	assert_success
	assert_output "cgfused fuse.cgfused
nosuid
nodev
cpu
cpuset
$MNT/cpu/kept/cpu.shares
0
cgfused: mounted at $MNT
cgfused: mounted at $MNT"
}

@test "the source and mount point of mount.fuse3's command line: a third argument is refused in one line" {
	run --separate-stderr timeout 20 "$CGFUSED" -f cgfused "$MNT" extra -o state=none 3>&-
	assert_failure 1
	assert_equal "$stderr" "cgfused: too many arguments: a mount point, or a source and a mount point (try $CGFUSED --help)"
	refute cg_is_mounted "$MNT"
	# The mount.fuse3 form itself, in the foreground.
	cg_mount cgfused -o state=none,rw,dev,suid
	run cat "$MNT/cpu.shares"
	assert_output 1024
}

# ---- systemd units -----------------------------------------------------------

# cg_units: the built units in $CG_TMP/units, ExecStart's binary (where
# make install would put it) replaced by the one under test, which
# systemd-analyze verify checks exists.
cg_units() {
	local u
	mkdir "$CG_TMP/units"
	for u in cgfused.service cgfused@.service; do
		sed "s|^ExecStart=/[^ ]*/cgfused |ExecStart=$CGFUSED |" "$CGFUSED_UNITS/$u" >"$CG_TMP/units/$u"
		grep -q "^ExecStart=$CGFUSED -f \$CGFUSED_OPTIONS " "$CG_TMP/units/$u"
	done
}

@test "cgfused.service and cgfused@.service pass systemd-analyze verify, and verify catches a broken one" {
	cg_units
	cd "$CG_TMP/units"
	run systemd-analyze verify --man=no ./cgfused.service ./cgfused@run-cgfused-build.service
	assert_success
	assert_output ""
	grep -qx 'ExecStart=.* \$CGFUSED_OPTIONS /run/cgfused/cg' cgfused.service
	grep -qx 'ExecStart=.* \$CGFUSED_OPTIONS %f' cgfused@.service
	for u in cgfused.service cgfused@.service; do
		grep -qx Type=notify "$u"
		grep -qx Restart=on-failure "$u"
		grep -qx OOMScoreAdjust=-1000 "$u"
		grep -qx StateDirectory=cgfused "$u"
		# Neither v1 nor v2: -o unified in CGFUSED_OPTIONS makes it v2.
		grep -qx 'Description=cgroup hierarchy served by cgfused on .*' "$u"
	done
	sed 's/^Type=notify/Type=notified/' cgfused@.service >broken@.service
	run systemd-analyze verify --man=no ./broken@x.service
	assert_output --partial "Failed to parse service type"
}

# cg_notify_listen ADDRESS: a unix datagram socket at ADDRESS (a path, or
# @NAME in the abstract namespace), as systemd's NOTIFY_SOCKET; each
# message goes to $CG_TMP/notified as a line, with "served" after it if
# $MNT/cpu.shares was there when it came.
cg_notify_listen() {
	"$CG_PYTHON" -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + sys.argv[1][1:] if sys.argv[1][0] == "@" else sys.argv[1])
open(sys.argv[2], "a").close()
with open(sys.argv[2], "a") as out:
    while True:
        m = s.recv(4096).decode()
        served = os.path.exists(os.path.join(sys.argv[3], "cpu.shares"))
        out.write(m + (" served" if served else " not served") + "\n")
        out.flush()
' "$1" "$CG_TMP/notified" "$MNT" >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	cg_poll_until test -e "$CG_TMP/notified"	# bound
}

@test "Type=notify: READY=1 on NOTIFY_SOCKET once the hierarchy is served, STOPPING=1 at the stop" {
	cg_notify_listen "$CG_TMP/notify.sock"
	NOTIFY_SOCKET=$CG_TMP/notify.sock cg_mount -o state=none
	cg_poll_until -x "READY=1 served" cat "$CG_TMP/notified"
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	run cat "$CG_TMP/notified"
	assert_line --index 0 "READY=1 served"
	assert_line --index 1 --regexp '^STOPPING=1 '
}

@test "Type=notify: an abstract NOTIFY_SOCKET (@NAME) gets READY=1 too" {
	local name=@cgfused-test-${CG_TMP##*/}
	cg_notify_listen "$name"
	NOTIFY_SOCKET=$name cg_mount -o state=none
	cg_poll_until -x "READY=1 served" cat "$CG_TMP/notified"
}

@test "the units' ExecStopPost takes a dead mount away and leaves a live one and a plain directory alone" {
	local line
	cg_units
	line=$(sed -n 's/^ExecStopPost=-//p' "$CG_TMP/units/cgfused@.service")
	[[ $line == *' sh %f' ]]
	line=${line% %f}' "$MNT"'
	# A plain directory.
	eval "$line"
	[ -d "$MNT" ]
	refute cg_is_mounted "$MNT"
	# A live mount.
	cg_mount -o state=none
	eval "$line"
	cg_is_mounted "$MNT"
	[ "$(cat "$MNT/cpu.shares")" = 1024 ]
	# A dead one.
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	run stat -f "$MNT"
	assert_failure
	eval "$line"
	refute cg_is_mounted "$MNT"
}

# ---- the examples make install puts in share/doc/cgfused/examples -----------

@test "the example cgfused.conf and cgfused.rules are accepted, and make their groups" {
	local d=$TESTS_SRCDIR/../contrib/examples
	# As /etc would hold them: root's, not writable by others.
	install -m 644 "$d/cgfused.conf" "$d/cgfused.rules" "$CG_TMP/"
	cg_mount -o "config=$CG_TMP/cgfused.conf,rules=$CG_TMP/cgfused.rules"
	assert_equal "$(cat "$MNT/build/cpu.shares")" 2048
	assert_equal "$(cat "$MNT/batch/cpu.shares" "$MNT/batch/cpu.cfs_quota_us")" $'128\n50000'
	# Every rule's destination exists: no line about a missing one.
	run grep -i 'rule' "$CG_TMP/cgfused.log"
	assert_output ""
}

# ---- state files of temporary mounts ----------------------------------------

@test "a clean stop with nothing in the state removes its files; a group, a root file written or a crash keeps them" {
	local state=$CG_TMP/mnt.state	# cg_mount's
	cg_mount
	[ -f "$state" ] && [ -f "$state.log" ]
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	[ ! -e "$state" ] && [ ! -e "$state.log" ] && [ ! -e "$state.log2" ]
	# A group is kept, and comes back; once it is gone, nothing is left.
	cg_mount
	mkdir "$MNT/g"
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	[ -f "$state" ] && [ -f "$state.log" ]
	cg_mount
	[ -d "$MNT/g" ]
	rmdir "$MNT/g"
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	[ ! -e "$state" ] && [ ! -e "$state.log" ] && [ ! -e "$state.log2" ]
	# A setting of the root's is something.
	cg_mount -o controllers=cpu:cpuset
	echo /bin/true >"$MNT/cpu/release_agent"
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	grep -q '=release_agent =/bin/true' "$state"
	cg_mount -o controllers=cpu:cpuset
	[ "$(cat "$MNT/cpu/release_agent")" = /bin/true ]
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	[ -f "$state" ]
	rm -f "$state" "$state.log" "$state.log2"
	# A crash is no clean stop, empty or not.
	cg_mount
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	[ -f "$state" ] && [ -f "$state.log" ]
}
