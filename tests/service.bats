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
# the listener's socket: glibc's syslog() writes there and nowhere else.
# What the script mounts stays in that namespace (and goes with it).
cg_in_logns() {
	local dev=$CG_TMP/dev n
	mkdir "$dev"
	for n in null fuse random urandom log; do
		touch "$dev/$n"
	done
	unshare -m --propagation private bash -c '
set -e
dev=$1; shift
for n in null fuse random urandom; do mount --bind "/dev/$n" "$dev/$n"; done
mount --bind "${dev%/dev}/log.sock" "$dev/log"
ln -s /proc/self/fd "$dev/fd"
mount --rbind "$dev" /dev
bash -c "$@"
' _ "$dev" "$@"
}

# ---- logs --------------------------------------------------------------------

@test "in the background it logs to syslog: a start line, a failing release_agent once then counted, a stop line" {
	cg_syslog_listen
	# In the namespace: the daemon in the background (no -f), 10 groups
	# released to an agent that cannot run, then an unmount, which stops
	# it. The EXIT trap unmounts whatever happened, so the daemon ends.
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
	grep -q "10 times in a row" "$t/syslog" && break
	sleep 0.05
done
umount "$t/mnt"
' _ "$CG_TMP"
	assert_success
	assert_output ""
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

# mount_as_user CAPS: with a usable /dev/fuse, as nobody with CAPS (setpriv
# --inh-caps=CAPS --ambient-caps=CAPS), cgfused mounts on $MNT; nobody
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
	--ambient-caps=$2 "$CGFUSED" -f -o state=none "$t/mnt" 2>"$t/stderr" 3>&- &
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
' _ "$CG_TMP" "$1"
}

@test "as a user with CAP_NET_ADMIN and a usable /dev/fuse it mounts a hierarchy the user owns" {
	run mount_as_user +net_admin
	assert_success
	assert_output "65534
1024
exit 0"
	run cat "$CG_TMP/stderr"
	assert_line --partial "not privileged: nice values can only be raised"
	assert_line "cgfused: tracking forks by the proc connector"
}

# The proc connector refuses it: forks are followed by the /proc scan.
@test "as a user without CAP_NET_ADMIN it mounts too, following forks by the /proc scan" {
	run mount_as_user -all
	assert_success
	assert_output "65534
1024
exit 0"
	run cat "$CG_TMP/stderr"
	assert_line --partial "tracking forks by /proc scan every 50 ms: the proc connector is refused (Operation not permitted"
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
mount -t fuse.cgfused cgfused "$t/mnt" -o "state=$t/s.state,controllers=cpu:cpuset"
grep " $t/mnt fuse.cgfused " /proc/mounts | cut -d" " -f1,3
ls "$t/mnt"
mkdir "$t/mnt/cpu/kept"
umount "$t/mnt"
gone
mount -T "$t/fstab" "$t/mnt"
ls "$t/mnt/cpu/kept/cpu.shares"
umount "$t/mnt"
gone
grep -c " $t/mnt " /proc/mounts || true
' _ "$CG_TMP"
	assert_success
	assert_output "cgfused fuse.cgfused
cpu
cpuset
$MNT/cpu/kept/cpu.shares
0"
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
		grep -q "^ExecStart=$CGFUSED \$CGFUSED_OPTIONS " "$CG_TMP/units/$u"
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
		grep -qx Type=forking "$u"
		grep -qx Restart=on-failure "$u"
		grep -qx StateDirectory=cgfused "$u"
	done
	sed 's/^Type=forking/Type=forked/' cgfused@.service >broken@.service
	run systemd-analyze verify --man=no ./broken@x.service
	assert_output --partial "Failed to parse service type"
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
