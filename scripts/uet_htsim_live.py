#!/usr/bin/env python3
"""ccsim and uet-htsim run side by side on the same new inputs (issue 37, item 6).

Writes each input twice, as a uet-htsim connection matrix and as a ccsim
scenario file with the settings uet-htsim prints for that run (queue size,
ECN thresholds, RTO), runs both simulators, and prints a Markdown table of
the tail FCT, the data packets resent and ccsim's timeouts.

    python3 scripts/uet_htsim_live.py --htsim PATH/TO/htsim_uec [--ccsim BIN]
        [--case NAME ...] [--seeds N] [--keep DIR]
    python3 scripts/uet_htsim_live.py --check [--ccsim BIN]   # no uet-htsim:
        write every case's ccsim scenario with the settings uet-htsim 40ccb05
        prints for these fat trees and check them with `ccsim validate`

uet-htsim is github.com/ultraethernet/uet-htsim; the table in
docs/validation/uet-htsim/ was made with commit 40ccb05, built as its CI
builds it (cmake -S htsim/sim -B build -DCMAKE_BUILD_TYPE=Release;
cmake --build build --target htsim_uec). Standard library only.
"""

import argparse
import csv
import os
import random
import re
import subprocess
import sys
import tempfile
import time

SIZE = 2_000_000  # bytes per flow, as uet-htsim's validation matrices


def incast(nodes, senders, receiver):
    """Every sender sends SIZE bytes to `receiver` at t = 0."""
    return nodes, [(s, receiver) for s in senders]


def permutation(nodes, seed):
    """A permutation drawn by Python's random.Random(seed), no host to itself."""
    rng = random.Random(seed)
    while True:
        dst = list(range(nodes))
        rng.shuffle(dst)
        if all(s != d for s, d in enumerate(dst)):
            return nodes, list(enumerate(dst))


# Transport variants: uet-htsim's flags and ccsim's NSCC parameters.
CC = {
    "NSCC": (["-sender_cc_only"], {}),
    "NSCC+RCCC": (["-sender_cc", "-receiver_cc"], {"rccc": "true"}),
    "RCCC": (["-receiver_cc_only"], {"rccc": "true", "sender_cc": "false"}),
    # SLEEK as uet-htsim's own validation runs it
    # (datacenter/validate_load_balancing_snd_sleek.txt): drops, no trimming,
    # 190-packet queues.
    "NSCC+SLEEK": (["-sender_cc_only", "-sleek", "-disable_trim", "-q", "190"], {}),
    "NSCC+RCCC+SLEEK": (["-sender_cc", "-receiver_cc", "-sleek", "-disable_trim", "-q", "190"], {"rccc": "true"}),
}
# Load balancers: uet-htsim's -load_balancing_algo and ccsim's load_balancer.
# ECMP is uet-htsim's `-paths 1` (one entropy per flow) and ccsim's default.
LB = {
    "MIXED": (["-load_balancing_algo", "mixed"], "mixed"),
    "REPS": (["-load_balancing_algo", "reps"], "reps"),
    "oblivious": (["-load_balancing_algo", "oblivious"], "oblivious"),
    "bitmap": (["-load_balancing_algo", "bitmap"], "bitmap"),
    "ECMP": (["-paths", "1"], None),
}

# name -> (matrix, transport, balancer, entropies, degraded directions, end us)
# Incasts keep uet-htsim's default balancer (MIXED, 64 entropies).
CASES = {}
for n in (15, 32):
    nodes = 16 if n == 15 else 128
    m = incast(nodes, range(n), nodes - 1)
    for cc in CC:
        CASES[f"{n}:1 incast ({nodes} hosts), {cc}"] = (m, cc, "MIXED", 64, 0, 8000 if n == 32 else 3000)
PERM = permutation(128, 7)
for lb in ("REPS", "oblivious", "MIXED", "ECMP"):
    CASES[f"128-host permutation, NSCC, {lb}"] = (PERM, "NSCC", lb, 128, 0, 3000)
for lb in ("REPS", "oblivious"):
    CASES[f"128-host permutation, one degraded link, NSCC, {lb}"] = (PERM, "NSCC", lb, 128, 1, 3000)
