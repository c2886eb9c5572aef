//! MLCommons Chakra execution traces (ET) as workloads (`kind = "chakra"`):
//! one protobuf file per rank, read into a [`crate::dag::Trace`] and lowered
//! as ccsim's own DAG traces are (see [`crate::dag`] and docs/TRACES.md).
//!
//! Schema: `schema/protobuf/et_def.proto` of the mlcommons/chakra
//! repository (node attributes as `AttributeProto`: a name and a oneof
//! value). Its tools write that one schema under three version strings, all
//! read: `GlobalMetadata.version = "0.0.4"` (ASTRA-sim's generator scripts,
//! examples/workload/microbenchmarks/generator_scripts/*.py:43, and Chakra's
//! generator before its commit 34f95f9), "1.0.0" (Chakra's generator since,
//! src/generator/generator.py:69) and none (Chakra's PyTorch and text
//! converters, which put a `schema` attribute in the metadata instead:
//! src/converter/pytorch_converter.py:92-98, text_converter.py:63-72).
//! Neither ASTRA-sim nor Chakra's feeders check the version.
//! A file is a stream of messages, each preceded by its length as a varint:
//! one `GlobalMetadata`, then `Node`s. Only the fields ccsim uses are
//! declared below (prost skips the others).
//!
//! Mapping: `COMP_NODE` -> a compute task of `duration_micros`;
//! `COMM_SEND_NODE` / `COMM_RECV_NODE` -> matched into messages by
//! (`comm_src`, `comm_dst`, `comm_tag`) in file order, `comm_size` bytes,
//! each sent as soon as its send node's dependencies are done, as ASTRA-sim
//! issues it (`Trace::eager_sends`);
//! `COMM_COLL_NODE` -> the collective over all ranks (`comm_type` ALL_REDUCE
//! -> ring all-reduce, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL), its
//! `comm_size` read as ASTRA-sim's system layer reads it: the buffer each
//! rank reduces or exchanges, and for ALL_GATHER each rank's input, so the
//! gathered output is n x `comm_size` (astra-sim Ring.cc:42-88: N-1 steps of
//! `comm_size` each); a `COMM_COLL_NODE` without `comm_type` marked
//! `is_cpu_op` (PyTorch's CPU-side `c10d::` records, beside the GPU
//! collective they launch) -> a zero-length task; every other node type -> a
//! zero-length task. `data_deps` are dependencies, and `ctrl_deps` but those
//! `add_ctrl_deps` drops (on missing nodes, the node itself, or closing a
//! cycle), which the trace's notes count.

use std::path::{Path, PathBuf};

use crate::collective::Op;
use crate::dag::{Kind, Node as DagNode, Trace};
use crate::spec::MAX_FLOWS;
use ccsim_core::time::{Time, US};
use ccsim_core::units::{thousands, MAX_BYTES};
use serde::{Deserialize, Serialize};

/// The `path` of a `chakra` workload: a folder of `<prefix>.<rank>.et`
/// files, or the files themselves, rank by rank.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum TracePath {
    One(PathBuf),
    Many(Vec<PathBuf>),
}

/// `GlobalMetadata` (et_def.proto): the first message of a file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GlobalMetadata {
    #[prost(string, tag = "1")]
    pub version: String,
    #[prost(message, repeated, tag = "2")]
    pub attr: Vec<AttributeProto>,
}

/// `AttributeProto` (et_def.proto), with the scalar values ccsim reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub doc_string: String,
    #[prost(oneof = "AttrValue", tags = "7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29")]
    pub value: Option<AttrValue>,
}

