# SPDX-License-Identifier: GPL-2.0-or-later
"""chartdata: what tests/bench/bench-charts reads from the saved output of
each benchmark: the run's heading and the figures of its tables. Each
X_data(text) returns what draw_X needs, or None when text holds none."""
import re


def fields(line):
    return dict(f.split("=", 1) for f in line.split() if "=" in f)


def heading(text):
    """The commit and date of a run, from its '## Moves at C, DATE',
    '# group-fairness benchmark, DATE, ...' or benchlib.header()'s
    '## NAME at C, DATE, kernel ...' line."""
    m = re.search(r"^## Moves at (\S+), (.+)$", text, re.M)
    if m:
        return f"{m.group(1)}, {m.group(2)}"
    m = re.search(r"^# group-fairness benchmark, ([^,]+),(.*)$", text, re.M)
    if m:
        return m.group(1)
    m = re.search(r"^## .+? at (\S+), (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", text, re.M)
    return f"{m.group(1)}, {m.group(2)}" if m else ""


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def number(cell):
    """A table cell as a float ('100,000', '+1.0%'), None when not one."""
    try:
        return float(cell.replace(",", "").rstrip("%"))
    except ValueError:
        return None


def table(text, first):
    """The rows (dicts by column name) of the first markdown table whose
    header starts with the column `first`. A name seen twice gets "clean "
    before it (bench-restart's columns after a clean stop)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and cells(line)[0] == first:
            break
    else:
        return []
    head = []
    for name in cells(lines[i]):
        head.append("clean " + name if name in head else name)
    rows = []
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(head, cells(line))))
    return rows


def attach_data(text):
    rows = {}
    for line in text.splitlines():
        if not line.startswith("target=") or " op=move " not in line:
            continue
        f = fields(line)
        rows.setdefault(f["target"], []).append(
            (int(f["n"]), float(f["median_us"]), float(f["p99_us"])))
    return {t: sorted(r) for t, r in rows.items() if r}


def fairness_data(text):
    """(modes, [(workload, [error per mode])]) from the summary table,
    None without one."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Max error against the target"):
            break
    else:
        return None
    table = [l for l in lines[i + 1:] if l.startswith("|")]
    head = [c.strip() for c in table[0].strip("|").split("|")]
    modes = head[2:-1]          # between "CPUs" and "goal"
    rows = []
    for line in table[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        try:
            rows.append((cells[0], [float(c) for c in cells[2:2 + len(modes)]]))
        except ValueError:
            continue            # a mode not measured
    return (modes, rows) if rows else None


def quota_data(text):
    """(targets, [(case, {target: used as % of the cap})]) from the first
    table; 'none' (no cap) left out: its loops run free."""
    cases = {}
    for r in table(text, "groups"):
        used, cap = number(r.get("used CPU/s", "")), number(r.get("quota CPU/s", ""))
        if r.get("target") == "none" or not cap:
            continue
        case = (f"{r['groups']} x {r['threads each']} thread"
                f"{'s' if r['threads each'] != '1' else ''}", r["quota/period µs"])
        cases.setdefault(case, {})[r["target"]] = (None if used is None
                                                   else used / cap * 100)
    targets = [t for t in ("kernel", "cgfused", "cpulimit")
               if any(t in v for v in cases.values())]
    return (targets, list(cases.items())) if cases else None


def freezer_data(text):
    """{case: {target: (freeze median, max, thaw median, max) ms}}."""
    cases = {}
    for r in table(text, "threads"):
        vals = tuple(number(r.get(c, "")) for c in (
            "freeze median ms", "freeze max ms", "thaw median ms", "thaw max ms"))
        if None not in vals:
            cases.setdefault(r["threads"], {})[r["target"]] = vals
    return cases


def restart_data(text):
    """[(groups, {column: value})], the columns those of the table."""
    rows = []
    for r in table(text, "groups"):
        n = number(r["groups"])
        if n:
            rows.append((n, {k: number(v) for k, v in r.items()}))
    # A restart's time and RSS are what the picture needs.
    if not any(r.get("restart s") is not None and r.get("peak RSS MiB") is not None
               for _, r in rows):
        return None
    return sorted(rows, key=lambda x: x[0])


def memory_data(text):
    """(empty mount's RSS KiB or None, [(groups, RSS, heap in use, RSS after
    removing them)] KiB) from the memory table."""
    made, after, empty = {}, {}, None
    for r in table(text, "state"):
        rss, heap = number(r.get("RSS KiB", "")), number(r.get("heap in use KiB", ""))
        m = re.fullmatch(r"(\d+) empty groups", r["state"])
        if m and rss is not None and heap is not None:
            made[int(m.group(1))] = (rss, heap)
        m = re.fullmatch(r"after removing the (\d+) groups", r["state"])
        if m and rss is not None:
            after[int(m.group(1))] = rss
        if r["state"] == "empty mount":
            empty = rss
    rows = [(n, rss, heap, after.get(n)) for n, (rss, heap) in sorted(made.items())]
    return (empty, rows) if rows else None


def clients_data(text):
    """{op: {target: [(clients, ops/s, CPU µs/op)]}}."""
    ops = {}
    for r in table(text, "target"):
        n, rate = number(r.get("clients", "")), number(r.get("ops/s", ""))
        if n is None or rate is None:
            continue            # a failed row
        ops.setdefault(r["op"], {}).setdefault(r["target"], []).append(
            (n, rate, number(r.get("CPU µs/op", ""))))
    return ops
