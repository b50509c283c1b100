#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The tools: cgfused-exec, cgfused-classify and cgfused-top on a real
# mount (their man pages in docs/ say what each must do).

load helpers

: "${CGFUSED_TOOLS:?CGFUSED_TOOLS must name the directory of the built tools}"
EXEC=$CGFUSED_TOOLS/cgfused-exec
CLASSIFY=$CGFUSED_TOOLS/cgfused-classify
TOP=$CGFUSED_TOOLS/cgfused-top

setup() {
	cg_setup
}

teardown() {
	cg_teardown
}

# rate_start PID / rate_end PID: the CPU % (100 = one CPU) PID used between
# the two calls, from its own /proc/PID/schedstat, in RATE: what
# cgfused-top, run between them, must come near. The machine's load
# (other tests, other users) makes it anything from a few % to 100.
rate_start() {
	read -r RATE_CPU0 _ <"/proc/$1/schedstat"
	RATE_T0=$(date +%s%N)
}

rate_end() {
	local cpu1 t1
	read -r cpu1 _ <"/proc/$1/schedstat"
	t1=$(date +%s%N)
	RATE=$(awk -v c="$((cpu1 - RATE_CPU0))" -v t="$((t1 - RATE_T0))" 'BEGIN { printf "%.1f", c * 100 / t }')
}

# near GOT WANT: GOT (cgfused-top's CPU %) is within a factor 3 of WANT and
# above 1 %: the same process over nearly the same time, so a generous
# bound that still fails on a wrong scale, on 0, or on another group's figure.
near() {
	awk -v g="$1" -v w="$2" 'BEGIN { exit !(g > 1 && g >= w / 3 && g <= w * 3 + 5) }' ||
		{ echo "cgfused-top said $1 %, the process itself used $2 %" >&2; return 1; }
}

# busy VAR GROUP: a shell spinning in GROUP (started by cgfused-exec); its
# PID in VAR.
busy() {
	"$EXEC" --mount "$MNT" -g "cpu:$2" sh -c 'while :; do :; done' >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	printf -v "$1" %s "$!"
}

# has PID LIST: PID is one of the words of LIST.
has() {
	[[ " $2 " == *" $1 "* ]] || { echo "$1 is not in: $2" >&2; return 1; }
}

@test "cgfused-exec runs the command in the group and returns its status" {
	cg_mount
	mkdir "$MNT/build"
	# The command itself reads the group's members: it is there while
	# it runs, not only the tool before it. (The cat that lists them
	# may be there too, once its fork has been reported.)
	run "$EXEC" --mount "$MNT" -g cpu,cpuacct:/build sh -c \
		'echo $$; echo $(cat "$1/build/tasks"); echo $(cat "$1/build/cgroup.procs"); exit 7' sh "$MNT"
	assert_equal "$status" 7
	assert_equal "${#lines[@]}" 3
	[[ ${lines[0]} =~ ^[0-9]+$ ]]
	has "${lines[0]}" "${lines[1]}"
	has "${lines[0]}" "${lines[2]}"
	# Gone with its exit.
	assert_equal "$(cat "$MNT/build/tasks")" ""
	run "$EXEC" --mount "$MNT" -g cpu:build true
	assert_success
}

@test "cgfused-exec: options after the command are the command's" {
	cg_mount
	mkdir "$MNT/g"
	run "$EXEC" --mount "$MNT" -g cpu:/g echo -g x --help
	assert_success
	assert_output "-g x --help"
}

