# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of cgfused's bats integration tests.
#
# Every test mounts its own cgfused on a fresh temporary directory and
# teardown undoes everything it started, whatever happened in the test:
#
#   setup()    { cg_setup; cg_mount; }        # or cg_mount -o OPTIONS
#   teardown() { cg_teardown; }
#
# Expectations come from docs/kernel-oracle.md (the kernel's cgroupfs on the
# machine the project runs on). Environment (set by `make check`):
#   CGFUSED        the cgfused binary to test
#   BATS_LIB_PATH  where bats-support and bats-assert live
#   TESTS_SRCDIR   this directory

bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

: "${CGFUSED:?CGFUSED must name the cgfused binary under test}"

# Plain ASCII quotes in the messages of mkdir, mv, ... that tests compare.
export LC_ALL=C

# The interpreter itself, not a version manager's shim: helper processes
# must be the PIDs we record.
export CG_PYTHON=${CG_PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}

# What python's os.strerror() (= the C library's) prints after each name.
E_2BIG='E2BIG Argument list too long'
E_ACCES='EACCES Permission denied'
E_AGAIN='EAGAIN Resource temporarily unavailable'
E_BUSY='EBUSY Device or resource busy'
E_EXIST='EEXIST File exists'
E_INVAL='EINVAL Invalid argument'
E_IO='EIO Input/output error'
E_NODEV='ENODEV No such device'
E_NOENT='ENOENT No such file or directory'
E_NOSPC='ENOSPC No space left on device'
E_NOTDIR='ENOTDIR Not a directory'
E_OPNOTSUPP='ENOTSUP Operation not supported'	# python names EOPNOTSUPP so
E_OVERFLOW='EOVERFLOW Value too large for defined data type'
E_PERM='EPERM Operation not permitted'
E_RANGE='ERANGE Numerical result out of range'
E_SRCH='ESRCH No such process'

# cg_setup: a temporary directory $CG_TMP with an empty mount point $MNT.
cg_setup() {
	CG_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/cgfused-bats.XXXXXX")
	MNT=$CG_TMP/mnt
	mkdir "$MNT"
	CG_MOUNTS=()	# mount points to unmount in teardown
	CG_DAEMONS=()	# cgfused PIDs
	CG_HELPERS=()	# sleepers and other processes the test started
}

# cg_mount [cgfused options...]: starts cgfused in the foreground, in the
# background of this shell, on $MNT and waits until it is mounted.
cg_mount() {
	cg_mount_at "$MNT" "$@"
}

# cg_mount_at DIR [cgfused options...]: the same on another directory.
# Sets CG_PID to the daemon's PID. Its output goes to $CG_TMP/cgfused.log
# (shown when a test fails); fd 3 (bats' own) is closed, or bats would wait
# for the daemon. Its state goes to $CG_TMP/<DIR's name>.state (not to the
# machine's /var/lib/cgfused) unless the options name one; it reads no
# config or rules (not the machine's /etc/cgfused.conf or .rules) unless
# they name them. CG_EXTRA_OPTS, when set, is one more -o for every daemon
# (e.g. CG_EXTRA_OPTS=tracking=ptrace runs a file with that source).
cg_mount_at() {
	local mnt=$1 state=()
	shift
	[[ " $* " == *state=* ]] || state=(-o "state=$CG_TMP/${mnt##*/}.state")
	[[ " $* " == *config=* ]] || state+=(-o config=none)	# not the machine's
	[[ " $* " == *rules=* ]] || state+=(-o rules=none)	# nor its rules
	[[ -z ${CG_EXTRA_OPTS:-} ]] || state+=(-o "$CG_EXTRA_OPTS")
	"$CGFUSED" -f "${state[@]}" "$@" "$mnt" >>"$CG_TMP/cgfused.log" 2>&1 3>&- &
	CG_PID=$!
	CG_DAEMONS+=("$CG_PID")
	CG_MOUNTS+=("$mnt")
	cg_wait_mounted "$mnt" "$CG_PID"
}