# uet-htsim's own validation scale (k = 16), where its recorded outputs and
# ccsim differ most on oblivious spraying (scripts/uet_htsim.sh).
PERM1024 = permutation(1024, 7)
for lb in ("oblivious", "REPS", "MIXED"):
    CASES[f"1024-host permutation, NSCC, {lb}"] = (PERM1024, "NSCC", lb, 128, 0, 1000)
CASES["1024-host permutation, 8 degraded links, NSCC, oblivious"] = (PERM1024, "NSCC", "oblivious", 128, 8, 1000)
# SLEEK (no trimming: losses are drops): incasts, and permutations whose
# oblivious spraying reorders enough to trip its out-of-order count.
for n, nodes in ((15, 16), (32, 128)):
    for cc in ("NSCC+SLEEK", "NSCC+RCCC+SLEEK"):
        CASES[f"{n}:1 incast ({nodes} hosts), {cc}"] = (
            incast(nodes, range(n), nodes - 1), cc, "MIXED", 64, 0, 8000 if n == 32 else 3000)
for lb in ("REPS", "oblivious", "ECMP"):
    CASES[f"128-host permutation, NSCC+SLEEK, {lb}"] = (PERM, "NSCC+SLEEK", lb, 128, 0, 3000)
# uet-htsim's own SLEEK validation scale (1024 hosts, 190-packet queues)
for lb in ("oblivious", "REPS"):
    CASES[f"1024-host permutation, NSCC+SLEEK, {lb}"] = (PERM1024, "NSCC+SLEEK", lb, 128, 0, 1000)


def fat_tree_k(nodes):
    """The k of the 3-tier fat tree of `nodes` hosts (k^3 / 4 = nodes)."""
    k = round((4 * nodes) ** (1 / 3))
    if k**3 // 4 != nodes:
        sys.exit(f"{nodes} hosts is not a 3-tier fat tree")
    return k


def write_matrix(path, matrix):
    nodes, pairs = matrix
    with open(path, "w") as f:
        f.write(f"Nodes {nodes}\nConnections {len(pairs)}\n")
        for i, (s, d) in enumerate(pairs):
            f.write(f"{s}->{d} id {i + 1} start 0 size {SIZE}\n")


def run_htsim(binary, cm, args, end_us, log):
    cmd = [binary, "-tm", cm, "-end", str(end_us)] + args
    t0 = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.dirname(cm))
    secs = time.time() - t0
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + out.stdout + out.stderr)
    if out.returncode != 0:
        sys.exit(f"uet-htsim failed ({' '.join(cmd)}); see {log}")
    return parse_htsim(out.stdout, log), secs


def parse_htsim(text, log):
    """Tail FCT, finished flows, resends and the settings uet-htsim printed."""
    fcts = []
    for line in text.splitlines():
        if line.startswith("Flow ") and " finished at " in line:
            fcts.append(float(line.split()[8]))
    summary = re.findall(r"New: (\d+) Rtx: (\d+) RTS: \d+ Bounced: \d+ ACKs: \d+ NACKs: (\d+)", text)
    queue = re.search(r"queue_down=(\d+)", text)
    rto = re.search(r"Setting min RTO to ([\d.]+)", text)
    ecn = re.search(r"Setting ECN to parameters low (\d+) high (\d+)", text)
    if not summary or not queue or not rto or not ecn:
        sys.exit(f"uet-htsim's output lacks its summary or settings; see {log}")
    new, rtx, nacks = map(int, summary[-1])
    return {
        "tail": max(fcts) if fcts else float("nan"),
        "done": len(fcts),
        "rtx": rtx,
        "nacks": nacks,
        "queue": int(queue.group(1)),
        "rto_us": float(rto.group(1)),
        "ecn": (int(ecn.group(1)), int(ecn.group(2))),
    }


