//! Importers for the input files of the HPCC ns-3 simulator
//! (alibaba-edu/High-Precision-Congestion-Control), so its reference
//! benchmarks can be run unchanged:
//!
//! * topology: first line "nodes switches links", second line the switch ids,
//!   then one "a b rate delay error_rate" line per link (rate like "100Gbps",
//!   delay like "1000ns" or "0.001ms"); every node not listed as a switch is a
//!   host. Node ids are kept as in the file (hosts need not come first).
//! * flows (`traffic_gen.py` output): first line the count N, then N lines
//!   "src dst pg dport size start_seconds".
//!
//! Blank lines are skipped. Errors read "path:line: message".

use ccsim_core::flow::FlowSpec;
use ccsim_core::time::{Time, SEC};
use ccsim_core::topology::{LinkSpec, NodeKind, Topology};
use ccsim_core::units::{parse_dur, parse_rate, MAX_BYTES, MAX_DURATION};

use crate::spec::MAX_FLOWS;
use crate::topo::{MAX_LINKS, MAX_NODES};
use std::path::Path;

/// Non-blank lines with their 1-based line numbers and whitespace-split fields.
fn fields(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, f)| !f.is_empty())
}

fn read(path: &Path, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read {what} file: {e}", path.display()))
}

fn int<T: std::str::FromStr>(s: &str, what: &str, at: &str) -> Result<T, String> {
    s.parse::<T>().map_err(|_| format!("{at}: {what} '{s}' is not a valid non-negative integer"))
}

/// Reads an HPCC ns-3 topology file. Links with a non-zero error_rate are
/// refused (ccsim links do not drop packets at random). The result is checked
/// with [`Topology::validate`]; it is named after the file.
pub fn read_topology(path: &Path) -> Result<Topology, String> {
    let disp = path.display().to_string();
    let text = read(path, "topology")?;
    let mut it = fields(&text);
    let (ln, head) = it.next().ok_or_else(|| format!("{disp}: empty topology file"))?;
    let at = format!("{disp}:{ln}");
    if head.len() != 3 {
        return Err(format!("{at}: expected \"nodes switches links\" (3 numbers), found {} fields", head.len()));
    }
    let n_nodes: u32 = int(head[0], "node count", &at)?;
    let n_sw: u32 = int(head[1], "switch count", &at)?;
    let n_links: usize = int(head[2], "link count", &at)?;
    if n_nodes as u64 > MAX_NODES {
        return Err(format!("{at}: node count {n_nodes} is too large (at most {MAX_NODES})"));
    }
    if n_links as u64 > MAX_LINKS {
        return Err(format!("{at}: link count {n_links} is too large (at most {MAX_LINKS})"));
    }
    if n_sw > n_nodes {
        return Err(format!("{at}: {n_sw} switches but only {n_nodes} nodes"));
    }
    let mut nodes = vec![NodeKind::Host; n_nodes as usize];
    if n_sw > 0 {
        let (ln, ids) = it.next().ok_or_else(|| format!("{disp}: missing the line of switch ids after line {ln}"))?;
        let at = format!("{disp}:{ln}");
        if ids.len() != n_sw as usize {
            return Err(format!("{at}: expected {n_sw} switch ids (line 1 says {n_sw} switches), found {}", ids.len()));
        }
        for s in ids {
            let id: u32 = int(s, "switch id", &at)?;
            if id >= n_nodes {
                return Err(format!(
                    "{at}: switch id {id} is out of range (node ids are 0 to {})",
                    n_nodes.saturating_sub(1)
                ));
            }
            if nodes[id as usize] == NodeKind::Switch {
                return Err(format!("{at}: switch id {id} is listed twice"));
            }
            nodes[id as usize] = NodeKind::Switch;
        }
    }
    // the header is not trusted for allocation: lines are counted as read
    let mut links = Vec::with_capacity(n_links.min(1 << 16));
    for (ln, f) in it {
        let at = format!("{disp}:{ln}");
        if links.len() == n_links {
            return Err(format!("{at}: more link lines than the {n_links} announced on the first line"));
        }
        if f.len() != 5 {
            return Err(format!("{at}: expected \"a b rate delay error_rate\" (5 fields), found {}", f.len()));
        }
        let a: u32 = int(f[0], "node id", &at)?;
        let b: u32 = int(f[1], "node id", &at)?;
        for x in [a, b] {
            if x >= n_nodes {
                return Err(format!(
                    "{at}: node id {x} is out of range (node ids are 0 to {})",
                    n_nodes.saturating_sub(1)
                ));
            }
        }
        let rate_bps = parse_rate(f[2]).map_err(|e| format!("{at}: {e}"))?;
        let delay = parse_dur(f[3]).map_err(|e| format!("{at}: {e}"))?;
        let err: f64 = f[4].parse().map_err(|_| format!("{at}: error_rate '{}' is not a number", f[4]))?;
        if err != 0.0 {
            return Err(format!(
                "{at}: error_rate {} is not supported (ccsim links do not drop packets at random); use 0",
                f[4]
            ));
        }
        links.push(LinkSpec { a, b, rate_bps, delay, back: None });
    }
    if links.len() != n_links {
        return Err(format!("{disp}: the first line announces {n_links} links but the file has {}", links.len()));
    }
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| disp.clone());
    let topo = Topology { nodes, links, name };
    topo.validate().map_err(|e| format!("{disp}: {e}"))?;
    Ok(topo)
}

