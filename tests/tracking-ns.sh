#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracking-ns.sh CGFUSED MNT LOG SOURCE [OPTIONS...]: for tracking.bats, run
# as the first process of a new PID namespace: mounts cgfused (with
# OPTIONS) on MNT, its output to LOG, runs tracking-check.sh against it,
# then unmounts. Exits with the check's status (1 if the mount failed).
set -u
cgfused=$1 mnt=$2 log=$3 source=$4
shift 4
"$cgfused" -f -o state=none,config=none,rules=none "$@" "$mnt" >"$log" 2>&1 &
daemon=$!
mounted() { grep -q " $mnt fuse" /proc/mounts; }
end=$((SECONDS + 20))
until mounted; do
	if ((SECONDS >= end)) || ! kill -0 "$daemon" 2>/dev/null; then
		echo "cgfused did not mount"
		exit 1
	fi
	sleep 0.05
done
bash "${0%/*}/tracking-check.sh" "$mnt" "$source"
rc=$?
fusermount3 -u "$mnt" || fusermount3 -uz "$mnt"
wait "$daemon"
exit $rc
