#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Rules (-o rules=FILE, cgrules.conf(5)): real processes placed when they
# exec, by user, command name, executable path or script name; % lines;
# cgfused-exec --sticky; SIGHUP reloads; files refused. Every rule names a
# command of the test's own ($CMD, a copy of sleep under a name of its
# own), so that no other process on the machine is moved.

load helpers

setup() {
	cg_setup
	# Readable by the user the tests switch to.
	chmod 755 "$CG_TMP"
	BIN=$CG_TMP/bin
	mkdir -m 755 "$BIN"
	CMD=cgr$$x$RANDOM
	CMD=${CMD:0:15}		# the kernel's command names are 15 bytes
	cp "$(command -v sleep)" "$BIN/$CMD"
	RULES=$CG_TMP/rules
}

teardown() {
	cg_teardown
}

# rules TEXT: the rules file.
rules() {
	printf '%s\n' "$1" >"$RULES"
	chmod 644 "$RULES"
}

# start VAR [PREFIX...]: runs "PREFIX... $BIN/$CMD 1000" in the background,
# its PID in VAR (a helper killed at teardown).
start() {
	local var=$1
	shift
	"$@" "$BIN/$CMD" 1000 >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	printf -v "$var" %s "$!"
}

@test "a process is placed when it execs, by its command name, in the hierarchies its rule names" {
	rules "# a comment
*:$CMD  cpu  /placed"
	cg_mount -o controllers=cpu,cpuacct:cpuset -o "rules=$RULES"
	mkdir "$MNT/cpu,cpuacct/placed" "$MNT/cpuset/placed"
	local p
	start p
	cg_placed "$p" "$MNT/cpu,cpuacct/placed/cgroup.procs"
	# Not in the hierarchy the rule does not name.
	run grep -x "$p" "$MNT/cpuset/placed/cgroup.procs"
	assert_failure
	grep -qx "$p" "$MNT/cpuset/cgroup.procs"
	# Another command is left where it is: seen once a later exec is
	# placed (execs are taken in order).
	local s
	cg_sleeper s
	start p
	cg_placed "$p" "$MNT/cpu,cpuacct/placed/cgroup.procs"
	grep -qx "$s" "$MNT/cpu,cpuacct/cgroup.procs"
}

@test "the first rule that matches decides, with its % lines; a user's rule, * for the rest" {
	rules "nobody:$CMD  cpu      /nobody
%              cpuset   /nobody-set
*:$CMD         *        /others"
	cg_mount -o controllers=cpu,cpuacct:cpuset -o "rules=$RULES"
	mkdir "$MNT/cpu,cpuacct/nobody" "$MNT/cpuset/nobody-set" \
		"$MNT/cpu,cpuacct/others" "$MNT/cpuset/others"
	local n r
	start n setpriv --reuid=nobody --regid=nogroup --clear-groups
	start r
	cg_placed "$n" "$MNT/cpu,cpuacct/nobody/cgroup.procs"
	cg_placed "$n" "$MNT/cpuset/nobody-set/cgroup.procs"
	cg_placed "$r" "$MNT/cpu,cpuacct/others/cgroup.procs"
	cg_placed "$r" "$MNT/cpuset/others/cgroup.procs"
	# The later rule did not apply to nobody's process.
	run cat "$MNT/cpu,cpuacct/others/cgroup.procs"
	refute_line "$n"
}

