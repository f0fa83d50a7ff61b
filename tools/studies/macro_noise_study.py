#!/usr/bin/env python3
"""The macro gate's noise study: false alarms and detection of `gatebench compare` on macro runs.

One long gatebench-macro run interleaves, round after round (each round in its own seeded order),
nginx-baseline, gateway-default, and gateway-default with a known amount of extra CPU work per
request (the gateway's calibration knob, GATEBENCH_GATEWAY_CALIBRATE_MIXES; docs/gateway.md) for
a small and a large slowdown, and the scenarios of --null-only (gateway-protected), which get A/A
comparisons only. Its rounds are then cut into consecutive groups of --group rounds;
each group is written as a macro.json of its own (the baseline's rounds of the same group
included) and compared with the real `gatebench compare --json`:

  null comparisons:  group i vs group j (i < j) of the same variant, for every variant
                     (gateway-default, its two slowed copies; --null-only's in a table of their own);
  injected:          gateway-default group i vs slowed group j (i != j), for each slowdown.

A group never meets its own rounds on the other side, as a base run and a head run never share
theirs. Every verdict is tallied per measure (CPU us per request, vs_nginx throughput,
p99_vs_nginx; CPU is cpu_vs_load, relative to the load generator's CPU per request) and printed as
a Markdown table, beside the slowdown the knob really caused
(median CPU per request of the slowed variant over gateway-default's, same rounds).

Example (what docs/gating.md reports):
  tools/studies/macro_noise_study.py --rounds 60 --group 5 --out out/macro-noise
"""
import copy
import itertools
import json
import os
import shutil
import statistics
import sys

from studylib import ROOT, binary_of, compare_rows, parser, run_gatebench, scenario_file

MEASURES = ("cpu_vs_load", "cpu_us_per_request", "vs_nginx", "p99_vs_nginx")


def parse_args():
    p = parser(__doc__)
    p.add_argument("--rounds", type=int, default=60, help="rounds of the one macro run (default 60)")
    p.add_argument("--group", type=int, default=5,
                   help="rounds per synthetic run, i.e. the gate's --rounds (default 5)")
    p.add_argument("--small", type=int, default=540,
                   help="calibration mixes of the small slowdown (default 540, aimed at ~5%% of "
                        "gateway-default's CPU per request on a quiet machine; the table says what it caused)")
    p.add_argument("--large", type=int, default=1300,
                   help="calibration mixes of the large slowdown (default 1300, aimed at ~10%%)")
    p.add_argument("--null-only", default="gateway-protected",
                   help="comma-separated scenarios that get null (A/A) comparisons only "
                        "(default gateway-protected; '' for none)")
    p.add_argument("--duration", default="2s", help="measured run per scenario (default 2s, --quick's)")
    p.add_argument("--warmup", default="1s", help="warm-up per scenario (default 1s, --quick's)")
    p.add_argument("--connections", default="16", help="load connections (default 16, --quick's)")
    p.add_argument("--seed", default="1")
    p.add_argument("--out", default="out/macro-noise", help="results directory")
    p.add_argument("--build", default=os.path.join(ROOT, "build", "release"),
                   help="build tree with gatebench-macro and the gatebench command")
    p.add_argument("--reuse", action="store_true",
                   help="skip the macro run and analyse OUT/run/macro.json again")
    p.add_argument("--compare-args", default="",
                   help="extra options for gatebench compare, e.g. '--cpu-threshold 3%%'")
    return p.parse_args()


def variant_scenarios(build, out, small, large):
    """A scenario directory: the shipped scenarios plus the two slowed copies of gateway-default."""
    src = os.path.join(ROOT, "macro", "scenarios")
    dst = os.path.join(out, "scenarios")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    base = scenario_file(build, "gateway-default", dst)
    names = {}
    for label, mixes in (("small", small), ("large", large)):
        s = copy.deepcopy(base)
        s["name"] = f"gateway-default-slow-{label}"
        s["description"] = f"gateway-default with {mixes} calibration mixes per request"
        for service in s["services"]:
            if binary_of(service, src) == "gatebench-gateway":
                # On a {"use": block} entry the env variables are added to the block's.
                service.setdefault("env", {})["GATEBENCH_GATEWAY_CALIBRATE_MIXES"] = str(mixes)
        with open(os.path.join(dst, s["name"] + ".json"), "w") as f:
            json.dump(s, f, indent=2)
        names[label] = s["name"]
    return dst, names


