#!/usr/bin/env python3
"""Writes report_macro.json, the synthetic gatebench.macro/2 file of the report tests (built by
macro2.py the way the driver computes medians and intervals): 5 rounds of the baseline and four
gateway scenarios (one failed in round 3 on its error rate), a skipped scenario, waf-mix counts,
an open-loop scenario whose round 4 was invalid, and a max-throughput search. The driver's real
output is macro_real_driver.json. report_micro.json is a real `gatebench micro --filter
'^token/'` run, kept as is. Run: python3 tests/tools/data/make_report_fixtures.py"""
import json
import os

import macro2

here = os.path.dirname(os.path.abspath(__file__))
N = 5
nginx, paired = macro2.nginx_rounds(N, rps=100000.0, cpu_us=12.0, p99=1400.0)


def rounds(vs, cpu, p99r, rotation, count=N):
    return [macro2.round_figures(i, paired[i], vs, cpu, p99r, rotation) for i in range(count)]


keepalive = rounds(0.61, 31.0, 1.4, 3)
keepalive[2] = macro2.failed_round("error rate 0.40% above max_error_rate 0.10%")
keepalive[2]["errors"] = 480

waf = rounds(0.55, 34.0, 1.6, 5)
mix = {"get": 0.70, "post": 0.25, "sqli": 0.02, "xss": 0.02, "traversal": 0.01}
for k, r in enumerate(waf):
    total = r["requests"]
    r["counts"] = {}
    for name, share in mix.items():
        r["counts"][name + ".as_expected"] = round(total * share)
        r["counts"][name + ".unexpected"] = 0
    r["counts"]["traversal.unexpected"] = 1 if k == 1 else 0  # one attack missed in round 2
    r["counts"]["post.unexpected"] = 2 if k == 3 else 0       # two benign POSTs blocked

at_rate = rounds(0.10, 40.0, 0.9, 6)
for k, r in enumerate(at_rate):
    r["rps"] = 10000.0 * (1 - 0.001 * k)
    r["details"] = {"offered_rate": 10000.0}
    r["counts"] = {"request.as_expected": round(r["rps"] * 2), "request.unexpected": 0,
                   "missed": 3 * k, "offered_rate": 10000.0}
at_rate[3] = macro2.failed_round("load invalid: achieved 9,630 of 10,000 req/s")
at_rate[3]["details"] = {"offered_rate": 10000.0,
                         "load_invalid": "achieved rate 9630/s is below 99% of 10000/s"}
at_rate[3]["counts"] = {"missed": 370, "offered_rate": 10000.0}

search = rounds(0.62, 30.0, 1.1, 7)
for r in search:
    cap = r["rps"] / 0.62 * 0.8
    r["details"] = {"slo_p99_us": 2000, "steps": [
        {"offered": None, "achieved": cap, "p99_us": 5200.0},
        {"offered": cap, "achieved": cap * 0.97, "p99_us": 4100.0, "errors": 0, "pass": False},
        {"offered": cap / 2, "achieved": cap / 2, "p99_us": 900.0, "errors": 0, "pass": True},
        {"offered": cap * 0.75, "achieved": cap * 0.749, "p99_us": 1700.0, "errors": 0,
         "pass": True}]}

doc = macro2.document([
    macro2.scenario("nginx-baseline", nginx),
    macro2.scenario("gateway-default", rounds(0.78, 24.0, 1.3, 1)),
    macro2.scenario("gateway-protected", rounds(0.56, 33.0, 1.8, 2)),
    # queue's CPU per request overlaps default's: the attribution is not resolved
    macro2.scenario("gateway-queue", rounds(0.74, 24.2, 1.35, 4)),
    macro2.scenario("gateway-challenge-pass", rounds(0.70, 27.5, 1.4, 8)),
    macro2.scenario("gateway-https-keepalive", keepalive),
    {"name": "gateway-https-newconn", "group": "", "status": "skipped",
     "reason": "prepare: openssl not found", "baseline": "nginx-baseline",
     "rounds_planned": N, "rounds_ok": 0, "rps": None, "intervals": {}, "counts": {},
     "details": {}, "rounds": [], "artifacts": []},
    macro2.scenario("waf-mix", waf),
    macro2.scenario("latency-at-rate/gateway-default", at_rate, group="latency-at-rate",
                    baseline="nginx-baseline"),
    macro2.scenario("max-throughput/gateway-default", search, group="max-throughput",
                    baseline="nginx-baseline"),
], N)
with open(os.path.join(here, "report_macro.json"), "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