@test "cgfused-exec '*:PATH' joins every hierarchy; CONTROLLERS:PATH only its own" {
	cg_mount -o controllers=cpu,cpuacct:cpuset
	mkdir "$MNT/cpu,cpuacct/a" "$MNT/cpuset/a" "$MNT/cpuset/b"
	run "$EXEC" --mount "$MNT" -g '*:/a' sh -c \
		'echo $$; echo $(cat "$1/cpu,cpuacct/a/cgroup.procs"); echo $(cat "$1/cpuset/a/cgroup.procs")' sh "$MNT"
	assert_success
	has "${lines[0]}" "${lines[1]}"
	has "${lines[0]}" "${lines[2]}"
	run "$EXEC" --mount "$MNT" -g cpuacct:/a -g cpuset:/b sh -c \
		'echo $$; echo $(cat "$1/cpu,cpuacct/a/cgroup.procs"); echo $(cat "$1/cpuset/b/cgroup.procs"); echo x $(cat "$1/cpuset/a/cgroup.procs")' sh "$MNT"
	assert_success
	has "${lines[0]}" "${lines[1]}"
	has "${lines[0]}" "${lines[2]}"
	run has "${lines[0]}" "${lines[3]}"
	assert_failure
	# A group missing in one hierarchy: no move in the other, no command.
	run "$EXEC" --mount "$MNT" -g cpu:/a -g cpuset:/missing touch "$CG_TMP/ran"
	assert_equal "$status" 125
	assert_output "cgfused-exec: $MNT/cpuset/missing: No such file or directory"
	[[ ! -e $CG_TMP/ran ]]
	assert_equal "$(cat "$MNT/cpu,cpuacct/a/tasks")" ""
}

# placed SPEC DIR... [-- DIR...]: cgfused-exec -g SPEC:/g runs a shell
# that is then in the cgroup.procs of each DIR before "--", in none after.
placed() {
	local spec=$1 d i=0 in=1 dirs=()
	shift
	for d; do
		[[ $d == -- ]] || dirs+=("$d")
	done
	# "x": bats leaves empty lines out of $lines.
	run "$EXEC" --mount "$MNT" -g "$spec:/g" sh -c \
		'echo $$; for d; do echo x $(cat "$d/cgroup.procs"); done' sh "${dirs[@]}"
	assert_success
	for d; do
		if [[ $d == -- ]]; then
			in=0
			continue
		fi
		i=$((i + 1))
		if ((in)); then
			has "${lines[0]}" "${lines[i]}"
		elif has "${lines[0]}" "${lines[i]}" 2>/dev/null; then
			echo "-g $spec:/g: ${lines[0]} is in $d too" >&2
			return 1
		fi
	done
}

@test "cgfused-exec names every controller: freezer and pids too, each hierarchy apart, and '*'" {
	# The default mount: one hierarchy, whose root has no freezer file.
	cg_mount -o state=none
	mkdir "$MNT/g"
	placed freezer "$MNT/g"
	placed cpu,freezer "$MNT/g"
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	# Every controller in its own hierarchy of one daemon: neither freezer's
	# nor pids' root has a file of theirs, as the kernel's do not.
	cg_mount -o state=none,controllers=cpu:cpuacct:cpuset:freezer:pids
	local c o others
	for c in cpu cpuacct cpuset freezer pids; do
		mkdir "$MNT/$c/g"
	done
	for c in cpu cpuacct cpuset freezer pids; do
		others=()
		for o in cpu cpuacct cpuset freezer pids; do
			[[ $o == "$c" ]] || others+=("$MNT/$o/g")
		done
		placed "$c" "$MNT/$c/g" -- "${others[@]}"
	done
	placed '*' "$MNT"/{cpu,cpuacct,cpuset,freezer,pids}/g
	placed freezer,pids "$MNT"/{freezer,pids}/g -- "$MNT"/{cpu,cpuacct,cpuset}/g
}

@test "cgfused-exec on a v2 mount (-o unified): every controller names its one hierarchy" {
	cg_mount -o unified
	mkdir "$MNT/g"
	local c
	for c in cpu cpuacct cpuset freezer pids '*' cpu,pids; do
		placed "$c" "$MNT/g"
	done
	run "$EXEC" --mount "$MNT" -g memory:/g true
	assert_equal "$status" 125
	assert_output "cgfused-exec: $MNT has no hierarchy with the memory controller"
}