# cg_is_mounted DIR: DIR is a mount point according to /proc/mounts (which
# needs no answer from the daemon).
cg_is_mounted() {
	local dev mnt rest
	while read -r dev mnt rest; do
		[[ $mnt == "$1" ]] && return 0
	done </proc/mounts
	return 1
}

# cg_wait_mounted DIR [PID]: waits up to 10 s for DIR to be mounted (and
# answering); fails at once if the daemon PID exits first.
cg_wait_mounted() {
	local mnt=$1 pid=${2:-} i
	for ((i = 0; i < 200; i++)); do
		# statfs needs an answer from a live FUSE daemon: a dead mount
		# fails it, and the directory under it (once a restarted daemon
		# has taken the dead mount away and not yet mounted) is no FUSE.
		# A stat or an ls is not enough: one may come from the attribute
		# cache of a dead mount, the other list that directory.
		if [[ $(stat -f -c %t "$mnt" 2>/dev/null) == 65735546 ]] &&
			ls "$mnt" >/dev/null 2>&1; then
			return 0
		fi
		if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
			echo "cgfused (pid $pid) exited before mounting $mnt:" >&2
			cat "$CG_TMP/cgfused.log" >&2 2>/dev/null
			return 1
		fi
		sleep 0.05
	done
	echo "cgfused did not mount $mnt within 10 s" >&2
	cat "$CG_TMP/cgfused.log" >&2 2>/dev/null
	return 1
}

