#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The config file (-o config=FILE) and the rules (-o rules=FILE) on a v2
# mount (-o unified): its one hierarchy is named "unified"; a section [/]
# sets the root's own files (cgroup.subtree_control), applied at every
# start; a rule's controllers match the hierarchy that binds them.

load helpers

setup() {
	cg_setup
	CONF=$CG_TMP/cgfused.conf
	RULES=$CG_TMP/rules
	STATE=$CG_TMP/s.state
	# A command of the test's own, for the rules to match.
	BIN=$CG_TMP/bin
	mkdir "$BIN"
	CMD=v2rule-$$
	cp "$(command -v sleep)" "$BIN/$CMD"
}

teardown() {
	cg_teardown
}

# file PATH TEXT: root's, 0644, as the daemon wants its config and rules.
file() {
	printf '%s\n' "$2" >"$1"
	chmod 0644 "$1"
}

@test "v2: the config enables controllers top-down, weighs and pins its groups" {
	file "$CONF" '[/]
cgroup.subtree_control=+cpu +cpuset

[/build]
cgroup.subtree_control=+cpu
cpu.weight=200
cpuset.cpus=0

[/build/cc]
cpu.weight=50'
	cg_mount_v2 -o "config=$CONF" -o "state=$STATE"
	cg_expect_read "$MNT/cgroup.subtree_control" 'cpuset cpu'
	cg_expect_read "$MNT/build/cgroup.subtree_control" cpu
	cg_expect_read "$MNT/build/cpu.weight" 200
	cg_expect_read "$MNT/build/cpuset.cpus.effective" 0
	cg_expect_read "$MNT/build/cc/cpu.weight" 50
	cg_expect_read "$MNT/build/cc/cgroup.controllers" cpu
	cg_expect_done
	# The state wins for its groups, and the root's section applies at
	# every start: +cpuset kept, what the state enabled besides too.
	echo 300 >"$MNT/build/cpu.weight"
	echo +pids >"$MNT/cgroup.subtree_control"
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	cg_mount_v2 -o "config=$CONF" -o "state=$STATE"
	cg_expect_read "$MNT/cgroup.subtree_control" 'cpuset cpu pids'
	cg_expect_read "$MNT/build/cpu.weight" 300
	cg_expect_done
}

@test "v2: a config the v2 hierarchy cannot take is refused with one line" {
	local why
	for why in '[cpu:/build]
cpu.weight=200|[cpu:/build]: no hierarchy of cpu in this mount (it has unified)' \
		'[/build]
cpu.shares=2048|cpu.shares: no such control file in [/build]' \
		'[/build]
cpu.weight=200|cpu.weight: no such control file in [/build]'; do
		file "$CONF" "${why%%|*}"
		CG_MOUNTS+=("$MNT")
		run --separate-stderr timeout -k 5 10 "$CGFUSED" -f -o unified \
			-o state=none -o "config=$CONF" "$MNT" 3>&-
		[ "$status" -eq 1 ] || { echo "status $status: $stderr" >&2; return 1; }
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "not one line: $stderr" >&2; return 1; }
		[[ $stderr == *"${why#*|}"* ]] || { echo "'$stderr' lacks '${why#*|}'" >&2; return 1; }
		refute cg_is_mounted "$MNT"
	done
}

@test "v2: the rules place a process in the one hierarchy that binds their controllers" {
	local p q
	cp "$BIN/$CMD" "$BIN/$CMD-x"
	# cpuacct is v1's only: its rule places nothing on v2.
	file "$RULES" "*:$CMD-x  cpuacct  /placed
*:$CMD  cpu  /placed"
	cg_mount_v2 -o "rules=$RULES"
	mkdir "$MNT/placed"
	"$BIN/$CMD-x" 1000 >/dev/null 2>&1 3>&- &
	q=$!
	CG_HELPERS+=("$q")
	"$BIN/$CMD" 1000 >/dev/null 2>&1 3>&- &
	p=$!
	CG_HELPERS+=("$p")
	cg_placed "$p" "$MNT/placed/cgroup.procs"
	# Exec'd before p, so looked at before it: left in the root.
	grep -qx "$q" "$MNT/cgroup.procs"
}

