#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The config file: -o config=FILE declares groups, their
# settings, owners and modes; they are made at mount if missing, the state
# wins for the groups it has, SIGHUP applies what changed in the file, and
# a broken file stops the daemon with file:line.

load helpers

setup() {
	cg_setup
	CONF=$CG_TMP/cgfused.conf
	STATE=$CG_TMP/s.state
}

teardown() {
	cg_teardown
}

# conf TEXT: writes the config (root's, 0644, as the daemon wants it).
conf() {
	printf '%s\n' "$1" >"$CONF"
	chmod 0644 "$CONF"
}

# refused WHY...: cgfused with $CONF on $MNT exits 1 at once, mounting
# nothing, with one line on stderr that contains each WHY.
refused() {
	local why
	CG_MOUNTS+=("$MNT")	# unmounted in teardown if it was mounted after all
	run --separate-stderr timeout -k 5 10 "$CGFUSED" -f -o "state=$STATE" \
		-o "config=$CONF" "$MNT" 3>&-
	[ "$status" -eq 1 ] || { echo "status $status: $stderr" >&2; return 1; }
	[ "${#stderr_lines[@]}" -eq 1 ] || { echo "more than one line: $stderr" >&2; return 1; }
	for why; do
		[[ $stderr == *"$why"* ]] || { echo "'$stderr' lacks '$why'" >&2; return 1; }
	done
	refute cg_is_mounted "$MNT"
}

# stop: a clean stop (SIGTERM), waited for.
stop() {
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
}

# hup TEXT: the daemon's log says TEXT after a SIGHUP (up to 20 s).
hup() {
	local n
	n=$(grep -c -- "$1" "$CG_TMP/cgfused.log" || true)	# 0 matches: status 1
	kill -HUP "$CG_PID"
	cg_poll_until -ge $((n + 1)) grep -c -- "$1" "$CG_TMP/cgfused.log" && return 0
	echo "no '$1' after SIGHUP:" >&2
	cat "$CG_TMP/cgfused.log" >&2
	return 1
}

@test "the config's groups, settings, owners and modes are made at mount" {
	conf '# groups for the build
[/build]
cpu.shares = 2048
owner=1000
group=1001
mode=0750

[/build/sub/deep]
cpuset.cpus=0
tasks_owner=nobody
tasks_group=1002'
	cg_mount -o "state=$STATE" -o "config=$CONF"
	cg_expect_read "$MNT/build/cpu.shares" 2048
	cg_expect_read "$MNT/build/sub/deep/cpuset.cpus" 0
	cg_expect_read "$MNT/build/sub/cpu.shares" 1024
	cg_expect_done
	run stat -c '%n %u:%g %a' "$MNT/build" "$MNT/build/cpu.shares" "$MNT/build/tasks" \
		"$MNT/build/sub" "$MNT/build/sub/deep/tasks" "$MNT/build/sub/deep/cgroup.procs" \
		"$MNT/build/sub/deep/cpu.shares"
	assert_output "$MNT/build 1000:1001 750
$MNT/build/cpu.shares 1000:1001 644
$MNT/build/tasks 1000:1001 644
$MNT/build/sub 0:0 755
$MNT/build/sub/deep/tasks $(id -u nobody):1002 644
$MNT/build/sub/deep/cgroup.procs $(id -u nobody):1002 644
$MNT/build/sub/deep/cpu.shares 0:0 644"
}

@test "a section names one hierarchy or, without controllers, every one" {
	conf '[cpuacct,cpu:/acct]
cpu.shares=64
[cpuset:/pinned]
cpuset.cpus=0
cpuset.mems=0
[/both]
cpu.shares=512
cpuset.mems=0'
	cg_mount -o "state=$STATE" -o "config=$CONF" -o controllers=cpu,cpuacct:cpuset
	[ -d "$MNT/cpuset/pinned" ]
	[ ! -e "$MNT/cpu,cpuacct/pinned" ]
	cg_expect_read "$MNT/cpuset/pinned/cpuset.cpus" 0
	cg_expect_read "$MNT/cpu,cpuacct/both/cpu.shares" 512
	cg_expect_read "$MNT/cpu,cpuacct/acct/cpu.shares" 64
	cg_expect_read "$MNT/cpuset/both/cpuset.mems" 0
	cg_expect_done
}