@test "cgfused-exec finds the mount from /proc/self/mountinfo" {
	cg_mount
	mkdir "$MNT/found" "$CG_TMP/other"
	cg_mount_at "$CG_TMP/other" -o controllers=cpuset
	# In a mount namespace of its own, where only this test's two
	# mounts are cgfused (others' are detached there, not on the host).
	local script='
for m in $(awk '\''{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "fuse.cgfused") print $5; break } }'\'' /proc/self/mountinfo); do
	[ "$m" = "$1" ] || [ "$m" = "$2" ] || umount -l "$m"
done
shift 2
exec "$@"'
	run unshare -m --propagation private sh -c "$script" sh "$MNT" "$CG_TMP/other" \
		"$EXEC" -g cpu:/found sh -c 'echo $$; echo $(cat "$1/found/cgroup.procs")' sh "$MNT"
	assert_success
	has "${lines[0]}" "${lines[1]}"
	# cpuset is on both: which one is for the user to say.
	run unshare -m --propagation private sh -c "$script" sh "$MNT" "$CG_TMP/other" \
		"$EXEC" -g cpuset:/ true
	assert_equal "$status" 125
	assert_output --partial "several cgfused mounts fit ($MNT, $CG_TMP/other): choose one with --mount"
}

@test "cgfused-exec errors: nothing runs, status 125 (126, 127 for the command)" {
	cg_mount
	mkdir "$MNT/a"
	run "$EXEC" --mount "$MNT" -g cpu:/missing touch "$CG_TMP/ran"
	assert_equal "$status" 125
	assert_output "cgfused-exec: $MNT/missing: No such file or directory"
	[[ ! -e $CG_TMP/ran ]]
	run "$EXEC" --mount "$MNT" -g memory:/a true
	assert_equal "$status" 125
	assert_output "cgfused-exec: $MNT has no hierarchy with the memory controller"
	run "$EXEC" --mount "$MNT" -g cpu:/../a true
	assert_equal "$status" 125
	assert_output --partial "'..' is not allowed"
	run "$EXEC" --mount "$MNT" -g cpu true
	assert_equal "$status" 125
	assert_output --partial "expected CONTROLLERS:PATH"
	run "$EXEC" --mount "$MNT" true
	assert_equal "$status" 125
	assert_line "cgfused-exec: no group given (-g CONTROLLERS:PATH)"
	run "$EXEC" --mount "$CG_TMP" -g cpu:/a true
	assert_equal "$status" 125
	assert_output "cgfused-exec: $CG_TMP is not a cgfused mount point"
	run "$EXEC" --mount "$MNT" -g cpu:/a -g cpuacct:/ true
	assert_equal "$status" 125
	assert_output "cgfused-exec: 'cpu:/a' and 'cpuacct:/' both name a group of $MNT"
	run -127 "$EXEC" --mount "$MNT" -g cpu:/a "$CG_TMP/no-such-command"
	assert_equal "$status" 127
	run "$EXEC" --mount "$MNT" -g cpu:/a "$CG_TMP"
	assert_equal "$status" 126
	# An empty cpuset takes no task: the kernel's ENOSPC, and no command.
	cg_mount_at "$CG_TMP/m2" -o noclone_children
	mkdir "$CG_TMP/m2/empty"
	run "$EXEC" --mount "$CG_TMP/m2" -g cpuset:/empty touch "$CG_TMP/ran"
	assert_equal "$status" 125
	assert_output "cgfused-exec: cannot move into $CG_TMP/m2/empty: No space left on device"
	[[ ! -e $CG_TMP/ran ]]
	assert_equal "$(cat "$MNT/a/tasks" "$CG_TMP/m2/empty/tasks")" ""
}

@test "cgfused-classify moves whole processes; a line per PID that failed" {
	cg_mount
	mkdir "$MNT/build"
	local s t dead
	cg_sleeper s
	cg_threads t
	sleep 0 & dead=$!
	wait "$dead"
	run "$CLASSIFY" --mount "$MNT" -g cpu:/build "$s" "$dead" "$t" 12x
	assert_equal "$status" 1
	assert_equal "${#lines[@]}" 2
	assert_line "cgfused-classify: $dead: cannot move into $MNT/build: $E_SRCH"
	assert_line "cgfused-classify: 12x: not a process id"
	assert_equal "$(cat "$MNT/build/cgroup.procs")" "$(printf '%s\n' "$s" "$t" | sort -n)"
	assert_equal "$(cat "$MNT/build/tasks")" "$( (echo "$s"; cg_tids "$t") | sort -n)"
	# And back; all good is status 0, silent.
	run "$CLASSIFY" --mount "$MNT" -g cpu:/ "$s" "$t"
	assert_success
	assert_output ""
	assert_equal "$(cat "$MNT/build/tasks")" ""
}

