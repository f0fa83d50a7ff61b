#!/usr/bin/env python3
"""Where open-loop tails come from: N runs of gatebench-load at a fixed rate against the backend
nginx alone and through the nginx proxy (the scenario configs of macro/scenarios/configs), with
what the machine did in each second beside each second's p99 (docs/method.md, open-loop tails).

Per run: latency p50/p99/max, the generator's send lag (it was late) and service time (the
server or the network was slow). Per second of the window: the run's p99 of that second (the
generator's series), and from /proc, sampled every --interval: steal and iowait of each CPU
(/proc/stat), the most runnable tasks seen (procs_running), the 1-minute load average, and per
role (the generator's threads, the proxy's and the backend's workers) the time spent runnable but
waiting for a CPU (/proc/PID/task/TID/schedstat, second field) and involuntary context switches.
"others" is the CPU time of the whole machine minus that of the processes started here: what
other users of the machine ran in that second. A 1 ms sleeper pinned to each CPU records how late
its wake-ups came ("probe"): lateness beyond its own run-queue wait would be the host's.
--variant A/Bs generator options round-robin, --autogroup-nice raises the scheduling weight of
the roles' sessions (a causal test for CPU sharing with the machine's other sessions).

Everything listens on 127.0.0.1; every process started here is stopped when the tool ends.
"""
import argparse
import contextlib
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from studylib import ROOT, die, wait_port

CONFIGS = os.path.join(ROOT, "macro/scenarios/configs")
TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")
ROLES = ("load", "proxy", "backend", "probe")
SERVERS_WAIT = "servers' wait ms (proxy + backend)"
OTHERS = "others' CPU %"


def render(template, out, values):
    """Fills a scenario config template the way gatebench-macro does (${name} -> value); an
    unknown name is an error naming the template and line, not a silently broken config."""
    with open(template) as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines):
        for name in re.findall(r"\$\{([^}]*)\}", line):
            if name not in values:
                die(f"{template}:{n + 1}: unknown variable ${{{name}}}")
        lines[n] = re.sub(r"\$\{([^}]*)\}", lambda m: str(values[m.group(1)]), line)
    with open(out, "w") as f:
        f.write("\n".join(lines))


@contextlib.contextmanager
def nginx(name, work, values, port, log=True):
    """Runs one scenario nginx (backend or proxy) from its template under work/name; yields the
    master's pid. log=False turns the access log off, for an A/B of its buffered flushes."""
    # The template puts its files under ${run_dir}/<backend|proxy>/; each nginx gets its own
    # run_dir, so the proxy and the proxy without log do not share a pid file.
    tmpl = name.split("-")[0]
    run_dir = os.path.join(work, name)
    prefix = os.path.join(run_dir, tmpl)
    os.makedirs(prefix)
    conf = os.path.join(run_dir, f"{tmpl}.conf")
    render(os.path.join(CONFIGS, f"nginx-{tmpl}.conf"), conf,
           dict(values, run_dir=run_dir, **{f"port.{tmpl}": port}))
    if not log:
        with open(conf) as f:
            text = re.sub(r"\baccess_log [^;]*;", "access_log off;", f.read())
        with open(conf, "w") as f:
            f.write(text)
    proc = session(subprocess.Popen([values["nginx"], "-p", prefix + "/", "-c", conf],
                                    stderr=subprocess.DEVNULL, **SPAWN))
    try:
        wait_port(port, what=name)
        yield [proc.pid]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


AUTOGROUP_NICE = None  # --autogroup-nice: applied to every session started here
# Each process leads its own session and process group; --one-session keeps them in the tool's
# session (own process group only), the way gatebench-macro starts services and the generator.
SPAWN = {"start_new_session": True}


def session(proc):
    """With sched_autogroup_enabled (on in these VMs' kernel) each session is one scheduling
    group, weighed against each other session on the machine (one per engineer's build)
    regardless of task nice values: raising the group's weight is the only way to give these
    roles more CPU than an equal group share. With --one-session that group is the tool's."""
    if AUTOGROUP_NICE is not None:
        try:
            with open(f"/proc/{proc.pid}/autogroup", "w") as f:
                f.write(str(AUTOGROUP_NICE))
        except OSError as e:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            die(f"--autogroup-nice: /proc/{proc.pid}/autogroup: {e.strerror}")
    return proc


