#!/usr/bin/env python3
"""The exact gate's study: false alarms and detection of `gatebench compare` on instructions.json.

The exact gate (docs/compare.md, "Exact mode") flags a scenario when its instructions or system
calls per request, counted by `gatebench-macro --instructions N`, moved by at least
--exact-threshold (1%). Counts have no rounds to test, so what the gate can promise is measured
here, with the same build counted again and again and with known changes injected into the
reference gateway:

  knob-P      the calibration knob (GATEBENCH_GATEWAY_CALIBRATE_MIXES) set to P% of the
              scenario's instructions per request (P = 0.5, 1, 2; the mixes per percent are
              measured first, from one run with 1,000 mixes);
  alloc       one more heap allocation per request   (GATEBENCH_GATEWAY_STUDY_INJECT=alloc)
  write       one more write system call per request (GATEBENCH_GATEWAY_STUDY_INJECT=write)
  copy        one more copy of the request head      (GATEBENCH_GATEWAY_STUDY_INJECT=copy)

Each replicate is one gatebench-macro --instructions run of the base scenarios
(nginx-baseline, gateway-default, gateway-https-keepalive by default) plus a share of the injected
variants, so every variant is counted --variant-runs times, spread over the replicates:

  null (A/A):  base scenario of replicate i vs the same of replicate j, every pair i < j;
  injected:    base scenario of replicate i vs the variant counted in replicate j, i != j
               (the variant renamed to the base's name, as a head commit would be).

Every verdict comes from the real `gatebench compare --json` and is tallied per scenario and
measure (instructions_per_request, syscalls_per_request) into a Markdown table, with the
spread of the A/A counts (max - min over the median) and the median change each injection caused.

Example (what docs/gating.md reports):
  nice tools/studies/exact_gate_study.py --runs 10 --variant-runs 2 --out out/exact-gate
  tools/studies/exact_gate_study.py --reuse --out out/exact-gate --compare-args=--exact-threshold=2%
"""
import copy
import itertools
import json
import os
import re
import shutil
import statistics
import sys

from studylib import ROOT, binary_of, compare_rows, parser, run_gatebench, scenario_file

KNOB_ENV = "GATEBENCH_GATEWAY_CALIBRATE_MIXES"
INJECT_ENV = "GATEBENCH_GATEWAY_STUDY_INJECT"
MEASURES = ("instructions_per_request", "syscalls_per_request")
CALIBRATION_MIXES = 1000


def parse_args():
    p = parser(__doc__)
    p.add_argument("--runs", type=int, default=10, help="replicates (default 10: 45 A/A pairs)")
    p.add_argument("--variant-runs", type=int, default=2,
                   help="counts of each injected variant (default 2)")
    p.add_argument("--requests", type=int, default=200, help="N of --instructions N (default 200)")
    p.add_argument("--base", default="nginx-baseline,gateway-default,gateway-https-keepalive",
                   help="scenarios counted in every replicate")
    p.add_argument("--inject-into", default="gateway-default,gateway-https-keepalive",
                   help="reference-gateway scenarios that get the injected variants")
    p.add_argument("--knob", default="0.5,1,2", help="knob settings, %% of instructions per request")
    p.add_argument("--real", default="alloc,write,copy", help="real injected changes")
    p.add_argument("--port-offset", default="-10500")
    p.add_argument("--out", default="out/exact-gate", help="results directory")
    p.add_argument("--build", default=os.path.join(ROOT, "build", "callgrind"),
                   help="build tree (valgrind-runnable: the callgrind or ci-release preset)")
    p.add_argument("--reuse", action="store_true", help="analyse OUT's replicates again, run nothing")
    p.add_argument("--recount", action="store_true",
                   help="count the system calls again from the runs' valgrind logs, calls that "
                        "failed with EAGAIN apart (as gatebench-macro does since it learned to), "
                        "into instructions-recount.json beside each instructions.json, and "
                        "analyse those")
    p.add_argument("--compare-args", default="",
                   help="extra options for gatebench compare, e.g. --exact-threshold=2%%")
    return p.parse_args()


def csv(text):
    return [x for x in text.split(",") if x]


def knob_tag(pct):
    return "knob-" + pct.replace(".", "p")


def write_variant(args, dst, base_name, tag, env):
    """A copy of scenario `base_name` named <base>--<tag>, its gateway started with `env`."""
    s = scenario_file(args.build, base_name, dst)
    s["name"] = f"{base_name}--{tag}"
    s["description"] = f"{base_name} with {env} (exact gate study)"
    s.pop("order", None)
    for service in s["services"]:
        if binary_of(service, dst) == "gatebench-gateway":
            service.setdefault("env", {}).update(env)
    with open(os.path.join(dst, s["name"] + ".json"), "w") as f:
        json.dump(s, f, indent=2)
    return s["name"]