/// The scalar members of `AttributeProto.value` (the list and floating-point
/// members are skipped when read).
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum AttrValue {
    #[prost(int32, tag = "7")]
    Int32(i32),
    #[prost(int64, tag = "9")]
    Int64(i64),
    #[prost(uint32, tag = "11")]
    Uint32(u32),
    #[prost(uint64, tag = "13")]
    Uint64(u64),
    #[prost(sint32, tag = "15")]
    Sint32(i32),
    #[prost(sint64, tag = "17")]
    Sint64(i64),
    #[prost(fixed32, tag = "19")]
    Fixed32(u32),
    #[prost(fixed64, tag = "21")]
    Fixed64(u64),
    #[prost(sfixed32, tag = "23")]
    Sfixed32(i32),
    #[prost(sfixed64, tag = "25")]
    Sfixed64(i64),
    #[prost(bool, tag = "27")]
    Bool(bool),
    #[prost(string, tag = "29")]
    Str(String),
}

/// `Node` (et_def.proto), the fields ccsim reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Node {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(string, tag = "2")]
    pub name: String,
    /// A `NodeType` value (see [`node_type`]).
    #[prost(int32, tag = "3")]
    pub r#type: i32,
    #[prost(uint64, repeated, tag = "4")]
    pub ctrl_deps: Vec<u64>,
    #[prost(uint64, repeated, tag = "5")]
    pub data_deps: Vec<u64>,
    #[prost(uint64, tag = "6")]
    pub start_time_micros: u64,
    #[prost(uint64, tag = "7")]
    pub duration_micros: u64,
    #[prost(message, repeated, tag = "10")]
    pub attr: Vec<AttributeProto>,
}

/// `NodeType` values.
pub mod node_type {
    pub const INVALID: i32 = 0;
    pub const METADATA: i32 = 1;
    pub const MEM_LOAD: i32 = 2;
    pub const MEM_STORE: i32 = 3;
    pub const COMP: i32 = 4;
    pub const COMM_SEND: i32 = 5;
    pub const COMM_RECV: i32 = 6;
    pub const COMM_COLL: i32 = 7;
}

/// `CollectiveCommType` values and names.
pub const COLLECTIVES: [&str; 10] = [
    "ALL_REDUCE",
    "REDUCE",
    "ALL_GATHER",
    "GATHER",
    "SCATTER",
    "BROADCAST",
    "ALL_TO_ALL",
    "REDUCE_SCATTER",
    "REDUCE_SCATTER_BLOCK",
    "BARRIER",
];

/// The oldest `GlobalMetadata.version` "0.0.N" read (the `AttributeProto` schema).
pub const MIN_VERSION: u32 = 4;

/// The major version of the "N.x.y" versions read (the same schema as 0.0.4).
pub const MAJOR_VERSION: u32 = 1;

impl AttributeProto {
    /// An integer attribute (tests and tools writing traces).
    pub fn int(name: &str, v: i64) -> Self {
        AttributeProto { name: name.into(), doc_string: String::new(), value: Some(AttrValue::Int64(v)) }
    }
}

/// The rank files of `p` (relative to `base`), rank by rank.
pub fn rank_files(w: &str, p: &TracePath, base: &Path) -> Result<Vec<PathBuf>, String> {
    let list = match p {
        TracePath::Many(v) => {
            if v.is_empty() {
                return Err(format!("{w}.path: empty list (one .et file per rank)"));
            }
            return Ok(v.iter().map(|f| base.join(f)).collect());
        }
        TracePath::One(f) => base.join(f),
    };
    if !list.is_dir() {
        if list.is_file() {
            return Ok(vec![list]);
        }
        return Err(format!("{w}.path: {}: no such folder or file", list.display()));
    }
    let dir = std::fs::read_dir(&list).map_err(|e| format!("{w}.path: {}: cannot read: {e}", list.display()))?;
    let mut found: Vec<(u64, String, PathBuf)> = Vec::new();
    for e in dir {
        let e = e.map_err(|e| format!("{w}.path: {}: cannot read: {e}", list.display()))?;
        let name = e.file_name().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".et") else { continue };
        let rank = stem.rsplit_once('.').and_then(|(prefix, r)| Some((prefix.to_string(), r.parse::<u64>().ok()?)));
        let Some((prefix, rank)) = rank else {
            return Err(format!("{w}.path: {}: file {name}: expected <prefix>.<rank>.et", list.display()));
        };
        found.push((rank, prefix, e.path()));
    }
    if found.is_empty() {
        return Err(format!("{w}.path: {}: no <prefix>.<rank>.et files", list.display()));
    }
    found.sort();
    for (i, (rank, prefix, f)) in found.iter().enumerate() {
        if *prefix != found[0].1 {
            return Err(format!(
                "{w}.path: {}: two traces in one folder ({} and {}): keep one, or list the files",
                list.display(),
                found[0].2.display(),
                f.display()
            ));
        }
        if *rank != i as u64 {
            let what = if *rank < i as u64 { "twice" } else { "missing" };
            return Err(format!(
                "{w}.path: {}: rank {} {what} among the {} files {}.<rank>.et (ranks must be 0..{})",
                list.display(),
                if *rank < i as u64 { *rank } else { i as u64 },
                found.len(),
                prefix,
                found.len() - 1
            ));
        }
    }
    Ok(found.into_iter().map(|x| x.2).collect())
}

