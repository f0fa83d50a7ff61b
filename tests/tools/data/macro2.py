"""Builds gatebench.macro/2 documents (docs/scenarios.md) from per-round figures, the way the
driver computes them: medians over the ok rounds, order-statistic intervals of the median,
errors summed, statuses as given. Used by make_compare_fixtures.py and make_report_fixtures.py;
no randomness, so the files are the same on every run."""
import math

# Fixed relative offsets (about +-2%, all distinct) give untied per-round samples; a scenario
# picks them from a rotation so two scenarios (or BASE and HEAD) do not move in lockstep.
OFFSETS = [-0.020, 0.011, -0.006, 0.017, 0.002, -0.014, 0.008, -0.010, 0.014]


def offset(i, rotation):
    return OFFSETS[(i * 4 + rotation) % len(OFFSETS)]


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return None
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def interval(values):
    """[x(k), x(n+1-k)] with the largest k whose binomial(n, 1/2) coverage is >= 0.95, else
    [min, max] with its actual coverage; None for fewer than 2 values."""
    v = sorted(x for x in values if x is not None)
    n = len(v)
    if n < 2:
        return None

    def coverage(k):
        return 1 - 2 * sum(math.comb(n, j) for j in range(k)) / 2 ** n

    k = 1
    while k + 1 <= n // 2 and coverage(k + 1) >= 0.95:
        k += 1
    return {"median": median(v), "lo": v[k - 1], "hi": v[n - k], "n": n,
            "level": coverage(k)}


def round_figures(i, nginx, vs, cpu_us, p99_ratio, rotation, per_second=True):
    """Round i of a scenario from the same round of its baseline (nginx: dict of rps, cpu_us,
    p99); vs, cpu_us and p99_ratio are the scenario's central values."""
    vs_i = vs * (1 + offset(i, rotation))
    rps = nginx["rps"] * vs_i
    cpu = cpu_us * (1 + offset(i, rotation + 2))
    p99 = nginx["p99"] * p99_ratio * (1 + offset(i, rotation + 5))
    cpu_percent = cpu * rps / 1e4
    load_us, backend_us = 9.0 * (1 + offset(i, rotation + 1)), 5.0 * (1 + offset(i, rotation + 3))
    r = {"status": "ok", "reason": "", "rps": rps, "requests": round(rps * 2), "measured_s": 2.0,
         "latency_us": {"p50": p99 / 2.3, "p90": p99 / 1.7, "p99": p99, "p999": p99 * 1.6,
                        "mean": p99 / 2.1},
         "errors": 0, "error_rate": 0.0, "cpu_percent": cpu_percent,
         "cpu_by_process": {"gatebench-gateway": cpu_percent * 0.96,
                            "gatebench-control": cpu_percent * 0.04},
         "cpu_by_role": {"backend": backend_us * rps / 1e4, "gateway": cpu_percent,
                         "load": load_us * rps / 1e4},
         "peak_mb": 40.0 + i,
         "cpu_us_per_request": {"target": cpu, "load": load_us, "backend": backend_us},
         "rps_per_gateway_cpu": rps / (cpu_percent / 100),
         "vs_nginx": vs_i, "cpu_vs_nginx": cpu / nginx["cpu_us"], "p99_vs_nginx": p99 / nginx["p99"],
         "window": {"source": "load generator", "s": 2.0},
         "counts": {"request.as_expected": round(rps * 2), "request.unexpected": 0},
         "details": {}}
    r["per_second"] = ([{"t": t, "rps": rps * (1 + offset(i + t, rotation) / 2),
                         "p99_us": p99, "errors": 0, "cpu_percent": cpu_percent}
                        for t in (1, 2)] if per_second else [])
    return r


def failed_round(reason):
    return {"status": "failed", "reason": reason, "rps": None, "latency_us": None,
            "errors": None, "cpu_percent": None, "cpu_us_per_request": None, "vs_nginx": None,
            "cpu_vs_nginx": None, "p99_vs_nginx": None, "counts": {}, "details": {},
            "per_second": []}


