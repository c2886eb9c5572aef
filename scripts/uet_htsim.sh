#!/usr/bin/env bash
# ccsim beside uet-htsim (the UEC's reference simulator) on the inputs of
# uet-htsim's own validation runs (github.com/ultraethernet/uet-htsim at
# 40ccb05, htsim/sim/datacenter/validate_*.txt and validate_outputs/*.out):
# runs ccsim's mirrors of those runs (experiments/uet/) with uet-htsim's
# settings and prints a Markdown table of the tail FCT and the data packets
# resent, beside the numbers uet-htsim's outputs record. Issue 37: tail FCT
# within 5% and resends within 15%, or a measured reason.
#
#   scripts/uet_htsim.sh [CCSIM_BINARY]      # ~10 min of CPU on one core
#
# uet-htsim's side is its recorded output, not a fresh run of it;
# scripts/uet_htsim_live.py runs both simulators on new inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/ccsim}
[ -x "$bin" ] || { echo "no ccsim binary at $bin (cargo build --release, or pass one)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# case | scenario | scheme | --set overrides (space-separated) | uet-htsim tail us | uet-htsim Rtx | its output file and experiment
cases=(
"15:1 incast, NSCC|htsim-incast15|nscc||2478.53|811|validate_uec_sender.out: Small 16 node incast"
"15:1 incast, NSCC+RCCC|htsim-incast15|nscc_rccc||2462.92|758|validate_uec_both.out: Small 16 node incast"
"15:1 incast, RCCC|htsim-incast15|rccc||2464.44|762|validate_uec_rcv.out: Small 16 node incast"
"127:1 incast, NSCC|htsim-incast127|nscc||21029.3|72623|validate_uec_sender.out: 128 node incast"
"127:1 incast, NSCC+RCCC|htsim-incast127|nscc_rccc||20892.4|6226|validate_uec_both.out: 128 node incast"
"127:1 incast, RCCC|htsim-incast127|rccc||20891.4|6218|validate_uec_rcv.out: 128 node incast"
"1024 permutation, REPS, an ACK per packet|perm1024-trim|nscc_reps|network.ack_every=1|198.246|0|validate_load_balancing_snd.out: Large permutation, REPS, 1SACK/packet"
"1024 permutation, REPS, an ACK per 4 packets|perm1024-trim|nscc_reps|network.ack_every=4|208.239|44|validate_load_balancing_snd.out: Large permutation, REPS, 4SACK/packet"
"1024 permutation, oblivious|perm1024-trim|nscc_oblivious|network.ack_every=4|212.794|628|validate_load_balancing_snd.out: Large permutation, oblivious"
"1024 permutation, bitmap|perm1024-trim|nscc_bitmap|network.ack_every=4|200.507|1|validate_load_balancing_snd.out: Large permutation, bitmap"
"1024 permutation, MIXED, an ACK per packet|perm1024-trim|nscc_mixed|network.ack_every=1|193.184|0|validate_load_balancing_snd.out: Large permutation, mixed (bitmap+REPS), 1SACK/packet"
"1024 permutation, MIXED, an ACK per 4 packets|perm1024-trim|nscc_mixed|network.ack_every=4|200.507|0|validate_load_balancing_snd.out: Large permutation, mixed, 4SACK/packet"
"1024 permutation, one path (ECMP)|perm1024-trim|nscc|network.ack_every=4|889.92|25621|validate_uec_sender.out: Large permutation (1024 nodes), single path"
"1024 permutation, degraded core, REPS, an ACK per packet|degraded1024-trim|nscc_reps|network.ack_every=1|206.684|298|validate_load_balancing_failed_snd.out: Large permutation, REPS, 1SACK/packet"
"1024 permutation, degraded core, bitmap|degraded1024-trim|nscc_bitmap|network.ack_every=4|220.269|656|validate_load_balancing_failed_snd.out: Large permutation, bitmap"
"1024 permutation, degraded core, MIXED, an ACK per packet|degraded1024-trim|nscc_mixed|network.ack_every=1|211.821|246|validate_load_balancing_failed_snd.out: Large permutation, mixed (bitmap+REPS), 1SACK/packet"
"1024 permutation, degraded core, MIXED, an ACK per 4 packets|degraded1024-trim|nscc_mixed|network.ack_every=4|219.554|598|validate_load_balancing_failed_snd.out: Large permutation, mixed, 4SACK/packet"
"1024 permutation, degraded core, oblivious|degraded1024-trim|nscc_oblivious|network.ack_every=4|280.775|2958|validate_load_balancing_failed_snd.out: Large permutation, oblivious"
)

echo "| Case | ccsim tail FCT (us) | uet-htsim | Change | ccsim resent | uet-htsim Rtx | Change | ccsim timeouts | uet-htsim output |"
echo "|---|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
    IFS='|' read -r name scn scheme sets tail rtx src <<<"$c"
    args=()
    for s in $sets; do args+=(--set "$s"); done
    out="$work/$scn-$scheme-${sets//[^a-z0-9]/_}"
    "$bin" run "experiments/uet/$scn.toml" --scheme "$scheme" "${args[@]}" --out "$out" --force --quiet >"$out.log" 2>&1 \
        || { echo "| $name | failed: $(grep -m1 error "$out.log") |"; continue; }
    flows=$(find "$out" -name flows.csv | head -1)
    python3 - "$flows" "$name" "$tail" "$rtx" "$src" <<'PY'
import csv, sys
path, name, tail, rtx, src = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
fct = max(float(r["fct_us"]) for r in rows if r["fct_us"])
done = sum(1 for r in rows if r["fct_us"])
resent = sum(int(r["retransmits"] or 0) for r in rows)
timeouts = sum(int(r["timeouts"] or 0) for r in rows)
t, x = float(tail), int(rtx)
dt = f"{(fct / t - 1) * 100:+.1f}%"
dx = f"{(resent / x - 1) * 100:+.1f}%" if x else ("0" if resent == 0 else "n/a")
unfinished = "" if done == len(rows) else f" ({len(rows) - done} unfinished)"
print(f"| {name} | {fct:.1f}{unfinished} | {t:g} | {dt} | {resent:,} | {x:,} | {dx} | {timeouts} | {src} |")
PY
done
