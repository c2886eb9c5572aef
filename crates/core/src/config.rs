//! Network configuration: everything about the fabric that is not the topology
//! or the congestion-control scheme. Every field has a documented default; the
//! scenario file's `[network]` table maps onto this struct (unknown keys refused).

use crate::units::{Bytes, Dur};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Routing {
    /// Shortest-path ECMP, next hop chosen by a hash of the flow's 5-tuple (default).
    Ecmp,
    /// ECMP where the reverse traffic of a flow (ACK, NACK, CNP) retraces the
    /// switches its data crossed, as symmetric hashing achieves in a Clos fabric.
    Symmetric,
    /// Per-packet spraying: every data packet picks a random shortest path.
    Spray,
}

/// How a receiver treats data that arrives out of order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Receiver {
    /// Unset (default): "reorder" for a scheme whose transport accepts any
    /// order ([`crate::cc::Requirements::reorder_receiver`], Ultra Ethernet's
    /// NSCC), "go-back-n" for every other; [`crate::compat::resolve`] picks
    /// it for each run and says so.
    Auto,
    /// RDMA RC go-back-N: an out-of-order packet is dropped and
    /// answered by a NACK for the next expected byte; the sender resends from it.
    GoBackN,
    /// Accept any order: a packet above the next expected byte is kept (the
    /// receiver tracks received ranges) and ACKed like an in-order one (the ACK
    /// carries the cumulative point); no NACK is ever sent. Nothing is resent
    /// except by the retransmission timeout (from the cumulative point, so
    /// kept data is sent again and re-ACKed as duplicates). For lossless
    /// fabrics with per-packet spraying, where reordering is not loss: OSCAR's
    /// reference spraying runs use RetxMode None (NASA-NJU/OSCAR,
    /// config/oscar-nsdi26/experiments/fig12 *-spray).
    Reorder,
}

/// How a sender finds and resends lost data beyond what NACKs tell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Recovery {
    /// Unset (default): "packet" for a scheme that runs Ultra Ethernet's
    /// packet delivery ([`crate::cc::Requirements::reorder_receiver`]),
    /// "flow" for every other; [`crate::compat::resolve`] picks it for each
    /// run and says so.
    Auto,
    /// One timer per flow (RDMA RC): it restarts when the cumulative ACK
    /// advances and on expiry the sender goes back to the cumulative point
    /// and resends everything from there.
    Flow,
    /// UET's packet delivery as uet-htsim models it (`UecSrc`, `UecSink`,
    /// htsim/sim/uec.cpp at 40ccb05): every data packet has a packet
    /// sequence number (PSN, kept by its resends); ACKs carry a 64-PSN SACK
    /// bitmap beside the cumulative point; the timer runs for the earliest
    /// send time among packets neither ACKed nor SACKed, and on expiry only
    /// that packet is resent (`rtxTimerExpired`). The sender asks for an
    /// ACK at once (the ACK-request flag) on the packet that fills its
    /// window or spends its credit, on the last packet of its data and on
    /// every resend (`sendNewPacket`, `sendRtxPacket`); the receiver ACKs
    /// such a packet, its first packet and a CE-marked one at once, and
    /// else every `ack_every` packets since its last ACK (`processData`).
    /// Needs the reorder receiver.
    Packet,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EcnMode {
    Off,
    /// RED-like: no mark below kmin, probability pmax*(q-kmin)/(kmax-kmin) up to kmax, mark all above.
    Red,
    /// Step: mark every packet dequeued while the queue exceeds `kmin` (DCTCP's K).
    Step,
}

/// ECN marking at switch egress (evaluated as a packet is dequeued, on the
/// egress queue length of its class, as the HPCC simulator does).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EcnConfig {
    /// Default "red".
    pub mode: EcnMode,
    /// Default 100KB per 25 Gbps of port rate (HPCC simulator: Kmin 100 KB per 25G).
    pub kmin: Bytes,
    /// Default 400KB per 25 Gbps of port rate (HPCC simulator: Kmax 400 KB per 25G).
    pub kmax: Bytes,
    /// Default 0.2 (HPCC simulator).
    pub pmax: f64,
    /// If true (default), kmin/kmax are given for a 25 Gbps port and scale linearly
    /// with the port rate (100G port: x4). If false they apply to every port as given.
    pub scale_per_25g: bool,
}

impl Default for EcnConfig {
    fn default() -> Self {
        EcnConfig { mode: EcnMode::Red, kmin: Bytes(100_000), kmax: Bytes(400_000), pmax: 0.2, scale_per_25g: true }
    }
}

