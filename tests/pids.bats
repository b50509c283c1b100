#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# pids on real processes: what a group counts, pids.max's parsing and
# errno, and what a fork past the limit meets: the kernel's fork fails
# with EAGAIN, cgfused kills the new child (cgfused(8)). Where it helps,
# the same is done on the kernel's v1 pids hierarchy as the oracle, in a
# group of the test's own, removed in teardown.

load helpers

KPIDS=/sys/fs/cgroup/pids

setup() {
	cg_setup
	cg_mount -o controllers=cpu,cpuacct,cpuset,pids
	cd "$MNT"
	KGROUP=
}

teardown() {
	cg_teardown
	# Its processes ended with the forker; the groups go, deepest first.
	if [[ -n $KGROUP ]]; then
		find "$KGROUP" -depth -type d -exec rmdir {} \;
	fi
}

# kernel_group: a group of the test's own in the kernel's pids hierarchy
# ($KGROUP), or a skip-free failure if there is none to compare with.
kernel_group() {
	[[ -d $KPIDS ]] || { echo "no kernel pids hierarchy at $KPIDS" >&2; return 1; }
	KGROUP=$KPIDS/cgfused-bats-$$-$BATS_TEST_NUMBER
	mkdir "$KGROUP"
}

# forker GROUP N: a process that joins GROUP and forks N children that
# sleep; 1 s later it prints one word per child ("alive", "EAGAIN" when
# the fork failed, "sig9" when the child was killed by SIGKILL), then
# GROUP's pids.current and pids.events, and ends its children.
forker() {
	"$CG_PYTHON" - "$@" 3>&- <<'EOF'
import os, signal, sys, time
group, n = sys.argv[1], int(sys.argv[2])
with open(group + "/cgroup.procs", "w") as f:
    f.write(str(os.getpid()))
kids = []
for _ in range(n):
    try:
        pid = os.fork()
    except BlockingIOError:
        kids.append(None)
        continue
    if pid == 0:
        time.sleep(20)
        os._exit(0)
    kids.append(pid)
time.sleep(1)
words = []
for pid in kids:
    if pid is None:
        words.append("EAGAIN")
        continue
    done, status = os.waitpid(pid, os.WNOHANG)
    if done == 0:
        words.append("alive")
    elif os.WIFSIGNALED(status):
        words.append("sig%d" % os.WTERMSIG(status))
    else:
        words.append("exit%d" % os.WEXITSTATUS(status))
print(" ".join(words))
for name in ("pids.current", "pids.events"):
    with open(group + "/" + name) as f:
        print(f.read().strip())
for pid, word in zip(kids, words):
    if word == "alive":
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
EOF
}

@test "the root has no pids files, as the kernel's; a group has them, with its modes and defaults" {
	run bash -c "ls $KPIDS | grep '^pids\\.'"
	assert_output ''
	run bash -c "ls | grep '^pids\\.'"
	assert_output ''
	mkdir g
	run bash -c 'stat -c "%n %A" g/pids.* | sort'
	assert_output "g/pids.current -r--r--r--
g/pids.events -r--r--r--
g/pids.max -rw-r--r--
g/pids.peak -r--r--r--"
	cg_expect_read g/pids.max max
	cg_expect_read g/pids.current 0
	cg_expect_read g/pids.peak 0
	cg_expect_read g/pids.events "max 0"
	cg_expect g/pids.current '' 1 "$E_INVAL"	# the kernel's answer to root
	cg_expect_done
}

@test "pids.max takes what the kernel's takes and refuses the rest with its errno" {
	mkdir g
	cg_expect g/pids.max '' max ok max
	cg_expect g/pids.max '' 0 ok 0
	cg_expect g/pids.max '' ' 5 \n' ok 5
	cg_expect g/pids.max '' 0x10 ok 16
	cg_expect g/pids.max '' 010 ok 8
	cg_expect g/pids.max '' +5 ok 5
	cg_expect g/pids.max '' -0 ok 0
	cg_expect g/pids.max '' 4194304 ok 4194304
	cg_expect g/pids.max '' ' max' ok max
	cg_expect g/pids.max 7 4194305 "$E_INVAL" 7
	cg_expect g/pids.max 7 -1 "$E_INVAL" 7
	cg_expect g/pids.max 7 MAX "$E_INVAL" 7
	cg_expect g/pids.max 7 '\n' "$E_INVAL" 7
	cg_expect g/pids.max 7 '5 5' "$E_INVAL" 7
	cg_expect g/pids.max 7 1e3 "$E_INVAL" 7
	cg_expect g/pids.max 7 9223372036854775807 "$E_INVAL" 7
	cg_expect g/pids.max 7 9223372036854775808 "$E_RANGE" 7
	cg_expect_done
}

@test "pids.current counts every thread of the subtree, and pids.peak the most there were" {
	local t s
	mkdir -p g/sub
	cg_threads t
	cg_sleeper s
	echo "$t" >g/sub/cgroup.procs
	echo "$s" >g/tasks
	cg_expect_read g/sub/pids.current 4
	cg_expect_read g/pids.current 5
	cg_expect_done
	kill -KILL "$s"
	wait "$s" 2>/dev/null || true
	echo "$t" >cgroup.procs
	cg_expect_read g/pids.current 0
	cg_expect_read g/sub/pids.current 0
	cg_expect_read g/pids.peak 5
	cg_expect_read g/sub/pids.peak 4
	cg_expect_done
}

