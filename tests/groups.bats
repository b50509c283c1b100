#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Groups as directories: mkdir, rmdir, rename, readdir, stat, what cannot be
# made or removed, names, and the core files (tasks and cgroup.procs have
# their own file). Expectations: docs/kernel-oracle.md §1 and §2.

load helpers

setup() {
	cg_setup
	cg_mount
	cd "$MNT"
}

teardown() {
	cg_teardown
}

# Files every group of the default hierarchy (cpu,cpuacct,cpuset,freezer) has.
GROUP_FILES=(cgroup.procs cgroup.clone_children notify_on_release tasks
	cpu.shares cpu.idle cpu.cfs_period_us cpu.cfs_quota_us cpu.cfs_burst_us
	cpu.stat cpu.stat.local cpu.rt_period_us cpu.rt_runtime_us
	cpuset.cpus cpuset.mems cpuset.effective_cpus cpuset.effective_mems
	cpuacct.usage cpuacct.usage_user cpuacct.usage_sys cpuacct.usage_percpu
	cpuacct.usage_percpu_user cpuacct.usage_percpu_sys cpuacct.usage_all cpuacct.stat)
# Files every group but the root has (the kernel's CFTYPE_NOT_ON_ROOT).
NOT_ROOT_FILES=(freezer.state freezer.self_freezing freezer.parent_freezing)
# cgfused.stat is cgfused's own (what the allocator does), not the kernel's.
ROOT_ONLY_FILES=(release_agent cgroup.sane_behavior cgfused.stat)
# Names the kernel also shows there (docs/kernel-oracle.md, readdir) that
# cgfused may add later: allowed in a listing, never required.
KERNEL_EXTRA_FILES=(cpuset.memory_pressure cpuset.memory_migrate
	cpuset.mem_exclusive cpuset.memory_spread_slab cpuset.cpu_exclusive
	cpuset.sched_load_balance cpuset.mem_hardwall cpuset.sched_relax_domain_level
	cpuset.memory_spread_page)

# check_listing DIR ROOT(0|1) SUBGROUP...: `ls -f DIR` shows . and .., each
# required control file and subgroup exactly once, and nothing else but the
# kernel's other cpu/cpuset/cpuacct file names.
check_listing() {
	local dir=$1 root=$2 name bad=0
	shift 2
	local -A count=() allowed=()
	local required=("${GROUP_FILES[@]}" "$@")
	if ((root)); then
		required+=("${ROOT_ONLY_FILES[@]}")
	else
		required+=("${NOT_ROOT_FILES[@]}")
	fi
	for name in "${required[@]}" "${KERNEL_EXTRA_FILES[@]}"; do
		allowed[$name]=1
	done
	((root)) && allowed[cpuset.memory_pressure_enabled]=1
	while IFS= read -r name; do
		count[$name]=$((${count[$name]:-0} + 1))
	done < <(ls -f "$dir")
	for name in . .. "${required[@]}"; do
		if [[ ${count[$name]:-0} -ne 1 ]]; then
			echo "$dir: '$name' listed ${count[$name]:-0} times, expected once" >&2
			bad=1
		fi
	done
	for name in "${!count[@]}"; do
		[[ $name == . || $name == .. ]] && continue
		if [[ -z ${allowed[$name]:-} ]]; then
			echo "$dir: unexpected entry '$name'" >&2
			bad=1
		elif [[ ${count[$name]} -ne 1 ]]; then
			echo "$dir: '$name' listed ${count[$name]} times" >&2
			bad=1
		fi
	done
	return $bad
}

# ---- mkdir -------------------------------------------------------------------

@test "mkdir makes nested groups at any depth" {
	mkdir a a/b a/b/c a/b/c/d
	mkdir -p deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15
	[ -d a/b/c/d ]
	[ -f a/b/c/d/tasks ]
	[ -f deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/cpu.shares ]
	run cat a/b/c/d/cpu.shares
	assert_success
	assert_output 1024
}

@test "mkdir of an existing group fails with EEXIST" {
	mkdir a
	run mkdir a
	assert_failure
	assert_output "mkdir: cannot create directory 'a': File exists"
	run cg_op mkdir a
	assert_output "$E_EXIST"
}

