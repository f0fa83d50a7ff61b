#!/usr/bin/env python3
"""A/B of load generators on one nginx: gatebench-load builds, options or wrappers, and wrk,
run in turn (round-robin) for N rounds; medians of req/s, generator CPU per request and nginx's
CPU per request. For deciding whether a change to gatebench-load helps (docs/load.md).

Each VARIANT is a gatebench-load executable (or any wrapper that takes its options), optionally
prefixed by extra gatebench-load options and '::', e.g.
    build/release/macro/load/gatebench-load
    '--sched normal::build/release/macro/load/gatebench-load'
    wrk            (any name containing 'wrk' runs as wrk, with wrk's options)
"""
import argparse
import os
import statistics
import sys
import tempfile

from studylib import die, nginx_target, ours, parser, wrk


def main():
    ap = parser(__doc__)
    ap.add_argument("variants", nargs="+", metavar="VARIANT")
    ap.add_argument("--rounds", type=int, default=5, help="runs of each variant (default 5)")
    ap.add_argument("--duration", type=int, default=3, help="seconds per run (default 3)")
    ap.add_argument("--case", default="1x64", help="THREADSxCONNECTIONS (default 1x64)")
    ap.add_argument("--port", type=int, default=28081)
    ap.add_argument("--workers", type=int, default=2, help="nginx worker processes (default 2)")
    ap.add_argument("--nginx", default="nginx")
    args = ap.parse_args()
    try:
        threads, conns = (int(x) for x in args.case.split("x"))
    except ValueError:
        die(f"--case: expected THREADSxCONNECTIONS, got '{args.case}'")
    if args.rounds < 1 or args.duration < 1:
        die("--rounds and --duration must be at least 1")
    results = {v: [] for v in args.variants}
    with tempfile.TemporaryDirectory(prefix="load-ab-") as work, \
            nginx_target(args.nginx, work, args.port, args.workers) as url:
        for i in range(args.rounds):
            for v in args.variants:
                extra, _, exe = v.rpartition("::")
                a = argparse.Namespace(work=work, load_args=extra, wrk=exe, load=exe)
                if "wrk" in os.path.basename(exe):
                    r = wrk(a, url, threads, conns, args.duration)
                else:
                    r = ours(a, url, threads, conns, args.duration)
                results[v].append(r)
                print(f"round {i + 1}/{args.rounds} {v}: {r['rps']:,.0f} req/s, "
                      f"CPU {r['cpu_per_request_us']:.2f} µs/req, "
                      f"nginx {r['target_cpu_per_request_us']:.2f} µs/req", file=sys.stderr)
    print(f"\n-t{threads} -c{conns}, {args.rounds} rounds of {args.duration} s; medians\n")
    print("| variant | req/s | CPU/req | nginx CPU/req |")
    print("|---|---:|---:|---:|")
    for v, runs in results.items():
        med = {k: statistics.median(r[k] for r in runs)
               for k in ("rps", "cpu_per_request_us", "target_cpu_per_request_us")}
        print(f"| `{v}` | {med['rps']:,.0f} | {med['cpu_per_request_us']:.2f} µs | "
              f"{med['target_cpu_per_request_us']:.2f} µs |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