@test "a rule may name the executable's path, a prefix, a group, and a script by its own name" {
	local script=$BIN/${CMD:0:10}.sh
	# No exec in it: the shell keeps the script's name as its command's.
	printf '#!/bin/sh\nwhile :; do sleep 1; done\n' >"$script"
	chmod 755 "$script"
	rules "*:$BIN/${CMD:0:5}*  cpu  /by-path
*:${script##*/}  cpu  /script"
	cg_mount -o "rules=$RULES"
	mkdir "$MNT/by-path" "$MNT/script"
	local p s
	start p
	cg_placed "$p" "$MNT/by-path/cgroup.procs"
	# Its executable is the shell; its command name is the script's.
	"$script" >/dev/null 2>&1 3>&- &
	s=$!
	CG_HELPERS+=("$s")
	cg_placed "$s" "$MNT/script/cgroup.procs"
	rules "@nogroup:$CMD  cpu  /group"
	mkdir "$MNT/group"
	kill -HUP "$CG_PID"
	wait_log "rules: $RULES reloaded: 1 rules"
	start p setpriv --reuid=nobody --regid=nogroup --clear-groups
	cg_placed "$p" "$MNT/group/cgroup.procs"
}

# wait_log TEXT: the daemon's log says TEXT (up to 20 s).
wait_log() {
	cg_wait_for -F "$CG_TMP/cgfused.log" "$1"
}

@test "cgfused-exec --sticky: the rules leave the command where it was put; without it they move it" {
	# The sticky one is a shell under a name of its own, which a rule
	# names too: running, its execs were reported; the non-sticky one it
	# starts then is placed after them (the rules take execs in order).
	local sh=${CMD:0:14}s s p
	cp "$(command -v sh)" "$BIN/$sh"
	rules "*:$CMD  cpu  /placed
*:$sh  cpu  /placed"
	cg_mount -o "rules=$RULES"
	mkdir "$MNT/placed" "$MNT/mine"
	start s "$CGFUSED_TOOLS/cgfused-exec" --mount "$MNT" --sticky -g cpu:/mine "$BIN/$sh" -c \
		'env -u CGFUSED_STICKY "$1" --mount "$2" -g cpu:/mine "$3" 1000 &
		echo "$!" >"$4.part" && mv "$4.part" "$4"
		wait' sh "$CGFUSED_TOOLS/cgfused-exec" "$MNT" "$BIN/$CMD" "$CG_TMP/p"
	cg_poll_until test -s "$CG_TMP/p"
	p=$(<"$CG_TMP/p")
	CG_HELPERS+=("$p")
	cg_placed "$p" "$MNT/placed/cgroup.procs"
	run grep -qx "$s" "$MNT/mine/cgroup.procs"
	assert_success
	grep -qx CGFUSED_STICKY=1 < <(tr '\0' '\n' <"/proc/$s/environ")
	run grep -qx CGFUSED_STICKY=1 < <(tr '\0' '\n' <"/proc/$p/environ")
	assert_failure
}

# Root's processes in a delegated group are under its user's settings
# (freezer.state, pids.max): cgfused.rules(5) warns, and so does the load.
@test "a rule that moves root's processes into a group a user owns is said at load" {
	rules "*:$CMD  cpu  /deleg
nobody  cpu  /deleg
*:$CMD  cpu  /own"
	cg_mount -o "rules=$RULES"
	mkdir "$MNT/deleg" "$MNT/own"
	chown -R 65534 "$MNT/deleg"
	kill -HUP "$CG_PID"
	wait_log "rules: $RULES reloaded: 3 rules"
	run grep "moves root's processes" "$CG_TMP/cgfused.log"
	assert_output --partial "rules: line 1 moves root's processes into cpuset,cpu,cpuacct,freezer:/deleg, which user 65534 owns: its settings there act on them"
	assert_equal "${#lines[@]}" 1
}

@test "SIGHUP reloads the rules; a refused file leaves the rules before, a missing default none" {
	rules "*:$CMD  cpu  /a"
	cg_mount -o "rules=$RULES"
	mkdir "$MNT/a" "$MNT/b"
	local p
	rules "*:$CMD  cpu  /b"
	kill -HUP "$CG_PID"
	wait_log "rules: $RULES reloaded: 1 rules"
	start p
	cg_placed "$p" "$MNT/b/cgroup.procs"
	# Writable by others: refused, /b stays.
	rules "*:$CMD  cpu  /a"
	chmod 666 "$RULES"
	kill -HUP "$CG_PID"
	wait_log "rules $RULES refused: it is writable by its group or others; the rules before stay"
	start p
	cg_placed "$p" "$MNT/b/cgroup.procs"
	# A line that is wrong: likewise, saying where.
	rules "*:$CMD  cpu"
	kill -HUP "$CG_PID"
	wait_log "rules: $RULES:1: a rule is USER[:PROCESS] CONTROLLERS DESTINATION; the rules before stay"
	start p
	cg_placed "$p" "$MNT/b/cgroup.procs"
}

@test "a rules file that is a link, writable by others, wrong or missing stops the start" {
	local why
	rules "*:$CMD  cpu  /a"
	ln -s "$RULES" "$CG_TMP/link"
	chmod 664 "$RULES"
	for why in "rules=$CG_TMP/link:rules $CG_TMP/link refused: it is a symbolic link (name the file itself)" \
		"rules=$RULES:rules $RULES refused: it is writable by its group or others" \
		"rules=$CG_TMP/none:cannot read rules $CG_TMP/none: No such file or directory" \
		"rules=:rules= needs a file name (or none)"; do
		run "$CGFUSED" -f -o config=none -o state=none -o "${why%%:*}" "$MNT"
		assert_failure
		assert_output "cgfused: ${why#*:}"
		refute cg_is_mounted "$MNT"
	done
	chmod 644 "$RULES"
	printf 'nobody-such-user-x cpu /a\n' >"$RULES"
	run "$CGFUSED" -f -o config=none -o state=none -o "rules=$RULES" "$MNT"
	assert_failure
	assert_output "cgfused: $RULES:1: no such user"
}

@test "a rules file below a directory others may write, anywhere on its path, is refused unless that one is sticky" {
	local p=$CG_TMP/p d=$CG_TMP/p/d q
	mkdir -m 0755 "$p" "$d"
	RULES=$d/rules
	rules "*:$CMD  cpu  /a"
	# Not sticky: whoever may write p may swap d for a directory of their own.
	chmod 0757 "$p"
	CG_MOUNTS+=("$MNT")	# unmounted in teardown if it was mounted after all
	run --separate-stderr timeout -k 5 10 "$CGFUSED" -f -o config=none -o state=none \
		-o "rules=$RULES" "$MNT" 3>&-
	assert_equal "$status" 1
	assert_equal "$stderr" "cgfused: a directory on the path of $RULES, $p, is writable by others: chmod go-w it, or choose another with -o rules=FILE"
	refute cg_is_mounted "$MNT"
	# Sticky (like /tmp), above the file or as its own directory: accepted.
	chmod 1777 "$p" "$d"
	cg_mount -o "rules=$RULES"
	mkdir "$MNT/a" "$MNT/b"
	start q
	cg_placed "$q" "$MNT/a/cgroup.procs"
	# Made unsafe while running: a reload is refused, the rules before stay.
	rules "*:$CMD  cpu  /b"
	chmod 0757 "$p"
	kill -HUP "$CG_PID"
	wait_log "rules: a directory on the path of $RULES, $p, is writable by others: chmod go-w it, or choose another with -o rules=FILE; the rules before stay"
	start q
	cg_placed "$q" "$MNT/a/cgroup.procs"
}

@test "a destination that does not exist: said once, then counted; the process stays" {
	# A second command, placed by its own rule: once it is, every exec
	# before it was taken (they are taken in order).
	local mark=m${CMD:1} m
	cp "$BIN/$CMD" "$BIN/$mark"
	rules "*:$CMD  cpu  /nowhere
*:$mark  cpu  /marks"
	cg_mount -o "rules=$RULES"
	mkdir "$MNT/marks"
	local p q
	start p
	wait_log "rules: line 1: cannot move $p into cpuset,cpu,cpuacct,freezer:/nowhere: no such group (said once; repeats are counted)"
	start q
	"$BIN/$mark" 1000 >/dev/null 2>&1 3>&- &
	m=$!
	CG_HELPERS+=("$m")
	cg_placed "$m" "$MNT/marks/cgroup.procs"
	grep -qx "$p" "$MNT/cgroup.procs"
	grep -qx "$q" "$MNT/cgroup.procs"
	run grep -c "cannot move" "$CG_TMP/cgfused.log"
	assert_output 1
	# Once the group is there, the next exec is placed.
	mkdir "$MNT/nowhere"
	start p
	cg_placed "$p" "$MNT/nowhere/cgroup.procs"
	wait_log "rules: line 1, moving into /nowhere works again, after 2 failures"
}