@test "cgfused-classify moves into each hierarchy it is given" {
	cg_mount -o controllers=cpu,cpuacct:cpuset
	mkdir "$MNT/cpu,cpuacct/a" "$MNT/cpuset/b"
	local s
	cg_sleeper s
	run "$CLASSIFY" --mount "$MNT" -g cpu:/a -g cpuset:/b "$s"
	assert_success
	assert_equal "$(cat "$MNT/cpu,cpuacct/a/cgroup.procs")" "$s"
	assert_equal "$(cat "$MNT/cpuset/b/cgroup.procs")" "$s"
}

@test "cgfused-classify: an empty cpuset refuses before any other move" {
	cg_mount -o controllers=cpu,cpuacct:cpuset -o noclone_children
	mkdir "$MNT/cpu,cpuacct/a" "$MNT/cpuset/empty"
	local s
	cg_sleeper s
	# cpu first on the line; the cpuset hierarchy is moved into first.
	run "$CLASSIFY" --mount "$MNT" -g cpu:/a -g cpuset:/empty "$s"
	assert_equal "$status" 1
	assert_output "cgfused-classify: $s: cannot move into $MNT/cpuset/empty: ENOSPC No space left on device"
	assert_equal "$(cat "$MNT/cpu,cpuacct/a/tasks" "$MNT/cpuset/empty/tasks")" ""
}

@test "cgfused-classify: another user's process is EACCES, its own moves" {
	chmod 755 "$CG_TMP"
	cg_mount -o allow_other
	mkdir "$MNT/u"
	chown -R 1234:1234 "$MNT/u"
	local mine theirs
	cg_sleeper theirs
	cg_sleeper_as 1234 mine
	run setpriv --reuid=1234 --regid=1234 --clear-groups \
		"$CLASSIFY" --mount "$MNT" -g cpu:/u "$theirs" "$mine"
	assert_equal "$status" 1
	assert_output "cgfused-classify: $theirs: cannot move into $MNT/u: $E_ACCES"
	assert_equal "$(cat "$MNT/u/cgroup.procs")" "$mine"
	# A group it may not write to: nothing is tried, status 2.
	mkdir "$MNT/root-only"
	run setpriv --reuid=1234 --regid=1234 --clear-groups \
		"$CLASSIFY" --mount "$MNT" -g cpu:/root-only "$mine"
	assert_equal "$status" 2
	assert_output "cgfused-classify: $MNT/root-only/cgroup.procs: Permission denied"
}

@test "cgfused-top -b -n 1: the busy group on top, using CPU" {
	cg_mount
	mkdir "$MNT/busy" "$MNT/idle"
	echo 512 >"$MNT/idle/cpu.shares"
	local b s
	busy b /busy
	cg_sleeper s
	echo "$s" >"$MNT/idle/cgroup.procs"
	rate_start "$b"
	run "$TOP" --mount "$MNT" -b -n 1
	rate_end "$b"
	assert_success
	# Two threads followed (the shell and the sleeper), both below the root.
	assert_line --index 0 --regexp "^cgfused on $MNT: 2 threads followed, 2 in groups below the root, 3 distinct sets of groups; as root; heap [0-9]+ KiB$"
	assert_line --index 1 --regexp '^Allocator: [0-9]+ passes, last [0-9]+ us, median [0-9]+ us, 99% under [0-9]+ us, longest [0-9]+ us; '
	# (bats' lines leave out the empty one before the titles.)
	assert_line --index 2 --regexp '^Group +Tasks +%CPU +Shares +CPUs$'
	# The root (the whole machine) may come first; /busy before /idle.
	local rows
	rows=$(printf '%s\n' "${lines[@]:3}" | awk '$1 != "/" { print $1 }')
	assert_equal "$rows" "$(printf '/busy\n/idle')"
	local tasks cpu shares
	read -r _ tasks cpu shares _ < <(printf '%s\n' "${lines[@]}" | grep '^/busy ')
	assert_equal "$tasks" 1
	assert_equal "$shares" 1024
	near "$cpu" "$RATE"
	read -r _ tasks cpu shares _ < <(printf '%s\n' "${lines[@]}" | grep '^/idle ')
	assert_equal "$tasks $shares" "1 512"
	# A sleeper: what its start-up (under load) may have left, no more.
	awk -v c="$cpu" 'BEGIN { exit !(c < 5) }'
}

