#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile input: garbage, overflow, empty, huge, multi-line and
# split writes to every control file, and odd names, must get the kernel's
# answers and leave the state as it was. tests/helpers/hostile-probe sends
# them; tests/hostile-kernel.tsv is what the kernel's cgroupfs answered
# (docs/kernel-oracle.md, "Hostile input").

load helpers

PROBE="$TESTS_SRCDIR/helpers/hostile-probe"
TABLE="$TESTS_SRCDIR/hostile-kernel.tsv"

setup() {
	cg_setup
	cg_mount
	cd "$MNT"
	mkdir g
}

teardown() {
	cg_teardown
}

# probe: runs the probe on $MNT/g (names made in it too) into $CG_TMP/got.
probe() {
	"$CG_PYTHON" "$PROBE" --mkdir "$MNT/g" "$MNT/g" >"$CG_TMP/got"
}

# compare WANT GOT REGEX: the lines of the two tables whose file (first
# field) matches REGEX must be the same, and there must be some.
compare() {
	local want=$CG_TMP/want.part got=$CG_TMP/got.part
	awk -F'\t' -v re="^($3)\$" '$1 ~ re' "$1" >"$want"
	awk -F'\t' -v re="^($3)\$" '$1 ~ re' "$2" >"$got"
	if [[ ! -s $want ]]; then
		echo "no line of $1 is about $3" >&2
		return 1
	fi
	diff -u --label kernel --label cgfused "$want" "$got" >&2
}

@test "hostile names to mkdir: as the kernel" {
	probe
	compare "$TABLE" "$CG_TMP/got" 'mkdir'
}

@test "hostile writes to cpu.shares, idle, cfs_period_us, cfs_quota_us, cfs_burst_us, rt_period_us, rt_runtime_us: as the kernel" {
	probe
	compare "$TABLE" "$CG_TMP/got" 'cpu\..*'
}

@test "hostile writes to cpuacct.usage: as the kernel" {
	probe
	compare "$TABLE" "$CG_TMP/got" 'cpuacct\..*'
}

@test "hostile writes to cpuset.cpus, mems and the flag files: as the kernel" {
	probe
	compare "$TABLE" "$CG_TMP/got" 'cpuset\..*'
}

@test "hostile writes to notify_on_release and cgroup.clone_children: as the kernel" {
	probe
	compare "$TABLE" "$CG_TMP/got" 'notify_on_release|cgroup\.clone_children'
}

@test "hostile writes to tasks and cgroup.procs: as the kernel" {
	probe
	compare "$TABLE" "$CG_TMP/got" 'tasks|cgroup\.procs'
}

@test "hostile writes to freezer.state: as the kernel" {
	probe
	compare "$TABLE" "$CG_TMP/got" 'freezer\..*'
}

@test "the table covers every probed file and the comparison catches one changed line" {
	probe
	# Every line of the probe's output is in one of the groups above.
	run awk -F'\t' '$1 !~ /^(mkdir|cpu\..*|cpuacct\..*|cpuset\..*|freezer\..*|notify_on_release|cgroup\.clone_children|tasks|cgroup\.procs)$/' "$CG_TMP/got"
	assert_output ''
	[ "$(wc -l <"$CG_TMP/got")" -eq "$(wc -l <"$TABLE")" ]
	# One answer changed: the cpu comparison must fail and show it.
	sed '0,/^cpu\.shares\t-v\tEINVAL/s//cpu.shares\t-v\t3/' "$TABLE" >"$CG_TMP/altered"
	run ! cmp -s "$TABLE" "$CG_TMP/altered"
	run compare "$CG_TMP/altered" "$CG_TMP/got" 'cpu\..*'
	assert_failure
	assert_output --partial $'-cpu.shares\t-v\t3\t1024'
	assert_output --partial $'+cpu.shares\t-v\tEINVAL\t1024'
}

