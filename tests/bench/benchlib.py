# SPDX-License-Identifier: GPL-2.0-or-later
"""benchlib: what run-scale-bench and run-clients-bench share.

Signals turned into an exception outside the sections that start and
record a process or clean up; every child recorded and signalled only
while unreaped (so its PID cannot have been reused); a cgfused mounted on a
temporary directory and unmounted with fusermount3 -u, then -uz; groups of
our own in the kernel's cgroup v1 cpu hierarchy, removed children first;
and the daemon's figures from /proc and cgfused.stat.
"""

import contextlib
import errno
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time

KERNEL_CPU_ROOT = "/sys/fs/cgroup/cpu"
HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
CLK_TCK = os.sysconf("SC_CLK_TCK")


class BenchError(Exception):
    """Something could not be run or checked: the run fails."""


class Interrupted(Exception):
    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Signals:
    """Turns SIGINT/SIGTERM/SIGHUP into Interrupted, except inside
    deferred() sections, where the signal waits until the section ends."""

    def __init__(self):
        self.depth = 0
        self.pending = None
        for signum in HANDLED_SIGNALS:
            signal.signal(signum, self.handle)

    def handle(self, signum, frame):
        if self.depth:
            self.pending = self.pending or signum
        else:
            raise Interrupted(signum)

    @contextlib.contextmanager
    def deferred(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth and self.pending:
                signum, self.pending = self.pending, None
                raise Interrupted(signum)

    def hold_forever(self):
        self.depth += 1


SIGNALS = None
CLEANUPS = []       # objects whose teardown() the final cleanup calls


def log(line):
    print("# " + line, flush=True)


def env_int(name, default, minimum=0):
    value = os.environ.get(name, str(default))
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        raise BenchError(f"{name}={value!r}: want an integer >= {minimum}")
    return number


def env_ints(name, default):
    value = os.environ.get(name, default)
    try:
        numbers = [int(word) for word in value.split()]
    except ValueError:
        numbers = [0]
    if not numbers or min(numbers) < 1:
        raise BenchError(f"{name}={value!r}: want positive integers")
    return numbers


def write_file(path, text):
    """One write(2) of TEXT, as `echo TEXT > PATH` does."""
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
    except OSError as e:
        raise BenchError(f"writing {text.strip()!r} to {path}: {e.strerror}")


def header(name, srcdir):
    """Commit (git describe --always --dirty), date, kernel, CPUs, load."""
    try:
        commit = subprocess.run(["git", "-C", srcdir, "describe", "--always",
                                 "--dirty"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    return (f"{name} at {commit}, {when}, kernel {os.uname().release}, "
            f"{os.cpu_count()} CPUs, load average {load}")


def free_tasks():
    """How many more tasks the machine can have: pid_max (or threads-max)
    less the threads there are now (/proc/loadavg's 4th field)."""
    with open("/proc/sys/kernel/pid_max") as f:
        limit = int(f.read())
    with open("/proc/sys/kernel/threads-max") as f:
        limit = min(limit, int(f.read()))
    with open("/proc/loadavg") as f:
        used = int(f.read().split()[3].split("/")[1])
    return limit - used


def cpu_seconds(pid):
    """utime + stime of a process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise BenchError(f"no VmRSS for pid {pid}")


def quantiles(values):
    """(median, p99, max) of a non-empty list, p99 the ceil(0.99 n)-th."""
    ordered = sorted(values)
    p99 = ordered[max(0, -(-len(ordered) * 99 // 100) - 1)]
    return statistics.median(ordered), p99, ordered[-1]


def cell(value, digits=1):
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


# ---------------------------------------------------------------- processes

class Children:
    """Every process started.  A child is signalled only while unreaped
    (Popen.returncode is None), so its PID cannot have been reused."""

    def __init__(self):
        self.procs = []

    def start(self, argv, own_group=False, daemon=False, **kwargs):
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        with SIGNALS.deferred():
            proc = subprocess.Popen(argv, process_group=0 if own_group else None,
                                    **kwargs)
            proc.own_group = own_group
            proc.daemon = daemon
            self.procs.append(proc)
        return proc

    def stop(self, procs=None, sig=signal.SIGKILL, timeout=30):
        procs = list(self.procs if procs is None else procs)
        for proc in procs:
            if proc.returncode is None:
                try:
                    if proc.own_group:
                        os.killpg(proc.pid, sig)
                    else:
                        proc.send_signal(sig)
                except ProcessLookupError:
                    pass
        for proc in procs:
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                log(f"pid {proc.pid} ({proc.args[0]}) did not exit")
                continue
            if proc in self.procs:
                self.procs.remove(proc)


CHILDREN = Children()


class Sleepers:
    """A sleepers process (sleepers.c) holding its tasks in groups of ROOT;
    it waits on a pipe, so closing it ends the process.  The groups are
    removed by remove_groups() once it is gone."""

    def __init__(self, binary, root, groups, per_group=1, busy_every=0,
                 procs=False, busy_cpu=None, shares=False, whole=False,
                 timeout=600):
        self.root = root
        self.groups = groups
        argv = [binary, "--root", root, "--groups", str(groups),
                "--per-group", str(per_group), "--busy-every", str(busy_every)]
        if procs:
            argv.append("--procs")
        if shares:
            argv.append("--shares")
        if whole:
            argv.append("--whole")
        if busy_cpu is not None:
            argv += ["--busy-cpu", str(busy_cpu)]
        self.proc = CHILDREN.start(argv, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        try:
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            line = self.proc.stdout.readline() if ready else None
        except BaseException:
            self.stop()
            raise
        if line is None:
            self.stop()
            raise BenchError(f"sleepers took over {timeout} s to place "
                             f"{groups}x{per_group} tasks under {root}")
        if not line.startswith("ready "):
            self.stop()
            raise BenchError(f"sleepers did not start {groups}x{per_group} "
                             f"tasks under {root} (exit {self.proc.returncode})")
        self.info = {k: float(v) for k, v in
                     (w.split("=") for w in line.split()[1:])}

    def stop(self):
        with SIGNALS.deferred():
            if self.proc.stdin and not self.proc.stdin.closed:
                self.proc.stdin.close()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                pass
            CHILDREN.stop([self.proc])


def remove_groups(root, names, timeout=30):
    """rmdir ROOT/NAME for each name, in reverse order, retrying while the
    group is busy (the daemon or the kernel has not seen its tasks exit
    yet).  Returns the time the rmdirs took, s."""
    start = time.monotonic()
    deadline = start + timeout
    for name in reversed(list(names)):
        path = f"{root}/{name}"
        while True:
            try:
                os.rmdir(path)
                break
            except FileNotFoundError:
                break
            except OSError as e:
                if e.errno != errno.EBUSY or time.monotonic() > deadline:
                    raise BenchError(f"rmdir {path}: {e.strerror}")
                time.sleep(0.02)
    return time.monotonic() - start


class KernelGroup:
    """A group of our own in the kernel's cgroup v1 cpu hierarchy (or the
    one mounted at root), with subgroups made under it by others
    (sleepers, attach-bench); teardown removes what is left under it,
    then it."""

    def __init__(self, tag, root=KERNEL_CPU_ROOT):
        self.path = f"{root}/cgfused-{tag}-{os.getpid()}"
        with SIGNALS.deferred():
            os.mkdir(self.path)
            CLEANUPS.append(self)

    @staticmethod
    def available():
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields = line.split()
                sep = fields.index("-")
                if (fields[4] == KERNEL_CPU_ROOT and fields[sep + 1] == "cgroup"
                        and "cpu" in fields[sep + 3].split(",")):
                    return True
        return False

    def teardown(self):
        if not os.path.isdir(self.path):
            return
        for top, dirs, _ in os.walk(self.path, topdown=False):
            for d in dirs:
                remove_groups(top, [d])
        remove_groups(os.path.dirname(self.path), [os.path.basename(self.path)])
        CLEANUPS.remove(self)


class Cgfused:
    """The built cgfused mounted on a temporary directory (its own state
    file next to it, or none), the daemon in a process group of its own so
    that a terminal's Ctrl-C does not stop it before the cleanup unmounts."""

    def __init__(self, binary, workdir, controllers="cpu", state=True, cpu=None,
                 argv=None):
        """argv: another FUSE daemon's command line (fuse-floor), mounted
        and torn down the same way; the mountpoint is appended."""
        self.mnt = tempfile.mkdtemp(prefix="mnt.", dir=workdir)
        self.logpath = f"{self.mnt}.log"
        self.logfile = open(self.logpath, "w+")
        state_opt = f"{self.mnt}.state" if state else "none"
        argv = (argv or [binary, "-f", "-o", f"controllers={controllers}",
                         "-o", f"state={state_opt}"]) + [self.mnt]
        if cpu is not None:
            argv = ["taskset", "-c", str(cpu)] + argv
        CLEANUPS.append(self)
        self.daemon = CHILDREN.start(argv, own_group=True, daemon=True,
                                     stdout=self.logfile, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while not self.mounted():
            if self.daemon.poll() is not None or time.monotonic() > deadline:
                self.logfile.seek(0)
                output = self.logfile.read().strip()
                self.teardown()
                raise BenchError(f"cgfused did not mount: {output}")
            time.sleep(0.02)

    @property
    def pid(self):
        return self.daemon.pid

    def mounted(self):
        return self.mnt is not None and os.path.ismount(self.mnt)

    def stat(self):
        """cgfused.stat's figures as a dict of numbers (not its names,
        such as lock_write_hold_max_site, nor lines of more than one
        value, such as nice_range)."""
        values = {}
        with open(f"{self.mnt}/cgfused.stat") as f:
            for line in f:
                key, _, value = line.strip().partition(" ")
                try:
                    values[key] = float(value)
                except ValueError:
                    pass
        return values

    def teardown(self):
        with SIGNALS.deferred():
            if self.mounted():
                if subprocess.run(["fusermount3", "-u", self.mnt],
                                  stderr=subprocess.DEVNULL).returncode:
                    subprocess.run(["fusermount3", "-uz", self.mnt])
            if self.daemon is not None:
                try:
                    self.daemon.wait(10)
                except subprocess.TimeoutExpired:
                    CHILDREN.stop([self.daemon], signal.SIGTERM, timeout=5)
                CHILDREN.stop([self.daemon])
                self.daemon = None
            if self.mounted():
                subprocess.run(["fusermount3", "-uz", self.mnt])
            if self.mnt is not None:
                os.rmdir(self.mnt)
                for path in (f"{self.mnt}.state", f"{self.mnt}.state.log",
                             f"{self.mnt}.state.log2", f"{self.mnt}.state.orig"):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                self.mnt = None
            if self.logfile is not None:
                self.logfile.close()
                os.unlink(self.logpath)
                self.logfile = None
            if self in CLEANUPS:
                CLEANUPS.remove(self)


# ---------------------------------------------------------------- main

def cleanup(name, workdir):
    """Children that are not daemons first (sleepers, clients), then the
    mounts and kernel groups, then anything left; each step goes on
    whatever the previous one hit."""
    CHILDREN.stop([p for p in CHILDREN.procs if not p.daemon])
    for obj in list(reversed(CLEANUPS)):
        try:
            obj.teardown()
        except (BenchError, OSError) as e:
            print(f"{name}: cleanup: {e}", file=sys.stderr)
    CHILDREN.stop()
    try:
        for entry in os.listdir(workdir):
            os.unlink(os.path.join(workdir, entry))
        os.rmdir(workdir)
    except OSError as e:
        print(f"{name}: cleanup: {e}", file=sys.stderr)


def main(name, run):
    """Runs run(builddir, srcdir, workdir) -> failures as root, cleaning up
    on every path."""
    global SIGNALS
    if os.geteuid() != 0:
        print(f"{name}: must run as root (FUSE mounts, kernel cgroups)",
              file=sys.stderr)
        return 1
    srcdir = os.path.normpath(os.path.join(os.path.dirname(
        os.path.abspath(sys.argv[0])), "..", ".."))
    builddir = sys.argv[1] if len(sys.argv) > 1 else srcdir
    SIGNALS = Signals()
    workdir = tempfile.mkdtemp(prefix=f"{name}.")
    status = 0
    try:
        failures = run(builddir, srcdir, workdir)
        if failures:
            print(f"\n{failures} measurement(s) failed, see the lines "
                  "starting with #")
            status = 1
    except BenchError as e:
        print(f"{name}: {e}", file=sys.stderr)
        status = 1
    except Interrupted as e:
        print(f"\n{name}: {e}, cleaning up", file=sys.stderr)
        status = 128 + e.signum
    finally:
        SIGNALS.hold_forever()
        cleanup(name, workdir)
    return status