@test "mkdir with the name of a control file fails with EEXIST" {
	mkdir g
	local name
	for name in tasks cpu.shares cgroup.procs notify_on_release cgroup.clone_children \
		cpu.stat cpuset.cpus cpuset.effective_mems; do
		run cg_op mkdir "g/$name"
		assert_output "$E_EXIST"
		[ -f "g/$name" ]
		run cg_op mkdir "$name"
		assert_output "$E_EXIST"
		[ -f "$name" ]
	done
	run mkdir g/tasks
	assert_failure
	assert_output "mkdir: cannot create directory 'g/tasks': File exists"
	for name in release_agent cgroup.sane_behavior; do
		run cg_op mkdir "$name"
		assert_output "$E_EXIST"
		[ -f "$name" ]
	done
}

@test "mkdir of root-only file names is allowed in a non-root group" {
	mkdir g
	run mkdir g/release_agent g/cgroup.sane_behavior g/cpuset.memory_pressure_enabled
	assert_success
	[ -d g/release_agent ]
	[ -d g/cgroup.sane_behavior ]
	[ -d g/cpuset.memory_pressure_enabled ]
	[ -f g/release_agent/tasks ]
}

@test "mkdir accepts dots, spaces, dashes, colons, stars and tabs in names" {
	local name
	local names=(cpu.foo 'with space' x.y .hidden -dash co:lon 'st*ar' $'tab\tname')
	for name in "${names[@]}"; do
		run cg_op mkdir "$name"
		assert_output ok
		[ -f "$name/tasks" ]
	done
	run ls -A
	for name in "${names[@]}"; do
		assert_line "$name"
	done
}

@test "mkdir of a name containing a newline fails with EINVAL" {
	run cg_op mkdir $'nl\nname'
	assert_output "$E_INVAL"
	run mkdir -- $'nl\nname'
	assert_failure
	assert_output --partial ": Invalid argument"
	[ ! -e $'nl\nname' ]
	run ls -A
	refute_output --partial nl
}

@test "mkdir accepts names of 255, 256 and 1000 bytes" {
	local n name
	for n in 255 256 1000; do
		name=$(printf "%${n}s" '' | tr ' ' x)
		run cg_op mkdir "$name"
		assert_output ok
		[ -f "$name/cpu.shares" ]
		run ls
		assert_line "$name"
	done
}

# ---- rmdir -------------------------------------------------------------------

@test "rmdir of a group with a task fails with EBUSY" {
	local p
	cg_sleeper p
	mkdir busy
	echo "$p" >busy/tasks
	run rmdir busy
	assert_failure
	assert_output "rmdir: failed to remove 'busy': Device or resource busy"
	run cg_op rmdir busy
	assert_output "$E_BUSY"
	[ -f busy/tasks ]
	run cat busy/tasks
	assert_output "$p"
}

@test "rmdir of a group with child groups fails with EBUSY" {
	mkdir a a/b
	run rmdir a
	assert_failure
	assert_output "rmdir: failed to remove 'a': Device or resource busy"
	run cg_op rmdir a
	assert_output "$E_BUSY"
	[ -d a/b ]
}

@test "rmdir removes a leaf group with its control files" {
	mkdir -p a/b/c/d
	rmdir a/b/c/d
	[ ! -e a/b/c/d ]
	run ls -A a/b/c
	refute_line d
	run cat a/b/c/d/tasks
	assert_failure
	assert_output "cat: a/b/c/d/tasks: No such file or directory"
	rmdir a/b/c a/b a
	run ls -A
	refute_line a
	run cg_op mkdir a
	assert_output ok
}

@test "rmdir of a missing name fails with ENOENT, of a file with ENOTDIR, of . with EINVAL" {
	mkdir g
	run cg_op rmdir nonexist
	assert_output "$E_NOENT"
	run cg_op rmdir tasks
	assert_output "$E_NOTDIR"
	run cg_op rmdir g/cpu.shares
	assert_output "$E_NOTDIR"
	run rmdir tasks
	assert_failure
	assert_output "rmdir: failed to remove 'tasks': Not a directory"
	cd g
	run cg_op rmdir .
	assert_output "$E_INVAL"
	run rmdir .
	assert_output "rmdir: failed to remove '.': Invalid argument"
	[ -d "$MNT/g" ]
}