/// The messages of one ET file: its metadata and its nodes.
pub fn decode(bytes: &[u8], label: &str) -> Result<(GlobalMetadata, Vec<Node>), String> {
    use prost::Message;
    let mut pos = 0usize;
    let mut meta = None;
    let mut nodes = Vec::new();
    while pos < bytes.len() {
        let k = nodes.len() + usize::from(meta.is_some());
        let what =
            if meta.is_none() { "GlobalMetadata".to_string() } else { format!("node {} (message {k})", nodes.len()) };
        let mut buf = &bytes[pos..];
        let len = prost::decode_length_delimiter(&mut buf)
            .map_err(|e| format!("{label}: byte {pos}: {what}: bad length prefix ({e})"))?;
        let head = bytes.len() - pos - buf.len();
        if len > buf.len() {
            return Err(format!(
                "{label}: byte {pos}: {what}: truncated file ({len} bytes announced, {} left)",
                buf.len()
            ));
        }
        let body = &buf[..len];
        if meta.is_none() {
            let m = GlobalMetadata::decode(body).map_err(|e| format!("{label}: byte {pos}: {what}: {e}"))?;
            meta = Some(m);
        } else {
            if nodes.len() >= MAX_FLOWS {
                return Err(format!("{label}: more than {MAX_FLOWS} nodes"));
            }
            nodes.push(Node::decode(body).map_err(|e| format!("{label}: byte {pos}: {what}: {e}"))?);
        }
        pos += head + len;
    }
    let meta = meta.ok_or_else(|| format!("{label}: empty file (expected a GlobalMetadata, then nodes)"))?;
    Ok((meta, nodes))
}

/// Checks a schema version: none (the converters), "0.0.N" with N >=
/// [`MIN_VERSION`], or "1.x.y" (the generator since 2026).
fn check_version(v: &str, label: &str) -> Result<(), String> {
    let parts: Option<Vec<u32>> = v.split('.').map(|x| x.parse::<u32>().ok()).collect();
    let ok = match parts.as_deref() {
        _ if v.is_empty() => true,
        Some([0, 0, n]) => *n >= MIN_VERSION,
        Some([m, _, _]) => *m == MAJOR_VERSION,
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(format!(
        "{label}: GlobalMetadata.version = \"{v}\": not supported (ccsim reads Chakra ET schema 0.0.{MIN_VERSION} \
         and later 0.0.x, {MAJOR_VERSION}.x.y, or no version, whose node attributes are AttributeProto)"
    ))
}

/// A node's string attribute `name`, if present.
fn str_attr<'a>(x: &'a Node, name: &str) -> Option<&'a str> {
    x.attr.iter().find(|a| a.name == name).and_then(|a| match &a.value {
        Some(AttrValue::Str(s)) => Some(s.as_str()),
        _ => None,
    })
}

/// Whether a node's boolean attribute `name` is set.
fn flag(x: &Node, name: &str) -> bool {
    x.attr.iter().any(|a| a.name == name && matches!(a.value, Some(AttrValue::Bool(true))))
}