def macro(args, scenario_dir, names, out):
    exe = os.path.join(args.build, "macro", "driver", "gatebench-macro")
    cmd = [exe, "--instructions", str(args.requests), "--scenario-dir", scenario_dir,
           "--scenarios", ",".join(names), "--bin-dir", os.path.join(args.build, "macro"),
           "--port-offset", args.port_offset, "--out", out]
    run_gatebench(cmd, quiet=True)
    with open(os.path.join(out, "instructions.json")) as f:
        return json.load(f)


def scenario(doc, name):
    for s in doc["scenarios"]:
        if s["name"] == name:
            return s
    return None


def calibrate(args, scenario_dir):
    """Instructions per calibration mix, and each injected scenario's base count."""
    path = os.path.join(args.out, "calibration.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    slow = write_variant(args, scenario_dir, "gateway-default", f"mix-{CALIBRATION_MIXES}",
                         {KNOB_ENV: str(CALIBRATION_MIXES)})
    doc = macro(args, scenario_dir, csv(args.inject_into) + [slow],
                os.path.join(args.out, "calibration"))
    base = {n: scenario(doc, n)["instructions_per_request"] for n in csv(args.inject_into)}
    with_mixes = scenario(doc, slow)["instructions_per_request"]
    if None in base.values() or with_mixes is None:
        sys.exit("calibration run failed: see " + os.path.join(args.out, "calibration"))
    cal = {"per_mix": (with_mixes - base["gateway-default"]) / CALIBRATION_MIXES, "base": base}
    with open(path, "w") as f:
        json.dump(cal, f, indent=1)
    return cal


def variants(args, scenario_dir, cal):
    """{variant scenario name: (base scenario, tag)}, the scenario files written."""
    out = {}
    for base in csv(args.inject_into):
        for pct in csv(args.knob):
            mixes = round(float(pct) / 100 * cal["base"][base] / cal["per_mix"])
            name = write_variant(args, scenario_dir, base, knob_tag(pct), {KNOB_ENV: str(mixes)})
            out[name] = (base, knob_tag(pct))
        for real in csv(args.real):
            out[write_variant(args, scenario_dir, base, real, {INJECT_ENV: real})] = (base, real)
    return out


def run_replicates(args, scenario_dir, variant_names):
    # Variant v's k-th count goes to replicate (v * variant_runs + k) mod runs: spread evenly.
    share = {i: [] for i in range(args.runs)}
    for v, name in enumerate(sorted(variant_names)):
        for k in range(args.variant_runs):
            share[(v * args.variant_runs + k) % args.runs].append(name)
    for i in range(args.runs):
        out = os.path.join(args.out, "runs", f"r{i:02d}")
        if os.path.exists(os.path.join(out, "instructions.json")):
            continue  # a study resumed after an interruption keeps what it counted
        macro(args, scenario_dir, csv(args.base) + share[i], out)


WAITS = {"epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll", "select", "pselect6",
         "nanosleep", "futex", "wait4", "waitid", "pause", "sched_yield", "clock_nanosleep",
         "rt_sigsuspend", "rt_sigtimedwait", "io_getevents"}
VDSO = {"clock_gettime", "gettimeofday", "time", "getcpu", "clock_getres"}
CALL = re.compile(r"^SYSCALL\[([^\]]*\]\(\d+)\) (sys_(\w+)|\.\.\. \[async\] -->)")


def recount_log(path):
    """(calls, calls that failed with EAGAIN) of one valgrind log: count_syscalls' rule."""
    calls, eagain, pending, last = {}, 0, {}, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(" --> "):
                if last and "Failure(0xb)" in line and last not in VDSO and last not in WAITS:
                    eagain += 1
                continue
            m = CALL.match(line)
            if not m:
                continue
            key, name = m.group(1), m.group(3)
            if name is None:  # an async completion
                name = pending.pop(key, None)
                if name and "Failure(0xb)" in line and name not in VDSO and name not in WAITS:
                    eagain += 1
                continue
            last = name
            calls[name] = calls.get(name, 0) + 1
            if line.rstrip().endswith("[async] ..."):
                pending[key] = name
            elif "Failure(0xb)" in line and name not in VDSO and name not in WAITS:
                eagain += 1
    return calls, eagain