@test "rm -r of a group fails on its control files with EPERM and removes nothing" {
	mkdir a
	run rm -r a
	assert_failure 1
	assert_line "rm: cannot remove 'a/tasks': Operation not permitted"
	assert_line "rm: cannot remove 'a/cpu.shares': Operation not permitted"
	[ -f a/tasks ]
	[ -f a/cpu.shares ]
	run rm -rf a
	assert_failure 1
	assert_line "rm: cannot remove 'a/cgroup.procs': Operation not permitted"
	[ -d a ]
	[ -f a/cgroup.procs ]
}

# ---- what cannot be made or removed ----------------------------------------

@test "unlink of a control file fails with EPERM" {
	mkdir g
	local f
	for f in g/cpu.shares g/tasks tasks cpu.shares release_agent; do
		run cg_op unlink "$f"
		assert_output "$E_PERM"
		[ -f "$f" ]
	done
	run rm g/cpu.shares
	assert_failure
	assert_output "rm: cannot remove 'g/cpu.shares': Operation not permitted"
	run cat g/cpu.shares
	assert_output 1024
}

@test "unlink of a missing name fails with ENOENT, of a group with EISDIR" {
	mkdir g
	run cg_op unlink nonexist
	assert_output "$E_NOENT"
	run cg_op unlink g
	assert_output "EISDIR Is a directory"
	run unlink g
	assert_output "unlink: cannot unlink 'g': Is a directory"
	[ -d g ]
}

@test "creating a regular file fails with EACCES (touch, O_CREAT, mknod)" {
	mkdir g
	run touch g/newfile
	assert_failure
	assert_output "touch: cannot touch 'g/newfile': Permission denied"
	run cg_op creat g/newfile
	assert_output "$E_ACCES"
	run cg_op creat newfile
	assert_output "$E_ACCES"
	run cg_op mknod g/nodefile
	assert_output "$E_ACCES"
	[ ! -e g/newfile ]
	[ ! -e newfile ]
	[ ! -e g/nodefile ]
}

@test "O_CREAT of an existing control file opens it; O_CREAT|O_EXCL fails with EEXIST" {
	mkdir g
	run cg_op creat g/cpu.shares
	assert_output ok
	run cg_op excl g/cpu.shares
	assert_output "$E_EXIST"
	run cat g/cpu.shares
	assert_output 1024
}

@test "touch of a control file or a group succeeds" {
	mkdir g
	run touch g/cpu.shares
	assert_success
	assert_output ""
	run touch g
	assert_success
	run touch tasks
	assert_success
}

@test "mkfifo and mknod of a fifo fail with EPERM" {
	mkdir g
	run mkfifo g/fifo
	assert_failure
	assert_output "mkfifo: cannot create fifo 'g/fifo': Operation not permitted"
	run cg_op mkfifo g/fifo2
	assert_output "$E_PERM"
	[ ! -e g/fifo ]
	[ ! -e g/fifo2 ]
}

@test "symlinks fail with EPERM" {
	mkdir g
	run ln -s tasks g/l1
	assert_failure
	assert_output "ln: failed to create symbolic link 'g/l1': Operation not permitted"
	run cg_op symlink /tmp g/l3
	assert_output "$E_PERM"
	[ ! -L g/l1 ]
	[ ! -e g/l3 ]
}

@test "hard links fail with EPERM" {
	mkdir g a
	run ln g/tasks g/l2
	assert_failure
	assert_output "ln: failed to create hard link 'g/l2' => 'g/tasks': Operation not permitted"
	run cg_op link g/cpu.shares a/hl
	assert_output "$E_PERM"
	[ ! -e g/l2 ]
	[ ! -e a/hl ]
}