@test "a broken config stops the daemon at start with file:line and why" {
	conf '[/a]
cpu.shares=2
this line is no key'
	refused "$CONF:3:" "not a key-value pair"
	conf '[/a]
cpu.shares=2
[/b]
colour=blue'
	refused "$CONF:4: colour: not a control file"
	conf '[/a]

owner=no-such-user-here'
	refused "$CONF:3: owner: no such user"
	conf '[/a]
mode=0999'
	refused "$CONF:2: mode: not an octal mode"
	conf '[a/b]'
	refused "$CONF:1: [a/b]: a group is an absolute path"
	conf '[/a/../b]'
	refused "$CONF:1: [/a/../b]"
	conf '[/a]
tasks=1'
	refused "$CONF:2: tasks: the config makes groups, it does not place tasks"
	conf '[memory:/a]'
	refused "$CONF:1: [memory:/a]: no hierarchy of memory in this mount (it has cpuset,cpu,cpuacct,freezer)"
	conf '[/a]
cpu.nonesuch=1'
	refused "$CONF:2: cpu.nonesuch: no such control file in [/a]"
}

@test "a value the core refuses stops the daemon and leaves nothing made" {
	conf '[/a]
cpu.shares=2048
[/a/b]
cpuset.cpus=4096'
	refused "$CONF:4: cpuset.cpus=4096:"
	# What was made before the refusal was undone: the state has nothing.
	cg_mount -o "state=$STATE"
	[ ! -e "$MNT/a" ]
}

@test "a config file anyone could change is refused, and so is a link, a FIFO or a missing one" {
	conf '[/a]'
	chmod 0666 "$CONF"
	refused "config $CONF refused: it is writable by its group or others"
	chmod 0644 "$CONF"
	chown 1000 "$CONF"
	refused "config $CONF refused: it belongs to another user"
	chown 0 "$CONF"
	mv "$CONF" "$CONF.real"
	ln -s "$CONF.real" "$CONF"
	refused "config $CONF refused: it is a symbolic link"
	rm "$CONF"
	mkfifo -m 0644 "$CONF"	# opened, it would block the daemon
	refused "config $CONF refused: it is not a regular file"
	rm "$CONF"
	refused "cannot read config $CONF: No such file or directory"
}

@test "a config below a directory others may write, anywhere on its path, is refused unless that one is sticky" {
	local p=$CG_TMP/p d=$CG_TMP/p/d
	mkdir -m 0755 "$p" "$d"
	CONF=$d/cgfused.conf
	conf '[/a]'
	# Not sticky: whoever may write p may swap d for a directory of their own.
	chmod 0757 "$p"
	refused "cgfused: a directory on the path of $CONF, $p, is writable by others: chmod go-w it, or choose another with -o config=FILE"
	chmod 0775 "$p"
	refused "$CONF, $p, is writable by its group:"
	chmod 0755 "$p"
	chown nobody "$p"
	refused "$CONF, $p, belongs to uid $(id -u nobody), neither root nor this daemon's user"
	chown root "$p"
	# Sticky (like /tmp), above the file or as its own directory: accepted.
	chmod 1777 "$p" "$d"
	cg_mount -o "state=$STATE" -o "config=$CONF"
	[ -d "$MNT/a" ]
}

@test "the state wins for what it has; a group removed at runtime comes back at mount" {
	conf '[/a]
cpu.shares=2048
mode=0750
[/gone]
cpu.shares=300'
	cg_mount -o "state=$STATE" -o "config=$CONF"
	echo 512 >"$MNT/a/cpu.shares"
	chmod 0700 "$MNT/a"
	mkdir "$MNT/a/mine"
	rmdir "$MNT/gone"
	stop
	# The file changes while no daemon runs: the state still wins.
	conf '[/a]
cpu.shares=4096
mode=0755
[/gone]
cpu.shares=300'
	cg_mount -o "state=$STATE" -o "config=$CONF"
	cg_expect_read "$MNT/a/cpu.shares" 512
	cg_expect_read "$MNT/gone/cpu.shares" 300
	cg_expect_done
	[ -d "$MNT/a/mine" ]
	run stat -c %a "$MNT/a"
	assert_output 700
}

