#!/usr/bin/env python3
"""Writes report_macro.json, the synthetic macro.json of the report tests (the macro driver is
written separately; this follows the gatebench.macro/1 contract in DESIGN.md plus the optional
per_second series). report_micro.json is a real `gatebench micro --filter '^token/'` run, kept as
is. Run: python3 tests/tools/data/make_report_fixtures.py"""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))


def scenario(name, rps, cpu, p50, peak, nginx_rps, errors=0, wobble=0.03):
    # "mean" and a null percentile, as gatebench-macro writes them (docs/scenarios.md)
    lat = {"p50": p50, "p75": p50 * 1.2, "p90": p50 * 1.35, "p99": p50 * 2.3, "p999": p50 * 3.7,
           "p9999": p50 * 6.0 if name != "gateway-queue" else None, "mean": p50 * 1.1}
    series = [{"t": t, "rps": rps * (1 + wobble * ((t * 7) % 5 - 2) / 2), "p99_us": lat["p99"],
               "cpu_percent": cpu} for t in range(1, 21)]
    return {"name": name, "status": "ok", "rps": rps, "rps_per_gateway_cpu": rps / 2,
            "latency_us": lat, "cpu_percent": cpu,
            "cpu_by_process": {"gatebench-gateway": cpu - 6, "gatebench-control": 6},
            "peak_mb": peak, "vs_nginx": round(rps / nginx_rps, 4), "errors": errors,
            "per_second": series, "artifacts": [name + "/load.json"]}


nginx = 100000.0
doc = {"schema": "gatebench.macro/1",
       "env": {"commit": "0123abc", "cpu_model": "Intel Xeon (fixture)", "cpus": 2,
               "kernel": "6.1.0-fixture", "compiler": "g++ 12.2", "runtime": "process",
               "pinning": {"load": "", "backend": "", "gateway": ""}},
       "scenarios": [
           scenario("nginx-baseline", nginx, 120.0, 600, 14.0, nginx),
           scenario("gateway-default", 78000.0, 190.0, 790, 72.0, nginx),
           scenario("gateway-protected", 56000.0, 192.0, 1100, 75.0, nginx),
           scenario("gateway-https-keepalive", 61000.0, 195.0, 1000, 80.0, nginx),
           {"name": "gateway-https-newconn", "status": "skipped",
            "reason": "no TLS certificate in fixtures"},
           scenario("gateway-queue", 74000.0, 191.0, 830, 73.0, nginx, errors=3),
       ]}
with open(os.path.join(here, "report_macro.json"), "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
