#!/usr/bin/env python3
"""Writes the callgrind.out fixtures of attribution_breakdown_test.cpp into data/attribution/:
three scenarios (gateway-default, ablation-iplist, ablation-headers), each an N = 200 and a
2N = 400 run, with known self costs per function, calls= lines whose inclusive costs must not
count as self cost, compressed names and a callee object given by cob=; plus instructions.json
naming them by relative path and micro.json (gatebench.instructions/1).
Run from this directory: python3 make_attribution_fixtures.py"""
import json
import os

GATEWAY = "/build/macro/gateway/gatebench-gateway"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
SSL = "/usr/lib/x86_64-linux-gnu/libssl.so.3"
DRIVE = "gatebench::gateway::WorkerLoop::drive(gatebench::gateway::Client&)"
PARSE = "gatebench::http1::parse_request_head(std::basic_string_view<char, std::char_traits<char> >)"
TSV = "gatebench::access_log::write_tsv(std::span<char, 18446744073709551615ul>)"
CIDR = "gatebench::cidr::PrefixTable::lookup(unsigned int) const"
HEADERS = "gatebench::gateway::write_security_headers(char*)"

# Per request self cost of each function (object, name); start-up is a constant in main.
BASE = {
    (GATEWAY, DRIVE): 1000,
    (GATEWAY, PARSE): 500,
    (GATEWAY, TSV): 300,
    (LIBC, "__memcpy_avx_unaligned_erms"): 200,
    (LIBC, "malloc"): 100,
    (LIBC, "read"): 50,
    (SSL, "SSL_read"): 0,
}
SCENARIOS = {
    "gateway-default": {},
    # +600 in the hot path (the micro count), +40 copying, +20 in the loop: remainder 60 (9%).
    "ablation-iplist": {(GATEWAY, CIDR): 600, (LIBC, "__memcpy_avx_unaligned_erms"): 240,
                        (GATEWAY, DRIVE): 1020},
    # No micro benchmark: the whole +400 is remainder, +300 gateway and +100 copying.
    "ablation-headers": {(GATEWAY, HEADERS): 300, (LIBC, "__memcpy_avx_unaligned_erms"): 300},
}
STARTUP = 100000


def write(path, costs, requests):
    ids = {}
    objects = {}
    out = ["# callgrind format", "version: 1", "creator: callgrind-3.19.0", "",
           "positions: line", "events: Ir"]
    selfs = {k: v * requests for k, v in costs.items()}
    selfs[(GATEWAY, "main")] = STARTUP
    out.append("summary: %d" % sum(selfs.values()))
    out.append("")

    def name(table, key, text):
        if key in table:
            return "(%d)" % table[key]
        table[key] = len(table) + 1
        return "(%d) %s" % (table[key], text)

    current_ob = None
    # main calls every other function once per request: inclusive costs on the call lines.
    for (obj, fn) in [(GATEWAY, "main")] + [k for k in costs]:
        if obj != current_ob:
            out.append("ob=" + name(objects, obj, obj))
            out.append("fl=(1) ???" if "fl" not in objects else "fl=(1)")
            objects["fl"] = 0
            current_ob = obj
        out.append("fn=" + name(ids, (obj, fn), fn))
        out.append("0 %d" % selfs[(obj, fn)])
        if fn == "main":
            for (cobj, cfn) in costs:
                if cobj != obj:
                    out.append("cob=" + name(objects, cobj, cobj))
                out.append("cfn=" + name(ids, (cobj, cfn), cfn))
                out.append("calls=%d 0" % requests)
                out.append("0 %d" % selfs[(cobj, cfn)])
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    scenarios = []
    for scenario, changes in SCENARIOS.items():
        costs = dict(BASE)
        costs.update(changes)
        runs = []
        for requests in (200, 400):
            rel = "attribution/%s-%d.out" % (scenario, requests)
            write(rel, costs, requests)
            runs.append({"requests": requests, "instructions": 0, "callgrind_file": rel})
        scenarios.append({"name": scenario, "status": "ok", "reason": "", "runs": runs,
                          "instructions_per_request": sum(costs.values())})
    doc = {"schema": "gatebench.macro_instructions/1", "env": {},
           "method": {"requests": 200, "runs": [200, 400]}, "interrupted": False,
           "scenarios": scenarios}
    with open("attribution_instructions.json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    # Batched as the real benchmark is (it counts 65,536 addresses per iteration, 1,000 here):
    # 600 per op, which only items_per_iteration tells without a --micro time run.
    micro = {"schema": "gatebench.instructions/1", "env": {},
             "benchmarks": [{"name": "cidr/gatecore/list_1k", "instructions_per_iteration": 600000,
                             "items_per_iteration": 1000}]}
    with open("attribution_micro_instructions.json", "w") as f:
        json.dump(micro, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    main()