def scenario(name, rounds, baseline="nginx-baseline", status=None, reason="", group=""):
    """A scenario of its rounds (dicts from round_figures/failed_round, in round order): the
    medians over the ok rounds and their intervals. status defaults to ok when every round is."""
    for k, r in enumerate(rounds):
        r["round"] = k + 1
        r.setdefault("position", 1)
        r.setdefault("artifacts", [f"{name}/round-{k + 1}/load-measure.json"])
    ok = [r for r in rounds if r["status"] == "ok"]
    if status is None:
        bad = next((r for r in rounds if r["status"] != "ok"), None)
        status, reason = ("ok", "") if bad is None else (
            "failed", f"round {bad['round']}: {bad['reason']}")

    def med(get):
        vals = [get(r) for r in ok]
        vals = [v for v in vals if v is not None]
        return median(vals) if vals else None

    def iv(get):
        return interval([get(r) for r in ok]) if ok else None

    def lat(key):
        return med(lambda r: r["latency_us"][key])

    counts = {}
    for r in ok:
        for key, v in r["counts"].items():
            counts[key] = counts.get(key, 0) + v
    requests = sum(r.get("requests", 0) for r in ok)
    errors = sum(r["errors"] or 0 for r in rounds)
    s = {"name": name, "group": group, "status": status, "reason": reason, "baseline": baseline,
         "rounds_planned": len(rounds), "rounds_ok": len(ok),
         "rps": med(lambda r: r["rps"]),
         "rps_per_gateway_cpu": med(lambda r: r["rps_per_gateway_cpu"]),
         "latency_us": ({k: lat(k) for k in ("p50", "p90", "p99", "p999", "mean")} if ok
                        else None),
         "cpu_percent": med(lambda r: r["cpu_percent"]),
         "cpu_by_process": ({k: med(lambda r, k=k: r["cpu_by_process"][k])
                             for k in ok[0]["cpu_by_process"]} if ok else None),
         "peak_mb": med(lambda r: r["peak_mb"]),
         "cpu_by_role": ({k: med(lambda r, k=k: r["cpu_by_role"][k])
                          for k in ok[0]["cpu_by_role"]} if ok else None),
         "vs_nginx": med(lambda r: r["vs_nginx"]),
         "cpu_vs_nginx": med(lambda r: r["cpu_vs_nginx"]),
         "p99_vs_nginx": med(lambda r: r["p99_vs_nginx"]),
         "errors": errors, "error_rate": errors / requests if requests else 0.0,
         "cpu_us_per_request": ({k: med(lambda r, k=k: r["cpu_us_per_request"][k])
                                 for k in ("target", "load", "backend")} if ok else None),
         "intervals": {
             "rps": iv(lambda r: r["rps"]),
             "vs_nginx": iv(lambda r: r["vs_nginx"]),
             "cpu_vs_nginx": iv(lambda r: r["cpu_vs_nginx"]),
             "p99_vs_nginx": iv(lambda r: r["p99_vs_nginx"]),
             "cpu_us_per_request": iv(lambda r: r["cpu_us_per_request"]["target"]),
             "p99_us": iv(lambda r: r["latency_us"]["p99"])},
         "counts": counts,
         "details": ok[-1]["details"] if ok else {},
         "rounds": rounds,
         "artifacts": [a for r in rounds for a in r["artifacts"]]}
    return s


def nginx_rounds(n, rps=100000.0, cpu_us=12.0, p99=1500.0, rotation=0):
    """The baseline's own rounds (ratios 1.0) and the figures the other scenarios pair with."""
    centre = {"rps": rps, "cpu_us": cpu_us, "p99": p99}
    rounds, paired = [], []
    for i in range(n):
        r = round_figures(i, centre, 1.0, cpu_us, 1.0, rotation)
        paired.append({"rps": r["rps"], "cpu_us": r["cpu_us_per_request"]["target"],
                       "p99": r["latency_us"]["p99"]})
        r["vs_nginx"], r["cpu_vs_nginx"], r["p99_vs_nginx"] = 1.0, 1.0, 1.0
        rounds.append(r)
    return rounds, paired


def document(scenarios, rounds, quick=False, smoke=False):
    return {"schema": "gatebench.macro/2",
            "env": {"commit": "fixture", "dirty": False, "cpu_model": "fixture", "cpus": 2,
                    "kernel": "6.1", "compiler": "g++ 12", "runtime": "process",
                    "load_generator": "gatebench-load",
                    "pinning": {"load": None, "backend": None, "gateway": None}},
            "run": {"duration_s": 2, "warmup_s": 0, "connections": 64, "quick": quick,
                    "smoke": smoke, "rounds": rounds, "seed": 1, "interrupted": False,
                    "max_error_rate": 0.001,
                    "interval": {"method": "order statistics of the median (binomial)",
                                 "level": 0.95}},
            "scenarios": scenarios}