@test "cgfused-top on a v2 mount: tasks from cgroup.threads, CPU from cpu.stat" {
	cg_mount -o unified
	mkdir "$MNT/busy"
	local b tasks cpu
	busy b /busy
	cg_poll_until -x "$b" cat "$MNT/busy/cgroup.threads"
	rate_start "$b"
	run "$TOP" --mount "$MNT" -b -n 1
	rate_end "$b"
	assert_success
	read -r _ tasks cpu _ < <(printf '%s\n' "${lines[@]}" | grep '^/busy ')
	assert_equal "$tasks" 1
	near "$cpu" "$RATE"
}

@test "cgfused-top --json: one object per refresh that parses" {
	cg_mount -o controllers=cpu,cpuacct:cpuset
	mkdir -p "$MNT/cpu,cpuacct/busy/sub" "$MNT/cpuset/busy/sub"
	local b
	"$EXEC" --mount "$MNT" -g '*:/busy/sub' sh -c 'while :; do :; done' >/dev/null 2>&1 3>&- &
	b=$!
	CG_HELPERS+=("$b")
	# Until it runs in the group (it moves itself, then execs the shell).
	cg_poll_until -x "$b" cat "$MNT/cpu,cpuacct/busy/sub/tasks"
	rate_start "$b"
	run "$TOP" --mount "$MNT" --json -n 2 -d 0.5
	rate_end "$b"
	assert_success
	assert_equal "${#lines[@]}" 2
	printf '%s\n' "${lines[@]}" | "$CG_PYTHON" -c '
import json, sys
for line in sys.stdin:
    top = json.loads(line)
    assert top["mount"] == sys.argv[1], top["mount"]
    assert top["daemon"]["privileged"] == 1
    groups = {g["path"]: g for g in top["groups"]}
    assert set(groups) == {"/", "/busy", "/busy/sub"}, groups
    sub, busy = groups["/busy/sub"], groups["/busy"]
    # Tasks and usage count descendants, as the kernel counts usage.
    assert sub["tasks"] == busy["tasks"] == 1, (sub, busy)
    got, want = sub["cpu_percent"], float(sys.argv[2])
    assert got > 1 and want / 3 <= got <= want * 3 + 5, ("cgfused-top said", got, "the process used", want)
    assert busy["cpu_percent"] >= sub["cpu_percent"] - 1, (busy, sub)
    # Numbers as numbers, a CPU list as a string.
    assert sub["cpu_shares"] == 1024 and type(sub["cpu_shares"]) is int, sub
    assert sub["cpuset_cpus"] == groups["/"]["cpuset_cpus"] and type(sub["cpuset_cpus"]) is str
    assert type(top["daemon"]["tracked_tasks"]) is int and type(top["daemon"]["controllers"]) is str
' "$MNT" "$RATE"
}

# three_groups: /a with two sleepers, /b empty, /c with a spinning shell:
# by CPU / /c /a /b, by tasks / /a /c /b, by path / /a /b /c.
three_groups() {
	mkdir "$MNT/a" "$MNT/b" "$MNT/c"
	local s1 s2 b
	cg_sleeper s1
	cg_sleeper s2
	echo "$s1" >"$MNT/a/cgroup.procs"
	echo "$s2" >"$MNT/a/cgroup.procs"
	busy b /c
	cg_poll_until -x "$b" cat "$MNT/c/tasks"
}