def scenario(matrix, cc, lb, evs, degraded, ht):
    """A ccsim scenario with the settings uet-htsim printed for the run."""
    nodes, pairs = matrix
    k = fat_tree_k(nodes)
    kmin, kmax = ht["ecn"]
    queue = ht["queue"]  # 1 BDP in whole packets: 43 x 4150 B at 14 us
    sleek = cc.endswith("SLEEK")
    params = dict(CC[cc][1])
    if LB[lb][1]:
        params["load_balancer"] = f'"{LB[lb][1]}"'
    params["evs"] = str(evs)
    lines = [
        'name = "uet-htsim-live"',
        "seed = 1",
        'schemes = ["case"]',
        "[topology]",
        'kind = "fat_tree"',
        f"k = {k}",
        'host_rate = "100Gbps"',
        'delay = "1us"',
        "[network]",
        "mtu = 4086",
        "header = 64",
        'buffer = "64MB"',  # uet-htsim has no shared buffer: only the per-queue limit binds
        "ack_every = 4",
        "pfc.enabled = false",
    ]
    if sleek:
        # uet-htsim -disable_trim: a full queue drops
        lines += ["trim.enabled = false", f"queue_limit = {queue}", "sleek.enabled = true"]
    else:
        lines += [
            "trim.enabled = true",
            f"trim.threshold = {queue}",
            f"trim.scale_per_100g = {'true' if degraded else 'false'}",
        ]
    lines += [
        'receiver = "reorder"',
        'recovery = "packet"',
        f'rto = "{ht["rto_us"]}us"',
        'ecn.mode = "red"',
        f"ecn.kmin = {kmin // 4 if degraded else kmin}",
        f"ecn.kmax = {kmax // 4 if degraded else kmax}",
        "ecn.pmax = 1.0",
        f"ecn.scale_per_25g = {'true' if degraded else 'false'}",
        "[variants.case]",
        'base = "nscc"',
    ]
    lines += [f"{key} = {value}" for key, value in params.items()]
    # uet-htsim's -failed N slows the direction from the first N cores into
    # pod 0's first aggregation switch(es) to a quarter (fat_tree_topology.cpp).
    hosts, tors = nodes, nodes // (k // 2)
    first_agg, first_core, per_agg = hosts + tors, hosts + tors + tors, k // 2
    for i in range(degraded):
        lines += [
            "[[link]]",
            f"from = {first_core + i}",
            f"to = {first_agg + i // per_agg}",
            'rate = "25Gbps"',
        ]
    lines += ["[[workload]]", 'kind = "flows"', "flows = ["]
    lines += [f"  {{ src = {s}, dst = {d}, size = {SIZE} }}," for s, d in pairs]
    lines += ["]"]
    return "\n".join(lines) + "\n"


def run_ccsim(binary, path, seed, out, log):
    cmd = [binary, "run", path, "--scheme", "case", "--seed", str(seed), "--out", out, "--force", "--quiet"]
    t0 = time.time()
    res = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.time() - t0
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + res.stdout + res.stderr)
    if res.returncode != 0:
        sys.exit(f"ccsim failed ({' '.join(cmd)}); see {log}")
    flows = next(os.path.join(d, "flows.csv") for d, _, fs in os.walk(out) if "flows.csv" in fs)
    rows = list(csv.DictReader(open(flows)))
    fcts = [float(r["fct_us"]) for r in rows if r["fct_us"]]
    return {
        "tail": max(fcts) if fcts else float("nan"),
        "done": len(fcts),
        "rtx": sum(int(r["retransmits"] or 0) for r in rows),
        "timeouts": sum(int(r["timeouts"] or 0) for r in rows),
        "flows": len(rows),
    }, secs


# What uet-htsim 40ccb05 prints for every 3-tier fat tree of this script
# (100 Gbps, 1 us per hop, 4150 B packets: a 14.02 us RTT, 43 packets of
# BDP): "queue_down=178450", "Setting ECN to parameters low 37350 high
# 145250", "Setting min RTO to 100.656".
HTSIM_DEFAULTS = {"queue": 178450, "ecn": (37350, 145250), "rto_us": 100.656}


def check(ccsim, work):
    """Writes every case's scenario and checks it with `ccsim validate`."""
    paths = []
    for i, name in enumerate(CASES):
        matrix, cc, lb, evs, degraded, _ = CASES[name]
        path = os.path.join(work, f"case{i:02d}.toml")
        with open(path, "w") as f:
            f.write(scenario(matrix, cc, lb, evs, degraded, HTSIM_DEFAULTS))
        paths.append(path)
    res = subprocess.run([ccsim, "validate"] + paths, capture_output=True, text=True)
    sys.stdout.write(res.stdout + res.stderr)
    if res.returncode != 0:
        sys.exit(f"ccsim refused a scenario of this script (in {work})")
    print(f"{len(paths)} scenarios valid")


