#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A job script as one writes it for the kernel's cgroup v2 (what the v2
# hierarchy had to pass): it makes a group with two children, enables cpu and cpuset
# for them, weighs them and pins one, moves its workers in, kills the
# group with cgroup.kill, polls cgroup.events for populated 0 and removes
# the groups. It knows nothing of cgfused: tests/v2-script.bats runs it
# unchanged on a cgfused mount and on the kernel's /sys/fs/cgroup/unified.
#
# Usage: v2-script.sh PARENT
#   PARENT is a v2 group (or a v2 mount's root) to make the group "job"
#   in; where PARENT's cgroup.subtree_control does not enable cpu and
#   cpuset, their steps fail as the kernel makes them fail.
# Prints one line a step; the shell's own errors go to stderr.

cd "$1" || exit 1

# populated GROUP: the populated line of its cgroup.events.
populated() {
	grep '^populated' "$1/cgroup.events"
}

# wait_unpopulated GROUP: poll() cgroup.events (the kernel wakes pollers
# with POLLPRI on each change) until it reads populated 0, 20 s at most.
wait_unpopulated() {
	python3 - "$1/cgroup.events" <<'EOF'
import select, sys, time
f = open(sys.argv[1], "rb", buffering=0)
end = time.monotonic() + 20
while True:
    f.seek(0)
    if b"populated 0\n" in f.read():
        print("events: populated 0")
        break
    left = end - time.monotonic()
    if left <= 0:
        sys.exit("events: still populated after 20 s")
    p = select.poll()
    p.register(f.fileno(), select.POLLPRI)
    p.poll(left * 1000)
EOF
}

mkdir job job/web job/batch || exit 1
echo "type: $(cat job/cgroup.type)"
echo "controllers: $(cat job/cgroup.controllers)"

echo "+cpu +cpuset" >job/cgroup.subtree_control
echo "subtree_control: $(cat job/cgroup.subtree_control)"
echo "web controllers: $(cat job/web/cgroup.controllers)"

echo 200 >job/web/cpu.weight
echo 50 >job/batch/cpu.weight
echo 0 >job/batch/cpuset.cpus
echo "web weight: $(cat job/web/cpu.weight)"
echo "batch weight: $(cat job/batch/cpu.weight)"
echo "batch cpus: $(cat job/batch/cpuset.cpus.effective)"
# A typo: not a controller.
echo "+cpux" >job/cgroup.subtree_control

sleep 1000 &
web=$!
sleep 1000 &
batch=$!
echo "$web" >job/web/cgroup.procs
echo "$batch" >job/batch/cgroup.procs
[ "$(cat job/web/cgroup.procs)" = "$web" ] && echo "web: its worker"
[ "$(cat job/batch/cgroup.procs)" = "$batch" ] && echo "batch: its worker"
echo "job $(populated job)"
echo "job procs: $(cat job/cgroup.procs | wc -l)"
# A process that never was.
echo 99999999 >job/web/cgroup.procs
# Not while it has a process.
rmdir job/web
# No process in a group whose controllers serve its children.
echo "$web" >job/cgroup.procs

echo 1 >job/cgroup.kill
wait_unpopulated job
wait "$web"
echo "web worker: status $?"
wait "$batch"
echo "batch worker: status $?"
echo "web $(populated job/web)"

rmdir job
rmdir job/web job/batch job && echo "removed"
[ ! -e job ] && echo "job: gone"