# paths: the groups of cgfused-top's last screen in $1 (or stdin), in order.
paths() {
	awk '/\033\[H/ { n = 0 } /^Group / { t = 1; n = 0; delete p; next }
		t && /^\// { p[++n] = $1 } END { for (i = 1; i <= n; i++) printf "%s ", p[i] }' "$@"
}

@test "cgfused-top --order (-c, -t, -p): by CPU, tasks, path, as systemd-cgtop" {
	cg_mount
	three_groups
	run "$TOP" --mount "$MNT" -b -n 1 -d 0.3
	# By CPU the root, which holds /c's busy loop, comes about level with
	# /c: the two are read at different instants, so only the groups'
	# order is asserted.
	assert_equal "$(paths <<<"$output" | tr ' ' '\n' | grep -vx / | tr '\n' ' ')" "/c /a /b "
	run "$TOP" --mount "$MNT" -b -n 1 -d 0.3 --order=tasks
	assert_equal "$(paths <<<"$output")" "/ /a /c /b "
	run "$TOP" --mount "$MNT" -b -n 1 -d 0.3 -p
	assert_equal "$(paths <<<"$output")" "/ /a /b /c "
	run "$TOP" --mount "$MNT" -b -n 1 -d 0.3 -t
	assert_equal "$(paths <<<"$output")" "/ /a /c /b "
	run "$TOP" --mount "$MNT" -b -n 1 --order=memory
	assert_equal "$status" 2
	assert_output --partial "cgfused-top: --order=memory: expected cpu, tasks or path"
}

@test "cgfused-top on a terminal: keys p, t, c order the screen again at once; q quits" {
	cg_mount
	three_groups
	# script(1) gives it a terminal; its keys come through a FIFO kept
	# open here, written once the screen they change is there.
	mkfifo "$CG_TMP/keys"
	exec 5<>"$CG_TMP/keys"
	script -qfec "stty rows 30 cols 100; '$TOP' --mount '$MNT' -d 0.5" /dev/null \
		<"$CG_TMP/keys" >"$CG_TMP/screen" 2>&1 3>&- &
	local pid=$!
	CG_HELPERS+=("$pid")
	cg_poll_until -x "/ /c /a /b " paths "$CG_TMP/screen"
	# Each key redraws the last refresh (its 0.5 s delay: a redraw
	# within it shows the new order; the next refresh keeps it).
	printf p >&5
	cg_poll_until -x "/ /a /b /c " paths "$CG_TMP/screen"
	printf t >&5
	cg_poll_until -x "/ /a /c /b " paths "$CG_TMP/screen"
	printf c >&5
	cg_poll_until -x "/ /c /a /b " paths "$CG_TMP/screen"
	printf q >&5
	cg_wait_gone "$pid"
	wait "$pid"
	exec 5>&-
}

@test "cgfused-top: bad options, and the mount must be cgfused" {
	cg_mount
	run "$TOP" --mount "$MNT" -n 0
	assert_equal "$status" 2
	assert_output "cgfused-top: -n 0: expected a number of refreshes, 1 or more"
	run "$TOP" --mount "$MNT" -d 0
	assert_equal "$status" 2
	run "$TOP" --mount "$CG_TMP" -b -n 1
	assert_equal "$status" 1
	assert_output "cgfused-top: $CG_TMP is not a cgfused mount point"
}

@test "every tool has --help" {
	local tool
	for tool in "$EXEC" "$CLASSIFY" "$TOP"; do
		run "$tool" --help
		assert_success
		assert_line --index 0 --regexp "^Usage: ${tool##*/} "
	done
}

