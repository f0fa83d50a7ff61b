"""What the studies in tools/studies share, so that each script holds only its own method.

- Processes and ports: the checkout's root, exit-2 errors, waiting for a port, the measured
  target's CPU time and a child's CPU time around one command.
- One nginx and the generators on it: the nginx the load-generator studies measure against, wrk
  and gatebench-load run and read the same way in every study.
- Paired ratios: each run of one tool against the run of the other just before it.
- gatebench runs: a scenario as a file (from the driver), a scenario service's binary,
  gatebench-macro and gatebench compare as the studies call them.
"""
import argparse
import contextlib
import json
import os
import re
import resource
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def die(msg):
    """Bad input or a broken set-up: the message on stderr, prefixed by the script, exit 2."""
    print(f"{os.path.basename(sys.argv[0]).removesuffix('.py')}: {msg}", file=sys.stderr)
    sys.exit(2)


def parser(doc, epilog=True):
    """A command line described by the script's docstring: its first paragraph, the rest as
    epilog."""
    return argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog=doc.split("\n\n", 1)[1] if epilog else None)


def check_runs(args, tools):
    """Each tool an executable path or a command on PATH; --runs and --duration at least 1."""
    for tool in tools:
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)) and not shutil.which(tool):
            die(f"{tool}: not found or not executable")
    if args.runs < 1 or args.duration < 1:
        die("--runs and --duration must be at least 1")


# ---- processes and ports ----------------------------------------------------------------------

_target_pid = None  # the measured server's master process, once it runs


def measure_target(pid):
    """From now on run_measured also reports the CPU time of `pid`'s children (the workers)."""
    global _target_pid
    _target_pid = pid


def target_cpu_ns(master):
    """CPU time of the master's children so far (ns, from the scheduler's own accounting, finer
    than the clock ticks of /proc/PID/stat). Why: on 2 CPUs the generator and the target share the
    machine, so req/s depends on the target's CPU per request as much as on the generator's."""
    if master is None:
        return 0
    total = 0
    with open(f"/proc/{master}/task/{master}/children") as f:
        for pid in f.read().split():
            try:
                with open(f"/proc/{pid}/schedstat") as s:
                    total += int(s.read().split()[0])
            except FileNotFoundError:
                pass
    return total


def run_measured(cmd):
    """Runs cmd; returns (stdout, CPU seconds of the child, CPU seconds of the measured target)."""
    target_before = target_cpu_ns(_target_pid)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc.stdout, cpu, (target_cpu_ns(_target_pid) - target_before) / 1e9


def per_request_us(cpu_s, requests):
    return cpu_s / max(1, requests) * 1e6


def wait_port(port, deadline_s=5, what="the target"):
    end = time.time() + deadline_s
    while time.time() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    die(f"{what} did not listen on 127.0.0.1:{port} within {deadline_s} s")


@contextlib.contextmanager
def server(cmd, ports, what):
    """Runs a server in its own session for the block (its CPU is measured); waits for its ports;
    SIGTERM ends the study, and the server with it."""
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL, start_new_session=True)
    measure_target(proc.pid)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        for port in ports:
            wait_port(port, what=what)
        yield proc
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


# ---- one nginx and the generators on it -------------------------------------------------------

NGINX_CONF = """worker_processes {workers};
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
{http}
  server {{
{server}
    location / {{ return 200 "ok\\n"; }}
  }}
}}
"""


def nginx_conf(work, workers, http, server):
    """The measured nginx's configuration in `work`, with the protocol's http and server lines;
    returns its path."""
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(workers=workers, dir=work, http=http, server=server))
    return conf

UNITS = {"us": 1.0, "ms": 1e3, "s": 1e6}


@contextlib.contextmanager
def nginx_target(nginx, work, port, workers):
    """The measured nginx, from a prefix in `work`, on 127.0.0.1:port for the block; yields its
    URL."""
    conf = nginx_conf(work, workers, "  keepalive_requests 1000000;",
                      f"    listen 127.0.0.1:{port} reuseport backlog=4096;")
    with server([nginx, "-p", work, "-c", conf], [port], "nginx"):
        yield f"http://127.0.0.1:{port}/"


def parse_wrk(text):
    reqs = re.search(r"(\d+) requests in", text)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    p50 = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if not (reqs and rps and p50):
        raise RuntimeError("unexpected wrk output:\n" + text)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    err = (sum(map(int, errors.groups())) if errors else 0) + (int(non2xx.group(1)) if non2xx else 0)
    return {"requests": int(reqs.group(1)), "rps": float(rps.group(1)),
            "p50_us": float(p50.group(1)) * UNITS[p50.group(2)], "errors": err}