@test "SIGHUP applies groups added and settings changed in the file, nothing else" {
	conf '[/a]
cpu.shares=2048
cpu.cfs_quota_us=50000
[/old]
cpu.shares=100'
	cg_mount -o "state=$STATE" -o "config=$CONF"
	echo 700 >"$MNT/a/cpu.shares"		# changed at runtime, same in the file
	echo 1 >"$MNT/old/notify_on_release"
	# What the kernel cached before the reload does not hide its changes.
	[ ! -e "$MNT/new" ]
	stat "$MNT/a" >/dev/null
	conf '[/a]
cpu.shares=2048
cpu.cfs_quota_us=20000
owner=1000
[/new/child]
cpu.shares=3000'
	hup "config: $CONF reloaded"
	cg_expect_read "$MNT/a/cpu.shares" 700
	cg_expect_read "$MNT/a/cpu.cfs_quota_us" 20000
	cg_expect_read "$MNT/new/child/cpu.shares" 3000
	# A group removed from the file stays as it is.
	cg_expect_read "$MNT/old/cpu.shares" 100
	cg_expect_read "$MNT/old/notify_on_release" 1
	cg_expect_done
	run stat -c %u "$MNT/a" "$MNT/a/cpu.shares"
	assert_output $'1000\n1000'
	# What a reload applied is in the state like any change.
	stop
	cg_mount -o "state=$STATE" -o config=none
	cg_expect_read "$MNT/a/cpu.cfs_quota_us" 20000
	cg_expect_read "$MNT/new/child/cpu.shares" 3000
	cg_expect_done
}

@test "a reload that fails changes nothing and the daemon keeps running" {
	conf '[/a]
cpu.shares=2048'
	cg_mount -o "state=$STATE" -o "config=$CONF"
	conf '[/a]
cpu.shares=4096
[/b]
cpu.shares=10
[/b/c]
cpuset.cpus=4096'
	hup "nothing of it applied"
	grep -q "$CONF:6: cpuset.cpus=4096:" "$CG_TMP/cgfused.log"
	cg_expect_read "$MNT/a/cpu.shares" 2048
	cg_expect_done
	[ ! -e "$MNT/b" ]
	conf '[/a]
cpu.shares=2048
[/b'
	hup "nothing of it applied"
	grep -q "$CONF:3:" "$CG_TMP/cgfused.log"
	kill -0 "$CG_PID"
	# The next good file is compared with the one applied last.
	conf '[/a]
cpu.shares=4096'
	hup "reloaded"
	cg_expect_read "$MNT/a/cpu.shares" 4096
	cg_expect_done
}

@test "a relative config= names the file from where cgfused started, in the background too" {
	conf '[/a]
cpu.shares=2048'
	CG_MOUNTS+=("$MNT")
	(cd "$CG_TMP" && "$CGFUSED" -o "state=$STATE" -o config=cgfused.conf "$MNT" 3>&-)
	cg_wait_mounted "$MNT"
	# The daemon forked away: found by its mount point, unique to this test.
	CG_PID=$(pgrep -f -- "config=cgfused.conf $MNT\$")
	[[ $CG_PID =~ ^[0-9]+$ ]]
	[[ $(readlink "/proc/$CG_PID/exe") == $(readlink -f "$CGFUSED") ]]
	CG_DAEMONS+=("$CG_PID")
	[[ $(readlink "/proc/$CG_PID/cwd") == / ]]
	cg_expect_read "$MNT/a/cpu.shares" 2048
	cg_expect_done
	conf '[/a]
cpu.shares=4096'
	kill -HUP "$CG_PID"
	cg_poll_until -x 4096 cat "$MNT/a/cpu.shares"
}

@test "with config=none SIGHUP neither reloads nor stops the daemon" {
	cg_mount -o "state=$STATE" -o config=none
	mkdir "$MNT/a"
	hup "SIGHUP changes nothing"
	kill -0 "$CG_PID"
	[ -d "$MNT/a" ]
}