def recount(args, path, doc):
    """doc with each run's system calls counted again from its logs, EAGAIN failures as waits."""
    base = os.path.dirname(path)
    doc = copy.deepcopy(doc)
    for s in doc["scenarios"]:
        if s.get("status") != "ok" or len(s.get("runs", [])) != 2:
            continue
        for run in s["runs"]:
            logs = os.path.join(base, f"requests-{run['requests']}", s["name"], "valgrind")
            calls, eagain = {}, 0
            for name in sorted(os.listdir(logs)):
                if name.startswith("valgrind.") and name.endswith(".log"):
                    c, e = recount_log(os.path.join(logs, name))
                    for k, v in c.items():
                        calls[k] = calls.get(k, 0) + v
                    eagain += e
            counted = {k: v for k, v in calls.items() if k not in VDSO}
            waits = sum(v for k, v in counted.items() if k in WAITS) + eagain
            run["syscalls"] = sum(counted.values()) - waits
            run["wait_syscalls"] = waits
        a, b = s["runs"]
        n = b["requests"] - a["requests"]
        s["syscalls_per_request"] = (b["syscalls"] - a["syscalls"]) / n
        s["wait_syscalls_per_request"] = (b["wait_syscalls"] - a["wait_syscalls"]) / n
    out = os.path.join(base, "instructions-recount.json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out, doc


def load_replicates(args):
    docs = []
    for i in range(args.runs):
        path = os.path.join(args.out, "runs", f"r{i:02d}", "instructions.json")
        with open(path) as f:
            doc = json.load(f)
        docs.append(recount(args, path, doc) if args.recount else (path, doc))
    return docs


def renamed(args, doc, i, variant, base):
    """Replicate i's count of `variant` as a file whose scenario is named `base`."""
    d = os.path.join(args.out, "renamed")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"r{i:02d}-{variant}.json")
    s = copy.deepcopy(scenario(doc, variant))
    s["name"] = base
    with open(path, "w") as f:
        json.dump(dict(doc, scenarios=[s]), f)
    return path


def compare(args, gatebench, base, head, names):
    out = {}
    for row in compare_rows(gatebench, base, head, [a for a in args.compare_args.split() if a]):
        if row["section"] == "exact" and row["name"] in names:
            out[(row["name"], row["measure"])] = (row["verdict"], row.get("change"))
    return out


def fmt_spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    med = statistics.median(values)
    return f"{med:,.2f} ({(max(values) - min(values)) / med * 100:.2f}%)" if med else "0"


def main():
    args = parse_args()
    gatebench = os.path.join(args.build, "tools", "src", "gatebench")
    scenario_dir = os.path.join(args.out, "scenarios")
    if not args.reuse:
        os.makedirs(args.out, exist_ok=True)
        if not os.path.isdir(scenario_dir):
            shutil.copytree(os.path.join(ROOT, "macro", "scenarios"), scenario_dir)
        cal = calibrate(args, scenario_dir)
        names = variants(args, scenario_dir, cal)
        run_replicates(args, scenario_dir, names)
    else:
        with open(os.path.join(args.out, "calibration.json")) as f:
            cal = json.load(f)
        names = variants(args, scenario_dir, cal)
    docs = load_replicates(args)
    bases = csv(args.base)

    # Null comparisons: every pair of replicates, all base scenarios at once.
    null = {(b, m): [0, 0, 0] for b in bases for m in MEASURES}  # [pairs, regressions, improvements]
    for (i, (pa, _)), (j, (pb, _)) in itertools.combinations(enumerate(docs), 2):
        for key, (verdict, _) in compare(args, gatebench, pa, pb, bases).items():
            if key not in null:
                continue
            null[key][0] += 1
            null[key][1] += verdict == "regression"
            null[key][2] += verdict == "improvement"

    # Injected: base of replicate i against the variant counted in replicate j != i.
    injected = {}
    for variant, (base, tag) in sorted(names.items()):
        caught = {m: 0 for m in MEASURES}
        total, changes = 0, {m: [] for m in MEASURES}
        for j, (_, dj) in enumerate(docs):
            sv = scenario(dj, variant)
            if sv is None or sv.get("status") != "ok":
                continue
            head = renamed(args, dj, j, variant, base)
            for i, (pi, _) in enumerate(docs):
                if i == j:
                    continue
                rows = compare(args, gatebench, pi, head, [base])
                total += 1
                for m in MEASURES:
                    verdict, change = rows.get((base, m), (None, None))
                    caught[m] += verdict == "regression"
                    if change is not None:
                        changes[m].append(change)
        injected[(base, tag)] = (total, caught, changes)

    print(f"\nN = {args.requests}; {len(docs)} replicates; "
          f"{'system calls recounted, EAGAIN apart; ' if args.recount else ''}compare args: "
          f"{args.compare_args or '(defaults)'}; {cal['per_mix']:.3f} instructions per mix\n")
    print("| scenario | instructions/request (spread) | false alarms | "
          "syscalls/request (spread) | false alarms |")
    print("|---|---:|---:|---:|---:|")
    for b in bases:
        counts = {m: [scenario(d, b).get(m) for _, d in docs if scenario(d, b)] for m in MEASURES}
        cells = []
        for m in MEASURES:
            pairs, reg, imp = null[(b, m)]
            cells += [fmt_spread(counts[m]), f"{reg} / {imp} of {pairs}"]
        print(f"| {b} | " + " | ".join(cells) + " |")
    print("\n| scenario | injected | instructions change (median) | caught | "
          "syscalls change (median) | caught |")
    print("|---|---|---:|---:|---:|---:|")
    for (base, tag), (total, caught, changes) in injected.items():
        cells = []
        for m in MEASURES:
            med = statistics.median(changes[m]) * 100 if changes[m] else float("nan")
            cells += [f"{med:+.2f}%", f"{caught[m]} / {total}"]
        print(f"| {base} | {tag} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
