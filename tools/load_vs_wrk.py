#!/usr/bin/env python3
"""gatebench-load against wrk on the same nginx, runs alternating (docs/load.md, issue targets:
req/s >= 1.1x wrk, CPU time per request <= wrk's, p50 within 10% of wrk's at the same fixed rate).

Closed loop: the same -t/-c/-d for both; req/s from each tool's own report, CPU per request from
the generator process's user+sys time (getrusage of the waited child) over its completed requests.

Fixed rate: wrk has no rate mode (wrk2 is not in Debian). wrk's Lua `delay()` hook holds each
connection for D ms after every response, which paces C connections at about C / (D + latency)
requests per second; wrk measures each request from its actual write, so the pause is not in its
latency. gatebench-load then runs open loop (--rate) at the rate wrk achieved, with the same
threads and connections; its p50 is shown both from each request's intended send time (its
latency) and from the actual send (its service time, which is what wrk measures).
"""
import argparse
import contextlib
import json
import os
import re
import shlex
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

NGINX_CONF = """worker_processes {workers};
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  server {{
    listen 127.0.0.1:{port} reuseport backlog=4096;
    location / {{ return 200 "ok\\n"; }}
  }}
}}
"""

UNITS = {"us": 1.0, "ms": 1e3, "s": 1e6}
TARGET_PID = None  # nginx's master, set once it runs


def die(msg):
    print(f"load_vs_wrk: {msg}", file=sys.stderr)
    sys.exit(2)


def target_cpu_ns(master):
    """CPU time of nginx's workers so far (ns, from the scheduler's own accounting, which is finer
    than the clock ticks of /proc/PID/stat). Why: on 2 CPUs the generator and nginx share the
    machine, so req/s depends on the target's CPU per request as much as on the generator's."""
    total = 0
    with open(f"/proc/{master}/task/{master}/children") as f:
        for pid in f.read().split():
            try:
                with open(f"/proc/{pid}/schedstat") as s:
                    total += int(s.read().split()[0])
            except FileNotFoundError:
                pass
    return total


def run_measured(cmd):
    """Runs cmd; returns (stdout, cpu seconds of the child, cpu seconds of the target)."""
    target_before = target_cpu_ns(TARGET_PID)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc.stdout, cpu, (target_cpu_ns(TARGET_PID) - target_before) / 1e9


def parse_wrk(text):
    reqs = re.search(r"(\d+) requests in", text)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    p50 = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if not (reqs and rps and p50):
        raise RuntimeError("unexpected wrk output:\n" + text)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    err = (sum(map(int, errors.groups())) if errors else 0) + (int(non2xx.group(1)) if non2xx else 0)
    return {"requests": int(reqs.group(1)), "rps": float(rps.group(1)),
            "p50_us": float(p50.group(1)) * UNITS[p50.group(2)], "errors": err}


def wrk(args, url, threads, conns, secs, script=None):
    cmd = [args.wrk, f"-t{threads}", f"-c{conns}", f"-d{secs}s", "--latency"]
    if script:
        cmd += ["-s", script]
    out, cpu, target = run_measured(cmd + [url])
    r = parse_wrk(out)
    r["cpu_per_request_us"] = cpu / max(1, r["requests"]) * 1e6
    r["target_cpu_per_request_us"] = target / max(1, r["requests"]) * 1e6
    return r


def ours(args, url, threads, conns, secs, rate=None):
    path = os.path.join(args.work, "load.json")
    cmd = [args.load, "-t", str(threads), "-c", str(conns), "-d", f"{secs}s", "--no-progress",
           "-q", "--json", path] + shlex.split(args.load_args)
    if rate:
        cmd += ["--rate", f"{rate:.0f}"]
    _, cpu, target = run_measured(cmd + [url])
    with open(path) as f:
        j = json.load(f)
    return {"requests": j["requests"], "rps": j["requests_per_s"], "p50_us": j["latency_us"]["p50"],
            "errors": j["errors"]["total"], "valid": j.get("valid", True),
            "service_p50_us": (j.get("service_time_us") or {}).get("p50"),
            "io": j["config"].get("io"), "spin_us": j["config"].get("spin_us"),
            "sched": j["config"].get("sched"),
            "cpu_per_request_us": cpu / max(1, j["requests"]) * 1e6,
            "target_cpu_per_request_us": target / max(1, j["requests"]) * 1e6}