# cg_wait_gone PID [TENTHS]: waits (default 10 s) for a process to go.
cg_wait_gone() {
	local pid=$1 n=${2:-100} i
	for ((i = 0; i < n; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

cg_teardown() {
	local pid mnt ret=0
	cd / || true
	if [[ -s ${CG_TMP:-}/cases ]]; then
		echo "cases were queued but never checked (no cg_expect_done)" >&2
		ret=1
	fi
	# A failed test shows what the daemon said (bats prints it with the failure).
	if [[ -z ${BATS_TEST_COMPLETED:-} && -s ${CG_TMP:-}/cgfused.log ]]; then
		echo "--- cgfused's output:" >&2
		cat "$CG_TMP/cgfused.log" >&2
	fi
	for pid in "${CG_HELPERS[@]}"; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for mnt in "${CG_MOUNTS[@]}"; do
		if cg_is_mounted "$mnt"; then
			fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null
		fi
	done
	for pid in "${CG_DAEMONS[@]}"; do
		if ! cg_wait_gone "$pid" 50; then
			kill -TERM "$pid" 2>/dev/null
			cg_wait_gone "$pid" 20 || kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null
	done
	for mnt in "${CG_MOUNTS[@]}"; do
		cg_is_mounted "$mnt" && fusermount3 -uz "$mnt" 2>/dev/null
	done
	# Under contrib/check's asan stage a daemon reports memory errors and
	# leaks (at its exit, waited for above) in its log: that fails the test.
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "${CG_TMP:-/nonexistent}/cgfused.log" 2>/dev/null; then
		echo "--- cgfused reported a sanitizer error:" >&2
		cat "$CG_TMP/cgfused.log" >&2
		ret=1
	fi
	if [[ -n ${CG_TMP:-} && -d $CG_TMP ]]; then
		rm -rf --one-file-system "$CG_TMP"
	fi
	return $ret
}

# cg_sleeper VAR: starts `sleep 1000` and stores its PID in VAR.
cg_sleeper() {
	sleep 1000 >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	printf -v "$1" %s "$!"
}

# cg_busy VAR: starts a busy loop (one thread) and stores its PID in VAR.
cg_busy() {
	"$CG_PYTHON" -c 'while True: pass' >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	printf -v "$1" %s "$!"
}

# cg_no_lsan CMD...: CMD without LeakSanitizer's exit check (under
# contrib/check's asan stage): it stops the process's threads with ptrace,
# which fails in a process another tracer holds (cgfused's ptrace source
# traces every member) or under a filter that forbids ptrace.
cg_no_lsan() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$@"
}

# cg_traceme GROUP VAR [--pass]: tests/helpers/traceme started in GROUP
# (its PTRACE_TRACEME child is born there); VAR gets "PARENT CHILD" once
# the child is traced by its parent. With the ptrace source (cgfused on
# $MNT traces the child from its birth) the child's PTRACE_TRACEME must
# fail with EPERM: VAR gets "" then, nothing escapes.
cg_traceme() {
	local out=$CG_TMP/traceme.$RANDOM pid
	(echo "$BASHPID" >"$1/cgroup.procs" && exec env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TRACEME" ${3:+"$3"}) >"$out" 2>"$out.err" 3>&- &
	pid=$!
	CG_HELPERS+=("$pid")
	cg_poll_until -m '^[0-9]+$' cat "$out" || return
	CG_HELPERS+=("$(<"$out")")
	if [[ $(cg_watch_source) == ptrace ]]; then
		cg_poll_until -x "traceme: PTRACE_TRACEME: Operation not permitted" cat "$out.err" ||
			return
		printf -v "$2" ''
		return
	fi
	cg_wait_for "/proc/$(<"$out")/status" "^TracerPid:[[:space:]]*$pid\$" || return
	printf -v "$2" '%s %s' "$pid" "$(<"$out")"
}

# nice_of TID: the thread's nice (field 19 of its stat; comm may hold
# spaces).
nice_of() {
	local stat
	stat=$(cat "/proc/$1/stat") || return 1
	stat=${stat##*) }
	set -- $stat
	echo "${17}"
}

# cg_cpus_of PID: the CPUs it may run on, as a list ("0-1").
cg_cpus_of() {
	local out
	out=$(taskset -cp "$1") || return 1
	echo "${out##*: }"
}

# cg_cpu_ns PID: the thread's CPU time so far (ns, exact).
cg_cpu_ns() {
	local run rest
	read -r run rest <"/proc/$1/schedstat"
	echo "$run"
}

# cg_sleeper_as UID VAR: a `sleep 1000` of user and group UID, its PID in
# VAR; returns once it runs as that user (setpriv has changed its ids and
# exec'd sleep), so that a move of it is judged by its new owner.
cg_sleeper_as() {
	local pid
	setpriv --reuid="$1" --regid="$1" --clear-groups sleep 1000 >/dev/null 2>&1 3>&- &
	pid=$!
	CG_HELPERS+=("$pid")
	printf -v "$2" %s "$pid"
	cg_poll_until -x sleep cat "/proc/$pid/comm"
}

# cg_threads VAR: starts a python process with 3 extra threads (4 in all),
# stores its PID in VAR and waits until all 4 threads exist.
cg_threads() {
	local pid
	"$CG_PYTHON" -c '
import threading, time
for _ in range(3):
    threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
time.sleep(1000)
' >/dev/null 2>&1 3>&- &
	pid=$!
	CG_HELPERS+=("$pid")
	printf -v "$1" %s "$pid"
	cg_poll_until -x 4 cg_nthreads "$pid"
}

# cg_status PID KEY: the first word of the KEY: line of /proc/PID/status.
cg_status() {
	local k v rest
	while read -r k v rest; do
		[[ $k == "$2:" ]] && { echo "$v"; return 0; }
	done <"/proc/$1/status"
	return 1
}

# cg_nthreads PID: how many threads the process has.
cg_nthreads() {
	cg_status "$1" Threads
}

# cg_tids PID: the thread ids of a process, ascending, one a line.
cg_tids() {
	ls "/proc/$1/task" | sort -n
}

# cg_watch_source [MNT]: the task-watch source the daemon on MNT (default
# $MNT) follows tasks by (cgfused.stat's task_watch: connector, ptrace or
# scan), for the tests where what the kernel lets each do differs.
cg_watch_source() {
	sed -n 's/^task_watch //p' "${1:-$MNT}/cgfused.stat"
}

# CG_AS: a command that cg_write and cg_op run their interpreter under
# (setpriv ..., to act as another user); none unless a test sets it.
CG_AS=()

# cg_write FILE BYTES: ONE open(O_WRONLY) and ONE write() of BYTES (python
# escapes \n \t \x00 \\ are decoded), printing the count write() returned, or
# "ERRNO strerror" of the failed write (or "open: ERRNO strerror").
cg_write() {
	"${CG_AS[@]}" "$CG_PYTHON" -c '
import errno, os, sys
data = sys.argv[2].encode("latin-1").decode("unicode_escape").encode("latin-1")
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
except OSError as e:
    print("open:", errno.errorcode[e.errno], os.strerror(e.errno))
    sys.exit(0)
try:
    print(os.write(fd, data))
except OSError as e:
    print(errno.errorcode[e.errno], os.strerror(e.errno))
' "$1" "$2"
}

# cg_op OP ARGS...: one syscall (mkdir rmdir rename unlink link symlink mknod
# mkfifo creat excl; chmod PATH OCTAL, chown PATH UID GID, touch (utimes
# now), settime PATH SECONDS, truncate (to 0), stat, ls (listdir)),
# printing "ok" or "ERRNO strerror".
cg_op() {
	"${CG_AS[@]}" "$CG_PYTHON" -c '
import errno, os, stat, sys
op, a = sys.argv[1], sys.argv[2:]
try:
    if op == "mkdir": os.mkdir(a[0])
    elif op == "rmdir": os.rmdir(a[0])
    elif op == "rename": os.rename(a[0], a[1])
    elif op == "unlink": os.unlink(a[0])
    elif op == "link": os.link(a[0], a[1])
    elif op == "symlink": os.symlink(a[0], a[1])
    elif op == "mknod": os.mknod(a[0], 0o644 | stat.S_IFREG)
    elif op == "mkfifo": os.mkfifo(a[0])
    elif op == "creat": os.close(os.open(a[0], os.O_WRONLY | os.O_CREAT, 0o644))
    elif op == "excl": os.close(os.open(a[0], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    elif op == "chmod": os.chmod(a[0], int(a[1], 8))
    elif op == "chown": os.chown(a[0], int(a[1]), int(a[2]))
    elif op == "touch": os.utime(a[0])
    elif op == "settime": os.utime(a[0], (int(a[1]), int(a[1])))
    elif op == "truncate": os.truncate(a[0], 0)
    elif op == "stat": os.stat(a[0])
    elif op == "ls": os.listdir(a[0])
    elif op == "access":
        if not os.access(a[0], int(a[1])):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES))
    else: sys.exit("unknown op " + op)
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno], os.strerror(e.errno))
' "$@"
}

# cg_bytes FILE: the file's exact content as a python bytes literal.
cg_bytes() {
	"$CG_PYTHON" -c '
import sys
with open(sys.argv[1], "rb") as f:
    print(repr(f.read()))
' "$1"
}

# Tables of cases. Each case is queued and cg_expect_done runs them all, in
# order, in one python process (one process per case would be slow), then
# fails the test if any did not hold, after showing every one that did not.
# Being queued, cases run after any shell command between them and
# cg_expect_done: call cg_expect_done before changing state from the shell.
# Cases left queued at teardown fail the test.
#
# cg_case RESET_FILE RESET FILE BYTES RESULT READ_FILE READ: writes RESET to
# RESET_FILE (when RESET_FILE is not empty; it must be accepted whole), then
# BYTES to FILE in ONE write() (when FILE is not empty), which must give
# RESULT: "ok" (every byte accepted), a count, or "ERRNO strerror"; then
# READ_FILE (when not empty) must read READ, trailing newlines stripped as
# by $(cat). Escapes \n \t \x00 \\ in RESET and BYTES are decoded.
cg_case() {
	[[ $# -eq 7 ]] || { echo "cg_case needs 7 arguments, got $#" >&2; return 1; }
	printf '%s\0' "$@" >>"$CG_TMP/cases"
}

# cg_expect FILE RESET BYTES RESULT [READ]: the common case, on one file;
# RESET '' means no reset.
cg_expect() {
	local file=$1 reset=$2 bytes=$3 want=$4
	cg_case "${reset:+$file}" "$reset" "$file" "$bytes" "$want" "${5+$file}" "${5-}"
}

# cg_expect_read FILE READ: FILE reads READ.
cg_expect_read() {
	cg_case '' '' '' '' '' "$1" "$2"
}

cg_expect_done() {
	[[ -s $CG_TMP/cases ]] || { echo "cg_expect_done: no cases queued" >&2; return 1; }
	local out
	out=$("$CG_PYTHON" - "$CG_TMP/cases" "$MNT/" <<'EOF'
import errno, os, sys

def decode(text):
    return text.encode("latin-1").decode("unicode_escape").encode("latin-1")

def err(e):
    return "%s %s" % (errno.errorcode[e.errno], os.strerror(e.errno))

def write(path, data):
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return "open: " + err(e)
    try:
        return str(os.write(fd, data))
    except OSError as e:
        return err(e)
    finally:
        os.close(fd)

def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("latin-1").rstrip("\n")
    except OSError as e:
        return "read: " + err(e)

fields = open(sys.argv[1], "rb").read().decode("latin-1").split("\0")[:-1]
short = lambda p: p[len(sys.argv[2]):] if p.startswith(sys.argv[2]) else p
failed = 0
for i in range(0, len(fields), 7):
    rfile, reset, path, text, want, rdfile, rdwant = fields[i:i + 7]
    what = "write '%s' to %s" % (text, short(path)) if path else "reading"
    if rfile:
        got = write(rfile, decode(reset))
        if got != str(len(decode(reset))):
            print("%s: reset of %s to '%s' failed: %s" % (what, short(rfile), reset, got))
            failed += 1
            continue
    if path:
        data = decode(text)
        got = write(path, data)
        if want == "ok":
            want = str(len(data))
        if got != want:
            print("%s: expected '%s', got '%s'" % (what, want, got))
            failed += 1
    if rdfile:
        got = read(rdfile)
        if got != rdwant:
            print("%s: then %s should read '%s', got '%s'" % (what, short(rdfile), rdwant.replace("\n", " "), got.replace("\n", " ")))
            failed += 1
if failed:
    print("%d expectation(s) failed" % failed)
EOF
)
	rm -f "$CG_TMP/cases"
	if [[ -n $out ]]; then
		echo "$out" >&2
		return 1
	fi
}


# cg_mount_v2 [cgfused options...]: cg_mount of the v2 hierarchy
# (-o unified) on $MNT.
cg_mount_v2() {
	cg_mount -o unified "$@"
}

# cg_poll_until [-t SECONDS] [-x TEXT | -m REGEX | -ge N] CMD...: runs CMD
# every 50 ms until it holds: its output (stdout and stderr, trailing
# newlines stripped) is TEXT (-x), matches the bash REGEX (-m), is a whole
# number >= N (-ge), or, without these, CMD succeeds. Returns as soon as it
# holds; after SECONDS (default 20: CI runs under ASan and valgrind, ~3x
# slower), once more tried at the end, fails saying what CMD last gave.
# CG_POLLED is CMD's last output. CMD runs in a subshell: it sets nothing.
cg_poll_until() {
	local secs=20 how=status want got st end
	while :; do
		case $1 in
		-t) secs=$2 ;;
		-x | -m | -ge) how=$1 want=$2 ;;
		*) break ;;
		esac
		shift 2
	done
	end=$((${EPOCHREALTIME/./} + secs * 1000000))
	while :; do
		got=$("$@" 2>&1) && st=0 || st=$?
		CG_POLLED=$got
		case $how in
		status) ((st == 0)) && return 0 ;;
		-x) [[ $got == "$want" ]] && return 0 ;;
		-m) [[ $got =~ $want ]] && return 0 ;;
		-ge) [[ $got =~ ^-?[0-9]+$ ]] && ((got >= want)) && return 0 ;;
		esac
		((${EPOCHREALTIME/./} < end)) || break
		sleep 0.05
	done
	case $how in
	status) want="status 0, had $st" ;;
	-x) want="'$want'" ;;
	-m) want="a match of '$want'" ;;
	-ge) want="a number >= $want" ;;
	esac
	echo "'$*' gave '$got' for $secs s, want $want" >&2
	return 1
}

