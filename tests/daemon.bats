#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The daemon: command line, mount point, ways to stop it, the choice of
# controllers and hierarchies, and how writes and reads reach control files
# (size limit, NUL, empty writes, offsets, removed groups, read-only files).
# Expectations: docs/kernel-oracle.md §0, §1 (stat) and §2 (removed groups).

load helpers

setup() {
	cg_setup
}

teardown() {
	cg_teardown
}

# ---- command line ------------------------------------------------------------------

@test "--help prints usage on stdout and exits 0" {
	run --separate-stderr "$CGFUSED" --help
	assert_success
	assert_output --partial "usage: "
	assert_output --partial "controllers="
	assert_output --partial "noclone_children"
	refute cg_is_mounted "$MNT"
}

@test "--version prints the version and exits 0" {
	run --separate-stderr "$CGFUSED" --version
	assert_success
	assert_line --regexp '^cgfused version [0-9]+\.[0-9]+'
}

@test "--version in a pipe: cgfused's line comes first, before fusermount3's" {
	# stdout is a pipe, so fully buffered: unflushed, cgfused's line came
	# after the output of the fusermount3 that libfuse runs.
	run bash -c '"$CGFUSED" --version | head -1'
	assert_success
	assert_output --regexp '^cgfused version [0-9]+\.[0-9]+'
}

# The "-o NAME" options a text lists.
o_names() {
	grep -oE '(^|  |\*)-o [a-z_]+' | awk '{ print $2 }' | sort -u
}

@test "--help lists the -o options cgfused(8) documents, no more, no fewer" {
	local help man
	help=$("$CGFUSED" --help | o_names)
	man=$(sed -n '/^# OPTIONS/,/^# FILES/p' "$TESTS_SRCDIR/../docs/cgfused.8.scd" | o_names)
	[[ $help == *allow_other* ]]
	assert_equal "$help" "$man"
}

@test "-o auto_unmount: a daemon killed with SIGKILL leaves no dead mount" {
	cg_mount -o auto_unmount
	kill -KILL "$CG_PID"
	cg_poll_until -x gone sh -c 'grep -q " $1 " /proc/mounts && echo mounted || echo gone' sh "$MNT"
}

@test "a direct start mounts nosuid,nodev, and so does one given dev,suid (mount(8)'s defaults)" {
	local opts
	cg_mount
	opts=$(awk -v m="$MNT" '$2 == m { print $4 }' /proc/mounts)
	[[ ,$opts, == *,nosuid,* && ,$opts, == *,nodev,* ]] || { echo "$opts"; false; }
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	cg_mount -o dev,suid
	opts=$(awk -v m="$MNT" '$2 == m { print $4 }' /proc/mounts)
	[[ ,$opts, == *,nosuid,* && ,$opts, == *,nodev,* ]] || { echo "$opts"; false; }
}

@test "-o bogus exits non-zero with one line on stderr and mounts nothing" {
	run --separate-stderr timeout 20 "$CGFUSED" -f -o bogus "$MNT" 3>&-
	assert_failure
	[ "$status" -ne 124 ] # not killed by timeout: it gave up by itself
	[ "${#stderr_lines[@]}" -eq 1 ] || { printf 'stderr: %s\n' "${stderr_lines[@]}"; false; }
	[[ $stderr == *bogus* ]]
	assert_output ""
	refute cg_is_mounted "$MNT"
}

@test "an unknown controller exits non-zero with one line on stderr naming it" {
	run --separate-stderr timeout 20 "$CGFUSED" -f -o controllers=cpu,memory "$MNT" 3>&-
	assert_failure
	[ "$status" -ne 124 ]
	[ "${#stderr_lines[@]}" -eq 1 ] || { printf 'stderr: %s\n' "${stderr_lines[@]}"; false; }
	[[ $stderr == *memory* ]]
	refute cg_is_mounted "$MNT"
}