/// An integer attribute of `x`, if present.
fn int_attr(x: &Node, name: &str, at: &str) -> Result<Option<i128>, String> {
    let Some(a) = x.attr.iter().find(|a| a.name == name) else { return Ok(None) };
    let v = match &a.value {
        Some(AttrValue::Int32(v)) | Some(AttrValue::Sint32(v)) | Some(AttrValue::Sfixed32(v)) => *v as i128,
        Some(AttrValue::Int64(v)) | Some(AttrValue::Sint64(v)) | Some(AttrValue::Sfixed64(v)) => *v as i128,
        Some(AttrValue::Uint32(v)) | Some(AttrValue::Fixed32(v)) => *v as i128,
        Some(AttrValue::Uint64(v)) | Some(AttrValue::Fixed64(v)) => *v as i128,
        _ => return Err(format!("{at}: attribute {name}: not an integer")),
    };
    Ok(Some(v))
}

/// Process groups: ASTRA-sim's communicator-group file
/// (`--comm-group-configuration`, read in astra-sim Workload.cc:82-98): a
/// JSON object from a group id (a positive integer as a string; 0 is the
/// default group of every rank, CommunicatorGroup.cc:41-47) to its member
/// ranks, e.g. `{"1": [0, 1], "2": [2, 3]}`.
#[derive(Default)]
pub struct Groups {
    /// The file as named (for messages); empty without one.
    pub file: String,
    pub members: std::collections::BTreeMap<u32, Vec<u32>>,
}

impl Groups {
    /// Reads and checks `path` for a trace of `n` ranks.
    pub fn read(path: &Path, n: usize) -> Result<Groups, String> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: cannot read: {e}"))?;
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{file}: {e}"))?;
        let members = crate::dag::group_members(&v, n).map_err(|e| format!("{file}: {e}"))?;
        Ok(Groups { file, members })
    }

    /// The number of ranks of group `g` (0: all `n`).
    fn size(&self, g: u32, n: usize) -> usize {
        if g == 0 {
            n
        } else {
            self.members.get(&g).map_or(0, Vec::len)
        }
    }
}

/// The process group of collective node `x` of `rank`: its `pg_name`, read
/// as ASTRA-sim reads it (Workload.cc:589-611): absent, empty or "0" is the
/// default group of every rank; else a group id of the groups file, which
/// must hold `rank`.
fn group_of(x: &Node, rank: usize, groups: &Groups, at: &str) -> Result<u32, String> {
    let Some(name) = str_attr(x, "pg_name").filter(|g| !g.is_empty() && *g != "0") else { return Ok(0) };
    let id = name.parse::<u32>().map_err(|_| {
        format!("{at}: attribute pg_name = \"{name}\": not a group id (ASTRA-sim reads it as an integer)")
    })?;
    if groups.file.is_empty() {
        return Err(format!(
            "{at}: attribute pg_name = \"{name}\": process group {id} needs the workload's `groups` file \
             (ASTRA-sim's --comm-group-configuration: group id -> ranks); without it the collective would run \
             over every rank"
        ));
    }
    let m = groups.members.get(&id).ok_or_else(|| {
        let ids: Vec<String> = groups.members.keys().map(|k| k.to_string()).collect();
        format!("{at}: attribute pg_name = \"{name}\": no group {id} in {} (groups {})", groups.file, ids.join(", "))
    })?;
    if !m.contains(&(rank as u32)) {
        return Err(format!(
            "{at}: attribute pg_name = \"{name}\": group {id} of {} has ranks {m:?}, not rank {rank}",
            groups.file
        ));
    }
    Ok(id)
}

