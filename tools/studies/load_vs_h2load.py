#!/usr/bin/env python3
"""gatebench-load --h2 against nghttp2's h2load on the same nginx, runs alternating (docs/load.md,
issue #22's target: req/s at least h2load's with no more CPU per request).

Each case is a protocol (h2c with prior knowledge, or h2 over TLS with ALPN), threads, connections
and concurrent streams per connection, the same for both tools (h2load -t/-c/-m/-D, gatebench-load
-t/-c/--streams/-d). req/s from each tool's own report; CPU per request from the generator
process's user+sys time (getrusage of the waited child) over its completed requests; nginx's CPU
per request from its workers' scheduler time, because on 2 CPUs the two share the machine.
Ratios are also paired: each run of gatebench-load against the h2load run just before it.
"""
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from studylib import (ROOT, check_runs, die, gatebench_load, median_of, nginx_conf, paired, parser,
                      per_request_us, run_measured, server)



@contextlib.contextmanager
def nginx_h2(nginx, work, port, workers):
    """nginx with h2c on `port` and h2 over TLS on port + 1 (a fresh P-256 certificate); yields
    {"h2c": url, "h2": url}. Its master's pid is the target whose workers' CPU is measured."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-keyout", f"{work}/key.pem", "-out", f"{work}/cert.pem"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    conf = nginx_conf(work, workers,
                      "  keepalive_requests 100000000;\n  http2_max_concurrent_streams 256;",
                      f"    listen 127.0.0.1:{port} http2 reuseport backlog=4096;\n"
                      f"    listen 127.0.0.1:{port + 1} ssl http2 reuseport backlog=4096;\n"
                      f"    ssl_certificate {work}/cert.pem;\n"
                      f"    ssl_certificate_key {work}/key.pem;\n"
                      "    ssl_protocols TLSv1.3;")
    with server([nginx, "-p", work, "-c", conf], [port, port + 1], "nginx"):
        yield {"h2c": f"http://127.0.0.1:{port}/", "h2": f"https://127.0.0.1:{port + 1}/"}


def parse_h2load(text):
    done = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
                     r"(\d+) failed, (\d+) errored, (\d+) timeout", text)
    finished = re.search(r"finished in ([\d.]+)s, ([\d.]+) req/s", text)
    if not (done and finished):
        raise RuntimeError("unexpected h2load output:\n" + text)
    succeeded = int(done.group(4))
    return {"requests": succeeded, "rps": float(finished.group(2)),
            "errors": int(done.group(5)) + int(done.group(6)) + int(done.group(7))}


def h2load(args, url, t, c, m):
    cmd = [args.h2load, "-t", str(t), "-c", str(c), "-m", str(m), "-D", str(args.duration), url]
    out, cpu, target = run_measured(cmd)
    r = parse_h2load(out)
    r["cpu_per_request_us"] = per_request_us(cpu, r["requests"])
    r["target_cpu_per_request_us"] = per_request_us(target, r["requests"])
    return r


def ours(args, url, t, c, m):
    j = gatebench_load(args, url, ["--h2", "--streams", str(m), "-t", str(t), "-c", str(c)],
                       args.duration)
    h2 = j.get("h2") or {}
    return {"requests": j["requests"], "rps": j["requests_per_s"], "errors": j["errors"]["total"],
            "valid": j.get("valid", True), "sched": j["config"].get("sched"),
            "nghttp2_allocations_per_stream": h2.get("nghttp2_allocations_per_stream"),
            "cpu_per_request_us": j["cpu_per_request_us"],
            "target_cpu_per_request_us": j["target_cpu_per_request_us"]}


def main():
    ap = parser(__doc__, epilog=False)
    ap.add_argument("--load", default=os.path.join(ROOT, "build/release/macro/load/gatebench-load"),
                    help="gatebench-load to measure (default: the release build)")
    ap.add_argument("--load-args", default="", help="extra gatebench-load options for every run")
    ap.add_argument("--h2load", default=shutil.which("h2load") or "h2load")
    ap.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    ap.add_argument("--runs", type=int, default=5, help="runs of each tool per case (default 5)")
    ap.add_argument("--duration", type=int, default=5, help="seconds per run (default 5)")
    ap.add_argument("--port", type=int, default=28090,
                    help="h2c port; h2 over TLS on the next one (default 28090)")
    ap.add_argument("--workers", type=int, default=2, help="nginx worker processes (default 2)")
    ap.add_argument("--cases", default="h2c:1x64x1,h2c:1x16x10,h2:1x64x1,h2:1x16x10",
                    help="PROTOCOL:THREADSxCONNECTIONSxSTREAMS, PROTOCOL h2c or h2 (default "
                         "h2c:1x64x1,h2c:1x16x10,h2:1x64x1,h2:1x16x10)")
    ap.add_argument("--json", help="write every run, the medians and the paired ratios here")
    args = ap.parse_args()
    check_runs(args, (args.load, args.h2load, args.nginx))
    cases = []
    for spec in filter(None, args.cases.split(",")):
        proto, _, shape = spec.partition(":")
        try:
            t, c, m = (int(x) for x in shape.split("x"))
        except ValueError:
            die(f"--cases: expected PROTOCOL:THREADSxCONNECTIONSxSTREAMS, got '{spec}'")
        if proto not in ("h2c", "h2"):
            die(f"--cases: protocol '{proto}' of '{spec}': expected h2c or h2")
        cases.append({"protocol": proto, "threads": t, "connections": c, "streams": m, "runs": []})

    with tempfile.TemporaryDirectory(prefix="load-vs-h2load-") as work:
        args.work = work
        with nginx_h2(args.nginx, work, args.port, args.workers) as urls:
            for case in cases:
                url, shape = urls[case["protocol"]], (case["threads"], case["connections"],
                                                      case["streams"])
                for i in range(args.runs):
                    print(f"{case['protocol']} -t{shape[0]} -c{shape[1]} -m{shape[2]}: "
                          f"run {i + 1}/{args.runs}", file=sys.stderr)
                    case["runs"].append({"h2load": h2load(args, url, *shape),
                                         "ours": ours(args, url, *shape)})

    print(f"\n{args.runs} alternating runs of {args.duration} s per tool and case; medians\n")
    print("| case | h2load req/s | gatebench-load req/s | ratio | h2load CPU/req | ours CPU/req "
          "| ratio | nginx CPU/req under h2load | under ours | paired req/s ratio "
          "| paired CPU ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    keys = ("rps", "cpu_per_request_us", "target_cpu_per_request_us")
    for case in cases:
        h = {k: median_of(case, "h2load", k) for k in keys}
        o = {k: median_of(case, "ours", k) for k in keys}
        case["median"] = {"h2load": h, "ours": o}
        case["paired"] = {k: paired(case, k, "h2load") for k in ("rps", "cpu_per_request_us")}
        print(f"| {case['protocol']} -t{case['threads']} -c{case['connections']} "
              f"-m{case['streams']} | {h['rps']:,.0f} | {o['rps']:,.0f} | "
              f"{o['rps'] / h['rps']:.2f}x | {h['cpu_per_request_us']:.2f} µs | "
              f"{o['cpu_per_request_us']:.2f} µs | "
              f"{o['cpu_per_request_us'] / h['cpu_per_request_us']:.2f} | "
              f"{h['target_cpu_per_request_us']:.2f} µs | {o['target_cpu_per_request_us']:.2f} µs | "
              "{:.2f}x ({:.2f}–{:.2f}) | {:.2f} ({:.2f}–{:.2f}) |".format(
                  *case["paired"]["rps"], *case["paired"]["cpu_per_request_us"]))
    errors = sum(r[k]["errors"] for case in cases for r in case["runs"] for k in ("h2load", "ours"))
    allocs = sorted({round(r["ours"]["nghttp2_allocations_per_stream"] or 0, 2)
                     for case in cases for r in case["runs"]})
    print(f"\nnghttp2 allocations per stream in gatebench-load: {allocs}")
    print(f"errors over all runs: {errors}; load average at the end: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cases": cases}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
