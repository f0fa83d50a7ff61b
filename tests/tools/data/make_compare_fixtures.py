#!/usr/bin/env python3
"""Writes the synthetic inputs of tests/tools/compare/compare_test.cpp (fixed values, no randomness at run
time): gbench_base.json / gbench_head.json in Google Benchmark 1.7.1's JSON layout, instruction
counts and macro.json files (gatebench.macro/1, and /2 with known shifts over 3, 5 and 9
rounds, built by macro2.py). Run: python3 tests/tools/data/make_compare_fixtures.py"""
import json
import os

import macro2

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



def macro2_pair(n):
    """BASE and HEAD over n rounds; HEAD's nginx is 10% slower (the machine, not a regression).
    Known shifts in HEAD: gateway-default none (A/A, other offsets), gateway-protected CPU per
    request +10%, gateway-queue vs_nginx -10%, gateway-challenge-pass p99 +30%,
    gateway-https-keepalive failed in round 2 (invalid open-loop load)."""
    docs = []
    for side, nginx_rps, rotation in (("base", 100000.0, 0), ("head", 90000.0, 3)):
        head = side == "head"
        nginx, paired = macro2.nginx_rounds(n, rps=nginx_rps, rotation=rotation)

        def rounds(vs, cpu, p99r, rot):
            return [macro2.round_figures(i, paired[i], vs, cpu, p99r, rot + rotation)
                    for i in range(n)]

        keepalive = rounds(0.61, 30.0, 1.2, 5)
        if head:
            keepalive[1] = macro2.failed_round(
                "load invalid: achieved 9,420 of 10,000 req/s (below 99% of the offered rate)")
        docs.append(macro2.document([
            macro2.scenario("nginx-baseline", nginx),
            macro2.scenario("gateway-default", rounds(0.80, 24.0, 1.2, 1 + 2 * head)),
            macro2.scenario("gateway-protected", rounds(0.70, 26.4 if head else 24.0, 1.3, 2)),
            macro2.scenario("gateway-queue", rounds(0.72 if head else 0.80, 25.0, 1.25, 4)),
            macro2.scenario("gateway-challenge-pass",
                            rounds(0.75, 25.5, 1.25 * 1.3 if head else 1.25, 6)),
            macro2.scenario("gateway-https-keepalive", keepalive),
        ], n))
    return docs


def macro2_baseline_failed(n):
    """HEAD whose nginx-baseline failed in round 3: the driver marks every scenario paired with
    it failed, with the baseline as the reason."""
    nginx, paired = macro2.nginx_rounds(n, rotation=3)
    nginx[2] = macro2.failed_round("service nginx exited with code 1 during the measured run")
    gw = [macro2.round_figures(i, paired[i], 0.80, 24.0, 1.2, 1) for i in range(n)]
    gw[2]["vs_nginx"] = gw[2]["cpu_vs_nginx"] = gw[2]["p99_vs_nginx"] = None
    return macro2.document([
        macro2.scenario("nginx-baseline", nginx),
        macro2.scenario("gateway-default", gw, status="failed",
                        reason="baseline nginx-baseline failed: round 3: service nginx exited "
                               "with code 1 during the measured run"),
    ], n)


macro2_files = []
for n in (3, 5, 9):
    b, h = macro2_pair(n)
    macro2_files += [(f"macro2_base_{n}.json", b), (f"macro2_head_{n}.json", h)]
macro2_files.append(("macro2_head_baseline_failed.json", macro2_baseline_failed(5)))

for name, doc in [("gbench_base.json", base), ("gbench_head.json", head),
                  ("instructions_base.json", instr_base), ("instructions_head.json", instr_head),
                  ("macro_base.json", macro_base), ("macro_head.json", macro_head)] + macro2_files:
    with open(os.path.join(here, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