# complete_words WORD...: what contrib/bash-completion completes the last
# WORD to, one per line, for the command WORD[0].
complete_words() {
	# shellcheck source=/dev/null
	source "$TESTS_SRCDIR/../contrib/bash-completion/cgfused"
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	if [[ ${1##*/} == cgfused ]]; then
		_cgfused "$1"
	else
		_cgfused_tool "$1"
	fi
	printf '%s\n' "${COMPREPLY[@]}"
}

@test "bash completion: -g offers the mount's controllers, then its groups" {
	cg_mount -o controllers=cpu,cpuacct:cpuset
	mkdir -p "$MNT/cpu,cpuacct/build/deep" "$MNT/cpuset/big"
	run complete_words cgfused-exec --mount "$MNT" -g ''
	assert_output "$(printf '%s\n' '*:' 'cpu,cpuacct:' 'cpu:' 'cpuacct:' 'cpuset:')"
	run complete_words cgfused-exec --mount "$MNT" -g 'cpu:/'
	assert_output 'cpu:/build/'
	run complete_words cgfused-classify --mount "$MNT" -g 'cpu:/build/'
	assert_output 'cpu:/build/deep/'
	run complete_words cgfused-exec --mount "$MNT" -g 'cpuset:/'
	assert_output 'cpuset:/big/'
	run complete_words cgfused-top --js
	assert_output '--json'
	run complete_words cgfused-top --order=t
	assert_output '--order=tasks'
}

@test "bash completion: every controller of a mount, freezer and pids too" {
	cg_mount -o controllers=cpu,cpuacct,cpuset,freezer:pids
	# The hierarchy's directory, named as the daemon lists its controllers.
	mkdir "$MNT/cpuset,cpu,cpuacct,freezer/f" "$MNT/pids/p"
	run complete_words cgfused-exec --mount "$MNT" -g ''
	assert_output "$(printf '%s\n' '*:' 'cpuset,cpu,cpuacct,freezer:' cpuset: cpu: cpuacct: freezer: pids:)"
	run complete_words cgfused-exec --mount "$MNT" -g 'freezer:/'
	assert_output 'freezer:/f/'
	run complete_words cgfused-exec --mount "$MNT" -g 'pids:/'
	assert_output 'pids:/p/'
}

@test "bash completion of cgfused: options, -o's names and values, mount points" {
	mkdir "$CG_TMP/mnt2" "$CG_TMP/state-file"
	run complete_words cgfused --v
	assert_output '--version'
	run complete_words "$CGFUSED" -o cl
	assert_output "$(printf '%s\n' clone_children clone_fd)"
	run complete_words "$CGFUSED" -o state=none,auto
	assert_output 'state=none,auto_unmount'
	run complete_words "$CGFUSED" -o controllers=cpu,cpuacct:cpus
	assert_output 'controllers=cpu,cpuacct:cpuset'
	run complete_words "$CGFUSED" -o controllers=f
	assert_output 'controllers=freezer'
	run complete_words "$CGFUSED" -o "state=$CG_TMP/state-f"
	assert_output "state=$CG_TMP/state-file"
	run complete_words "$CGFUSED" -f "$CG_TMP/mn"
	assert_output "$(printf '%s\n' "$CG_TMP/mnt" "$CG_TMP/mnt2")"
}

@test "cgfused-top on a terminal: cleared, and cut to the terminal's size" {
	cg_mount
	mkdir "$MNT/g1" "$MNT/g2" "$MNT/g3" "$MNT/g4" "$MNT/a-group-with-a-name-longer-than-forty-characters"
	# script(1) gives it a terminal, of 6 rows and 40 columns.
	run script -qec "stty rows 6 cols 40; '$TOP' --mount '$MNT' -n 1 -d 0.2" /dev/null
	assert_success
	local text=${output//$'\r'/}
	[[ $text == $'\e[H\e[2J'"cgfused on $MNT"* ]]
	text=${text#$'\e[H\e[2J'}
	# 5 lines: the 6th row keeps the cursor, nothing scrolls away.
	assert_equal "$(printf '%s\n' "$text" | wc -l)" 5
	assert_equal "$(printf '%s\n' "$text" | awk 'length($0) > 40' | wc -l)" 0
	[[ $(printf '%s\n' "$text" | sed -n 4p) == Group* ]]
}