@test "a loop forking past pids.max gets its new children killed, and pids.events counts them" {
	mkdir g
	echo 5 >g/pids.max
	run forker "$MNT/g" 10
	assert_success
	assert_output "alive alive alive alive sig9 sig9 sig9 sig9 sig9 sig9
5
max 6"
	# What the kernel does with the same loop: EAGAIN instead of a kill.
	kernel_group
	echo 5 >"$KGROUP/pids.max"
	run forker "$KGROUP" 10
	assert_success
	assert_output "alive alive alive alive EAGAIN EAGAIN EAGAIN EAGAIN EAGAIN EAGAIN
5
max 6"
}

@test "a process forking up to pids.max and no further is never killed" {
	mkdir g
	echo 8 >g/pids.max
	run forker "$MNT/g" 7
	assert_success
	assert_output "alive alive alive alive alive alive alive
8
max 0"
	cg_expect_read g/pids.peak 8
	cg_expect_done
}

@test "an ancestor's limit kills forks below it; v1 counts the event in the forking group, as the kernel" {
	local root
	kernel_group
	for root in "$MNT" "$KGROUP"; do
		mkdir -p "$root/a/b"
		echo 2 >"$root/a/pids.max"
		run forker "$root/a/b" 3
		assert_success
		if [[ $root == "$MNT" ]]; then
			assert_line -n 0 "alive sig9 sig9"
		else
			assert_line -n 0 "alive EAGAIN EAGAIN"
		fi
		assert_line -n 2 "max 2"
		run cat "$root/a/pids.events" "$root/a/pids.current"
		assert_output "max 0
0"
	done
	# The kernel's peak never saw the failed forks; cgfused's counted the
	# killed children while they lived (one or both at once).
	run cat "$KGROUP/a/pids.peak"
	assert_output 2
	run cat "$MNT/a/pids.peak"
	assert_output --regexp '^[34]$'
}

# threader VAR [PREFIX...]: a process (run through PREFIX, e.g. setpriv)
# that starts a thread at each SIGUSR1 and otherwise sleeps; its pid in
# VAR, once its handler is in place.
threader() {
	local var=$1 p
	shift
	"$@" "$USER_PY" -c '
import signal, threading, time
signal.signal(signal.SIGUSR1, lambda *a: threading.Thread(
    target=time.sleep, args=(60,), daemon=True).start())
while True:
    time.sleep(60)' >/dev/null 2>&1 3>&- &
	p=$!
	CG_HELPERS+=("$p")
	# SigCgt has SIGUSR1 (bit 9).
	cg_poll_until -m '^SigCgt:.*[2367abef][0-9a-f]{2}$' grep '^SigCgt' "/proc/$p/status"
	printf -v "$var" %s "$p"
}

# The kernel refuses the thread (EAGAIN) and root's process lives; a
# limit only kills what those who may write it could kill (cgfused(8)).
@test "a delegated user's pids.max does not kill root's process; it kills the user's own" {
	cg_require_root_user "root's process in a group delegated to nobody"
	cg_require_sys_nice "cgfused manages another user's task only with it"
	local r u st=0 NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	cd /
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	chmod 755 "$CG_TMP"
	USER_PY=$CG_PYTHON
	"${NOBODY[@]}" "$USER_PY" -c '' 2>/dev/null || USER_PY=/usr/bin/python3
	cg_mount -o allow_other -o controllers=cpu,cpuacct,cpuset,pids
	mkdir "$MNT/g"
	chown -R 65534:65534 "$MNT/g"
	threader r
	echo "$r" >"$MNT/g/cgroup.procs"
	"${NOBODY[@]}" sh -c "echo 1 >$MNT/g/pids.max"
	kill -USR1 "$r"
	cg_poll_until -x "pids_kills_spared 1" grep '^pids_kills_spared' "$MNT/cgfused.stat"
	assert_equal "$(<"$MNT/g/pids.events")" "max 1"
	kill -0 "$r"
	cg_poll_until -x 2 cat "$MNT/g/pids.current"
	# The user's own process, placed by the user: its new thread kills it.
	threader u "${NOBODY[@]}"
	"${NOBODY[@]}" sh -c "echo $u >$MNT/g/cgroup.procs"
	kill -USR1 "$u"
	wait "$u" || st=$?
	assert_equal "$st" 137
	assert_equal "$(<"$MNT/g/pids.events")" "max 2"
	kill -0 "$r"
	# Root's own limit (a pids.max only root may write) kills as before.
	chown 0:0 "$MNT/g/pids.max"
	st=0
	kill -USR1 "$r"
	wait "$r" || st=$?
	assert_equal "$st" 137
	assert_equal "$(grep '^pids_kills_spared' "$MNT/cgfused.stat")" "pids_kills_spared 1"
}

@test "pids.max and the counts come back after kill -9 of the daemon" {
	local s
	mkdir -p g/sub
	echo 7 >g/pids.max
	echo 0x3 >g/sub/pids.max
	cg_sleeper s
	echo "$s" >g/sub/tasks
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	cg_mount -o controllers=cpu,cpuacct,cpuset,pids
	cd "$MNT"
	cg_expect_read g/pids.max 7
	cg_expect_read g/sub/pids.max 3
	cg_expect_read g/pids.current 1
	cg_expect_read g/sub/pids.current 1
	cg_expect_done
	# And the restored limit holds: sub has room for two more.
	run forker "$MNT/g/sub" 3
	assert_success
	assert_output "alive sig9 sig9
3
max 2"
}