/// Converts one rank's nodes (`n` ranks in all), counting its BROADCASTs
/// (which move no data) in `bcasts`.
fn convert(
    nodes: &[Node],
    rank: usize,
    n: usize,
    groups: &Groups,
    label: &str,
    bcasts: &mut usize,
) -> Result<Vec<DagNode>, String> {
    let mut out = Vec::with_capacity(nodes.len());
    for x in nodes {
        let at = if x.name.is_empty() {
            format!("{label}: rank {rank} node {}", x.id)
        } else {
            format!("{label}: rank {rank} node {} ({})", x.id, x.name)
        };
        let rank_attr = |name: &str, need: &str| -> Result<Option<u32>, String> {
            match int_attr(x, name, &at)? {
                None => Ok(None),
                Some(v) if v >= 0 && (v as u128) < n as u128 => Ok(Some(v as u32)),
                Some(v) => {
                    Err(format!("{at}: attribute {name} = {v}: rank out of range (the trace has {n} ranks){need}"))
                }
            }
        };
        let size = || -> Result<u64, String> {
            match int_attr(x, "comm_size", &at)? {
                None => Err(format!("{at}: attribute comm_size: missing (bytes)")),
                Some(v) if v < 0 => Err(format!("{at}: attribute comm_size = {v}: must not be negative")),
                Some(v) if v > MAX_BYTES as i128 => {
                    Err(format!("{at}: attribute comm_size = {v}: too large (at most {MAX_BYTES} bytes, 10TB)"))
                }
                // a message of 0 bytes (a synchronization) carries 1
                Some(v) => Ok((v as u64).max(1)),
            }
        };
        let tag = || -> Result<u64, String> {
            match int_attr(x, "comm_tag", &at)? {
                None => Ok(0),
                Some(t) if (0..=u64::MAX as i128).contains(&t) => Ok(t as u64),
                Some(t) => Err(format!("{at}: attribute comm_tag = {t}: must be a non-negative integer")),
            }
        };
        let kind = match x.r#type {
            node_type::COMP => {
                let d = x.duration_micros;
                if d > 1_000_000_000_000 {
                    return Err(format!("{at}: duration_micros = {d}: longer than 1000000 s"));
                }
                Kind::Compute(d as Time * US)
            }
            node_type::COMM_SEND => {
                if let Some(s) = rank_attr("comm_src", "")? {
                    if s as usize != rank {
                        return Err(format!("{at}: attribute comm_src = {s}: a send of rank {rank} must come from it"));
                    }
                }
                let peer = rank_attr("comm_dst", "")?
                    .ok_or_else(|| format!("{at}: attribute comm_dst: missing (a send needs the receiving rank)"))?;
                Kind::Send { peer, size: size()?, tag: tag()? }
            }
            node_type::COMM_RECV => {
                if let Some(d) = rank_attr("comm_dst", "")? {
                    if d as usize != rank {
                        return Err(format!("{at}: attribute comm_dst = {d}: a recv of rank {rank} must go to it"));
                    }
                }
                let peer = rank_attr("comm_src", "")?
                    .ok_or_else(|| format!("{at}: attribute comm_src: missing (a recv needs the sending rank)"))?;
                Kind::Recv { peer, size: size()?, tag: tag()? }
            }
            // a CPU-side record of a collective (PyTorch's `c10d::` ops) names
            // no collective: the GPU node beside it does the communication
            node_type::COMM_COLL if flag(x, "is_cpu_op") && int_attr(x, "comm_type", &at)?.is_none() => {
                Kind::Compute(0)
            }
            node_type::COMM_COLL => {
                let t = int_attr(x, "comm_type", &at)?
                    .ok_or_else(|| format!("{at}: attribute comm_type: missing (the collective)"))?;
                let group = group_of(x, rank, groups, &at)?;
                let op = match t {
                    0 => Op::RingAllreduce,
                    2 => Op::Allgather,
                    6 => Op::Alltoall,
                    7 => Op::ReduceScatter,
                    // ASTRA-sim moves no data for a broadcast ("TODO: implement
                    // broadcast"): it takes the node's duration, 1 ns if none
                    // (Workload.cc:371-387); read has a note say so
                    5 => {
                        *bcasts += 1;
                        out.push(DagNode { id: x.id, kind: Kind::Compute(bcast_time(x)), deps: x.data_deps.clone() });
                        continue;
                    }
                    // a barrier: one byte from every member to every other, so
                    // each member goes on when it has heard from all (ASTRA-sim
                    // refuses BARRIER: Workload.cc:388-390)
                    9 => {
                        let size = groups.size(group, n) as u64;
                        out.push(DagNode {
                            id: x.id,
                            kind: Kind::Collective { op: Op::Alltoall, size, group },
                            deps: x.data_deps.clone(),
                        });
                        continue;
                    }
                    _ => {
                        let name =
                            usize::try_from(t).ok().and_then(|i| COLLECTIVES.get(i)).copied().unwrap_or("unknown");
                        return Err(format!(
                            "{at}: attribute comm_type = {t} ({name}): not supported (ccsim models ALL_REDUCE, \
                             ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, BROADCAST as ASTRA-sim does and BARRIER)"
                        ));
                    }
                };
                let size = match op {
                    // ASTRA-sim: each rank's input; ccsim's all-gather: the gathered buffer
                    Op::Allgather => {
                        let (each, ranks) = (size()?, groups.size(group, n) as u64);
                        each.checked_mul(ranks).filter(|&b| b <= MAX_BYTES).ok_or_else(|| {
                            format!(
                                "{at}: attribute comm_size: an all-gather of {each} bytes from each of {ranks} ranks \
                                 is more than {MAX_BYTES} bytes (10TB)"
                            )
                        })?
                    }
                    _ => size()?,
                };
                Kind::Collective { op, size, group }
            }
            // metadata, memory, storage and unknown nodes only order the others
            _ => Kind::Compute(0),
        };
        out.push(DagNode { id: x.id, kind, deps: x.data_deps.clone() });
    }
    Ok(out)
}

