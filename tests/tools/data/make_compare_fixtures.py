#!/usr/bin/env python3
"""Writes the synthetic inputs of tests/tools/compare_test.cpp (fixed values, no randomness at run
time): gbench_base.json / gbench_head.json in Google Benchmark 1.7.1's JSON layout, instruction
counts and macro.json files. Run: python3 tests/tools/data/make_compare_fixtures.py"""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
# Nine fixed relative offsets (spread about +-2%) give distinct, untied repetitions.
offsets = [-0.020, -0.013, -0.008, -0.003, 0.0, 0.004, 0.009, 0.014, 0.019]


def reps(centre, n=9, shift=0):
    return [centre * (1 + offsets[(i + shift) % len(offsets)]) for i in range(n)]


def gbench(benchmarks):
    rows = []
    for name, values, extra in benchmarks:
        for i, v in enumerate(values):
            row = {"name": name, "family_index": 0, "per_family_instance_index": 0,
                   "run_name": name, "run_type": "iteration", "repetitions": len(values),
                   "repetition_index": i, "threads": 1, "iterations": 1000,
                   "real_time": v * 1.01, "cpu_time": v, "time_unit": "ns"}
            row.update(extra)
            rows.append(row)
        if values:
            rows.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
                         "aggregate_name": "median", "aggregate_unit": "time",
                         "real_time": 0, "cpu_time": 0, "time_unit": "ns"})
    return {"context": {"date": "2026-11-29T19:00:00+00:00", "host_name": "fixture",
                        "num_cpus": 2, "mhz_per_cpu": 2000, "library_build_type": "release"},
            "benchmarks": rows}


skip = {"error_occurred": True, "error_message": "skipped: libfoo missing"}
base = gbench([
    ("cmp/gatecore/regressed", reps(100), {}),
    ("cmp/gatecore/improved", reps(100), {}),
    ("cmp/gatecore/unchanged", reps(100), {}),
    ("cmp/gatecore/small_shift", reps(100), {}),
    ("cmp/gatecore/few_reps", reps(100, n=3), {}),
    ("cmp/peer/skipped", [1.0], skip),
    ("cmp/gatecore/removed", reps(50), {}),
])
head = gbench([
    ("cmp/gatecore/regressed", reps(110), {}),
    ("cmp/gatecore/improved", reps(80), {}),
    ("cmp/gatecore/unchanged", reps(100, shift=4), {}),
    ("cmp/gatecore/small_shift", reps(103), {}),
    ("cmp/gatecore/few_reps", reps(120, n=3), {}),
    ("cmp/peer/skipped", [1.0], skip),
    ("cmp/gatecore/added", reps(50), {}),
])
# skipped rows carry no times in Google Benchmark's JSON
for doc in (base, head):
    for row in doc["benchmarks"]:
        if row.get("error_occurred"):
            row.pop("real_time"), row.pop("cpu_time")

instr_base = {"schema": "gatebench.instructions/1", "env": {},
              "benchmarks": [{"name": "cmp/gatecore/a", "instructions_per_iteration": 1000.0},
                             {"name": "cmp/gatecore/b", "instructions_per_iteration": 1000.0},
                             {"name": "cmp/gatecore/c", "instructions_per_iteration": 1000.0}]}
instr_head = {"schema": "gatebench.instructions/1", "env": {},
              "benchmarks": [{"name": "cmp/gatecore/a", "instructions_per_iteration": 1010.0},
                             {"name": "cmp/gatecore/b", "instructions_per_iteration": 1009.0},
                             {"name": "cmp/gatecore/c", "instructions_per_iteration": 900.0}]}


def scenario(name, rps, vs, p99, status="ok", reason=""):
    if status != "ok":
        return {"name": name, "status": status, "reason": reason}
    return {"name": name, "status": "ok", "rps": rps, "rps_per_gateway_cpu": rps / 2,
            "latency_us": {"p50": p99 / 2.3, "p90": p99 / 1.8, "p99": p99, "p999": p99 * 1.6},
            "cpu_percent": 190.0, "cpu_by_process": {"gatebench-gateway": 185.0},
            "peak_mb": 40.0, "vs_nginx": vs, "errors": 0, "artifacts": []}


env = {"commit": "fixture", "cpu_model": "fixture", "cpus": 2, "kernel": "6.1",
       "compiler": "g++ 12", "runtime": "process", "pinning": {}}
macro_base = {"schema": "gatebench.macro/1", "env": env, "scenarios": [
    scenario("nginx-baseline", 100000, 1.0, 1500),
    scenario("gateway-default", 80000, 0.80, 1800),
    scenario("gateway-protected", 70000, 0.70, 2000),
    scenario("gateway-queue", 75000, 0.75, 1900),
    scenario("gateway-https-newconn", 9000, 0.09, 9000)]}
macro_head = {"schema": "gatebench.macro/1", "env": env, "scenarios": [
    scenario("nginx-baseline", 90000, 1.0, 1700),           # slower machine: not a regression
    scenario("gateway-default", 72000, 0.80, 2050),         # same ratios (p99/nginx -4.8%)
    scenario("gateway-protected", 58500, 0.65, 2250),       # ratio -7.1%: regression
    scenario("gateway-queue", 67500, 0.75, 2500),           # p99/nginx +16%: regression
    scenario("gateway-https-newconn", 0, 0, 0, "skipped", "no TLS certificate")]}

for name, doc in [("gbench_base.json", base), ("gbench_head.json", head),
                  ("instructions_base.json", instr_base), ("instructions_head.json", instr_head),
                  ("macro_base.json", macro_base), ("macro_head.json", macro_head)]:
    with open(os.path.join(here, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