@test "truncate and O_TRUNC succeed and leave the value unchanged" {
	mkdir g
	echo 500 >g/cpu.shares
	run truncate -s 0 g/cpu.shares
	assert_success
	run cat g/cpu.shares
	assert_output 500
	run truncate -s 5 g/cpu.shares
	assert_success
	run cat g/cpu.shares
	assert_output 500
	: >g/cpu.shares
	run cat g/cpu.shares
	assert_output 500
}

# ---- rename ------------------------------------------------------------------

@test "rename within the parent keeps the group and its tasks" {
	local p
	cg_sleeper p
	mkdir g g/r1
	echo "$p" >g/r1/tasks
	echo 300 >g/r1/cpu.shares
	run mv g/r1 g/r1new
	assert_success
	[ ! -e g/r1 ]
	run cat g/r1new/tasks
	assert_output "$p"
	run cat g/r1new/cpu.shares
	assert_output 300
	run ls g
	assert_line r1new
	refute_line r1
	run cg_op rmdir g/r1new
	assert_output "$E_BUSY"
	run cg_op rename g/r1new g/r1
	assert_output ok
	run cat g/r1/tasks
	assert_output "$p"
}

@test "rename onto an existing group fails with EEXIST, empty or not" {
	local p
	cg_sleeper p
	mkdir r1 r2 r3
	echo "$p" >r3/tasks
	run cg_op rename r1 r2
	assert_output "$E_EXIST"
	run cg_op rename r1 r3
	assert_output "$E_EXIST"
	run mv -T r1 r2
	assert_failure
	assert_output "mv: cannot move 'r1' to 'r2': File exists"
	[ -d r1 ]
	[ -d r2 ]
	run cat r3/tasks
	assert_output "$p"
}

@test "rename to another parent fails with EIO" {
	mkdir g g/r1 g/a g/r2 g/r3
	run cg_op rename g/r1 g/a/r1
	assert_output "$E_IO"
	run cg_op rename g/r1 r1x
	assert_output "$E_IO"
	run cg_op rename g/r2 g/r3/kid
	assert_output "$E_IO"
	run mv g/r2 g/a/
	assert_failure
	assert_output "mv: cannot move 'g/r2' to 'g/a/r2': Input/output error"
	run mv g/r1 g/r3
	assert_failure
	assert_output "mv: cannot move 'g/r1' to 'g/r3/r1': Input/output error"
	[ -d g/r1 ]
	[ -d g/r2 ]
	[ ! -e g/a/r1 ]
	[ ! -e r1x ]
}

@test "rename of a control file, or of a group onto one, fails with ENOTDIR" {
	mkdir g g/a g/r1
	run cg_op rename g/cpu.shares g/cpu.sharez
	assert_output "$E_NOTDIR"
	run cg_op rename g/cpu.shares g/a/cpu.shares
	assert_output "$E_NOTDIR"
	run mv g/cpu.shares g/foo
	assert_failure
	assert_output "mv: cannot move 'g/cpu.shares' to 'g/foo': Not a directory"
	run cg_op rename g/r1 g/cpu.shares
	assert_output "$E_NOTDIR"
	run cg_op rename g/r1 g/tasks
	assert_output "$E_NOTDIR"
	[ -f g/cpu.shares ]
	[ ! -e g/cpu.sharez ]
	[ ! -e g/foo ]
	[ -d g/r1 ]
}

@test "rename onto itself is a no-op; of a missing group fails with ENOENT" {
	mkdir g g/r1
	run cg_op rename g/r1 g/r1
	assert_output ok
	[ -d g/r1 ]
	run cg_op rename g/nonexist g/zz
	assert_output "$E_NOENT"
	[ ! -e g/zz ]
}

@test "rename into its own subtree fails with EINVAL, onto . with EBUSY" {
	mkdir -p a/bb/c
	run cg_op rename a/bb a/bb/c/x
	assert_output "$E_INVAL"
	run cg_op rename a/bb .
	assert_output "$E_BUSY"
	[ -d a/bb/c ]
}

# ---- readdir -----------------------------------------------------------------

@test "readdir of a group lists . .. its control files and subgroups once" {
	mkdir g g/k1 g/k2 'g/with space'
	check_listing g 0 k1 k2 'with space'
	run ls -A g
	refute_line release_agent
	refute_line cgroup.sane_behavior
	rmdir g/k1
	check_listing g 0 k2 'with space'
}