# cg_wait_for [GREP_OPTIONS...] FILE TEXT: up to 20 s for a line of FILE to
# match TEXT (grep's regular expression, or as the options say: -F, -x,
# -E); says what FILE held if none ever did.
cg_wait_for() {
	local opts=()
	while [[ $1 == -* ]]; do
		opts+=("$1")
		shift
	done
	# Its own message, not cg_poll_until's.
	cg_poll_until grep -q "${opts[@]}" -- "$2" "$1" 2>/dev/null && return 0
	echo "$1 never got '$2': $(cat "$1" 2>&1)" >&2
	return 1
}

# cg_events_poller EVENTS OUT LINE: in the background, a poller of a
# cgroup.events file, as a program waiting for it: twice, writes "read"
# and the file's line LINE (0: populated, 1: frozen) to OUT, then waits up
# to 20 s for POLLPRI and writes "woke" and what woke it (10: POLLPRI and
# POLLERR, as the kernel's kernfs_notify) or "woke timeout"; then a last
# read. Its pid is CG_POLLER (in CG_HELPERS too).
cg_events_poller() {
	"$CG_PYTHON" - "$1" "$2" "$3" 3>&- <<'EOF' &
import select, sys
f = open(sys.argv[1], "rb", buffering=0)
out = open(sys.argv[2], "w", buffering=1)
line = int(sys.argv[3])
for _ in range(2):
    f.seek(0)
    print("read", f.read().split(b"\n")[line].decode(), file=out)
    p = select.poll()
    p.register(f.fileno(), select.POLLPRI)
    ev = p.poll(20000)
    print("woke", ev[0][1] & (select.POLLPRI | select.POLLERR) if ev else "timeout", file=out)
f.seek(0)
print("read", f.read().split(b"\n")[line].decode(), file=out)
EOF
	CG_POLLER=$!
	CG_HELPERS+=("$CG_POLLER")
}