/// Which queue a switch compares with the PFC XOFF threshold (`network.pfc.xoff_at`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum XoffAt {
    /// The shared bytes an ingress (port, class) holds (default; the HPCC
    /// simulator's MMU).
    #[default]
    Ingress,
    /// The egress (port, class) queue a packet joins: when it holds the
    /// threshold or more, the ingress the packet came through pauses its
    /// upstream, and resumes once that queue plus the resume offset is at or
    /// below the threshold (FNCC §2.3: "congestion arises within the downstream
    /// device's lossless queue, it promptly sends a pause frame to the upstream
    /// device"). Ingress headroom still pauses as under `Ingress`.
    Egress,
}

/// How PFC decides to pause an ingress (port, class).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PfcConfig {
    /// Lossless fabric (PFC on). Default true. With false, switches tail-drop
    /// at the same dynamic threshold and the transport retransmits.
    pub enabled: bool,
    /// Dynamic-threshold alpha for a 100 Gbps port, scaled linearly with the port
    /// rate and capped at 1 (HPCC simulator: 1/8 at 100G, 1/2 at 400G). Default 0.125.
    pub alpha_per_100g: f64,
    /// If set, a static XOFF: pause when an ingress (port, class) holds more than
    /// this many shared bytes (FNCC's "PFC threshold 500 KB"). Default unset (dynamic).
    pub static_xoff: Option<Bytes>,
    /// The queue compared with the XOFF threshold: the ingress's shared bytes
    /// or the egress queue the packet joins. Default ingress.
    pub xoff_at: XoffAt,
    /// RESUME once shared use + this offset is at or below the threshold
    /// (HPCC simulator: 3 KB). Default 3KB.
    pub resume_offset: Bytes,
    /// Headroom per ingress (port, class) = factor x rate x link delay + `headroom_extra`.
    /// Default 3 (HPCC simulator).
    pub headroom_factor: f64,
    /// Default 2 maximum-size packets (a packet already on the wire when the
    /// PAUSE is sent and one the upstream started before it arrived).
    pub headroom_extra: Option<Bytes>,
    /// Data priorities (flows' `prio`) that stay lossy while PFC protects
    /// the others: tail drop, or trimming with `network.trim`. Default none.
    pub lossy_prios: Vec<u8>,
}

impl Default for PfcConfig {
    fn default() -> Self {
        PfcConfig {
            enabled: true,
            alpha_per_100g: 0.125,
            static_xoff: None,
            xoff_at: XoffAt::Ingress,
            resume_offset: Bytes(3_000),
            headroom_factor: 3.0,
            headroom_extra: None,
            lossy_prios: Vec::new(),
        }
    }
}

/// How INT records take room on the wire (`network.int_encoding`). Applies to
/// every packet that carries INT: data packets when switches stamp them
/// (`network.int`, HPCC, PowerTCP, ...), the ACKs and NACKs that echo those
/// records, and ACKs that switches stamp on the way back (FNCC,
/// [`crate::cc::Requirements::int_on_acks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntEncoding {
    /// A header of `int_fixed_bytes` sized for the longest path, carried from
    /// the sender on, whatever the number of records in it (default), as the
    /// HPCC simulator does: its `IntHeader` holds 5 hop records of 8 B and a
    /// 2 B hop count (int-header.h: `hop[maxHop]`, `nhop`; GetStaticSize = 42).
    Fixed,
    /// Each switch that adds a record adds `int_hop_bytes` (8 B per hop: HPCC
    /// paper §4, the simulator's 64-bit `IntHop`), so the packet grows along
    /// the path and its ACK echoes what it collected.
    PerHop,
    /// Records cost no bytes (ccsim before INT was charged; for comparing with
    /// such results only).
    Free,
}

/// What a [`LinkEvent`] does to its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkAction {
    /// Both directions stop: packets queued at either egress of the link and on
    /// its wire are dropped (counted as drops), PFC state of the link is
    /// cleared and routes are recomputed without it.
    Down,
    /// The link carries traffic again and routes are recomputed with it.
    Up,
}

/// A timed change of one link (`[[network.link_events]]` in a scenario). An
/// event at time 0 applies before anything runs, so `at = "0us"` with
/// `action = "down"` is a link that starts down.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkEvent {
    pub at: Dur,
    /// The two node ids the link joins (either order).
    pub a: u32,
    pub b: u32,
    pub action: LinkAction,
}

/// Packet trimming (`[network.trim]`), Ultra Ethernet's alternative to
/// dropping (UE spec 1.0 §4.1; uet-htsim `CompositeQueue`): a data packet a
/// switch cannot admit is cut to its header and forwarded in the control
/// class, above every data class; the receiver answers with a trim NACK and
/// the sender resends those bytes at once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrimConfig {
    /// Trim instead of dropping. Default false.
    pub enabled: bool,
    /// Wire bytes of a trimmed packet. Default 64 (uet-htsim `trimsize`,
    /// main_uec.cpp; the spec's MIN_TRIM_SIZE for UET/UDP/IP is 24 B).
    pub size: Bytes,
    /// Also trim a data packet when its egress class queue would pass this
    /// many bytes (UE spec 1.0 §3.6.17 recommends one Plane_BDP, 1.5 at the
    /// last hop; uet-htsim trims when a 1 x BDP data queue is full). Default
    /// none: only what the shared buffer cannot admit is trimmed.
    pub threshold: Option<Bytes>,
    /// The threshold is per 100 Gbps of the egress's rate, so a slower
    /// port's queue holds as long as a 100 Gbps one's (uet-htsim scales a
    /// degraded link's queue and ECN thresholds with its rate,
    /// fat_tree_topology.cpp `alloc_queue`). Default false: the same bytes
    /// at every port.
    pub scale_per_100g: bool,
}