@test "readdir of the root lists the root-only files and the groups" {
	mkdir a b
	check_listing . 1 a b
	check_listing a 0
}

@test "readdir of a fresh group shows no subgroups" {
	mkdir g
	check_listing g 0
	run find g -mindepth 1 -type d
	assert_output ""
}

# ---- stat --------------------------------------------------------------------

@test "stat: a group is a 0755 directory of size 0 with nlink 2 + subgroups" {
	cg_require_root_user "the tree is root's"
	mkdir g
	run stat -c '%F %a %h %s %b %u:%g' g
	assert_output "directory 755 2 0 0 0:0"
	mkdir g/a g/b g/c
	run stat -c '%F %a %h' g
	assert_output "directory 755 5"
	rmdir g/a
	run stat -c '%F %a %h' g
	assert_output "directory 755 4"
	rmdir g/b g/c
	run stat -c '%h' g
	assert_output 2
	run stat -c '%a %h' g/a 2>/dev/null
	assert_failure
}

@test "stat: the hierarchy's root is 0555 with nlink 2 + subgroups, root can mkdir" {
	cg_require_root_user "the tree is root's"
	run stat -c '%F %a %h %s %b %u:%g' .
	assert_output "directory 555 2 0 0 0:0"
	run ls -ld .
	assert_output --regexp '^dr-xr-xr-x '
	mkdir x
	run stat -c '%a %h' .
	assert_output "555 3"
	mkdir y
	run stat -c '%h' .
	assert_output 4
	run stat -c '%h' "$MNT"
	assert_output 4
}

@test "stat: control files are regular, size 0, 0644 or 0444 when read-only" {
	cg_require_root_user "the tree is root's"
	mkdir g
	local f want
	for f in "${GROUP_FILES[@]}"; do
		case $f in
		cpu.stat | cpu.stat.local | cpuset.effective_cpus | cpuset.effective_mems) want=444 ;;
		cpuacct.usage) want=644 ;;
		cpuacct.*) want=444 ;;
		*) want=644 ;;
		esac
		run stat -c '%n %F %a %h %s %b %o %u:%g' "g/$f"
		assert_output "g/$f regular empty file $want 1 0 0 4096 0:0"
		run stat -c '%n %F %a %h %s' "$f"
		assert_output "$f regular empty file $want 1 0"
	done
	run stat -c '%n %a %s' release_agent cgroup.sane_behavior cgfused.stat
	assert_output $'release_agent 644 0\ncgroup.sane_behavior 444 0\ncgfused.stat 444 0'
	run cat g/cpu.shares
	assert_output 1024
	run stat -c '%s' g/cpu.shares
	assert_output 0
}

@test "cgfused.stat counts the core lock's write holds and waits, and names the longest holder" {
	local before after key
	before=$(sed -n 's/^lock_write_holds //p' cgfused.stat)
	[[ $before =~ ^[1-9][0-9]*$ ]]
	mkdir g1 g2 g3
	rmdir g3
	run cat cgfused.stat
	for key in lock_write_holds lock_write_hold_max_us lock_write_holds_over_1ms \
		lock_write_wait_max_us lock_read_wait_max_us lock_read_waits_over_1ms; do
		assert_line --regexp "^$key [0-9]+\$"
	done
	# A function of the daemon (its __func__).
	assert_line --regexp '^lock_write_hold_max_site [a-z_][a-z0-9_]*$'
	after=$(sed -n 's/^lock_write_holds //p' cgfused.stat)
	((after >= before + 4))
}

# ---- core files --------------------------------------------------------------

@test "a fresh group: tasks and cgroup.procs empty, notify_on_release and clone_children 0" {
	echo 0 >cgroup.clone_children
	mkdir g
	run cg_bytes g/tasks
	assert_output "b''"
	run cg_bytes g/cgroup.procs
	assert_output "b''"
	run cg_bytes g/notify_on_release
	assert_output "b'0\\n'"
	run cg_bytes g/cgroup.clone_children
	assert_output "b'0\\n'"
}