# cg_placed PID FILE: up to 20 s for PID to be listed in FILE; says in
# which cgroup.procs of the mount it is if it never is.
cg_placed() {
	# Its own message, not cg_poll_until's.
	cg_poll_until grep -qx -- "$1" "$2" 2>/dev/null && return 0
	echo "$1 never came into $2; it is in:" >&2
	grep -rlx "$1" "$MNT" --include=cgroup.procs >&2
	return 1
}

# What a test needs of its environment. tests/modes/run-mode runs bats
# files as root in a PID namespace without CAP_NET_ADMIN and CAP_SYS_NICE,
# as a user namespace's root and as a plain user: a test that needs what
# such an environment lacks skips there, saying what and where the
# environment's own behaviour is checked instead.

# cg_has_cap NAME: this shell holds capability NAME (e.g. sys_nice) in the
# initial user namespace (the one whose uid_map maps every uid to itself),
# where the kernel looks for it when cgfused renices or traces.
cg_has_cap() {
	local bit eff map
	bit=$(capsh --explain="cap_$1" 2>/dev/null | sed -n 's/.*(\([0-9]*\)).*/\1/p' | head -1)
	[[ -n $bit ]] || return 1
	eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
	(( (0x$eff >> bit) & 1 )) || return 1
	map=$(</proc/self/uid_map)
	[[ $(echo $map) == "0 0 4294967295" ]]
}

# cg_require_sys_nice WHY: skip unless cgfused will have CAP_SYS_NICE.
cg_require_sys_nice() {
	cg_has_cap sys_nice ||
		skip "needs CAP_SYS_NICE: $1 (tests/unprivileged.bats checks the daemon without it)"
}

# cg_require_kthreads: skip where no kernel thread is visible (a PID
# namespace's /proc shows only its own tasks).
cg_require_kthreads() {
	grep -qx 'Kthread:[[:space:]]*1' /proc/2/status 2>/dev/null ||
		skip "no kernel thread is visible in this PID namespace"
}

# cg_require_root_user WHY: skip unless this is root with the power to act
# as other users (setpriv to uid 1234 and 65534, chown to them).
cg_require_root_user() {
	[[ $(id -u) == 0 ]] && cg_has_cap setuid ||
		skip "needs root acting as other users: $1"
}