/// Parses a non-negative decimal number of seconds ("2.000000762") into
/// picoseconds exactly, from the digits (no floating point). Digits beyond
/// the 12th decimal are rounded half up.
pub fn parse_seconds_ps(s: &str) -> Result<Time, String> {
    let err = || format!("start time '{s}' is not a non-negative decimal number of seconds");
    let (ip, fp) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if (ip.is_empty() && fp.is_empty())
        || !ip.bytes().all(|c| c.is_ascii_digit())
        || !fp.bytes().all(|c| c.is_ascii_digit())
    {
        return Err(err());
    }
    let whole: u64 = if ip.is_empty() { 0 } else { ip.parse().map_err(|_| err())? };
    let mut frac: u64 = 0;
    for i in 0..12 {
        frac = frac * 10 + fp.as_bytes().get(i).map_or(0, |c| (c - b'0') as u64);
    }
    if fp.len() > 12 && fp.as_bytes()[12] >= b'5' {
        frac += 1;
    }
    whole
        .checked_mul(SEC)
        .and_then(|w| w.checked_add(frac))
        .ok_or_else(|| format!("start time '{s}' is too large (at most about 213 days)"))
}

/// Reads an HPCC ns-3 flow file (`traffic_gen.py` output). Flows keep the
/// file's order and get ids 0..N in that order. `pg` (priority group) and
/// `dport` are checked to be integers and then ignored: every flow gets prio 0,
/// since the reference runs put all flows in one data class (pg 3). Sizes and
/// host ids are not checked against a topology here.
pub fn read_flows(path: &Path) -> Result<Vec<FlowSpec>, String> {
    let disp = path.display().to_string();
    let text = read(path, "flow")?;
    let mut it = fields(&text);
    let (ln, head) = it.next().ok_or_else(|| format!("{disp}: empty flow file"))?;
    let at = format!("{disp}:{ln}");
    if head.len() != 1 {
        return Err(format!("{at}: expected the flow count alone on the first line, found {} fields", head.len()));
    }
    let n: usize = int(head[0], "flow count", &at)?;
    if n > MAX_FLOWS {
        return Err(format!("{at}: flow count {n} is too large (at most {MAX_FLOWS})"));
    }
    let mut flows = Vec::with_capacity(n.min(1 << 16));
    for (ln, f) in it {
        let at = format!("{disp}:{ln}");
        if flows.len() == n {
            return Err(format!("{at}: more flow lines than the count {n} on the first line"));
        }
        if f.len() != 6 {
            return Err(format!(
                "{at}: expected \"src dst pg dport size start_seconds\" (6 fields), found {}",
                f.len()
            ));
        }
        let src: u32 = int(f[0], "src", &at)?;
        let dst: u32 = int(f[1], "dst", &at)?;
        let _pg: u32 = int(f[2], "pg", &at)?;
        let _dport: u32 = int(f[3], "dport", &at)?;
        let size: u64 = int(f[4], "size", &at)?;
        if size > MAX_BYTES {
            return Err(format!("{at}: size {size} is too large (at most {MAX_BYTES} bytes)"));
        }
        let start = parse_seconds_ps(f[5]).map_err(|e| format!("{at}: {e}"))?;
        if start > MAX_DURATION {
            return Err(format!("{at}: start time {} s is too large (at most 1000000 s)", f[5]));
        }
        flows.push(FlowSpec { id: flows.len() as u32, src, dst, size, start, prio: 0 });
    }
    if flows.len() != n {
        return Err(format!("{disp}: the first line says {n} flows but the file has {}", flows.len()));
    }
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_core::time::{MS, NS, US};
    use std::path::PathBuf;

    pub(crate) fn bench_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench")
    }

    #[test]
    fn exact_decimal_seconds() {
        assert_eq!(parse_seconds_ps("2.000000762").unwrap(), 2_000_000_762_000);
        assert_eq!(parse_seconds_ps("2").unwrap(), 2 * SEC);
        assert_eq!(parse_seconds_ps("0.1").unwrap(), 100_000_000_000);
        assert_eq!(parse_seconds_ps(".5").unwrap(), SEC / 2);
        assert_eq!(parse_seconds_ps("3.").unwrap(), 3 * SEC);
        assert_eq!(parse_seconds_ps("0.000000000001").unwrap(), 1);
        assert_eq!(parse_seconds_ps("0.0000000000015").unwrap(), 2);
        assert_eq!(parse_seconds_ps("0.0000000000014").unwrap(), 1);
        // a value f64 cannot hold exactly
        assert_eq!(parse_seconds_ps("12345.678901234567").unwrap(), 12_345_678_901_234_567);
        for bad in ["", ".", "-1", "1e-3", "2.0.1", "abc", "1,5"] {
            assert!(parse_seconds_ps(bad).unwrap_err().contains(&format!("'{bad}'")), "{bad}");
        }
        assert!(parse_seconds_ps("99999999999999").unwrap_err().contains("too large"));
    }

    #[test]
    fn reads_small_topology_with_ids_in_file_order() {
        let td = crate::testutil::TempDir::new("hpcc");
        let p =
            td.file("t.txt", "4 2 3\n0 3\n1 0 100Gbps 1000ns 0\n2 3 25Gbps 0.001ms 0.000000\n0 3 400Gbps 2us 0\n\n");
        let t = read_topology(&p).unwrap();
        assert_eq!(t.nodes, vec![NodeKind::Switch, NodeKind::Host, NodeKind::Host, NodeKind::Switch]);
        assert_eq!(t.links[0], LinkSpec { a: 1, b: 0, rate_bps: 100_000_000_000, delay: US, back: None });
        assert_eq!(t.links[1], LinkSpec { a: 2, b: 3, rate_bps: 25_000_000_000, delay: US, back: None });
        assert_eq!(t.links[2].delay, 2 * US);
        assert_eq!(t.name, "t.txt");
    }

    #[test]
    fn bad_topologies_refused_with_line() {
        let td = crate::testutil::TempDir::new("hpcc");
        let cases: &[(&str, &str, &str)] = &[
            ("4 2\n", ":1:", "3 numbers"),
            ("4 2 3\n0 x\n", ":2:", "switch id 'x'"),
            ("4 2 3\n0\n", ":2:", "expected 2 switch ids"),
            ("4 2 1\n0 9\n", ":2:", "switch id 9 is out of range"),
            ("4 2 1\n0 0\n", ":2:", "listed twice"),
            ("4 2 1\n0 3\n1 0 100Gbps 1us\n", ":3:", "5 fields"),
            ("4 2 1\n0 3\n1 7 100Gbps 1us 0\n", ":3:", "node id 7 is out of range"),
            ("4 2 1\n0 3\n1 0 fast 1us 0\n", ":3:", "invalid rate 'fast'"),
            ("4 2 1\n0 3\n1 0 100Gbps 1 0\n", ":3:", "invalid duration '1'"),
            ("4 2 1\n0 3\n1 0 100Gbps 1us 0.01\n", ":3:", "error_rate 0.01 is not supported"),
            ("4 2 1\n0 3\n1 0 100Gbps 1us 0\n2 3 100Gbps 1us 0\n", ":4:", "more link lines"),
            ("4 2 3\n0 3\n1 0 100Gbps 1us 0\n", "", "announces 3 links but the file has 1"),
            ("4 2 2\n0 3\n1 0 100Gbps 1us 0\n2 3 100Gbps 1us 0\n", "", "not connected"),
        ];
        for (i, (text, line, msg)) in cases.iter().enumerate() {
            let p = td.file(&format!("bad{i}.txt"), text);
            let e = read_topology(&p).unwrap_err();
            assert!(e.contains(&format!("bad{i}.txt{line}")) && e.contains(msg), "case {i}: {e}");
        }
    }

    #[test]
    fn reads_small_flow_file() {
        let td = crate::testutil::TempDir::new("hpcc");
        let p = td.file("f.txt", "3 \n1 2 3 100 5000 2.000000762\n2 1 3 100 1 2.5\n0 1 0 80 70 0.000001\n");
        let f = read_flows(&p).unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(f[0], FlowSpec { id: 0, src: 1, dst: 2, size: 5000, start: 2_000_000_762_000, prio: 0 });
        assert_eq!(f[1].start, 2 * SEC + 500 * MS);
        assert_eq!(f[2], FlowSpec { id: 2, src: 0, dst: 1, size: 70, start: 1000 * NS, prio: 0 });
    }

    #[test]
    fn bad_flow_files_refused_with_line() {
        let td = crate::testutil::TempDir::new("hpcc");
        let cases: &[(&str, &str, &str)] = &[
            ("x\n", ":1:", "flow count 'x'"),
            ("2 3\n", ":1:", "count alone"),
            ("2\n1 2 3 100 5 1.0\n", "", "says 2 flows but the file has 1"),
            ("1\n1 2 3 100 5 1.0\n2 1 3 100 5 1.0\n", ":3:", "more flow lines"),
            ("1\n1 2 3 100 5\n", ":2:", "6 fields"),
            ("1\n1 -2 3 100 5 1.0\n", ":2:", "dst '-2'"),
            ("1\n1 2 3 100 5.5 1.0\n", ":2:", "size '5.5'"),
            ("1\n\n1 2 3 100 5 1e-3\n", ":3:", "start time '1e-3'"),
            ("", "", "empty flow file"),
        ];
        for (i, (text, line, msg)) in cases.iter().enumerate() {
            let p = td.file(&format!("badf{i}.txt"), text);
            let e = read_flows(&p).unwrap_err();
            assert!(e.contains(&format!("badf{i}.txt{line}")) && e.contains(msg), "case {i}: {e}");
        }
    }

    #[test]
    fn reads_reference_fat320_topology() {
        let p = bench_dir().join("fat320.topology.txt");
        if !p.exists() {
            println!("note: {} absent, test skipped", p.display());
            return;
        }
        let t = read_topology(&p).unwrap();
        assert_eq!(t.nodes.len(), 376);
        assert_eq!(t.hosts(), (0..320).collect::<Vec<u32>>());
        assert_eq!(t.switches(), (320..376).collect::<Vec<u32>>());
        assert_eq!(t.links.len(), 480);
        assert_eq!(t.links.iter().filter(|l| l.rate_bps == 100_000_000_000).count(), 320);
        assert_eq!(t.links.iter().filter(|l| l.rate_bps == 400_000_000_000).count(), 160);
        assert!(t.links.iter().all(|l| l.delay == US));
    }

    #[test]
    fn reads_reference_websearch_flows() {
        let p = bench_dir().join("websearch-load30-10ms.flows.txt");
        if !p.exists() {
            println!("note: {} absent, test skipped", p.display());
            return;
        }
        let f = read_flows(&p).unwrap();
        assert_eq!(f.len(), 6878);
        assert_eq!(f[0], FlowSpec { id: 0, src: 107, dst: 295, size: 4_413_916, start: 2_000_000_762_000, prio: 0 });
        assert_eq!(f[6877].start, 2_009_940_652_000);
        assert!(f.iter().all(|x| x.src < 320 && x.dst < 320 && x.src != x.dst && x.size >= 1));
        assert!(f.iter().all(|x| x.start >= 2 * SEC && x.start < 2 * SEC + 10 * MS));
        assert!(f.windows(2).all(|w| w[0].start <= w[1].start));
        // the file is 30% load of 320 x 100 Gbps over 10 ms with the websearch
        // table: expected bytes 0.3 * 320 * 100e9 / 8 * 0.01 = 1.2e9 (the
        // standard error of the total at 6878 flows is about 3%)
        let bytes: u64 = f.iter().map(|x| x.size).sum();
        let expect = 0.3 * 320.0 * 100e9 / 8.0 * 0.01;
        assert!((bytes as f64 / expect - 1.0).abs() < 0.12, "{bytes} vs {expect}");
    }
}