impl Default for TrimConfig {
    fn default() -> Self {
        TrimConfig { enabled: false, size: Bytes(64), threshold: None, scale_per_100g: false }
    }
}

/// SLEEK loss recovery (`[network.sleek]`, `crate::sleek`): uet-htsim's
/// sender-side heuristic for fabrics that drop rather than trim (`-sleek`,
/// htsim/sim/uec.cpp at 40ccb05: `runSleek`, `sendProbe`; its validation
/// runs pair it with `-disable_trim`). The UE specification 1.0 does not
/// describe it; uet-htsim's code is the source of every rule and default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SleekConfig {
    /// Run SLEEK. Default false (uet-htsim `_enable_sleek`).
    pub enabled: bool,
    /// Resend once the receiver holds this many windows out of order (at
    /// most `max_wnd`). Default 1.5 (uec.cpp L82 `loss_retx_factor`).
    pub retx_factor: f64,
    /// The out-of-order count that enters recovery is at least this many
    /// packets, whatever `retx_factor` gives. Default 5 (uec.cpp L83
    /// `min_retx_config`).
    pub min_retx: u32,
    /// Probe after this many base RTTs without an ACK while data waits to be
    /// sent. Default 3 (uec.cpp L80 `probe_first_trial_time`).
    pub probe_first: f64,
    /// Probe again this many base RTTs after a probe. Default 5 (uec.cpp L81
    /// `probe_retry_time`).
    pub probe_retry: f64,
}

impl Default for SleekConfig {
    fn default() -> Self {
        SleekConfig { enabled: false, retx_factor: 1.5, min_retx: 5, probe_first: 3.0, probe_retry: 5.0 }
    }
}

impl SleekConfig {
    fn is_default(&self) -> bool {
        *self == SleekConfig::default()
    }

    fn validate(&self) -> Result<(), String> {
        if !(self.retx_factor > 0.0 && self.retx_factor <= 100.0) {
            return Err(format!("network.sleek.retx_factor = {}: must be in (0, 100] windows", self.retx_factor));
        }
        if self.min_retx == 0 {
            return Err("network.sleek.min_retx = 0: must be at least 1 packet".into());
        }
        for (key, v) in [("probe_first", self.probe_first), ("probe_retry", self.probe_retry)] {
            if !(v > 0.0 && v <= 1000.0) {
                return Err(format!("network.sleek.{key} = {v}: must be in (0, 1000] base RTTs"));
            }
        }
        Ok(())
    }
}