@test "a refused cpuset write leaves parent and child unchanged" {
	mkdir "$MNT/g/c"
	cg_expect g/cpuset.cpus '' '0-1' ok
	cg_expect g/cpuset.mems '' '0' ok
	cg_expect g/c/cpuset.cpus '' '0' ok
	cg_expect g/c/cpuset.mems '' '0' ok
	local bad
	for bad in "0-1,garbage/$E_INVAL" "0-7/$E_RANGE" "99999999999999999999/$E_OVERFLOW" \
		   "1-0/$E_INVAL" "+1/$E_INVAL"; do
		cg_case '' '' g/c/cpuset.cpus "${bad%%/*}" "${bad#*/}" g/c/cpuset.cpus 0
		cg_expect_read g/cpuset.cpus 0-1
	done
	# The parent may not drop a CPU its child uses.
	cg_expect g/cpuset.cpus '' '1' "$E_BUSY" 0-1
	cg_expect_read g/c/cpuset.cpus 0
	cg_expect_read g/c/cpuset.effective_cpus 0
	cg_expect g/cpuset.mems '' '\n' "$E_BUSY" 0
	cg_expect_read g/c/cpuset.mems 0
	cg_expect_done
}

@test "8 concurrent writers of 1000 cpu.shares values each; a reader sees only valid values" {
	"$CG_PYTHON" - "$MNT/g/cpu.shares" <<'EOF'
import os, sys, threading
path = sys.argv[1]
writers, per = 8, 1000
values = lambda w: [2 + w * per + i for i in range(per)]
valid = {1024} | {v for w in range(writers) for v in values(w)}
errors, seen = [], []
done = threading.Event()

def write(w):
    fd = os.open(path, os.O_WRONLY)
    try:
        for v in values(w):
            data = b"%d\n" % v
            n = os.write(fd, data)
            if n != len(data):
                errors.append("writer %d: %d of %d bytes" % (w, n, len(data)))
    except OSError as e:
        errors.append("writer %d: %s" % (w, e))
    finally:
        os.close(fd)

def read():
    while not done.is_set():
        with open(path, "rb") as f:
            data = f.read()
        seen.append(data)
        if not data.endswith(b"\n") or int(data) not in valid:
            errors.append("read %r" % data)

# Processes would serialize on the GIL less, but threads of one process are
# enough: each write(2) is a separate FUSE request to the daemon's threads.
pids = []
for w in range(writers):
    pid = os.fork()
    if pid == 0:
        write(w)
        os._exit(1 if errors else 0)
    pids.append(pid)
reader = threading.Thread(target=read)
reader.start()
failed = sum(os.waitpid(p, 0)[1] != 0 for p in pids)
done.set()
reader.join()
final = int(open(path).read())
last = {values(w)[-1] for w in range(writers)}
if failed or errors or final not in last or len(seen) == 0:
    sys.exit("failed writers %d, errors %s, final %d, reads %d" % (failed, errors[:5], final, len(seen)))
EOF
}

@test "a write split in two write(2)s is two commands" {
	run "$CG_PYTHON" - "$MNT/g/cpu.shares" <<'EOF'
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
print(os.write(fd, b"51"))
print(open(sys.argv[1]).read().strip())
try:
    os.write(fd, b"2\n\n")
except OSError as e:
    print(errno.errorcode[e.errno])
print(os.write(fd, b"2\n"))
print(open(sys.argv[1]).read().strip())
EOF
	assert_success
	assert_output $'2\n51\nEINVAL\n2\n2'
}

@test "release_agent takes at most 4095 bytes (PATH_MAX - 1)" {
	local agent=/$(printf 'a%.0s' {1..4094})
	cg_expect release_agent '' "$agent" ok "$agent"
	cg_expect release_agent '' "$agent"b "$E_2BIG" "$agent"
	cg_expect release_agent '' '/sbin/x' ok /sbin/x
	cg_expect release_agent '' "$(printf '%4096s' /y)" "$E_2BIG" /sbin/x
	cg_expect_done
}