def wait_port(port, deadline_s=5):
    end = time.time() + deadline_s
    while time.time() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    die(f"nginx did not listen on 127.0.0.1:{port} within {deadline_s} s")


@contextlib.contextmanager
def nginx_target(nginx, work, port, workers):
    """Runs the measured nginx from a prefix in `work` on 127.0.0.1:port for the block; yields its
    URL. Its master's pid goes to TARGET_PID, whose workers' CPU time run_measured reports."""
    global TARGET_PID
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(workers=workers, dir=work, port=port))
    proc = subprocess.Popen([nginx, "-p", work, "-c", conf], stderr=subprocess.DEVNULL,
                            start_new_session=True)
    TARGET_PID = proc.pid
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        wait_port(port)
        yield f"http://127.0.0.1:{port}/"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


def medians(case, keys, ours_only=()):
    """Median over the case's runs of each key, per tool: {"wrk": {...}, "ours": {...}}."""
    def of(tool, key):
        return statistics.median(r[tool][key] for r in case["runs"])
    return {"wrk": {k: of("wrk", k) for k in keys},
            "ours": {k: of("ours", k) for k in (*keys, *ours_only)}}


def paired(case, key):
    """Median and range over the runs of ours/wrk for one key, each run of ours divided by the wrk
    run just before it. Why: the machine drifts between slower and faster spells that last
    several runs (nginx's CPU per request moved between 6.9 and 8.4 us for both generators in
    step), and a ratio of two medians can pair a fast spell of one tool with a slow one of the
    other; adjacent runs share their spell."""
    ratios = sorted(r["ours"][key] / r["wrk"][key] for r in case["runs"])
    return statistics.median(ratios), ratios[0], ratios[-1]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--load", default=os.path.join(root, "build/release/macro/load/gatebench-load"),
                    help="gatebench-load to measure (default: the release build)")
    ap.add_argument("--load-args", default="",
                    help="extra gatebench-load options for every run, e.g. '--io epoll'")
    ap.add_argument("--wrk", default=shutil.which("wrk") or "wrk")
    ap.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    ap.add_argument("--runs", type=int, default=5, help="runs of each tool per case (default 5)")
    ap.add_argument("--duration", type=int, default=5, help="seconds per run (default 5)")
    ap.add_argument("--port", type=int, default=28080)
    ap.add_argument("--workers", type=int, default=2, help="nginx worker processes (default 2)")
    ap.add_argument("--closed", default="1x64,2x128",
                    help="closed-loop cases THREADSxCONNECTIONS (default 1x64,2x128)")
    ap.add_argument("--paced", default="1x2,1x10,1x20",
                    help="fixed-rate cases THREADSxCONNECTIONS, each connection paced by a 2 ms "
                         "pause (about 1k, 5k, 10k req/s; default 1x2,1x10,1x20)")
    ap.add_argument("--json", help="write every run and the medians here")
    args = ap.parse_args()
    for tool in (args.load, args.wrk, args.nginx):
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)) and not shutil.which(tool):
            die(f"{tool}: not found or not executable")
    if args.runs < 1 or args.duration < 1:
        die("--runs and --duration must be at least 1")

    def cases(spec, option):
        try:
            return [tuple(int(x) for x in c.split("x")) for c in spec.split(",") if c]
        except ValueError:
            die(f"{option}: expected THREADSxCONNECTIONS[,...], got '{spec}'")

    closed, paced = cases(args.closed, "--closed"), cases(args.paced, "--paced")
    with tempfile.TemporaryDirectory(prefix="load-vs-wrk-") as work:
        args.work = work
        script = os.path.join(work, "pace.lua")
        with open(script, "w") as f:
            f.write("function delay()\n  return 2\nend\n")
        with nginx_target(args.nginx, work, args.port, args.workers) as url:
            results = {"closed": [], "paced": []}
            for t, c in closed:
                runs = []
                for i in range(args.runs):
                    print(f"closed -t{t} -c{c}: run {i + 1}/{args.runs}", file=sys.stderr)
                    runs.append({"wrk": wrk(args, url, t, c, args.duration),
                                 "ours": ours(args, url, t, c, args.duration)})
                results["closed"].append({"threads": t, "connections": c, "runs": runs})
            for t, c in paced:
                runs = []
                for i in range(args.runs):
                    print(f"paced -t{t} -c{c}: run {i + 1}/{args.runs}", file=sys.stderr)
                    w = wrk(args, url, t, c, args.duration, script)
                    runs.append({"wrk": w, "ours": ours(args, url, t, c, args.duration, w["rps"])})
                results["paced"].append({"threads": t, "connections": c, "runs": runs})

    print(f"\n{args.runs} alternating runs of {args.duration} s per tool and case; medians\n")
    print("| closed loop | wrk req/s | gatebench-load req/s | ratio | wrk CPU/req | ours CPU/req "
          "| ratio | nginx CPU/req under wrk | under ours | paired req/s ratio | paired CPU ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case in results["closed"]:
        m = case["median"] = medians(case, ("rps", "cpu_per_request_us",
                                            "target_cpu_per_request_us"))
        w, o = m["wrk"], m["ours"]
        print(f"| -t{case['threads']} -c{case['connections']} | {w['rps']:,.0f} | "
              f"{o['rps']:,.0f} | {o['rps'] / w['rps']:.2f}x | "
              f"{w['cpu_per_request_us']:.2f} µs | {o['cpu_per_request_us']:.2f} µs | "
              f"{o['cpu_per_request_us'] / w['cpu_per_request_us']:.2f} | "
              f"{w['target_cpu_per_request_us']:.2f} µs | {o['target_cpu_per_request_us']:.2f} µs | "
              "{:.2f}x ({:.2f}–{:.2f}) | {:.2f} ({:.2f}–{:.2f}) |".format(
                  *paired(case, "rps"), *paired(case, "cpu_per_request_us")))
        case["paired"] = {k: paired(case, k) for k in ("rps", "cpu_per_request_us")}
    print("\n| fixed rate | req/s (wrk paced) | req/s (ours, --rate) | wrk p50 | ours p50 | ratio "
          "| ours p50 service time | ratio | paired p50 ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case in results["paced"]:
        m = case["median"] = medians(case, ("rps", "p50_us"), ("service_p50_us",))
        w, o = m["wrk"], m["ours"]
        print(f"| -t{case['threads']} -c{case['connections']} | {w['rps']:,.0f} | "
              f"{o['rps']:,.0f} | {w['p50_us']:.1f} µs | {o['p50_us']:.1f} µs | "
              f"{o['p50_us'] / w['p50_us']:.2f} | {o['service_p50_us']:.1f} µs | "
              f"{o['service_p50_us'] / w['p50_us']:.2f} | "
              "{:.2f} ({:.2f}–{:.2f}) |".format(*paired(case, "p50_us")))
        case["paired"] = {"p50_us": paired(case, "p50_us")}
    errors = sum(r[k]["errors"] for kind in results.values() for case in kind for r in case["runs"]
                 for k in ("wrk", "ours"))
    setups = sorted({(r["ours"]["io"], r["ours"]["spin_us"], r["ours"]["sched"])
                     for kind in results.values() for case in kind for r in case["runs"]},
                    key=str)
    print("\ngatebench-load ran with " + ", ".join(f"io={io} spin={spin}us sched={sched}"
                                                  for io, spin, sched in setups))
    print(f"errors over all runs: {errors}; load average at the end: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