/// Receiver credits, asked for by a scheme (UET RCCC, UE spec 1.0
/// §3.6.14; the mechanism as uet-htsim builds it, EQDS-style pulls): each
/// receiving host paces credit to the flows it receives, round robin, at a
/// fraction of its line rate; a sender sends only while its credit is
/// positive (it may go negative by one packet). Credit counts wire bytes.
/// Not a `[network]` key: the scheme sets it (see `nscc`'s `rccc`).
#[derive(Clone, Debug, PartialEq)]
pub struct CreditConfig {
    /// Credit rate as a fraction of the receiving host's line rate. uet-htsim
    /// 0.99 (main_uec.cpp `pull_rate_modifier`).
    pub rate: f64,
    /// Most credit one pull grants, bytes. uet-htsim 16384 (uec.cpp
    /// `_mtus_per_pull` = 4 packets of 4 KiB).
    pub per_pull: u64,
    /// A sender's initial (speculative, unsolicited) credit and the most it
    /// may hold, in BDPs: its line rate x the network's largest base RTT
    /// (the spec's config_base_rtt). uet-htsim 1.5 (`initRccc`,
    /// `_configured_maxwnd`).
    pub max_credit: f64,
    /// Pull targets are rounded up to this many bytes. uet-htsim 256
    /// (`UEC_PULL_QUANTUM`, the ACK_CC credit unit).
    pub quantum: u64,
    /// Mark ECN at switch egresses towards hosts. uet-htsim turns it off
    /// when receivers drive (main_uec.cpp `set_ecn_parameters(.., !receiver_driven, ..)`),
    /// as the spec recommends (§3.6.14): the receiver paces that link.
    pub last_hop_ecn: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetConfig {
    /// Payload bytes per full data packet. Default 1000 (HPCC simulator).
    pub mtu: Bytes,
    /// Header bytes on every data packet. Default 48 (HPCC simulator).
    pub header: Bytes,
    /// Wire size of ACK, NACK and CNP packets. Default 60 (HPCC simulator).
    pub ack_size: Bytes,
    /// Wire size of PFC PAUSE/RESUME frames. Default 64.
    pub pause_size: Bytes,
    /// Receiver sends an ACK every this many data packets (and always on a flow's
    /// last packet and on a CE-marked packet). Default 1.
    pub ack_every: u32,
    /// Shared buffer per switch. Default 32MB (HPCC simulator).
    pub buffer: Bytes,
    /// Guaranteed bytes per ingress (port, class) before the shared pool is used. Default 4KB... (HPCC simulator: 4 KB).
    pub reserve: Bytes,
    /// Drop tail per egress queue: a lossy class's queue refuses a packet
    /// that would take it past this many bytes (dropped, or trimmed under
    /// `trim`), whatever the shared buffer has left; lossless classes
    /// ignore it (PFC holds them). uet-htsim's switches have such queues
    /// and no shared buffer (`-q` packets per queue). Default none: the
    /// shared buffer's dynamic threshold alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_limit: Option<Bytes>,
    pub pfc: PfcConfig,
    pub ecn: EcnConfig,
    pub trim: TrimConfig,
    /// Stamp INT records on data packets at every switch egress. Default: on when
    /// the scheme asks for it (HPCC, PowerTCP, ...), off otherwise; true/false forces it.
    pub int: Option<bool>,
    /// Wire cost of INT records: "fixed" (default), "per_hop" or "free".
    pub int_encoding: IntEncoding,
    /// Size of the fixed INT header. Default 42 (HPCC simulator: 5 x 8 B + 2 B).
    pub int_fixed_bytes: Bytes,
    /// Bytes per INT record under `per_hop`. Default 8 (HPCC paper §4).
    pub int_hop_bytes: Bytes,
    /// Default "ecmp".
    pub routing: Routing,
    /// ACK and NACK travel in the control class above data (default true). False
    /// puts them in their flow's data class at switches, as the HPCC simulator does
    /// (hosts still send them first, but hold the control queue while the class of
    /// its head packet is paused by PFC, as that simulator's NIC does).
    pub ack_high_priority: bool,
    /// Number of data priority classes at every port (flows' `prio` 0..n-1, 0 highest). Default 1.
    pub data_classes: u8,
    /// A receiver sends at most one NACK per expected sequence number per this
    /// interval. Default 500us (HPCC simulator).
    pub nack_interval: Dur,
    /// Retransmission timeout: go back to the last acknowledged byte when no ACK
    /// advances for this long. Default: off in a lossless fabric with in-order
    /// routing and no link events; 1ms in a lossy one, under per-packet spraying
    /// (reordered packets are dropped by go-back-N, and once a flow has sent its
    /// last byte no further arrival would trigger the NACK that recovers them)
    /// and when links fail (packets on a failing link are lost).
    pub rto: Option<Dur>,
    /// Extra fixed processing delay per switch on top of store-and-forward,
    /// paid by every packet a switch receives except PFC frames (MAC control
    /// frames, consumed at the port). Part of every base RTT, BDP and ideal
    /// FCT, and of PFC headroom (rate x switch_delay more per ingress). Default 0.
    pub switch_delay: Dur,
    /// Truncate every serialization and pacing time down to a multiple of this
    /// (ns-3 point-to-point models truncate to whole nanoseconds: `"1ns"`).
    /// Default none: exact picoseconds (rounded up). Base RTTs and ideal FCTs
    /// stay exact.
    pub time_quantum: Option<Dur>,
    /// Receiver behaviour on reordering: "go-back-n" or "reorder"; default
    /// "auto": reorder for a scheme whose transport accepts any order
    /// (NSCC), go-back-N for the others.
    pub receiver: Receiver,
    /// Loss recovery: "flow" (one go-back-N timer per flow, RDMA RC) or
    /// "packet" (UET: a timer per packet, SACK, selective resend, the
    /// ACK-request flag); default "auto": packet for a scheme that runs
    /// UET's packet delivery (NSCC), flow for the others.
    pub recovery: Recovery,
    /// SLEEK loss recovery for UET's packet delivery on fabrics that drop:
    /// resends on out-of-order counts and probes (see [`SleekConfig`]).
    /// Default off.
    #[serde(skip_serializing_if = "SleekConfig::is_default")]
    pub sleek: SleekConfig,
    /// Time the switches' routes take to change after a link event. Default 0:
    /// at once. Until then a failed link stays in the routes and what
    /// switches send to it is lost (a blackhole, counted as drops at that
    /// egress); a repaired link is used once the routes change.
    pub reroute_delay: Dur,
    /// Timed link failures and repairs, applied in time order (ties in list
    /// order). Default none. Checked against the topology by
    /// [`crate::topology::Topology::check_link_events`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub link_events: Vec<LinkEvent>,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            mtu: Bytes(1000),
            header: Bytes(48),
            ack_size: Bytes(60),
            pause_size: Bytes(64),
            ack_every: 1,
            buffer: Bytes(32_000_000),
            reserve: Bytes(4_000),
            queue_limit: None,
            pfc: PfcConfig::default(),
            ecn: EcnConfig::default(),
            trim: TrimConfig::default(),
            int: None,
            int_encoding: IntEncoding::Fixed,
            int_fixed_bytes: Bytes(42),
            int_hop_bytes: Bytes(8),
            routing: Routing::Ecmp,
            ack_high_priority: true,
            data_classes: 1,
            nack_interval: Dur(500 * crate::time::US),
            rto: None,
            switch_delay: Dur(0),
            time_quantum: None,
            receiver: Receiver::Auto,
            recovery: Recovery::Auto,
            sleek: SleekConfig::default(),
            reroute_delay: Dur(0),
            link_events: Vec::new(),
        }
    }
}