/// A BROADCAST node's time in ASTRA-sim: its `duration_micros`, 1 ns if none.
fn bcast_time(x: &Node) -> Time {
    if x.duration_micros == 0 {
        ccsim_core::time::NS
    } else {
        x.duration_micros.min(1_000_000_000_000) as Time * US
    }
}

/// `ctrl_deps` a rank's nodes keep and those dropped.
#[derive(Default)]
struct CtrlDeps {
    total: u64,
    missing: u64,
    own: u64,
    cyclic: u64,
}

/// Adds each node's `ctrl_deps` to its dependencies (`out`, the rank's
/// converted nodes, in the same order as `nodes`), but those on a node the
/// rank does not have, on the node itself, or that would close a cycle of
/// the rank's dependencies (its `data_deps`, and the `ctrl_deps` kept before
/// it: first those on earlier nodes of the file, in file order, then those
/// on later ones): Chakra's reference feeder follows only `data_deps`
/// (src/feeder/et_feeder.cpp:68-121), PyTorch's converter puts the
/// caller-callee relation in `ctrl_deps` (pytorch_converter.py:298-299), and
/// traces written by it carry ids that do not exist and self-dependencies.
fn add_ctrl_deps(nodes: &[Node], out: &mut [DagNode], c: &mut CtrlDeps) {
    let index: std::collections::HashMap<u64, usize> = nodes.iter().enumerate().map(|(i, x)| (x.id, i)).collect();
    // per node: (index of the node it waits for, whether through ctrl_deps)
    let mut edges: Vec<Vec<(usize, bool)>> = vec![Vec::new(); nodes.len()];
    for (i, x) in nodes.iter().enumerate() {
        edges[i].extend(x.data_deps.iter().filter_map(|d| index.get(d)).map(|&j| (j, false)));
        for d in &x.ctrl_deps {
            c.total += 1;
            match index.get(d) {
                None => c.missing += 1,
                Some(&j) if j == i => c.own += 1,
                Some(&j) => edges[i].push((j, true)),
            }
        }
    }
    let comp = components(&edges);
    let mut size = vec![0u32; nodes.len()];
    comp.iter().for_each(|&k| size[k] += 1);
    let cyclic = |i: usize, j: usize| comp[i] == comp[j] && size[comp[i]] > 1;
    // what each node waits for: every data_dep and the ctrl_deps outside cycles
    let mut kept: Vec<Vec<usize>> = edges
        .iter()
        .enumerate()
        .map(|(i, e)| e.iter().filter(|x| !x.1 || !cyclic(i, x.0)).map(|x| x.0).collect())
        .collect();
    // a ctrl_dep inside a cycle is kept unless it closes one with those kept
    // before it: first those on an earlier node of the file, then those on
    // a later one, each pass in file order
    for backward in [true, false] {
        for (i, e) in edges.iter().enumerate() {
            for &(j, _) in e.iter().filter(|x| x.1 && (x.0 < i) == backward) {
                if !cyclic(i, j) {
                    out[i].deps.push(nodes[j].id);
                } else if waits_for(&kept, j, i, &comp) {
                    c.cyclic += 1;
                } else {
                    kept[i].push(j);
                    out[i].deps.push(nodes[j].id);
                }
            }
        }
    }
}