def recorded_mixes(out):
    """The mixes a run of --out used, from its slowed scenario files (so --reuse reports them)."""
    mixes = {}
    for label in ("small", "large"):
        path = os.path.join(out, "scenarios", f"gateway-default-slow-{label}.json")
        try:
            with open(path) as f:
                s = json.load(f)
        except FileNotFoundError:
            sys.exit(f"{path}: missing; --reuse needs a directory a study ran into")
        for service in s["services"]:
            value = service.get("env", {}).get("GATEBENCH_GATEWAY_CALIBRATE_MIXES")
            if value is not None:
                mixes[label] = int(value)
        if label not in mixes:
            sys.exit(f"{path}: no GATEBENCH_GATEWAY_CALIBRATE_MIXES in its services")
    return mixes


def null_only(args):
    return [n for n in args.null_only.split(",") if n]


def run_macro(args, scenario_dir, names):
    exe = os.path.join(args.build, "macro", "driver", "gatebench-macro")
    run_dir = os.path.join(args.out, "run")
    cmd = [exe, "--scenario-dir", scenario_dir, "--scenarios",
           ",".join(["nginx-baseline", "gateway-default", names["small"], names["large"]] +
                    null_only(args)),
           "--rounds", str(args.rounds), "--seed", args.seed, "--duration", args.duration,
           "--warmup", args.warmup, "--connections", args.connections, "--out", run_dir]
    run_gatebench(cmd)
    return os.path.join(run_dir, "macro.json")


def group_file(doc, scenario, rename, rounds, path):
    """A macro.json holding `scenario` (named `rename`) and nginx-baseline, rounds `rounds` only."""
    out = {"schema": doc["schema"], "env": doc["env"], "run": dict(doc["run"], rounds=len(rounds)),
           "scenarios": []}
    for s in doc["scenarios"]:
        if s["name"] not in (scenario, "nginx-baseline"):
            continue
        g = copy.deepcopy(s)
        g["rounds"] = [r for r in s["rounds"] if r["round"] in rounds]
        ok = [r for r in g["rounds"] if r["status"] == "ok"]
        g["rounds_planned"] = len(rounds)
        g["rounds_ok"] = len(ok)
        g["status"] = "ok" if len(ok) == len(rounds) else "failed"
        g["reason"] = "" if g["status"] == "ok" else "a round of the group failed"
        if s["name"] == scenario:
            g["name"] = rename
        out["scenarios"].append(g)
    with open(path, "w") as f:
        json.dump(out, f)


def compare(gatebench, base, head, extra, name):
    verdicts = {}
    for row in compare_rows(gatebench, base, head, extra):
        if row["section"] == "macro" and row["name"] == name:
            verdicts[row["measure"]] = row["verdict"]
    return verdicts