impl NetConfig {
    /// Wire size of a full data packet.
    pub fn packet_size(&self) -> u64 {
        self.mtu.0 + self.header.0
    }

    /// Checks values that serde accepts but the model cannot. Errors name the field.
    pub fn validate(&self) -> Result<(), String> {
        if self.mtu.0 == 0 || self.mtu.0 > 65_000 {
            return Err(format!("network.mtu = {}: must be between 1 and 65000 bytes of payload", self.mtu.0));
        }
        if self.ack_size.0 == 0 || self.pause_size.0 == 0 {
            return Err("network.ack_size and network.pause_size must be positive".into());
        }
        if self.ack_every == 0 {
            return Err("network.ack_every = 0: must be at least 1".into());
        }
        if self.data_classes == 0 || self.data_classes > 7 {
            return Err(format!("network.data_classes = {}: must be 1..7", self.data_classes));
        }
        if !(self.pfc.alpha_per_100g > 0.0 && self.pfc.alpha_per_100g.is_finite()) {
            return Err(format!("network.pfc.alpha_per_100g = {}: must be positive", self.pfc.alpha_per_100g));
        }
        if !(self.pfc.headroom_factor >= 0.0 && self.pfc.headroom_factor.is_finite()) {
            return Err(format!("network.pfc.headroom_factor = {}: must be >= 0", self.pfc.headroom_factor));
        }
        if !(0.0..=1.0).contains(&self.ecn.pmax) {
            return Err(format!("network.ecn.pmax = {}: must be within 0..1", self.ecn.pmax));
        }
        if self.ecn.mode == EcnMode::Red && self.ecn.kmax.0 < self.ecn.kmin.0 {
            return Err(format!("network.ecn.kmax = {} is below network.ecn.kmin = {}", self.ecn.kmax, self.ecn.kmin));
        }
        self.sleek.validate()?;
        if let Some(q) = self.queue_limit.filter(|q| q.0 < self.packet_size()) {
            return Err(format!(
                "network.queue_limit = {q}: must hold at least one full packet ({} bytes: network.mtu + network.header)",
                self.packet_size()
            ));
        }
        if self.int_fixed_bytes.0 > 1_000 {
            return Err(format!("network.int_fixed_bytes = {}: must be at most 1000 bytes", self.int_fixed_bytes.0));
        }
        if self.int_hop_bytes.0 > 125 {
            return Err(format!("network.int_hop_bytes = {}: must be at most 125 bytes", self.int_hop_bytes.0));
        }
        if let Some(q) = self.time_quantum {
            if q.0 == 0 || q.0 > crate::time::US {
                return Err(format!(
                    "network.time_quantum = {q}: must be between 1ps and 1us (leave it out for exact picoseconds)"
                ));
            }
        }
        if let Some(p) = self.pfc.lossy_prios.iter().find(|&&p| p >= self.data_classes) {
            return Err(format!(
                "network.pfc.lossy_prios: priority {p} does not exist (network.data_classes = {}: priorities 0..{})",
                self.data_classes,
                self.data_classes - 1
            ));
        }
        if self.trim.enabled && (self.trim.size.0 == 0 || self.trim.size.0 > self.header.0 + self.mtu.0) {
            return Err(format!(
                "network.trim.size = {}: must be between 1 byte and a full packet ({} bytes)",
                self.trim.size,
                self.header.0 + self.mtu.0
            ));
        }
        if self.buffer.0 < 100_000 {
            return Err(format!("network.buffer = {}: too small for any switch (at least 100KB)", self.buffer));
        }
        Ok(())
    }
}

