#!/usr/bin/env bash
# tools/studies/noise_study.sh: measures the regression gate on this machine (docs/gating.md).
#   time mode:        N+1 runs A (no injection) interleaved with N runs B (gate/calibrated/work
#                     made INJECT% slower); A/A = consecutive A runs, A/B = (A_i, B_i).
#   instruction mode: K A runs and K B runs (INJECT_INSTR%) under callgrind.
# usage: tools/studies/noise_study.sh OUT_DIR [N] [K]
# env:   GATEBENCH (gatebench), MICRO (gatebench-micro for time mode), MICRO_CG (a build valgrind
#        can run, -DGATEBENCH_MARCH=x86-64-v3), INJECT (default 5), INJECT_INSTR (default 1),
#        FILTER (time mode benchmarks), MIN_TIME (default 0.1), PROCESSES (gatebench micro
#        --processes, default 9), MIN_CHANGES (extra --min-change values tallied, default "3% 4%")
set -euo pipefail
out=${1:?usage: tools/studies/noise_study.sh OUT_DIR [N] [K]}
n=${2:-20}
k=${3:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
gatebench=${GATEBENCH:-$root/build/release/tools/src/gatebench}
micro=${MICRO:-$root/build/release/micro/bench/gatebench-micro}
micro_cg=${MICRO_CG:-$root/build/callgrind/micro/bench/gatebench-micro}
inject=${INJECT:-5}
inject_instr=${INJECT_INSTR:-1}
filter=${FILTER:-'^(gate/calibrated/work|token/gatecore/admission|cidr/gatecore/list_1k)$'}
min_time=${MIN_TIME:-0.1}
processes=${PROCESSES:-9}
min_changes=${MIN_CHANGES:-3% 4%}
mkdir -p "$out/time" "$out/instr"

run_time() {  # run_time FILE INJECT_PERCENT
  GATEBENCH_INJECT_SLOWDOWN=$2 "$gatebench" micro --bench "$micro" --filter "$filter" \
    --repetitions 9 --processes "$processes" --out "$1" -- --benchmark_min_time="$min_time" \
    > /dev/null 2>&1
}

echo "time mode: $((2 * n + 1)) runs of $filter (9 repetitions in $processes processes," \
  "min_time $min_time s)" >&2
run_time "$out/time/a0.json" 0
for i in $(seq 1 "$n"); do
  run_time "$out/time/b$((i - 1)).json" "$inject"
  run_time "$out/time/a$i.json" 0
done
for i in $(seq 0 $((n - 1))); do
  "$gatebench" compare "$out/time/a$i.json" "$out/time/a$((i + 1)).json" --quiet \
    --json "$out/time/aa$i.gate.json" || true
  "$gatebench" compare "$out/time/a$i.json" "$out/time/b$i.json" --quiet \
    --json "$out/time/ab$i.gate.json" || true
  for mc in $min_changes; do
    mkdir -p "$out/time-$mc"
    "$gatebench" compare "$out/time/a$i.json" "$out/time/a$((i + 1)).json" --quiet \
      --min-change "$mc" --json "$out/time-$mc/aa$i.gate.json" || true
    "$gatebench" compare "$out/time/a$i.json" "$out/time/b$i.json" --quiet \
      --min-change "$mc" --json "$out/time-$mc/ab$i.gate.json" || true
  done
done

if [ "$k" -gt 0 ]; then
  echo "instruction mode: $k + $k runs under callgrind" >&2
  for i in $(seq 0 $((k - 1))); do
    "$gatebench" micro --instructions --bench "$micro_cg" --filter '^gate/calibrated/work$|^token/gatecore/admission$' \
      --out "$out/instr/a$i.json" 2> /dev/null
    GATEBENCH_INJECT_SLOWDOWN=$inject_instr "$gatebench" micro --instructions --bench "$micro_cg" \
      --filter '^gate/calibrated/work$|^token/gatecore/admission$' --out "$out/instr/b$i.json" 2> /dev/null
  done
  for i in $(seq 0 $((k - 1))); do
    for j in $(seq 0 $((k - 1))); do
      [ "$i" = "$j" ] || "$gatebench" compare "$out/instr/a$i.json" "$out/instr/a$j.json" --quiet \
        --json "$out/instr/aa$i-$j.gate.json" || true
      "$gatebench" compare "$out/instr/a$i.json" "$out/instr/b$j.json" --quiet \
        --json "$out/instr/ab$i-$j.gate.json" || true
    done
  done
fi

# Tally: per kind (aa, ab) and benchmark, how many comparisons gave each verdict.
python3 - "$out" << 'PY'
import collections, glob, json, os, sys
out = sys.argv[1]
modes = ["time"] + sorted(m for m in os.listdir(out) if m.startswith("time-")) + ["instr"]
for mode in modes:
    tally = collections.defaultdict(collections.Counter)
    changes = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(out, mode, "*.gate.json"))):
        kind = os.path.basename(path)[:2]
        for row in json.load(open(path))["rows"]:
            tally[(kind, row["name"])][row["verdict"]] += 1
            if row["change"] is not None:
                changes[(kind, row["name"])].append(row["change"])
    for (kind, name), counts in sorted(tally.items()):
        total = sum(counts.values())
        c = sorted(changes[(kind, name)])
        median = c[len(c) // 2] if c else float("nan")
        print(f"{mode:8} {'A/A' if kind == 'aa' else 'A/B'} {name:28} n={total:3} "
              f"regression={counts['regression']:3} improvement={counts['improvement']:3} "
              f"no_change={counts['no change']:3} median_change={median:+.4f}")
    null = [c for (kind, name), c in tally.items() if kind == "aa" or name != "gate/calibrated/work"]
    injected = [c for (kind, name), c in tally.items() if kind == "ab" and name == "gate/calibrated/work"]
    n_null = sum(sum(c.values()) for c in null)
    if n_null:
        print(f"{mode:8} summary: false regressions {sum(c['regression'] for c in null)}/{n_null}, "
              f"false improvements {sum(c['improvement'] for c in null)}/{n_null}, "
              f"detected {sum(c['regression'] for c in injected)}/{sum(sum(c.values()) for c in injected)}")
PY