@contextlib.contextmanager
def gateway(args, work, values, port):
    """Runs gatebench-control and gatebench-gateway the way scenario gateway-default does (its
    config template, a fresh P-256 certificate, the access log sent to the control process) on
    port, its control on port + 1 (UDP) and + 2 (HTTP), HTTPS on port + 3; yields both pids."""
    run_dir = os.path.join(work, "gateway")
    os.makedirs(run_dir)
    cert, key = (os.path.join(run_dir, n) for n in ("tls.crt", "tls.key"))
    made = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                           "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj",
                           "/CN=localhost", "-keyout", key, "-out", cert],
                          capture_output=True, text=True, timeout=20)
    if made.returncode != 0:
        die(f"openssl req: {made.stderr.strip()}")
    conf = os.path.join(run_dir, "gateway.json")
    render(os.path.join(CONFIGS, "gateway.json"), conf,
           dict(values, configs=CONFIGS, **{"port.proxy": port, "port.control_udp": port + 1,
                                            "port.proxy_tls": port + 3, "tls.cert": cert,
                                            "tls.key": key}))
    procs = []
    try:
        procs.append(session(subprocess.Popen(
            [args.control, "--udp", f"127.0.0.1:{port + 1}", "--http", f"127.0.0.1:{port + 2}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **SPAWN)))
        wait_port(port + 2, what="gatebench-control")
        procs.append(session(subprocess.Popen([args.gateway, "--config", conf],
                                              stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL, **SPAWN)))
        wait_port(port, what="gatebench-gateway")
        yield [p.pid for p in procs]
    finally:
        for p in reversed(procs):
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=10)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:  # the task or process ended between listing and reading
        return None


def tasks_of(pids):
    """(pid, tid) of every thread of the given processes and of their children (nginx workers)."""
    out = []
    for pid in pids:
        children = read(f"/proc/{pid}/task/{pid}/children") or ""
        for p in [pid] + [int(c) for c in children.split()]:
            with contextlib.suppress(OSError):
                out += [(p, int(t)) for t in os.listdir(f"/proc/{p}/task")]
    return out


def task_counters(tasks, before):
    """Per thread: (ns on a CPU, ns runnable but waiting for a CPU, involuntary switches). Threads
    that ended keep their last counters from `before`, so that a sum never drops when the
    generator exits at the end of its window."""
    out = dict(before)
    for pid, tid in tasks:
        s = read(f"/proc/{pid}/task/{tid}/schedstat")
        st = read(f"/proc/{pid}/task/{tid}/status")
        if s is None or st is None:
            continue
        r, w, _ = (int(x) for x in s.split())
        m = re.search(r"nonvoluntary_ctxt_switches:\s+(\d+)", st)
        out[tid] = (r, w, int(m.group(1)) if m else 0)
    return out


def machine_counters():
    text = read("/proc/stat")
    cpus = {}
    running = 0
    for line in text.split("\n"):
        f = line.split()
        if f and f[0].startswith("cpu") and f[0] != "cpu":
            v = [int(x) for x in f[1:]]
            # user nice system idle iowait irq softirq steal ...
            cpus[f[0]] = {"busy": sum(v[0:3]) + v[5] + v[6], "iowait": v[4], "steal": v[7]}
        elif f and f[0] == "procs_running":
            running = int(f[1])
    return {"cpus": cpus, "procs_running": running,
            "loadavg": float(read("/proc/loadavg").split()[0])}


class Sampler:
    """Samples the machine and each role's tasks every interval on CLOCK_MONOTONIC (the clock of
    gatebench-load's window), in a thread, until stopped."""

    def __init__(self, roles, interval):
        self.roles, self.interval = roles, interval
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        while not self._stop.is_set():
            t = time.monotonic()
            sample = {"t": t, "machine": machine_counters(), "roles": {}}
            for role, pids in self.roles.items():
                before = self.samples[-1]["roles"][role] if self.samples else {}
                sample["roles"][role] = task_counters(tasks_of(pids()), before)
            self.samples.append(sample)
            self._stop.wait(max(0.0, self.interval - (time.monotonic() - t)))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def interp(samples, get, t):
    """Counter value at time t, linear between the samples around it."""
    for a, b in zip(samples, samples[1:]):
        if a["t"] <= t <= b["t"]:
            va, vb = get(a), get(b)
            return va + (vb - va) * (t - a["t"]) / (b["t"] - a["t"])
    return get(samples[0] if t < samples[0]["t"] else samples[-1])


def per_second(samples, start, seconds, roles):
    """Deltas of every counter over [start + i, start + i + 1) for each second i of the window."""
    out = []
    cpu_names = sorted(samples[0]["machine"]["cpus"])
    for i in range(seconds):
        t0, t1 = start + i, start + i + 1
        inside = [s for s in samples if t0 <= s["t"] < t1] or samples[-1:]

        def delta(get):
            return interp(samples, get, t1) - interp(samples, get, t0)

        sec = {"steal_pct": {}, "iowait_pct": {}}
        busy = 0.0
        for c in cpu_names:
            for key in ("steal", "iowait"):
                sec[f"{key}_pct"][c] = delta(lambda s: s["machine"]["cpus"][c][key]) * TICK_S * 100
            busy += delta(lambda s: s["machine"]["cpus"][c]["busy"]) * TICK_S
        ours = 0.0
        for role in roles:
            def get(k):
                return lambda s: sum(v[k] for v in s["roles"][role].values())
            sec[role] = {"run_ms": delta(get(0)) / 1e6, "wait_ms": delta(get(1)) / 1e6,
                         "nvcsw": delta(get(2))}
            # The worst single task: a stalled nginx worker stalls only its own connections.
            worst = 0.0
            for tid in set().union(*(s["roles"][role] for s in samples)):
                def w(s, tid=tid):
                    return s["roles"][role].get(tid, (0, 0, 0))[1]
                worst = max(worst, delta(w))
            sec[role]["worst_task_wait_ms"] = worst / 1e6
            ours += sec[role]["run_ms"] / 1e3
        sec["others_cpu_pct"] = max(0.0, busy - ours) * 100
        sec["procs_running_max"] = max(s["machine"]["procs_running"] for s in inside)
        sec["loadavg"] = inside[-1]["machine"]["loadavg"]
        out.append(sec)
    return out


# A hiccup meter pinned to one CPU: sleeps 1 ms at a time and records how late each wake-up came.
# Lateness that its own run-queue wait (schedstat) does not explain happened outside the guest's
# scheduler: the vCPU was not running (host) or the timer fired late.
PROBE = """
import json, os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
end = time.monotonic() + float(sys.argv[2])
late = []
while True:
    t = time.monotonic()
    if t > end:
        break
    time.sleep(0.001)
    d = time.monotonic() - t - 0.001
    if d > 0.0005:
        late.append((t, d))
print(json.dumps(late))
"""


def start_probes(seconds):
    return [session(subprocess.Popen([sys.executable, "-c", PROBE, str(cpu), str(seconds)],
                                     stdout=subprocess.PIPE, text=True, **SPAWN))
            for cpu in sorted(os.sched_getaffinity(0))]


def run_load(args, url, work, variant, headers):
    path = os.path.join(work, "load.json")
    cmd = [args.load, "-t", str(args.threads), "-c", str(args.connections), "-d",
           f"{args.duration}s", "--rate", str(args.rate), "--no-progress", "-q", "--json", path]
    cmd += [a for h in headers for a in ("-H", h)]
    cmd += shlex.split(args.load_args) + shlex.split(variant) + [url]
    launched = time.monotonic()
    proc = session(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True, **SPAWN))
    return proc, path, launched


def one_run(args, target, variant, url, pids, work):
    roles = {"load": lambda: [proc.pid]}
    roles["backend"] = lambda: pids["backend"]
    if target != "backend":
        roles["proxy"] = lambda: pids[target]
    probes = start_probes(args.duration + 1) if args.probe else []
    if probes:
        roles["probe"] = lambda: [p.pid for p in probes]
    proc = None
    try:
        # The gateway routes by host, as in gateway-default.
        headers = ["Host: default.test"] if target == "gateway" else []
        proc, path, launched = run_load(args, url, work, variant, headers)
        with Sampler(roles, args.interval) as sampler:
            _, err = proc.communicate(timeout=args.duration + 30)
        late = [json.loads(p.communicate(timeout=10)[0]) for p in probes]
    except subprocess.TimeoutExpired:
        die(f"gatebench-load or a probe did not end within {args.duration + 30} s")
    finally:
        for p in [proc] + probes:
            if p is not None and p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    if proc.returncode != 0:
        die(f"gatebench-load exited {proc.returncode}: {err.strip()}")
    with open(path) as f:
        j = json.load(f)
    window = j.get("window")
    # Builds before the window field: the window opens 20 ms after launch (runner.cpp), and the
    # process start adds a few ms, which is below the sampling interval.
    start = window["start_ns"] / 1e9 if window else launched + 0.02
    lat, lag, svc = j["latency_us"], j.get("send_lag_us") or {}, j.get("service_time_us") or {}
    seconds = per_second(sampler.samples, start, args.duration, list(roles))
    for i, sec in enumerate(seconds):
        sec["probe_late_max_ms"] = [max([d for t, d in cpu if start + i <= t < start + i + 1],
                                        default=0) * 1e3 for cpu in late]
    for sec, s in zip(seconds, j.get("series", [])):
        sec["p99_ms"] = s["p99_us"] / 1e3
        sec["requests"] = s["requests"]
    return {"target": target + (f" [{variant}]" if variant else ""), "valid": j["valid"], "achieved_rate": j.get("achieved_rate"),
            "p50_ms": lat["p50"] / 1e3, "p99_ms": lat["p99"] / 1e3, "max_ms": lat["max"] / 1e3,
            "send_lag_p99_ms": lag.get("p99", 0) / 1e3, "send_lag_max_ms": lag.get("max", 0) / 1e3,
            "service_p99_ms": svc.get("p99", 0) / 1e3, "service_max_ms": svc.get("max", 0) / 1e3,
            "config": {k: j["config"].get(k) for k in ("threads", "spin_us", "sched", "io")},
            "status": j.get("status"), "errors": j["errors"]["total"],
            "seconds": seconds}


def steal(sec):
    return sum(sec["steal_pct"].values())


def print_run(n, r):
    c = r["config"]
    print(f"\nrun {n} {r['target']}: p50 {r['p50_ms']:.2f} p99 {r['p99_ms']:.2f} max "
          f"{r['max_ms']:.2f} ms; send lag p99 {r['send_lag_p99_ms']:.2f} max "
          f"{r['send_lag_max_ms']:.2f} ms; service p99 {r['service_p99_ms']:.2f} max "
          f"{r['service_max_ms']:.2f} ms; -t{c['threads']} spin {c['spin_us']} us sched "
          f"{c['sched']} io {c['io']}; status {r['status']}, {r['errors']} errors"
          f"{'' if r['valid'] else ' INVALID'}\n")
    print("| s | p99 ms | load wait ms (worst thread) | proxy wait ms (worst worker) "
          "| backend wait ms (worst worker) | nvcsw load/proxy/backend | steal % | iowait % "
          "| others CPU % | runnable max | loadavg | probe late max ms per CPU (own wait ms) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, s in enumerate(r["seconds"]):
        def w(role):
            return (f"{s[role]['wait_ms']:.1f} ({s[role]['worst_task_wait_ms']:.1f})"
                    if role in s else "-")
        nv = "/".join(f"{s[role]['nvcsw']:.0f}" if role in s else "-" for role in ROLES[:3])
        probe = "/".join(f"{v:.1f}" for v in s["probe_late_max_ms"])
        probe += f" ({s['probe']['wait_ms']:.1f})" if "probe" in s else ""
        print(f"| {i} | {s.get('p99_ms', float('nan')):.2f} | {w('load')} | {w('proxy')} "
              f"| {w('backend')} | {nv} | {steal(s):.1f} | {sum(s['iowait_pct'].values()):.1f} "
              f"| {s['others_cpu_pct']:.0f} | {s['procs_running_max']} | {s['loadavg']:.2f} | {probe} |")


def summary(runs, slow_ms):
    """Slow seconds (p99 above slow_ms) against the others: medians of each machine figure."""
    secs = [s for r in runs for s in r["seconds"] if "p99_ms" in s]
    slow = [s for s in secs if s["p99_ms"] > slow_ms]
    fast = [s for s in secs if s["p99_ms"] <= slow_ms]
    figures = {
        "generator wait ms": lambda s: s["load"]["wait_ms"],
        "generator worst-thread wait ms": lambda s: s["load"]["worst_task_wait_ms"],
        SERVERS_WAIT: lambda s: sum(
            s[r]["wait_ms"] for r in ("proxy", "backend") if r in s),
        "servers' worst-worker wait ms": lambda s: max(
            s[r]["worst_task_wait_ms"] for r in ("proxy", "backend") if r in s),
        "involuntary switches, generator and servers": lambda s: sum(
            s[r]["nvcsw"] for r in ROLES[:3] if r in s),
        "probe lateness ms, worst CPU": lambda s: max(s["probe_late_max_ms"], default=0),
        "steal % (sum of CPUs)": steal,
        "iowait % (sum of CPUs)": lambda s: sum(s["iowait_pct"].values()),
        OTHERS: lambda s: s["others_cpu_pct"],
        "runnable tasks, max": lambda s: s["procs_running_max"],
        "load average": lambda s: s["loadavg"],
    }
    print(f"\n{len(slow)} of {len(secs)} seconds had a p99 above {slow_ms} ms "
          f"({sum(1 for r in runs if r['p99_ms'] > slow_ms)} of {len(runs)} runs)\n")
    print(f"| per second | median, p99 > {slow_ms} ms | median, other seconds | "
          "slow seconds above the other seconds' p90 |")
    print("|---|---:|---:|---:|")
    out = {"slow_seconds": len(slow), "seconds": len(secs), "figures": {}}
    for name, get in figures.items():
        fv = sorted(get(s) for s in fast)
        sv = [get(s) for s in slow]
        p90 = fv[int(0.9 * (len(fv) - 1))] if fv else float("nan")
        above = sum(1 for v in sv if v > p90)
        ms = statistics.median(sv) if sv else float("nan")
        mf = statistics.median(fv) if fv else float("nan")
        out["figures"][name] = {"slow_median": ms, "other_median": mf, "slow_above_p90": above}
        print(f"| {name} | {ms:.2f} | {mf:.2f} | {above} of {len(sv)} |")
    print("\n| run | target | p99 ms | send lag p99 ms | service p99 ms | generator wait ms/s "
          "| servers' wait ms/s | steal % | others CPU % | probe late max ms | loadavg |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, r in enumerate(runs):
        ss = r["seconds"]

        def mean(name):
            get = figures[name] if isinstance(name, str) else name
            return statistics.mean(get(s) for s in ss)
        print(f"| {n + 1} | {r['target']} | {r['p99_ms']:.2f} | {r['send_lag_p99_ms']:.2f} "
              f"| {r['service_p99_ms']:.2f} | {mean('generator wait ms'):.1f} "
              f"| {mean(SERVERS_WAIT):.1f} | {mean(steal):.1f} | {mean(OTHERS):.0f} "
              f"| {max(figures['probe lateness ms, worst CPU'](s) for s in ss):.1f} "
              f"| {r['loadavg_before']:.2f} |")
    print("\n| target | runs | p99 ms median (min–max) | send lag p99 ms median (min–max) "
          "| service p99 ms median (min–max) |")
    print("|---|---:|---:|---:|---:|")
    for target in sorted({r["target"] for r in runs}):
        rs = [r for r in runs if r["target"] == target]

        def spread(key):
            v = sorted(r[key] for r in rs)
            return f"{statistics.median(v):.2f} ({v[0]:.2f}–{v[-1]:.2f})"
        print(f"| {target} | {len(rs)} | {spread('p99_ms')} | {spread('send_lag_p99_ms')} "
              f"| {spread('service_p99_ms')} |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--load", default=os.path.join(ROOT, "build/release/macro/load/gatebench-load"),
                    help="gatebench-load to run (default: the release build)")
    ap.add_argument("--load-args", default="",
                    help="extra gatebench-load options for every run, e.g. '--spin 0'")
    ap.add_argument("--variant", dest="variants", action="append",
                    help="gatebench-load options of one A/B variant; repeat for each, every round "
                         "runs every variant on every target in turn (e.g. --variant= "
                         "'--variant=--spin 0')")
    ap.add_argument("--nginx", default="/usr/sbin/nginx")
    ap.add_argument("--gateway",
                    default=os.path.join(ROOT, "build/release/macro/gateway/gatebench-gateway"))
    ap.add_argument("--control",
                    default=os.path.join(ROOT, "build/release/macro/gateway/gatebench-control"))
    ap.add_argument("--targets", default="backend,proxy",
                    help="comma-separated, run round-robin: backend (nginx alone), proxy (nginx "
                         "proxy in front of it), proxy-nolog (the same proxy without its access "
                         "log, on --port + 2), gateway (gatebench-gateway as in gateway-default, "
                         "on --port + 3, its control on + 4 and + 5, HTTPS on + 6) "
                         "(default backend,proxy)")
    ap.add_argument("--runs", type=int, default=3, help="runs per target (default 3)")
    ap.add_argument("--rate", type=int, default=10000, help="req/s (default 10000)")
    ap.add_argument("-c", "--connections", type=int, default=64)
    ap.add_argument("-t", "--threads", type=int, default=1,
                    help="generator threads (default 1: what gatebench-macro uses unpinned)")
    ap.add_argument("--duration", type=int, default=4, help="seconds per run (default 4)")
    ap.add_argument("--backend-workers", type=int, default=2)
    ap.add_argument("--proxy-workers", type=int, default=2)
    ap.add_argument("--interval", type=float, default=0.1, help="sampling period s (default 0.1)")
    ap.add_argument("--slow-ms", type=float, default=2.0,
                    help="a second is slow when its p99 exceeds this (default 2)")
    ap.add_argument("--port", type=int, default=28180, help="backend port; proxy: port + 1")
    ap.add_argument("--json", help="write every run, every second and the summary here")
    ap.add_argument("--no-probe", dest="probe", action="store_false",
                    help="no hiccup meter (one 1 ms sleeper pinned to each CPU)")
    ap.add_argument("--autogroup-nice", type=int, choices=range(-20, 20), metavar="N",
                    help="write N to /proc/PID/autogroup of every process started here (needs "
                         "root for N < 0): weighs the generator's and servers' scheduling groups "
                         "against the other sessions of a shared machine")
    ap.add_argument("--one-session", action="store_true",
                    help="start nginx, the generator and the probes in this tool's session (one "
                         "scheduling autogroup for all roles, as under gatebench-macro) instead "
                         "of one session each")
    ap.add_argument("--quiet-runs", action="store_true", help="print only the summary")
    args = ap.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    for t in targets:
        if t not in ("backend", "proxy", "proxy-nolog", "gateway"):
            die(f"--targets: unknown target '{t}' (expected backend, proxy, proxy-nolog, "
                "gateway)")
    for tool in (args.load, args.nginx) + ((args.gateway, args.control)
                                           if "gateway" in targets else ()):
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
            die(f"{tool}: not found or not executable")
    if args.runs < 1 or not 1 <= args.duration <= 60 or args.rate < 1 or args.interval <= 0:
        die("--runs and --rate must be at least 1, --duration 1-60 s, --interval positive")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    global AUTOGROUP_NICE
    AUTOGROUP_NICE = args.autogroup_nice
    if args.one_session:
        SPAWN.clear()
        SPAWN["process_group"] = 0
    runs = []
    with tempfile.TemporaryDirectory(prefix="open-loop-tail-") as work:
        values = {"run_dir": work, "nginx": args.nginx, "port.backend": args.port,
                  "port.proxy": args.port + 1, "workers.backend": args.backend_workers,
                  "workers.gateway": args.proxy_workers}
        with contextlib.ExitStack() as stack:
            ports = {"backend": args.port, "proxy": args.port + 1, "proxy-nolog": args.port + 2,
                     "gateway": args.port + 3}
            pids = {"backend": stack.enter_context(nginx("backend", work, values, args.port))}
            for t in targets:
                if t == "gateway":
                    pids[t] = stack.enter_context(gateway(args, work, values, ports[t]))
                elif t != "backend":
                    pids[t] = stack.enter_context(nginx(t, work, values, ports[t],
                                                        log=t == "proxy"))
            urls = {t: f"http://127.0.0.1:{p}/" for t, p in ports.items()}
            for i in range(args.runs):
                for t, v in ((t, v) for t in targets for v in args.variants or [""]):
                    before = float(read("/proc/loadavg").split()[0])
                    r = one_run(args, t, v, urls[t], pids, work)
                    r["loadavg_before"] = before
                    runs.append(r)
                    print(f"round {i + 1}/{args.runs} {r['target']}: p99 {r['p99_ms']:.2f} ms, send lag "
                          f"p99 {r['send_lag_p99_ms']:.2f} ms", file=sys.stderr)
    print(f"gatebench-load -t{args.threads} -c{args.connections} --rate {args.rate} "
          f"-d{args.duration}s {args.load_args}; {args.runs} runs per target, round-robin"
          + (f"; autogroup nice {AUTOGROUP_NICE}" if AUTOGROUP_NICE is not None else "")
          + ("; one session" if args.one_session else "; a session per process"))
    if not args.quiet_runs:
        for n, r in enumerate(runs):
            print_run(n + 1, r)
    result = summary(runs, args.slow_ms)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "runs": runs, "summary": result}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