def change(a, b):
    if b == 0:
        return "0" if a == 0 else "n/a"
    return f"{(a / b - 1) * 100:+.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--htsim", help="uet-htsim's htsim_uec binary")
    ap.add_argument("--check", action="store_true", help="only write and validate the ccsim scenarios")
    ap.add_argument("--ccsim", default="target/release/ccsim", help="ccsim binary (default target/release/ccsim)")
    ap.add_argument("--case", action="append", help="only cases whose name contains this (repeatable)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N on both sides (default 5)")
    ap.add_argument("--keep", help="keep the inputs, outputs and logs in this folder")
    a = ap.parse_args()
    ccsim = os.path.abspath(a.ccsim)
    if a.check:
        if not os.access(ccsim, os.X_OK):
            sys.exit(f"no executable at {ccsim}")
        with tempfile.TemporaryDirectory(prefix="uet-htsim-check.") as work:
            check(ccsim, work)
        return
    if not a.htsim:
        ap.error("--htsim is required (or --check)")
    htsim = os.path.abspath(a.htsim)
    for b in (htsim, ccsim):
        if not os.access(b, os.X_OK):
            sys.exit(f"no executable at {b}")
    work = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="uet-htsim-live.")
    os.makedirs(work, exist_ok=True)
    cases = [c for c in CASES if not a.case or any(s in c for s in a.case)]
    if not cases:
        sys.exit(f"no case matches {a.case}; cases: {', '.join(CASES)}")
    print(
        f"Seeds 1-{a.seeds} on both sides (uet-htsim -seed, ccsim --seed): the mean, "
        "and the range over seeds in brackets.\n"
    )
    print(
        "| Case | ccsim tail FCT (us) | uet-htsim | Change | ccsim resent | uet-htsim Rtx "
        "| Change | ccsim timeouts | CPU s ccsim / uet-htsim |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for i, name in enumerate(cases):
        matrix, cc, lb, evs, degraded, end = CASES[name]
        base = os.path.join(work, f"case{i:02d}")
        cm = base + ".cm"
        write_matrix(cm, matrix)
        args = CC[cc][0] + LB[lb][0] + (["-paths", str(evs)] if lb != "ECMP" else [])
        if degraded:
            args += ["-failed", str(degraded)]
        hts, css, secs = [], [], [0.0, 0.0]
        for seed in range(1, a.seeds + 1):
            ht, ht_s = run_htsim(htsim, cm, args + ["-seed", str(seed)], end, f"{base}.s{seed}.htsim.log")
            toml = base + ".toml"
            with open(toml, "w") as f:
                f.write(scenario(matrix, cc, lb, evs, degraded, ht))
            cs, cs_s = run_ccsim(ccsim, toml, seed, f"{base}.s{seed}.out", f"{base}.s{seed}.ccsim.log")
            if cs["done"] != cs["flows"] or ht["done"] != cs["flows"]:
                name += f" (seed {seed} finished: ccsim {cs['done']}, uet-htsim {ht['done']} of {cs['flows']})"
            hts.append(ht)
            css.append(cs)
            secs[0] += cs_s
            secs[1] += ht_s

        def col(runs, key, fmt):
            v = [r[key] for r in runs]
            m = sum(v) / len(v)
            return m, (fmt(m) if len(v) == 1 else f"{fmt(m)} [{fmt(min(v))}-{fmt(max(v))}]")

        ct, ct_s = col(css, "tail", lambda x: f"{x:.1f}")
        hT, hT_s = col(hts, "tail", lambda x: f"{x:.1f}")
        cr, cr_s = col(css, "rtx", lambda x: f"{x:,.0f}")
        hr, hr_s = col(hts, "rtx", lambda x: f"{x:,.0f}")
        _, to_s = col(css, "timeouts", lambda x: f"{x:.0f}" if x == int(x) else f"{x:.1f}")
        print(
            f"| {name} | {ct_s} | {hT_s} | {change(ct, hT)} | {cr_s} | {hr_s} | {change(cr, hr)} "
            f"| {to_s} | {secs[0]:.1f} / {secs[1]:.1f} |",
            flush=True,
        )
    if not a.keep:
        print(f"\n(inputs and logs in {work})", file=sys.stderr)


if __name__ == "__main__":
    main()
