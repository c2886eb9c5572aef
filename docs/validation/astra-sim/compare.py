#!/usr/bin/env python3
"""ccsim vs ASTRA-sim's analytical network backend on one switch.

Generates ASTRA-sim's collective microbenchmark traces (its own generator
scripts), runs ASTRA-sim (congestion_unaware and congestion_aware) and ccsim
on them, predicts each time in closed form and writes results.csv and
results.md into --work. Standard library only; run.sh builds ASTRA-sim and
calls this. See README.md beside this file.
"""

import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# --- the common set-up -------------------------------------------------------
RATE = 12.5  # B/ns: 100 Gbps on both sides (ASTRA-sim: 11.6415... "GB/s" of 2^30 B)
ASTRA_BW_GBPS = 12.5e9 / 2**30  # ASTRA-sim's GB/s are 2^30 B/s (NetworkFunction.cpp:14-16)
LAT = 500.0  # ns per link (ccsim `delay`) = per hop (ASTRA-sim `latency`)
# ccsim's packet format (`ccsim list network` defaults)
MTU, HDR, ACK = 1000, 48, 60
# preferred-dataset-splits (= active chunks) of the pipelined congestion_aware run
SPLITS = 64

OPS = {  # name: (ccsim/ASTRA op, message bytes of a collective of S bytes on n ranks, steps)
    "all_reduce": lambda S, n: (S // n, 2 * (n - 1)),
    "all_gather": lambda S, n: (S, n - 1),
    "reduce_scatter": lambda S, n: (S // n, n - 1),
    "all_to_all": lambda S, n: (S // n, n - 1),  # n-1 messages at once, not steps
}


def run(cmd, cwd=None, log=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if log:
        with open(log, "w") as f:
            f.write(p.stdout)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-3000:]}")
    return p.stdout


def gen_traces(astra_src, python, et_dir, op, n, mib):
    d = os.path.join(et_dir, op, f"{n}npus_{mib}MB")
    if not os.path.exists(os.path.join(d, f"{op}.{n - 1}.et")):
        script = os.path.join(astra_src, "examples/workload/microbenchmarks/generator_scripts", f"{op}.py")
        env = dict(os.environ, PYTHONPATH=astra_src)
        subprocess.run([python, script, "--npus-count", str(n), "--coll-size", str(mib)],
                       cwd=et_dir, env=env, check=True)
    return d


def astra(bin_dir, variant, case_dir, et_prefix, n, splits):
    """Max over ranks of `sys[i] finished, T cycles` (1 cycle = 1 ns)."""
    net = open(os.path.join(HERE, "switch.yml")).read().replace("npus_count: [ 4 ]", f"npus_count: [ {n} ]")
    with open(os.path.join(case_dir, "switch.yml"), "w") as f:
        f.write(net)
    sysconf = json.load(open(os.path.join(HERE, "system.json")))
    sysconf["preferred-dataset-splits"] = splits
    sysconf["active-chunks-per-dimension"] = splits
    sname = os.path.join(case_dir, f"system-{splits}.json")
    json.dump(sysconf, open(sname, "w"), indent=1)
    out = run([os.path.join(bin_dir, f"AstraSim_Analytical_Congestion_{variant}"),
               f"--workload-configuration={et_prefix}",
               f"--system-configuration={sname}",
               f"--remote-memory-configuration={os.path.join(HERE, 'remote_memory.json')}",
               f"--network-configuration={os.path.join(case_dir, 'switch.yml')}"],
              cwd=case_dir, log=os.path.join(case_dir, f"astra-{variant}-{splits}.log"))
    t = [int(x) for x in re.findall(r"sys\[\d+\] finished, (\d+) cycles", out)]
    if len(t) != n:
        sys.exit(f"ASTRA-sim {variant}: {len(t)} of {n} ranks finished ({case_dir})")
    return max(t)


def ccsim(binary, case_dir, et_dir, n, extra, tag, scheme="none"):
    out = os.path.join(case_dir, f"ccsim-{tag}")
    hosts = "[" + ",".join(str(i) for i in range(n)) + "]"
    run([binary, "run", os.path.join(HERE, "star.toml"), "-q", "--force", "--out", out, "--scheme", scheme,
         "--set", f"topology.hosts={n}", "--set", f"workload[0].hosts={hosts}",
         "--set", f'workload[0].path="{et_dir}"'] + extra)
    res = os.path.join(out, "astra-peer", scheme)
    s = json.load(open(os.path.join(res, "summary.json")))
    job = s["jobs"][0]
    if job["finished"] != job["messages"]:
        sys.exit(f"ccsim: {job['finished']} of {job['messages']} messages finished ({res})")
    with open(os.path.join(res, "flows.csv")) as f:
        sizes = [int(r["size"]) for r in csv.DictReader(f) if r["workload"] == "0"]
    return job["job_time_us"] * 1000.0, len(sizes), sum(sizes)


# What the ccsim side's settings do to two cases (label, scheme, --set overrides).
SENSITIVITY_CASES = [("all_reduce", 8, 16), ("all_to_all", 16, 16)]
SENSITIVITY = [
    ("none, no window (the table)", "none", []),
    ("none, window = 1 BDP (its default)", "none", ["scheme.none.window_bdps=1.0"]),
    ("dcqcn (paper preset)", "dcqcn", []),
    ("dcqcn (hpcc preset)", "dcqcn", ['scheme.dcqcn.preset="hpcc"']),
    ("hpcc", "hpcc", []),
    ("none, header = 0", "none", ["network.header=0"]),
    ("none, one ACK per message", "none", ["network.ack_every=1000000000"]),
    ("none, header = 0, one ACK per message", "none", ["network.header=0", "network.ack_every=1000000000"]),
    ("none, mtu = 4096", "none", ["network.mtu=4096"]),
]


# --- closed forms (ns) ---------------------------------------------------------
def ccsim_message(m, hdr, acks):
    """Wire bytes of a message of m payload bytes, the ACK bytes its receiver
    sends back (acks: per packet, else one per message), and the packet whose
    store-and-forward at the switch ends it: a full one (a short last packet
    reaches the switch while the full one before it is still going out)."""
    np_ = math.ceil(m / MTU)
    wire = m + np_ * hdr
    ack = (np_ if acks else 1) * ACK
    full = min(m, MTU) + hdr
    return wire, ack, full


def predict_ccsim(op, m, steps, n, hdr, acks):
    """Each host sends a message and receives one per step (ring), or n-1 at
    once (all-to-all); the ACKs it returns share its host link with its data.
    The incoming data lags the host's own by 2 links and a packet, so the
    ACKs of the last k incoming packets leave after the host's own data is
    out and delay nothing. With one ACK per message (acks=False) a ring
    step's ACK leaves as the next step starts. A step ends with one full
    packet's store-and-forward at the switch; the job ends when the last
    ACK (2 links) is back at its sender."""
    wire, _, full = ccsim_message(m, hdr, acks)
    tail = 2 * LAT + 2 * ACK / RATE
    msgs = n - 1 if op == "all_to_all" else 1
    if acks:
        k = math.ceil((2 * LAT + full / RATE) / ((MTU + hdr + ACK) / RATE))
        ack = max(0, msgs * math.ceil(m / MTU) - k) * ACK
        extra = 0
    else:
        ack = 0
        extra = 0 if op == "all_to_all" else (steps - 1) * ACK / RATE
    if op == "all_to_all":
        return (msgs * wire + ack) / RATE + 2 * LAT + full / RATE + tail
    return steps * (2 * LAT + (wire + ack) / RATE + full / RATE) + extra + tail


def predict_astra(op, m, steps, n, variant, splits):
    B = ASTRA_BW_GBPS * 2**30 / 1e9  # B/ns
    if variant == "Unaware":  # 2 hops x latency + one serialization (BasicTopology.cpp:53-57)
        per = math.floor(2 * LAT + m / B) + 1  # + endpoint-delay
        return per if op == "all_to_all" else steps * per
    if splits == 1:  # whole message stored and forwarded per link (Link.cpp:105,125-134)
        if op == "all_to_all":  # n-1 messages queued on the NIC link, the last forwarded
            return n * m / B + 2 * LAT
        return steps * (2 * (LAT + m / B) + 1)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--astra-src", required=True, help="ASTRA-sim source tree (generator scripts)")
    ap.add_argument("--astra-bin", required=True, help="folder with AstraSim_Analytical_Congestion_{Unaware,Aware}")
    ap.add_argument("--ccsim", required=True, help="ccsim binary")
    ap.add_argument("--python", default="/usr/bin/python3", help="python with google.protobuf, for the generators")
    ap.add_argument("--work", required=True, help="scratch folder for traces, runs and the tables")
    ap.add_argument("--ranks", default="4,8,16")
    ap.add_argument("--sizes", default="1,16,64", help="MiB (ASTRA-sim's generators take whole MiB)")
    ap.add_argument("--ops", default=",".join(OPS))
    a = ap.parse_args()

    et_dir = os.path.join(a.work, "et")
    os.makedirs(et_dir, exist_ok=True)
    rows = []
    for op in a.ops.split(","):
        for n in [int(x) for x in a.ranks.split(",")]:
            for mib in [int(x) for x in a.sizes.split(",")]:
                S = mib * 2**20
                m, steps = OPS[op](S, n)
                d = gen_traces(a.astra_src, a.python, et_dir, op, n, mib)
                case = os.path.join(a.work, "runs", f"{op}-{n}-{mib}")
                os.makedirs(case, exist_ok=True)
                prefix = os.path.join(d, op)
                r = {"op": op, "ranks": n, "MiB": mib, "msg_bytes": m,
                     "astra_unaware_ns": astra(a.astra_bin, "Unaware", case, prefix, n, 1),
                     "astra_aware_ns": astra(a.astra_bin, "Aware", case, prefix, n, 1),
                     f"astra_aware_s{SPLITS}_ns": astra(a.astra_bin, "Aware", case, prefix, n, SPLITS)}
                t, msgs, total = ccsim(a.ccsim, case, d, n, [], "default")
                r["ccsim_ns"] = t
                r["ccsim_msgs"] = msgs
                r["ccsim_bytes"] = total
                r["expected_msgs"] = n * steps
                r["expected_bytes"] = n * steps * m
                t0, _, _ = ccsim(a.ccsim, case, d, n,
                                 ["--set", "network.header=0", "--set", "network.ack_every=1000000000"], "bare")
                r["ccsim_bare_ns"] = t0
                r["pred_ccsim_ns"] = predict_ccsim(op, m, steps, n, HDR, True)
                r["pred_ccsim_bare_ns"] = predict_ccsim(op, m, steps, n, 0, False)
                r["pred_astra_unaware_ns"] = predict_astra(op, m, steps, n, "Unaware", 1)
                r["pred_astra_aware_ns"] = predict_astra(op, m, steps, n, "Aware", 1)
                # the peer configuration that models what ccsim models
                peer = r[f"astra_aware_s{SPLITS}_ns"] if op == "all_to_all" else r["astra_unaware_ns"]
                r["peer"] = f"aware, {SPLITS} chunks" if op == "all_to_all" else "unaware, 1 chunk"
                r["peer_ns"] = peer
                r["ratio"] = r["ccsim_ns"] / peer
                r["ratio_pred"] = r["pred_ccsim_ns"] / peer
                r["ratio_bare"] = r["ccsim_bare_ns"] / peer
                rows.append(r)
                print(f"{op:15s} n={n:2d} {mib:3d} MiB  peer({r['peer']}) {peer/1e3:10.2f} us  "
                      f"ccsim {t/1e3:10.2f} us  x{r['ratio']:.4f} (closed form x{r['ratio_pred']:.4f}, "
                      f"no headers/ACKs x{r['ratio_bare']:.4f})  bytes {'ok' if total == r['expected_bytes'] else 'DIFFER'}",
                      flush=True)

    with open(os.path.join(a.work, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    us = lambda x: f"{x / 1e3:.2f}"
    with open(os.path.join(a.work, "results.md"), "w") as f:
        f.write("| collective | ranks | size | ASTRA-sim peer | ASTRA-sim (us) | ccsim (us) | ccsim / ASTRA | "
                "closed form | ccsim, no headers/ACKs (us) | ratio |\n|---|--:|--:|---|--:|--:|--:|--:|--:|--:|\n")
        for r in rows:
            f.write(f"| {r['op']} | {r['ranks']} | {r['MiB']} MiB | {r['peer']} | {us(r['peer_ns'])} | "
                    f"{us(r['ccsim_ns'])} | {r['ratio']:.3f} | {r['ratio_pred']:.3f} | {us(r['ccsim_bare_ns'])} | "
                    f"{r['ratio_bare']:.3f} |\n")
        f.write("\nEvery ASTRA-sim configuration (us; closed form in brackets):\n\n"
                f"| collective | ranks | size | unaware, 1 chunk | aware, 1 chunk | aware, {SPLITS} chunks | "
                "ccsim | ccsim closed form | ccsim bytes = ASTRA-sim's |\n|---|--:|--:|--:|--:|--:|--:|--:|---|\n")
        for r in rows:
            pu, pa = r["pred_astra_unaware_ns"], r["pred_astra_aware_ns"]
            f.write(f"| {r['op']} | {r['ranks']} | {r['MiB']} MiB | {us(r['astra_unaware_ns'])} [{us(pu)}] | "
                    f"{us(r['astra_aware_ns'])} [{us(pa)}] | {us(r[f'astra_aware_s{SPLITS}_ns'])} | "
                    f"{us(r['ccsim_ns'])} | {us(r['pred_ccsim_ns'])} | "
                    f"{'yes' if r['ccsim_bytes'] == r['expected_bytes'] else 'NO'} "
                    f"({r['ccsim_msgs']} msgs, {r['ccsim_bytes']} B) |\n")
    with open(os.path.join(a.work, "sensitivity.md"), "w") as f:
        f.write("| ccsim settings | " + " | ".join(f"{op} {n} ranks {mib} MiB: us (x peer)"
                                                 for op, n, mib in SENSITIVITY_CASES) + " |\n")
        f.write("|---|" + "--:|" * len(SENSITIVITY_CASES) + "\n")
        cells = {}
        for op, n, mib in SENSITIVITY_CASES:
            r = next((r for r in rows if (r["op"], r["ranks"], r["MiB"]) == (op, n, mib)), None)
            if r is None:
                continue
            d = os.path.join(et_dir, op, f"{n}npus_{mib}MB")
            case = os.path.join(a.work, "runs", f"{op}-{n}-{mib}")
            for i, (label, scheme, sets) in enumerate(SENSITIVITY):
                extra = [x for kv in sets for x in ("--set", kv)]
                t, _, _ = ccsim(a.ccsim, case, d, n, extra, f"sens{i}", scheme)
                cells[(label, op)] = f"{t / 1e3:.2f} (x{t / r['peer_ns']:.3f})"
        for label, _, _ in SENSITIVITY:
            f.write(f"| {label} | " + " | ".join(cells.get((label, op), "-") for op, _, _ in SENSITIVITY_CASES) + " |\n")
    print(f"wrote {a.work}/results.csv, results.md and sensitivity.md")


if __name__ == "__main__":
    main()