def median_shift(doc, slowed, rounds):
    """Median over the rounds of slowed CPU per request / gateway-default's, same round."""
    by = {s["name"]: {r["round"]: r for r in s["rounds"] if r["status"] == "ok"}
          for s in doc["scenarios"]}
    ratios = []
    for r in rounds:
        a, b = by["gateway-default"].get(r), by[slowed].get(r)
        if a and b:
            ratios.append(b["cpu_us_per_request"]["target"] / a["cpu_us_per_request"]["target"])
    return statistics.median(ratios) - 1 if ratios else float("nan")


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.reuse:
        # The run's scenario files stay as they were: they record what it measured.
        mixes = recorded_mixes(args.out)
        args.small, args.large = mixes["small"], mixes["large"]
        names = {label: f"gateway-default-slow-{label}" for label in ("small", "large")}
        macro_json = os.path.join(args.out, "run", "macro.json")
    else:
        scenario_dir, names = variant_scenarios(args.build, args.out, args.small, args.large)
        macro_json = run_macro(args, scenario_dir, names)
    with open(macro_json) as f:
        doc = json.load(f)
    total = doc["run"]["rounds"]
    groups = [list(range(i + 1, i + args.group + 1))
              for i in range(0, total - args.group + 1, args.group)]
    gdir = os.path.join(args.out, "groups")
    os.makedirs(gdir, exist_ok=True)
    variants = {"default": "gateway-default", "small": names["small"], "large": names["large"]}
    # The compared name: a slowed copy stands in for gateway-default, as a head build would.
    compared = {v: "gateway-default" for v in variants}
    for extra_name in null_only(args):
        variants[extra_name] = extra_name
        compared[extra_name] = extra_name
    files = {}
    for v, scenario in variants.items():
        for gi, rounds in enumerate(groups):
            path = os.path.join(gdir, f"{v}-{gi}.json")
            group_file(doc, scenario, compared[v], set(rounds), path)
            files[(v, gi)] = path
    gatebench = os.path.join(args.build, "tools", "src", "gatebench")
    extra = args.compare_args.split()

    def tally(pairs):
        counts = {m: {} for m in MEASURES}
        for a, b in pairs:
            for m, verdict in compare(gatebench, files[a], files[b], extra,
                                      compared[a[0]]).items():
                if m in counts:
                    counts[m][verdict] = counts[m].get(verdict, 0) + 1
        return counts

    n = len(groups)
    def null_pairs(vs):
        return [((v, i), (v, j)) for v in vs for i, j in itertools.combinations(range(n), 2)]

    injected_variants = ("default", "small", "large")
    null = tally(null_pairs(injected_variants))
    null_extra = {v: tally(null_pairs([v])) for v in null_only(args)}
    injected = {}
    for label in ("small", "large"):
        pairs = [(("default", i), (label, j)) for i in range(n) for j in range(n) if i != j]
        injected[label] = (len(pairs), tally(pairs))
    all_rounds = list(range(1, total + 1))
    shifts = {label: median_shift(doc, names[label], all_rounds) for label in ("small", "large")}
    failed = sum(1 for s in doc["scenarios"] for r in s["rounds"] if r["status"] != "ok")

    print(f"\n{total} rounds, {n} groups of {args.group}; {failed} failed round(s); "
          f"load average at the end {os.getloadavg()[0]:.1f}")
    print(f"knob: small {args.small} mixes = +{shifts['small'] * 100:.1f}% CPU per request, "
          f"large {args.large} mixes = +{shifts['large'] * 100:.1f}% (median over paired rounds)\n")
    print("| measure | null comparisons | false regressions | false improvements "
          f"| small (+{shifts['small'] * 100:.1f}%) detected | large (+{shifts['large'] * 100:.1f}%) "
          "detected |")
    print("|---|---:|---:|---:|---:|---:|")
    for m in MEASURES:
        c = null[m]
        nn = sum(c.values())
        if nn == 0:
            continue  # compare gates CPU as one of the two measures
        row = [m, str(nn), str(c.get("regression", 0)), str(c.get("improvement", 0))]
        for label in ("small", "large"):
            t = injected[label][1]
            row.append(f"{t[m].get('regression', 0)} / {sum(t[m].values())}")
        print("| " + " | ".join(row) + " |")
    print("\nother verdicts (null):", {m: null[m] for m in MEASURES})
    for v, c in null_extra.items():
        print(f"\n{v}, null comparisons only:\n")
        print("| measure | null comparisons | false regressions | false improvements |")
        print("|---|---:|---:|---:|")
        for m in MEASURES:
            nn = sum(c[m].values())
            if nn:
                print(f"| {m} | {nn} | {c[m].get('regression', 0)} | {c[m].get('improvement', 0)} |")
    summary = {"rounds": total, "group": args.group, "groups": n, "shifts": shifts,
               "null": null, "null_only": null_extra, "injected": {k: v[1] for k, v in injected.items()},
               "small_mixes": args.small, "large_mixes": args.large}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