@test "root-only files: release_agent empty, cgroup.sane_behavior 0, absent in child groups" {
	run cg_bytes release_agent
	assert_output "b'\\n'"
	run cg_bytes cgroup.sane_behavior
	assert_output "b'0\\n'"
	mkdir g
	run ls g/release_agent
	assert_failure
	assert_output "ls: cannot access 'g/release_agent': No such file or directory"
	run cat g/cgroup.sane_behavior
	assert_failure
	assert_output "cat: g/cgroup.sane_behavior: No such file or directory"
	run cg_write g/release_agent /bin/true
	assert_output "open: $E_NOENT"
}

# expect_flag_parsing FILE: FILE takes a u64 as the kernel's flag files do
# (base 0, non-zero is 1, oracle §2).
expect_flag_parsing() {
	local f=$1
	cg_expect $f 0 '1' ok 1
	cg_expect $f 0 '1\n' ok 1
	cg_expect $f 0 '2' ok 1
	cg_expect $f 0 '0x1' ok 1
	cg_expect $f 0 '01' ok 1
	cg_expect $f 0 '9223372036854775807' ok 1
	cg_expect $f 0 '18446744073709551615' ok 1
	cg_expect $f 0 '1\x00x' ok 1
	cg_expect $f 1 '0' ok 0
	cg_expect $f 0 '-1' "$E_INVAL" 0
	cg_expect $f 1 '-0' "$E_INVAL" 1
	cg_expect $f 0 'abc' "$E_INVAL" 0
	cg_expect $f 0 ' 1 ' "$E_INVAL" 0
	cg_expect $f 0 '\n' "$E_INVAL" 0
	cg_expect $f 0 '1abc' "$E_INVAL" 0
	cg_expect $f 0 'true' "$E_INVAL" 0
	cg_expect $f 0 '18446744073709551616' "$E_RANGE" 0
	cg_expect $f 1 '' 0 1
	cg_expect_done
}

@test "notify_on_release parses a u64 (base 0, non-zero is 1) like the kernel" {
	mkdir g
	expect_flag_parsing g/notify_on_release
}

@test "cgroup.clone_children parses a u64 (base 0, non-zero is 1) like the kernel" {
	mkdir g
	expect_flag_parsing g/cgroup.clone_children
}

@test "notify_on_release is inherited at mkdir, independently of clone_children" {
	mkdir g
	echo 1 >g/notify_on_release
	echo 0 >g/cgroup.clone_children
	mkdir g/c
	run cat g/c/notify_on_release
	assert_output 1
	run cat g/c/cgroup.clone_children
	assert_output 0
	echo 0 >g/notify_on_release
	mkdir g/d
	run cat g/d/notify_on_release
	assert_output 0
	run cat g/c/notify_on_release
	assert_output 1
}

@test "cgroup.clone_children is inherited at mkdir, independently of notify_on_release" {
	mkdir g
	echo 1 >g/cgroup.clone_children
	echo 0 >g/notify_on_release
	mkdir g/c
	run cat g/c/cgroup.clone_children
	assert_output 1
	run cat g/c/notify_on_release
	assert_output 0
	echo 0 >g/cgroup.clone_children
	mkdir g/d
	run cat g/d/cgroup.clone_children
	assert_output 0
	run cat g/c/cgroup.clone_children
	assert_output 1
}

@test "the root's notify_on_release is inherited by a new group" {
	echo 1 >notify_on_release
	mkdir g
	run cat g/notify_on_release
	assert_output 1
}

# ---- the release agent ---------------------------------------------------------
# The kernel runs the hierarchy's release_agent with the group's path (from
# the hierarchy's root) when a group with notify_on_release loses its last
# task and child (Documentation/admin-guide/cgroup-v1/cgroups.rst). The agent
# here appends its argument to $CG_TMP/released.

make_agent() {
	printf '#!/bin/sh\necho "$1" >> "%s/released"\n' "$CG_TMP" >"$CG_TMP/agent"
	chmod +x "$CG_TMP/agent"
	echo "$CG_TMP/agent" >release_agent
}

