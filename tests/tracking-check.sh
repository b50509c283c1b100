#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracking-check.sh MNT SOURCE: the newcomer flow on the cgfused mounted on
# MNT (a v1 hierarchy), for tracking.bats, inside a PID namespace or not.
# A shell writes its own id into g/tasks, then starts a child, a process
# with threads and a grandchild: all must show in g/tasks, and leave it when
# they exit; cgfused.stat must name SOURCE. Says what failed, exits 1 then.
# Everything it started is killed when it exits.
set -u
mnt=$1 source=$2
dir=$(mktemp -d)
python=${CG_PYTHON:-python3}

cleanup() {
	local f
	for f in grand mid threads child; do
		[[ -s $dir/$f ]] && kill -KILL "$(cat "$dir/$f")" 2>/dev/null
	done
	[[ -n ${newcomer:-} ]] && kill -KILL "$newcomer" 2>/dev/null
	wait
	rm -rf "$dir"
}
trap cleanup EXIT

# poll CMD...: CMD holds within 20 s (tried every 50 ms), else says so.
poll() {
	local end=$((SECONDS + 20))
	until "$@"; do
		((SECONDS < end)) || { echo "never: $*: g/tasks has $(echo $(cat "$mnt/g/tasks"))"; return 1; }
		sleep 0.05
	done
}
listed() { grep -qx "$1" "$mnt/g/tasks"; }
unlisted() { ! grep -qx "$1" "$mnt/g/tasks"; }
all_listed() {
	local id
	for id in "$@"; do listed "$id" || return 1; done
}
nthreads() { [[ $(ls "/proc/$1/task" 2>/dev/null | wc -l) == "$2" ]]; }

mkdir "$mnt/g" || exit 1
grep -qx "task_watch $source" "$mnt/cgfused.stat" ||
	{ echo "cgfused.stat: $(grep task_watch "$mnt/cgfused.stat")"; exit 1; }
# The newcomer: joins, then forks.
bash -c '
echo $BASHPID >"$1/g/tasks" || exit 1
sleep 1000 & echo $! >"$2/child"
"$3" -c "
import threading, time
for _ in range(3):
    threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
time.sleep(1000)" & echo $! >"$2/threads"
bash -c "sleep 1000 & echo \$! >$2/grand.tmp; mv $2/grand.tmp $2/grand; exec sleep 1000" &
echo $! >"$2/mid"
wait' newcomer "$mnt" "$dir" "$python" >/dev/null 2>&1 &
newcomer=$!
poll test -s "$dir/grand" || exit 1
child=$(cat "$dir/child") threads=$(cat "$dir/threads") mid=$(cat "$dir/mid") grand=$(cat "$dir/grand")
poll listed "$newcomer" || exit 1
poll all_listed "$child" "$mid" "$grand" || exit 1
poll nthreads "$threads" 4 || exit 1
poll all_listed $(ls "/proc/$threads/task") || exit 1
echo "children, threads and a grandchild followed"
kill -KILL "$child" "$grand"
poll unlisted "$child" || exit 1
poll unlisted "$grand" || exit 1
poll listed "$mid" || exit 1
echo "exits left the group"