/// Whether `from` waits, directly or not, for `to` in `kept` (a search
/// inside their strongly connected component, where any such path lies).
fn waits_for(kept: &[Vec<usize>], from: usize, to: usize, comp: &[usize]) -> bool {
    let mut seen = std::collections::HashSet::from([from]);
    let mut todo = vec![from];
    while let Some(v) = todo.pop() {
        if v == to {
            return true;
        }
        for &w in &kept[v] {
            if comp[w] == comp[to] && seen.insert(w) {
                todo.push(w);
            }
        }
    }
    false
}

/// The strongly connected component of each vertex of `edges` (Tarjan's
/// algorithm, iterative): vertices on a common cycle share one.
fn components(edges: &[Vec<(usize, bool)>]) -> Vec<usize> {
    let n = edges.len();
    let (mut index, mut low, mut comp) = (vec![usize::MAX; n], vec![0; n], vec![usize::MAX; n]);
    let (mut on_stack, mut stack, mut next, mut count) = (vec![false; n], Vec::new(), 0, 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            if *k == 0 && index[v] == usize::MAX {
                (index[v], low[v]) = (next, next);
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&(w, _)) = edges[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    comp
}

/// A `chakra` workload entry: reads the rank files of `path` (and the
/// groups file) and lowers them as a DAG trace.
pub fn workload(
    w: &str,
    path: &TracePath,
    groups: Option<&Path>,
    base: &Path,
    o: &crate::dag::Options,
    rng: &mut ccsim_core::rng::Rng,
) -> Result<crate::conns::Part, String> {
    let t = read(w, path, groups, base, o.hosts.len())?;
    crate::dag::lower(w, &t, o, rng)
}

/// Reads the ET files of `p` (relative to `base`) into a trace.
pub fn read(w: &str, p: &TracePath, groups: Option<&Path>, base: &Path, hosts: usize) -> Result<Trace, String> {
    let files = rank_files(w, p, base)?;
    let n = files.len();
    if n != hosts {
        return Err(format!(
            "{w}.hosts: {hosts} host(s) given for the {n} rank file(s) of the trace: give one host per rank"
        ));
    }
    let mut t = Trace {
        files: Vec::with_capacity(n),
        ranks: Vec::with_capacity(n),
        deps_field: "data_deps/ctrl_deps",
        eager_sends: true,
        groups: Default::default(),
        notes: Vec::new(),
    };
    let mut ctrl = CtrlDeps::default();
    let mut bcasts = 0usize;
    let groups = match groups {
        Some(g) => Groups::read(&base.join(g), n).map_err(|e| format!("{w}.groups: {e}"))?,
        None => Groups::default(),
    };
    let mut total = 0usize;
    for (r, f) in files.iter().enumerate() {
        let label = f.display().to_string();
        let bytes = std::fs::read(f).map_err(|e| format!("{w}.path: {label}: cannot read: {e}"))?;
        let (meta, nodes) = decode(&bytes, &label).map_err(|e| format!("{w}: {e}"))?;
        check_version(&meta.version, &label).map_err(|e| format!("{w}: {e}"))?;
        total += nodes.len();
        if total > MAX_FLOWS {
            return Err(format!("{w}: {label}: the trace has more than {MAX_FLOWS} nodes"));
        }
        let mut converted = convert(&nodes, r, n, &groups, &label, &mut bcasts).map_err(|e| format!("{w}: {e}"))?;
        add_ctrl_deps(&nodes, &mut converted, &mut ctrl);
        t.ranks.push(converted);
        t.files.push(label);
    }
    t.groups = groups.members;
    if bcasts > 0 {
        t.notes.push(format!(
            "{} BROADCAST node(s) move no data: each takes its duration_micros (1 ns if none), as in ASTRA-sim \
             (its Workload.cc: \"TODO: implement broadcast\")",
            thousands(bcasts as u64)
        ));
    }
    if ctrl.missing + ctrl.own + ctrl.cyclic > 0 {
        let what = if n == 1 { files[0].display().to_string() } else { format!("{} rank files", n) };
        t.notes.push(format!(
            "{what}: of {} ctrl_deps, {} on nodes the rank does not have, {} on the node itself and {} closing a \
             dependency cycle were dropped (Chakra's reference feeder follows only data_deps)",
            thousands(ctrl.total),
            thousands(ctrl.missing),
            thousands(ctrl.own),
            thousands(ctrl.cyclic)
        ));
    }
    Ok(t)
}

/// Writes one rank's ET file (metadata, then nodes): for tests and tools.
pub fn encode(version: &str, nodes: &[Node]) -> Vec<u8> {
    use prost::Message;
    let mut out = Vec::new();
    let meta = GlobalMetadata { version: version.into(), attr: Vec::new() };
    meta.encode_length_delimited(&mut out).expect("a Vec grows");
    for x in nodes {
        x.encode_length_delimited(&mut out).expect("a Vec grows");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, ty: i32, attr: Vec<AttributeProto>, deps: Vec<u64>) -> Node {
        Node { id, name: String::new(), r#type: ty, data_deps: deps, attr, ..Default::default() }
    }

    #[test]
    fn round_trip_and_truncation() {
        let nodes = vec![
            node(1, node_type::COMP, vec![], vec![]),
            node(
                2,
                node_type::COMM_SEND,
                vec![AttributeProto::int("comm_dst", 1), AttributeProto::int("comm_size", 64)],
                vec![1],
            ),
        ];
        let bytes = encode("0.0.4", &nodes);
        let (meta, got) = decode(&bytes, "x.0.et").unwrap();
        assert_eq!(meta.version, "0.0.4");
        assert_eq!(got, nodes);
        // cut anywhere but between two messages: refused, naming the file and the byte
        let ends: Vec<usize> = (0..=nodes.len()).map(|k| encode("0.0.4", &nodes[..k]).len()).collect();
        for cut in 1..bytes.len() {
            match decode(&bytes[..cut], "x.0.et") {
                Ok((_, got)) => assert!(ends.contains(&cut) && got.len() < nodes.len(), "{cut}"),
                Err(e) => assert!(!ends.contains(&cut) && e.starts_with("x.0.et: byte "), "{cut}: {e}"),
            }
        }
        assert!(decode(&[], "x.0.et").unwrap_err().contains("empty file"));
        assert!(check_version("0.0.3", "f").unwrap_err().contains("not supported"));
        assert!(check_version("0.0.4", "f").is_ok() && check_version("0.0.12", "f").is_ok());
        // the generator's "1.0.0" and the converters' empty version
        assert!(check_version("1.0.0", "f").is_ok() && check_version("", "f").is_ok());
        for v in ["2.0.0", "1.0", "0.1.0", "x", "1.0.0-rc"] {
            assert!(check_version(v, "f").unwrap_err().contains("not supported"), "{v}");
        }
    }
}