# wait_released PATH: until the agent has reported PATH (at most 20 s).
wait_released() {
	cg_wait_for -Fx "$CG_TMP/released" "$1"
}

@test "release_agent runs with the group's path when its last task exits, untouched" {
	make_agent
	mkdir -p a/b
	echo 1 >a/b/notify_on_release
	cg_sleeper P
	echo "$P" >a/b/tasks
	kill -KILL "$P"	# TERM can race the child's exec of sleep
	# Nothing touches the mount until the agent has run: the daemon learns
	# of the exit by itself.
	wait_released /a/b
	run cat "$CG_TMP/released"
	assert_output /a/b
}

@test "release_agent runs for a group when its last child group is removed" {
	make_agent
	mkdir -p a/b
	echo 1 >a/notify_on_release
	rmdir a/b
	wait_released /a
}

@test "release_agent does not run for an empty group that still has a child group" {
	make_agent
	mkdir -p a/b loud
	echo 1 >a/notify_on_release
	echo 1 >loud/notify_on_release
	cg_sleeper P
	cg_sleeper Q
	echo "$P" >a/tasks
	echo "$Q" >loud/tasks
	# a loses its last task but keeps its (empty) child b: not released.
	kill -KILL "$P"
	wait "$P" 2>/dev/null || true	# kill(2) returns before the exit
	run cat a/tasks	# the exit is taken in: a is empty now
	assert_output ''
	# Agents run in order: loud's, due after a's exit, comes after any
	# for a.
	kill -KILL "$Q"
	wait_released /loud
	run cat "$CG_TMP/released"
	assert_output /loud
	# Without its child, a is released.
	rmdir a/b
	wait_released /a
}

@test "release_agent does not run for a group without notify_on_release" {
	make_agent
	mkdir quiet loud
	echo 1 >loud/notify_on_release
	cg_sleeper P
	cg_sleeper Q
	echo "$P" >quiet/tasks
	echo "$Q" >loud/tasks
	kill -KILL "$P"
	wait "$P" 2>/dev/null || true	# kill(2) returns before the exit
	run cat quiet/tasks	# the exit is taken in: quiet is empty now
	assert_output ''
	kill -KILL "$Q"
	wait_released /loud
	run cat "$CG_TMP/released"
	assert_output /loud
}

# agent_log_is TEXT: the release agent's log holds the lines of TEXT, in
# any order (each call's agent runs apart), within 20 s, and no other call
# was made: a call for a group released after them (/probe) is the next
# agent started (release_agent_runs counts them in the order of the
# calls), and the log then holds TEXT and /probe.
agent_log_is() {
	local want n
	want=$(sort <<<"$1")
	cg_poll_until -x "$want" sort "$CG_TMP/agent.log" || return
	n=$(wc -l <<<"$1")
	mkdir -p probe/x
	echo 1 >probe/notify_on_release
	rmdir probe/x
	cg_poll_until grep -qx /probe "$CG_TMP/agent.log" || return
	assert_equal "$(grep '^release_agent_runs ' cgfused.stat)" "release_agent_runs $((n + 1))"
	assert_equal "$(sort "$CG_TMP/agent.log")" "$(sort <<<"$1"$'\n'/probe)"
}

@test "the release agent runs for a group left without tasks and without children" {
	local s
	printf '#!/bin/sh\necho "$1" >>%s/agent.log\n' "$CG_TMP" >"$CG_TMP/agent"
	chmod 755 "$CG_TMP/agent"
	echo "$CG_TMP/agent" >release_agent
	mkdir p
	echo 1 >p/notify_on_release
	mkdir p/c q
	cg_sleeper s
	# No call: p's last task leaves while p/c is still there, and q's,
	# whose flag is off.
	echo "$s" >p/tasks
	echo "$s" >tasks
	echo "$s" >q/tasks
	echo "$s" >tasks
	# A call for /p/c, whose last task leaves; its removal empties p, a
	# call for /p. An agent for a call above would have started before
	# these two: it would be in the log by the time both are.
	echo "$s" >p/c/tasks
	echo "$s" >tasks
	rmdir p/c
	agent_log_is "/p/c
/p"
}
