#!/usr/bin/env python3
"""Writes mann_whitney_golden.json: p-values computed by scipy (Debian 12 python3-scipy 1.10.1)
exactly as Google Benchmark's tools/gbench/report.py calls it:
    mannwhitneyu(x, y, alternative='two-sided').pvalue
Run offline (the C++ tests read the JSON; they never need scipy):
    /usr/bin/python3 tests/tools/data/make_mann_whitney_golden.py > tests/tools/data/mann_whitney_golden.json
The samples come from a fixed-seed LCG so the file is reproducible without numpy's RNG."""
import json
import scipy
from scipy.stats import mannwhitneyu

state = 12345


def rand():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return (state >> 11) / float(1 << 53)


def sample(n, centre, spread, step=None):
    out = []
    for _ in range(n):
        v = centre * (1 + spread * (rand() - 0.5))
        if step:  # quantise to create ties, as coarse timers do
            v = round(v / step) * step
        out.append(v)
    return out


cases = [
    ("equal_9v9", sample(9, 100, 0.04), sample(9, 100, 0.04)),
    ("shift_2pct_9v9", sample(9, 100, 0.04), sample(9, 102, 0.04)),
    ("shift_10pct_9v9", sample(9, 100, 0.04), sample(9, 110, 0.04)),
    ("faster_9v9", sample(9, 100, 0.02), sample(9, 90, 0.02)),
    ("ties_9v9", sample(9, 100, 0.06, step=1.0), sample(9, 101, 0.06, step=1.0)),
    ("heavy_ties_10v10", sample(10, 100, 0.04, step=2.0), sample(10, 100, 0.04, step=2.0)),
    ("unequal_9v15", sample(9, 100, 0.05), sample(15, 103, 0.05)),
    ("n20", sample(20, 50, 0.1), sample(20, 52, 0.1)),
    ("separated_12v12", sample(12, 10, 0.01), sample(12, 20, 0.01)),
    ("balanced", [1, 4, 5, 8, 9, 12, 13, 16, 17], [2, 3, 6, 7, 10, 11, 14, 15, 18]),
    ("all_identical", [5.0] * 9, [5.0] * 9),
]

out = {"generator": "scipy.stats.mannwhitneyu(x, y, alternative='two-sided')",
       "scipy_version": scipy.__version__, "cases": []}
for name, x, y in cases:
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        r = mannwhitneyu(x, y, alternative="two-sided")
    p = float(r.pvalue)
    out["cases"].append({"name": name, "x": x, "y": y, "u1": float(r.statistic),
                         "p": p if p == p else None})
print(json.dumps(out, indent=1))
