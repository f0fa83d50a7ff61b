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
import json
import os
import shutil
import sys
import tempfile

from studylib import ROOT, check_runs, die, median_of, nginx_target, ours, paired, parser, wrk


def medians(case, keys, ours_only=()):
    """Median over the case's runs of each key, per tool: {"wrk": {...}, "ours": {...}}."""
    return {"wrk": {k: median_of(case, "wrk", k) for k in keys},
            "ours": {k: median_of(case, "ours", k) for k in (*keys, *ours_only)}}


def main():
    ap = parser(__doc__, epilog=False)
    ap.add_argument("--load", default=os.path.join(ROOT, "build/release/macro/load/gatebench-load"),
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
    check_runs(args, (args.load, args.wrk, args.nginx))

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
                  *paired(case, "rps", "wrk"), *paired(case, "cpu_per_request_us", "wrk")))
        case["paired"] = {k: paired(case, k, "wrk") for k in ("rps", "cpu_per_request_us")}
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
              "{:.2f} ({:.2f}–{:.2f}) |".format(*paired(case, "p50_us", "wrk")))
        case["paired"] = {"p50_us": paired(case, "p50_us", "wrk")}
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