def wrk(args, url, threads, conns, secs, script=None):
    cmd = [args.wrk, f"-t{threads}", f"-c{conns}", f"-d{secs}s", "--latency"]
    if script:
        cmd += ["-s", script]
    out, cpu, target = run_measured(cmd + [url])
    r = parse_wrk(out)
    r["cpu_per_request_us"] = per_request_us(cpu, r["requests"])
    r["target_cpu_per_request_us"] = per_request_us(target, r["requests"])
    return r


def gatebench_load(args, url, options, secs):
    """One gatebench-load run of `secs` seconds with `options` (and --load-args); its JSON
    report, with the generator's and the target's CPU per request added."""
    path = os.path.join(args.work, "load.json")
    cmd = [args.load, *options, "-d", f"{secs}s", "--no-progress", "-q", "--json",
           path] + shlex.split(args.load_args)
    _, cpu, target = run_measured(cmd + [url])
    with open(path) as f:
        j = json.load(f)
    j["cpu_per_request_us"] = per_request_us(cpu, j["requests"])
    j["target_cpu_per_request_us"] = per_request_us(target, j["requests"])
    return j


def ours(args, url, threads, conns, secs, rate=None):
    """gatebench-load over HTTP/1.1, closed loop or at `rate`, as load_vs_wrk and load_ab read it."""
    options = ["-t", str(threads), "-c", str(conns)]
    if rate:
        options += ["--rate", f"{rate:.0f}"]
    j = gatebench_load(args, url, options, secs)
    return {"requests": j["requests"], "rps": j["requests_per_s"], "p50_us": j["latency_us"]["p50"],
            "errors": j["errors"]["total"], "valid": j.get("valid", True),
            "service_p50_us": (j.get("service_time_us") or {}).get("p50"),
            "io": j["config"].get("io"), "spin_us": j["config"].get("spin_us"),
            "sched": j["config"].get("sched"),
            "cpu_per_request_us": j["cpu_per_request_us"],
            "target_cpu_per_request_us": j["target_cpu_per_request_us"]}


# ---- paired ratios ----------------------------------------------------------------------------

def median_of(case, tool, key):
    return statistics.median(r[tool][key] for r in case["runs"])


def paired(case, key, theirs):
    """Median and range over the runs of ours/theirs for one key, each run of ours divided by the
    run of `theirs` just before it. Why: the machine drifts between slower and faster spells that
    last several runs (nginx's CPU per request moved between 6.9 and 8.4 us for both generators
    in step), and a ratio of two medians can pair a fast spell of one tool with a slow one of the
    other; adjacent runs share their spell."""
    ratios = sorted(r["ours"][key] / r[theirs][key] for r in case["runs"])
    return statistics.median(ratios), ratios[0], ratios[-1]


# ---- gatebench runs ---------------------------------------------------------------------------

def binary_of(service, scenario_dir):
    """A scenario service's binary, read from its shared block (services/<use>.json) if it uses one."""
    if "binary" in service or "use" not in service:
        return service.get("binary")
    with open(os.path.join(scenario_dir, "services", service["use"] + ".json")) as f:
        return json.load(f).get("binary")


def scenario_file(build, name, scenario_dir=None):
    """Scenario `name` as a scenario file holds it, from the driver of the build tree `build`
    (`gatebench-macro --print-scenario NAME`): a name of macro/scenarios/names.json expanded from
    its target and workload, a scenario file's content otherwise. The studies copy it to make
    their variants, so the expansion lives in the driver alone."""
    cmd = [os.path.join(build, "macro", "driver", "gatebench-macro"), "--print-scenario", name]
    if scenario_dir:
        cmd += ["--scenario-dir", scenario_dir]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        die(f"{cmd[0]}: {e.strerror}; build gatebench-macro in {build} or pass --build")
    if res.returncode != 0:
        die(res.stderr.strip() or f"{' '.join(cmd)} exited {res.returncode}")
    return json.loads(res.stdout)


def run_gatebench(cmd, quiet=False):
    """Runs a gatebench command that exits 0 (all passed) or 1 (a scenario failed or a regression
    was found); any other exit ends the study."""
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL if quiet else None)
    if rc not in (0, 1):
        sys.exit(f"{os.path.basename(cmd[0])} exited {rc}")


def compare_rows(gatebench, base, head, extra):
    """The rows of `gatebench compare BASE HEAD` (its JSON), with `extra` options."""
    cmd = [gatebench, "compare", base, head, "--json", "/dev/stdout", "--quiet"] + extra
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode not in (0, 1):
        sys.exit(f"gatebench compare failed ({res.returncode}): {res.stderr}")
    return json.loads(res.stdout[res.stdout.index("{"):])["rows"]