@test "an unknown controller's error lists every controller, and each one it lists mounts" {
	local known name
	run --separate-stderr timeout 20 "$CGFUSED" -f -o controllers=memory "$MNT" 3>&-
	assert_failure
	[ "$status" -ne 124 ]
	[[ $stderr == *"unknown controller 'memory'"* ]]
	known=${stderr##*(known: }
	known=${known%)}
	[ "$known" = "cpuset, cpu, cpuacct, freezer, pids" ]
	for name in ${known//,/ }; do	# each one mounts, its files in a group
		cg_mount_at "$CG_TMP/$name" -o state=none -o "controllers=$name"
		mkdir "$CG_TMP/$name/g"
		compgen -G "$CG_TMP/$name/g/$name.*" >/dev/null
	done
}

@test "a missing mount point under a writable parent is created" {
	local mnt=$CG_TMP/not-yet
	[ ! -e "$mnt" ]
	cg_mount_at "$mnt"
	[ -d "$mnt" ]
	run cat "$mnt/cpu.shares"
	assert_output 1024
	mkdir "$mnt/g"
	[ -f "$mnt/g/tasks" ]
}

@test "a second cgfused on a live mount fails with one line; the first goes on, mounted once" {
	local n=0 dev mnt rest
	cg_mount -o state=none
	mkdir "$MNT/before"
	run --separate-stderr timeout 10 "$CGFUSED" -f -o state=none "$MNT" 3>&-
	[ "$status" -ne 124 ]
	assert_failure
	[ "${#stderr_lines[@]}" -eq 1 ] || { printf 'stderr: %s\n' "${stderr_lines[@]}"; false; }
	[[ $stderr == *"$MNT is already mounted (fuse.cgfused"* ]]
	while read -r dev mnt rest; do
		[[ $mnt == "$MNT" ]] && n=$((n + 1))
	done </proc/mounts
	[ "$n" -eq 1 ]
	[ -d "$MNT/before" ] && mkdir "$MNT/after"
	# Through a path with a link in it as well.
	ln -s "$MNT" "$CG_TMP/link"
	run --separate-stderr timeout 10 "$CGFUSED" -f -o state=none "$CG_TMP/link" 3>&-
	[ "$status" -ne 124 ]
	assert_failure
	[[ $stderr == *"already mounted"* ]]
	kill -0 "$CG_PID"
}

@test "a mount point under /sys/fs (sysfs) fails with one line naming /run/cgfused" {
	local mnt=/sys/fs/cgfused-test-$$
	[ ! -e "$mnt" ]
	run --separate-stderr timeout 20 "$CGFUSED" -f "$mnt" 3>&-
	assert_failure
	[ "$status" -ne 124 ]
	[ "${#stderr_lines[@]}" -eq 1 ] || { printf 'stderr: %s\n' "${stderr_lines[@]}"; false; }
	[[ $stderr == *"$mnt"* ]]
	[[ $stderr == */run/cgfused* ]]
	[[ $stderr != *"No such file or directory"* ]]
	[ ! -e "$mnt" ]
}

# A directory made on a cgroup file system is a kernel cgroup, and a
# mount over one hides it.
@test "a mount point on the kernel's cgroup file systems fails with one line naming /run/cgfused" {
	local mnt
	for mnt in /sys/fs/cgroup/unified/cgfused-test-$$ /sys/fs/cgroup/cpu/cgfused-test-$$/x \
		   /sys/fs/cgroup/unified /sys/fs/cgroup/cpu; do
		[ -d "${mnt%/cgfused-test-*}" ] || continue
		run --separate-stderr timeout 20 "$CGFUSED" -f -o state=none "$mnt" 3>&-
		assert_failure
		[ "$status" -ne 124 ]
		[ "${#stderr_lines[@]}" -eq 1 ] || { printf 'stderr: %s\n' "${stderr_lines[@]}"; false; }
		[[ $stderr == *"$mnt is on the kernel's cgroup file system"*/run/cgfused/* ]]
		[ ! -e "/sys/fs/cgroup/unified/cgfused-test-$$" ]
		[ ! -e "/sys/fs/cgroup/cpu/cgfused-test-$$" ]
	done
}

@test "without -f it daemonizes: returns 0 with the file system mounted" {
	run "$CGFUSED" -o "state=$CG_TMP/d.state" "$MNT" 3>&-
	assert_success
	# One line: where it is and where its messages go (service.bats: both
	# cases, a syslog daemon or none).
	assert_output --regexp "^cgfused: mounted at $MNT; messages go to (syslog \(journalctl -t cgfused\)|/dev/console \(nothing listens on /dev/log\))\$"
	CG_MOUNTS+=("$MNT")
	cg_wait_mounted "$MNT"
	# Its PID, to stop it by PID only: the one process whose command line is
	# exactly this binary, these options and this (per-test) mount point.
	# pgrep reads /proc in one process; a shell loop forking per process
	# crawls under load.
	local pid
	pid=$(pgrep -x -f "$CGFUSED -o state=$CG_TMP/d.state $MNT")
	[[ $pid =~ ^[0-9]+$ ]]
	CG_DAEMONS+=("$pid")
	run cat "$MNT/cpu.shares"
	assert_output 1024
	run fusermount3 -u "$MNT"
	assert_success
	cg_wait_gone "$pid"
	refute cg_is_mounted "$MNT"
}

# ---- stopping ----------------------------------------------------------------------

@test "SIGTERM to the daemon unmounts cleanly" {
	cg_mount
	mkdir "$MNT/g"
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	refute cg_is_mounted "$MNT"
	run ls -A "$MNT"
	assert_success
	assert_output ""
	run mountpoint -q "$MNT"
	assert_failure
}

@test "after SIGTERM the daemon's exit status is 0 (a requested stop is no failure)" {
	cg_mount
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	local rc=0
	wait "$CG_PID" || rc=$?
	[ "$rc" -eq 0 ] || { echo "exit status $rc" >&2; false; }
}

@test "fusermount3 -u ends the daemon" {
	cg_mount
	run fusermount3 -u "$MNT"
	assert_success
	cg_wait_gone "$CG_PID"
	local rc=0
	wait "$CG_PID" || rc=$?
	[ "$rc" -eq 0 ]
	refute cg_is_mounted "$MNT"
}

# ---- malloc's per-thread caches (docs/soak.md, Memory) ----------------------------

# cg_tunables_of PID: the GLIBC_TUNABLES a process was started with. glibc
# parses the variable in place, where /proc/PID/environ shows it, putting
# a NUL for each ':': the tunables it split off follow as entries of
# their own.
cg_tunables_of() {
	awk -v RS='\0' '/^GLIBC_TUNABLES=/ { t = substr($0, 16); on = 1; next }
		on && /^glibc\./ { t = t ":" $0; next }
		{ on = 0 }
		END { print t }' "/proc/$1/environ"
}

@test "the daemon starts itself again, same PID, with glibc's per-thread caches off" {
	unset GLIBC_TUNABLES
	cg_mount
	run cg_tunables_of "$CG_PID"
	assert_output "glibc.malloc.tcache_count=0"
	run readlink "/proc/$CG_PID/exe"
	assert_output "$(readlink -f "$CGFUSED")"
	mkdir "$MNT/g"
	[ "$(cat "$MNT/g/cpu.shares")" = 1024 ]
}

@test "the user's own tunables are kept, and a tcache_count the user set is left alone" {
	GLIBC_TUNABLES=glibc.malloc.perturb=0:glibc.malloc.check=0 cg_mount
	run cg_tunables_of "$CG_PID"
	assert_output "glibc.malloc.perturb=0:glibc.malloc.check=0:glibc.malloc.tcache_count=0"
	mkdir "$CG_TMP/m2"
	GLIBC_TUNABLES=glibc.malloc.tcache_count=3 cg_mount_at "$CG_TMP/m2"
	run cg_tunables_of "$CG_PID"
	assert_output "glibc.malloc.tcache_count=3"
}

# ---- controllers and hierarchies ---------------------------------------------------

@test "-o controllers=cpu has the core files and cpu files only" {
	cg_mount -o controllers=cpu
	local f
	for f in tasks cgroup.procs notify_on_release cgroup.clone_children release_agent \
		cgroup.sane_behavior cpu.shares cpu.cfs_period_us cpu.cfs_quota_us cpu.stat; do
		[ -f "$MNT/$f" ] || { echo "missing $f" >&2; false; }
	done
	run ls -A "$MNT"
	refute_output --partial cpuset.
	refute_output --partial cpuacct.
	mkdir "$MNT/g"
	run ls -A "$MNT/g"
	assert_line cpu.shares
	refute_output --partial cpuset.
	refute_output --partial cpuacct.
	run cat "$MNT/cpuset.cpus"
	assert_failure
	assert_output "cat: $MNT/cpuset.cpus: No such file or directory"
}

@test "-o controllers=cpuset has cpuset files and no cpu files" {
	cg_mount -o controllers=cpuset
	[ -f "$MNT/cpuset.cpus" ]
	[ -f "$MNT/tasks" ]
	run ls -A "$MNT"
	refute_output --partial cpu.
	refute_output --partial cpuacct.
}

@test "-o controllers=cpu,cpuacct:cpuset shows two hierarchies as subdirectories" {
	cg_mount -o controllers=cpu,cpuacct:cpuset
	run ls -A "$MNT"
	assert_output $'cpu,cpuacct\ncpuset'
	[ -f "$MNT/cpu,cpuacct/cpu.shares" ]
	[ -f "$MNT/cpu,cpuacct/tasks" ]
	[ ! -e "$MNT/cpu,cpuacct/cpuset.cpus" ]
	[ -f "$MNT/cpuset/cpuset.cpus" ]
	[ -f "$MNT/cpuset/tasks" ]
	[ ! -e "$MNT/cpuset/cpu.shares" ]
	run stat -c '%a' "$MNT/cpu,cpuacct" "$MNT/cpuset"
	assert_output $'555\n555'
}

@test "with two hierarchies a task is in one group of each" {
	cg_mount -o controllers=cpu,cpuacct:cpuset
	local p q
	cg_sleeper p
	cg_sleeper q
	local cpu=$MNT/cpu,cpuacct cs=$MNT/cpuset
	mkdir "$cpu/a" "$cpu/b" "$cs/x"
	echo "$p" >"$cpu/a/tasks"
	echo "$p" >"$cs/x/tasks"
	echo "$q" >"$cpu/b/tasks"
	run cat "$cpu/a/tasks"
	assert_output "$p"
	run cat "$cs/x/tasks"
	assert_output "$p"
	run cat "$cpu/b/tasks"
	assert_output "$q"
	run cat "$cs/tasks"
	refute_line "$p"
	assert_line "$q"
	run cat "$cpu/tasks"
	refute_line "$p"
	refute_line "$q"
	# Moving in one hierarchy leaves the other alone.
	echo "$p" >"$cpu/b/tasks"
	run cat "$cpu/a/tasks"
	assert_output ""
	run cat "$cs/x/tasks"
	assert_output "$p"
	echo "$p" >"$cs/tasks"
	run cat "$cs/x/tasks"
	assert_output ""
	run cat "$cpu/b/tasks"
	assert_output "$(printf '%s\n' "$p" "$q" | sort -n)"
}

# ---- how writes arrive -------------------------------------------------------------

@test "writes of more than 4096 bytes fail with E2BIG; 4096 bytes are parsed" {
	cg_mount
	mkdir "$MNT/g"
	local p
	cg_sleeper p
	local f=$MNT/g/cpu.shares
	cg_expect "$f" 1024 "$(printf '%04096d' 512)" ok 330
	cg_expect "$f" 1024 "$(printf '%04097d' 512)" "$E_2BIG" 1024
	cg_expect "$f" 1024 "$(printf '%08192d' 512)" "$E_2BIG" 1024
	cg_expect "$f" 1024 "$(printf '%0100000d' 512)" "$E_2BIG" 1024
	cg_expect "$MNT/g/tasks" '' "$(printf '%4096s' "$p")" ok "$p"
	cg_expect "$MNT/tasks" '' "$p" ok
	cg_expect "$MNT/g/tasks" '' "$(printf '%4097s' "$p")" "$E_2BIG" ''
	cg_expect "$MNT/g/cpuset.cpus" 0-1 "$(printf '%4097s' 0)" "$E_2BIG" 0-1
	cg_expect "$MNT/g/notify_on_release" 0 "$(printf '%04097d' 1)" "$E_2BIG" 0
	cg_expect_done
}

@test "an embedded NUL ends the command; the whole length is reported written" {
	cg_mount
	mkdir "$MNT/g"
	local p
	cg_sleeper p
	cg_expect "$MNT/g/cpu.shares" 1024 '100\x00junk' 8 100
	cg_expect "$MNT/g/notify_on_release" 0 '1\x00x' 3 1
	cg_expect "$MNT/g/cpuset.cpus" 0-1 '0\x00junk' 6 0
	cg_expect "$MNT/g/tasks" '' "$p"'\x00junk' "$((${#p} + 5))" "$p"
	cg_expect "$MNT/g/cpu.cfs_quota_us" '' '5000\x00 junk' 10 5000
	cg_expect_done
}

@test "a 0-byte write returns 0 and changes nothing" {
	cg_mount
	mkdir "$MNT/g"
	local p
	cg_sleeper p
	echo "$p" >"$MNT/g/tasks"
	cg_expect "$MNT/g/cpu.shares" 300 '' 0 300
	cg_expect "$MNT/g/cpu.cfs_quota_us" 50000 '' 0 50000
	cg_expect "$MNT/g/cpu.cfs_period_us" 200000 '' 0 200000
	cg_expect "$MNT/g/notify_on_release" 1 '' 0 1
	cg_expect "$MNT/g/cgroup.clone_children" 1 '' 0 1
	cg_expect "$MNT/g/cpuset.cpus" 1 '' 0 1
	cg_expect "$MNT/g/cpuset.mems" 0 '' 0 0
	cg_expect "$MNT/g/tasks" '' '' 0 "$p"
	cg_expect "$MNT/g/cgroup.procs" '' '' 0 "$p"
	cg_expect "$MNT/release_agent" '' '' 0 ''
	cg_expect_done
}

@test "each write is one command whatever the offset: pwrite, O_APPEND, two writes on one fd" {
	cg_mount
	mkdir "$MNT/g"
	run "$CG_PYTHON" -c '
import os, sys
f = sys.argv[1]
def show():
    with open(f) as r:
        return r.read().strip()
fd = os.open(f, os.O_WRONLY)
print(os.pwrite(fd, b"600", 3), show())
print(os.pwrite(fd, b"700", 100000), show())
print(os.write(fd, b"1"), os.write(fd, b"00\n"), show())
os.close(fd)
fd = os.open(f, os.O_WRONLY | os.O_APPEND)
print(os.write(fd, b"5"), show())
' "$MNT/g/cpu.shares"
	assert_success
	assert_output $'3 600\n3 700\n1 3 2\n1 5'
	echo 44 >>"$MNT/g/cpu.shares"
	run cat "$MNT/g/cpu.shares"
	assert_output 44
}

@test "reads: in pieces, at an offset, and SEEK_END is 0" {
	cg_mount
	mkdir "$MNT/g"
	run "$CG_PYTHON" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(repr(os.read(fd, 2)), repr(os.read(fd, 100)), repr(os.read(fd, 100)))
print(repr(os.pread(fd, 100, 2)), repr(os.pread(fd, 100, 0)), repr(os.pread(fd, 100, 10)))
print(os.lseek(fd, 0, os.SEEK_END))
' "$MNT/g/cpu.shares"
	assert_success
	assert_output $'b\'10\' b\'24\\n\' b\'\'\nb\'24\\n\' b\'1024\\n\' b\'\'\n0'
}

@test "a read from offset 0 again, on the same fd, shows the value as it is now" {
	cg_mount
	mkdir "$MNT/g"
	run "$CG_PYTHON" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
first = os.read(fd, 100)
with open(sys.argv[1], "w") as f:
    f.write("512")
os.lseek(fd, 0, os.SEEK_SET)
print(repr(first), repr(os.read(fd, 100)), repr(os.pread(fd, 100, 0)))
' "$MNT/g/cpu.shares"
	assert_success
	assert_output "b'1024\\n' b'512\\n' b'512\\n'"
}

@test "an fd kept open after its group is removed: write and read give ENODEV" {
	cg_mount
	mkdir "$MNT/g"
	run "$CG_PYTHON" -c '
import errno, os, sys
g = sys.argv[1]
def show(name, fn):
    try:
        print(name, repr(fn()))
    except OSError as e:
        print(name, errno.errorcode[e.errno], os.strerror(e.errno))
fw = os.open(g + "/cpu.shares", os.O_WRONLY)
fr = os.open(g + "/cpu.shares", os.O_RDONLY)
ft = os.open(g + "/tasks", os.O_RDONLY)
fs = os.open(g + "/cpu.stat", os.O_RDONLY)
fp = os.open(g + "/cpu.shares", os.O_RDONLY)
show("partial", lambda: os.read(fp, 2))
os.rmdir(g)
show("write", lambda: os.write(fw, b"500"))
show("read", lambda: os.read(fr, 100))
show("tasks", lambda: os.read(ft, 100))
show("stat", lambda: os.pread(fs, 100, 0))
show("rest", lambda: os.read(fp, 100))
os.mkdir(g)
show("new", lambda: open(g + "/cpu.shares").read())
show("old", lambda: os.pread(fr, 100, 0))
show("oldwrite", lambda: os.write(fw, b"700"))
show("newafter", lambda: open(g + "/cpu.shares").read())
' "$MNT/g"
	assert_success
	assert_output - <<EOF
partial b'10'
write $E_NODEV
read $E_NODEV
tasks $E_NODEV
stat $E_NODEV
rest b'24\\n'
new '1024\\n'
old $E_NODEV
oldwrite $E_NODEV
newafter '1024\\n'
EOF
	run bash -c "exec 4>'$MNT/g/cpu.shares'; rmdir '$MNT/g'; echo 500 >&4"
	assert_failure
	assert_output "bash: line 1: echo: write error: No such device"
}

@test "fstat of a control file fd (read, then its group removed) still works: 0644, nlink 1" {
	cg_mount
	mkdir "$MNT/g"
	run "$CG_PYTHON" -c '
import errno, os, sys
g = sys.argv[1]
fd = os.open(g + "/cpu.shares", os.O_RDONLY)
os.read(fd, 100)
os.rmdir(g)
try:
    st = os.fstat(fd)
    print(oct(st.st_mode), st.st_nlink)
except OSError as e:
    print(errno.errorcode[e.errno], os.strerror(e.errno))
' "$MNT/g"
	assert_success
	assert_output "0o100644 1"
}

@test "a directory fd kept open after rmdir: fstat works (0755) and it lists nothing" {
	cg_mount
	mkdir "$MNT/g"
	run "$CG_PYTHON" -c '
import errno, os, sys
g = sys.argv[1]
fd = os.open(g, os.O_RDONLY | os.O_DIRECTORY)
os.rmdir(g)
for name, fn in (("fstat", lambda: oct(os.fstat(fd).st_mode)), ("listdir", lambda: os.listdir(fd))):
    try:
        print(name, fn())
    except OSError as e:
        print(name, errno.errorcode[e.errno], os.strerror(e.errno))
' "$MNT/g"
	assert_success
	assert_output $'fstat 0o40755\nlistdir []'
}

@test "read-only files read fine; root may open them for writing but a write gives EINVAL" {
	cg_mount
	mkdir "$MNT/g"
	local f
	for f in g/cpu.stat g/cpuset.effective_cpus g/cpuset.effective_mems cgroup.sane_behavior; do
		run cat "$MNT/$f"
		assert_success
		[ -n "$output" ]
		run cg_write "$MNT/$f" 0
		assert_output "$E_INVAL"
		run cg_write "$MNT/$f" '0\n'
		assert_output "$E_INVAL"
	done
	run cat "$MNT/cgroup.sane_behavior"
	assert_output 0
	run bash -c "echo 1 > '$MNT/g/cpuset.effective_cpus'"
	assert_failure
	assert_output "bash: line 1: echo: write error: Invalid argument"
	run cat "$MNT/g/cpuset.effective_cpus"
	assert_output 0-1
}

@test "a file opened read-only cannot be written and one opened write-only cannot be read: EBADF" {
	cg_mount
	mkdir "$MNT/g"
	run "$CG_PYTHON" -c '
import errno, os, sys
f = sys.argv[1]
for flags, op in ((os.O_RDONLY, lambda fd: os.write(fd, b"5")), (os.O_WRONLY, lambda fd: os.read(fd, 10))):
    fd = os.open(f, flags)
    try:
        print(op(fd))
    except OSError as e:
        print(errno.errorcode[e.errno], os.strerror(e.errno))
' "$MNT/g/cpu.shares"
	assert_output $'EBADF Bad file descriptor\nEBADF Bad file descriptor'
}