/// One key of the `[network]` table, for `ccsim list network` and the
/// generated reference: a test checks both ways against the parser (every
/// key here is accepted and its default is the parser's default; every key
/// the parser writes is here), so this table cannot drift from it.
#[derive(Clone, Copy, Debug)]
pub struct NetKey {
    /// Key path under `[network]` ("pfc.static_xoff").
    pub key: &'static str,
    /// What the value is: "bytes", "duration", "count", "number", "bool", or the choices.
    pub unit: &'static str,
    /// The default as TOML text ("1000", "\"red\""), or "none" when unset.
    pub default: &'static str,
    /// A valid value for an unset default (the test sets it), else "".
    pub example: &'static str,
    /// What it does.
    pub doc: &'static str,
    /// Where the default comes from.
    pub source: &'static str,
}

const HPCC_SIM: &str = "HPCC simulator (mix/config.txt)";

/// Every `[network]` key (`link_events` is a list of tables: see `LinkEvent`).
pub const NETWORK_KEYS: &[NetKey] = &[
    NetKey { key: "mtu", unit: "bytes", default: "1000", example: "", doc: "payload bytes per full data packet", source: HPCC_SIM },
    NetKey { key: "header", unit: "bytes", default: "48", example: "", doc: "header bytes on every data packet (counted in the ideal FCT)", source: HPCC_SIM },
    NetKey { key: "ack_size", unit: "bytes", default: "60", example: "", doc: "wire size of ACK, NACK and CNP packets", source: HPCC_SIM },
    NetKey { key: "pause_size", unit: "bytes", default: "64", example: "", doc: "wire size of PFC PAUSE/RESUME frames", source: "IEEE 802.1Qbb: a minimum Ethernet frame" },
    NetKey { key: "ack_every", unit: "count", default: "1", example: "", doc: "the receiver ACKs every this many data packets (always on a flow's or message's last packet and on a CE mark)", source: HPCC_SIM },
    NetKey { key: "buffer", unit: "bytes", default: "32000000", example: "", doc: "shared buffer per switch", source: HPCC_SIM },
    NetKey { key: "reserve", unit: "bytes", default: "4000", example: "", doc: "guaranteed bytes per ingress (port, class) before the shared pool", source: HPCC_SIM },
    NetKey { key: "queue_limit", unit: "bytes", default: "none", example: "\"788500B\"", doc: "drop tail per egress queue of a lossy class: refuse (drop, or trim under trim.enabled) what would take it past this, whatever the shared buffer has left; unset: the shared buffer's dynamic threshold alone", source: "uet-htsim 40ccb05 main_uec.cpp (-q: per-queue packets, no shared buffer)" },
    NetKey { key: "pfc.enabled", unit: "bool", default: "true", example: "", doc: "lossless fabric (PFC); false: tail drop at the same dynamic threshold, the transport retransmits", source: "ccsim (RDMA fabrics are lossless)" },
    NetKey { key: "pfc.lossy_prios", unit: "list of priorities", default: "[]", example: "", doc: "data priorities left lossy (tail drop, or trimming) while PFC protects the others", source: "ccsim; UE spec 1.0 §4.1 (trimmed and lossless traffic classes side by side)" },
    NetKey { key: "pfc.alpha_per_100g", unit: "number", default: "0.125", example: "", doc: "dynamic-threshold alpha for a 100 Gbps port, scaled with the port rate, capped at 1", source: HPCC_SIM },
    NetKey { key: "pfc.static_xoff", unit: "bytes", default: "none", example: "\"500KB\"", doc: "a static XOFF instead of the dynamic threshold: pause an ingress holding more shared bytes", source: "FNCC §5 ('PFC threshold 500 KB')" },
    NetKey { key: "pfc.xoff_at", unit: "\"ingress\" | \"egress\"", default: "\"ingress\"", example: "", doc: "the queue compared with the XOFF threshold: an ingress's shared bytes, or the egress queue a packet joins (its ingress pauses its upstream)", source: "HPCC simulator (ingress); FNCC §2.3 (egress: 'congestion arises within the downstream device's lossless queue')" },
    NetKey { key: "pfc.resume_offset", unit: "bytes", default: "3000", example: "", doc: "RESUME once shared use + this is at or below the threshold", source: HPCC_SIM },
    NetKey { key: "pfc.headroom_factor", unit: "number", default: "3.0", example: "", doc: "headroom per ingress = factor x rate x link delay + headroom_extra", source: HPCC_SIM },
    NetKey { key: "pfc.headroom_extra", unit: "bytes", default: "none", example: "\"3KB\"", doc: "extra headroom per ingress; unset: 2 full packets (one on the wire, one started upstream)", source: "ccsim" },
    NetKey { key: "ecn.mode", unit: "\"red\" | \"step\" | \"off\"", default: "\"red\"", example: "", doc: "RED-like marking between kmin and kmax, or a step at kmin (DCTCP's K)", source: HPCC_SIM },
    NetKey { key: "ecn.kmin", unit: "bytes", default: "100000", example: "", doc: "no mark below this egress queue (per 25 Gbps of port rate when scale_per_25g)", source: HPCC_SIM },
    NetKey { key: "ecn.kmax", unit: "bytes", default: "400000", example: "", doc: "mark every packet above this queue (per 25 Gbps when scale_per_25g)", source: HPCC_SIM },
    NetKey { key: "ecn.pmax", unit: "number", default: "0.2", example: "", doc: "marking probability at kmax (RED)", source: HPCC_SIM },
    NetKey { key: "ecn.scale_per_25g", unit: "bool", default: "true", example: "", doc: "kmin/kmax are for a 25 Gbps port and scale with the port rate", source: HPCC_SIM },
    NetKey { key: "trim.enabled", unit: "bool", default: "false", example: "", doc: "trim instead of dropping: a data packet a switch cannot admit goes on as its header in the control class; the receiver NACKs it and the sender resends it at once", source: "UE spec 1.0 §4.1; uet-htsim CompositeQueue" },
    NetKey { key: "trim.threshold", unit: "bytes", default: "none", example: "\"60KB\"", doc: "also trim when the packet's egress class queue would pass this; unset: only what the buffer cannot admit", source: "UE spec 1.0 §3.6.17 (one Plane_BDP); uet-htsim (1 x BDP queues)" },
    NetKey { key: "trim.scale_per_100g", unit: "bool", default: "false", example: "", doc: "trim.threshold is per 100 Gbps of each egress's rate (a 25 Gbps port trims at a quarter of it)", source: "uet-htsim 40ccb05 fat_tree_topology.cpp alloc_queue (a degraded link's queue scales with its rate)" },
    NetKey { key: "trim.size", unit: "bytes", default: "64", example: "", doc: "wire size of a trimmed packet", source: "uet-htsim main_uec.cpp (trimsize 64); the UE spec's minimum is 24 B" },
    NetKey { key: "int", unit: "bool", default: "none", example: "true", doc: "stamp INT on data packets; unset: when the scheme asks for it (HPCC, PowerTCP, ...)", source: "ccsim" },
    NetKey { key: "int_encoding", unit: "\"fixed\" | \"per_hop\" | \"free\"", default: "\"fixed\"", example: "", doc: "wire cost of INT records: a fixed header, per hop, or none", source: HPCC_SIM },
    NetKey { key: "int_fixed_bytes", unit: "bytes", default: "42", example: "", doc: "size of the fixed INT header (5 records x 8 B + 2 B hop count)", source: "HPCC simulator int-header.h (GetStaticSize)" },
    NetKey { key: "int_hop_bytes", unit: "bytes", default: "8", example: "", doc: "bytes per INT record under per_hop", source: "HPCC paper (SIGCOMM'19) §4" },
    NetKey { key: "routing", unit: "\"ecmp\" | \"symmetric\" | \"spray\"", default: "\"ecmp\"", example: "", doc: "per-flow ECMP, ECMP with ACKs retracing their data's path, or per-packet spraying", source: "ccsim" },
    NetKey { key: "ack_high_priority", unit: "bool", default: "true", example: "", doc: "ACK/NACK in the control class above data; false: in their flow's data class (the HPCC simulator's switches)", source: "ccsim" },
    NetKey { key: "data_classes", unit: "count", default: "1", example: "", doc: "data priority classes per port (flows' prio 0..n-1, 0 highest), 1..7", source: "ccsim" },
    NetKey { key: "nack_interval", unit: "duration", default: "\"500us\"", example: "", doc: "at most one NACK per expected sequence number per this interval", source: HPCC_SIM },
    NetKey { key: "rto", unit: "duration", default: "none", example: "\"1ms\"", doc: "retransmission timeout: with network.recovery = \"flow\", one timer per flow, restarted by cumulative-ACK progress, going back to the cumulative point on expiry; with \"packet\", how long each packet waits for its ACK or SACK before it alone is resent; unset: off when lossless, in order (no spraying by the network or the scheme) and without link events, else 1ms; \"0us\": off", source: "ccsim" },
    NetKey { key: "switch_delay", unit: "duration", default: "\"0us\"", example: "", doc: "fixed processing delay per switch (in base RTTs, BDPs, ideal FCTs and PFC headroom)", source: "ccsim" },
    NetKey { key: "time_quantum", unit: "duration", default: "none", example: "\"1ns\"", doc: "truncate serialization and pacing times to a multiple of this (ns-3 uses 1ns); unset: exact", source: "ns-3 point-to-point model" },
    NetKey { key: "reroute_delay", unit: "duration", default: "\"0us\"", example: "", doc: "time routes take to change after a link event; meanwhile a failed link blackholes what is routed to it", source: "ccsim" },
    NetKey { key: "receiver", unit: "\"auto\" | \"go-back-n\" | \"reorder\"", default: "\"auto\"", example: "", doc: "RDMA RC go-back-N, or accept any order (sprayed lossless fabrics); auto: reorder for a scheme whose transport accepts any order (NSCC: UET's packet delivery), else go-back-N", source: "ccsim; UE spec 1.0 §3.5 (RUD); OSCAR's reference spraying runs (RetxMode None)" },
    NetKey { key: "recovery", unit: "\"auto\" | \"flow\" | \"packet\"", default: "\"auto\"", example: "", doc: "loss recovery: one go-back-N timer per flow (RDMA RC), or UET's per packet: a PSN per packet, 64-PSN SACK bitmaps on ACKs, a timer for the earliest packet neither ACKed nor SACKed that resends it alone, and the ACK-request flag on the packet that fills the window, spends the credit, ends the data or is resent; auto: packet for a scheme that runs UET's packet delivery (NSCC) on the reorder receiver, else flow", source: "uet-htsim 40ccb05 htsim/sim/uec.cpp (UecSrc::startRTO, rtxTimerExpired, sendNewPacket; UecSink::processData, buildSackBitmap)" },
    NetKey { key: "sleek.enabled", unit: "bool", default: "false", example: "", doc: "SLEEK loss recovery for UET's packet delivery on a fabric that drops: resend on the receiver's out-of-order count, probe when ACKs stop (needs recovery = \"packet\" and NSCC's window)", source: "uet-htsim 40ccb05 htsim/sim/uec.cpp (UecSrc::runSleek, sendProbe, processAck; -sleek)" },
    NetKey { key: "sleek.retx_factor", unit: "number", default: "1.5", example: "", doc: "enter loss recovery once the receiver holds this many windows out of order (at most max_wnd)", source: "uet-htsim 40ccb05 uec.cpp L82 loss_retx_factor" },
    NetKey { key: "sleek.min_retx", unit: "count", default: "5", example: "", doc: "the out-of-order count that enters loss recovery is at least this many packets, whatever retx_factor gives", source: "uet-htsim 40ccb05 uec.cpp L83 min_retx_config" },
    NetKey { key: "sleek.probe_first", unit: "base RTTs", default: "3.0", example: "", doc: "probe after this long without an ACK while data waits to be sent (once all is sent: base RTT + target delay)", source: "uet-htsim 40ccb05 uec.cpp L80 probe_first_trial_time" },
    NetKey { key: "sleek.probe_retry", unit: "base RTTs", default: "5.0", example: "", doc: "probe again this long after a probe", source: "uet-htsim 40ccb05 uec.cpp L81 probe_retry_time" },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// `[network]` text setting `key` (a dotted path) to `value`.
    fn doc(key: &str, value: &str) -> String {
        match key.split_once('.') {
            Some((table, k)) => format!("[{table}]\n{k} = {value}\n"),
            None => format!("{key} = {value}\n"),
        }
    }

    #[test]
    fn the_network_reference_matches_the_parser_both_ways() {
        // every key listed is accepted; a listed default is the parser's default
        for k in NETWORK_KEYS {
            let (value, is_default) = if k.default == "none" { (k.example, false) } else { (k.default, true) };
            assert!(!value.is_empty(), "{}: give an example for an unset default", k.key);
            let parsed: NetConfig =
                toml::from_str(&doc(k.key, value)).unwrap_or_else(|e| panic!("network.{} = {value}: {e}", k.key));
            if is_default {
                assert_eq!(
                    parsed,
                    NetConfig::default(),
                    "network.{}: the listed default {value} is not the parser's",
                    k.key
                );
            } else {
                assert_ne!(parsed, NetConfig::default(), "network.{}: the example should set something", k.key);
            }
        }
        // every key the parser writes (with every optional one set) is listed
        let full = NetConfig {
            int: Some(true),
            rto: Some(Dur(1)),
            time_quantum: Some(Dur(1)),
            pfc: PfcConfig { static_xoff: Some(Bytes(1)), headroom_extra: Some(Bytes(1)), ..Default::default() },
            trim: TrimConfig { threshold: Some(Bytes(1)), ..Default::default() },
            queue_limit: Some(Bytes(1)),
            sleek: SleekConfig { enabled: true, ..Default::default() },
            ..Default::default()
        };
        let table: toml::Table = toml::from_str(&toml::to_string(&full).unwrap()).unwrap();
        let mut written = Vec::new();
        for (k, v) in &table {
            match v {
                toml::Value::Table(t) => written.extend(t.keys().map(|s| format!("{k}.{s}"))),
                _ => written.push(k.clone()),
            }
        }
        for w in &written {
            assert!(NETWORK_KEYS.iter().any(|k| k.key == w), "network.{w} is not in NETWORK_KEYS");
        }
        assert_eq!(written.len(), NETWORK_KEYS.len(), "a listed key the parser does not write");
    }
}
