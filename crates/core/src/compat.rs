//! What a scheme needs from the network, against what the network offers.
//!
//! A scheme states its needs in [`Requirements`]; the network offers what
//! `[network]` says ([`NetConfig`]). [`resolve`] runs once per run, before
//! anything is built, and for each pair either
//! - refuses the run, naming the scheme, the network key and the fix, when
//!   the combination cannot give a right number (HPCC's per-position INT
//!   under spraying, DCQCN without ECN, a sprayed UET transport on a
//!   go-back-N receiver, trimming on a class PFC keeps lossless, no
//!   retransmission timeout on a fabric that loses packets);
//! - chooses, where exactly one value is right and the scenario left the key
//!   unset, and says so in a [`Note`] (`network.receiver` and
//!   `network.recovery` for NSCC);
//! - or warns, where the combination is a legitimate model but easy to
//!   misread (a go-back-N receiver under network spraying, trimming with no
//!   threshold).
//!
//! The notes reach the run's first lines and `summary.json`
//! (`RunResult::notes`). `ccsim validate` makes the same calls, so a refused
//! combination never starts.

use crate::cc::Requirements;
use crate::config::{EcnMode, NetConfig, Receiver, Recovery, Routing};
use crate::units::fmt_bytes;
use serde::{Deserialize, Serialize};

/// Whether a [`Note`] records a choice made for the scenario or a warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoteKind {
    /// A key the scenario left unset was given the one value that is right
    /// for the scheme.
    Chosen,
    /// A combination that runs as asked but whose numbers are easy to misread.
    Warning,
}

/// One line said before a run starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub kind: NoteKind,
    pub text: String,
}

impl Note {
    fn chosen(text: String) -> Note {
        Note { kind: NoteKind::Chosen, text }
    }
    fn warning(text: String) -> Note {
        Note { kind: NoteKind::Warning, text }
    }
}

/// The network a run uses, with the choices [`resolve`] made, and its notes.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub net: NetConfig,
    pub notes: Vec<Note>,
}

/// Checks `net` against what scheme `scheme` needs (`req`) and returns the
/// network it runs on: the scheme's own ECN marking in place of
/// `network.ecn`, an unset `network.receiver` chosen. Errors name the scheme,
/// both sides' keys and the fix.
pub fn resolve(net: &NetConfig, req: &Requirements, scheme: &str) -> Result<Resolved, String> {
    let mut net = net.clone();
    let mut notes = Vec::new();
    check_paths(&net, req, scheme)?;
    if req.int_by_position && net.routing == Routing::Spray {
        notes.push(Note::warning(format!(
            "{scheme} pairs each ACK's INT records with the previous ACK's by position, and network.routing = \
             \"spray\" gives them different paths (multipath_int = true): its rate follows mismatched records"
        )));
    }
    if let Some(e) = &req.ecn {
        net.ecn = e.clone();
        net.validate().map_err(|e| format!("scheme '{scheme}' ECN settings: {e}"))?;
    }
    check_signals(&net, req, scheme)?;
    net.receiver = choose_receiver(&net, req, scheme, &mut notes)?;
    net.recovery = choose_recovery(&net, req, scheme, &mut notes)?;
    check_sleek(&net, req, scheme)?;
    check_trimming(&net, &mut notes)?;
    if let Some(q) = net.queue_limit.filter(|_| !any_lossy_class(&net)) {
        notes.push(Note::warning(format!(
            "network.queue_limit = {q} limits nothing: PFC keeps every data class lossless, and a lossless queue \
             is held by PAUSE, not dropped. Set network.pfc.enabled = false, or list the limited priorities in \
             network.pfc.lossy_prios"
        )));
    }
    check_timeout(&net, req)?;
    Ok(Resolved { net, notes })
}

/// Whether some data class of `net` is not protected by PFC (PFC off, or a
/// priority left lossy): it drops, or trims with `network.trim`.
fn any_lossy_class(net: &NetConfig) -> bool {
    !net.pfc.enabled || (0..net.data_classes).any(|p| net.pfc.lossy_prios.contains(&p))
}

/// Path needs: symmetric retracing (FNCC), one path per flow for INT
/// compared by position (HPCC, PowerTCP).
fn check_paths(net: &NetConfig, req: &Requirements, scheme: &str) -> Result<(), String> {
    if req.symmetric_paths && net.routing != Routing::Symmetric {
        return Err(format!(
            "scheme '{scheme}' needs data and ACKs of a flow on the same path: set network.routing = \"symmetric\" (it is \"{}\")",
            routing_name(net.routing)
        ));
    }
    if req.int_by_position && net.routing == Routing::Spray && !req.int_spray_accepted {
        return Err(format!(
            "scheme '{scheme}' compares each ACK's INT records with the previous ACK's hop by hop, by position \
             (the records name no switch; HPCC §3.3): network.routing = \"spray\" sends consecutive packets \
             over different paths, so it would subtract counters of different ports and fall to its minimum \
             rate. Set network.routing = \"ecmp\" or \"symmetric\", run a scheme that accepts multipath \
             (nscc, swift, dcqcn, oscar), or set multipath_int = true in [scheme.{scheme}] to study how it breaks"
        ));
    }
    Ok(())
}

/// Signal needs: INT on data packets, ECN marks.
fn check_signals(net: &NetConfig, req: &Requirements, scheme: &str) -> Result<(), String> {
    if req.int_on_data && net.int == Some(false) {
        return Err(format!(
            "network.int = false removes the INT records scheme '{scheme}' reads on every ACK: \
             remove the key (INT is on for schemes that ask for it)"
        ));
    }
    if req.ecn_signal && net.ecn.mode == EcnMode::Off {
        return Err(format!(
            "scheme '{scheme}' slows down only on ECN marks, and network.ecn.mode = \"off\" marks none: \
             every flow would stay at line rate. Set network.ecn.mode = \"red\" (the default) or \"step\""
        ));
    }
    Ok(())
}

/// `network.receiver` for this run: as set, or chosen when unset.
///
/// Unset, it is "reorder" where that is the one right receiver: for a
/// scheme whose transport accepts any order (UET), on a trimming fabric
/// (trimming exists so that only the trimmed bytes are resent), and under
/// network spraying on a fabric that drops nothing (a go-back-N receiver
/// would NACK and resend every reordered packet). Elsewhere it is
/// "go-back-n", with a warning under spraying on a fabric that drops (the
/// reorder receiver would leave every loss to the timeout).
fn choose_receiver(
    net: &NetConfig,
    req: &Requirements,
    scheme: &str,
    notes: &mut Vec<Note>,
) -> Result<Receiver, String> {
    let spray = net.routing == Routing::Spray;
    let drops = drops_packets(net);
    let receiver = match net.receiver {
        Receiver::Auto => {
            let why = if req.reorder_receiver {
                Some(format!(
                    "{scheme} runs Ultra Ethernet's packet delivery, which accepts packets in any order and resends \
                     only what was lost"
                ))
            } else if net.trim.enabled {
                Some("the fabric trims, and a trimmed packet's NACK resends only its own bytes".to_string())
            } else if spray && !drops {
                Some(
                    "network.routing = \"spray\" reorders every flow's packets, and a go-back-N receiver would \
                     NACK and resend each; set network.receiver = \"go-back-n\" to model an RDMA RC NIC under \
                     spraying"
                        .to_string(),
                )
            } else {
                None
            };
            match why {
                Some(why) => {
                    notes.push(Note::chosen(format!("network.receiver = \"reorder\" (chosen: {why})")));
                    Receiver::Reorder
                }
                None => {
                    if spray {
                        notes.push(Note::warning(format!(
                            "network.receiver unset under network.routing = \"spray\" on a fabric that drops: \
                             go-back-N (every packet that arrives out of order is NACKed and {scheme} resends \
                             from it); \"reorder\" would leave every loss to the timeout. Set network.receiver \
                             to choose"
                        )));
                    }
                    Receiver::GoBackN
                }
            }
        }
        Receiver::GoBackN if req.reorder_receiver && (req.entropy || spray) => {
            let by = if req.entropy { "its load_balancer sprays" } else { "network.routing = \"spray\" sprays" };
            return Err(format!(
                "scheme '{scheme}' runs Ultra Ethernet's packet delivery and {by} each flow's packets over many \
                 paths, but network.receiver = \"go-back-n\" drops every packet that arrives out of order and \
                 resends everything after it (4-10x the traffic). Set network.receiver = \"reorder\" (or leave \
                 it unset), or keep each flow on one path (load_balancer = \"ecmp\", network.routing = \"ecmp\")"
            ));
        }
        Receiver::GoBackN if net.trim.enabled => {
            return Err(
                "network.trim.enabled = true with network.receiver = \"go-back-n\": the NACK of every trimmed \
                 packet would make the sender go back to it and resend everything after it, where trimming \
                 exists so that only the trimmed bytes are resent (UE spec 1.0 §3.6.12). Set network.receiver = \
                 \"reorder\" (or leave it unset)"
                    .into(),
            );
        }
        Receiver::GoBackN if spray => {
            notes.push(Note::warning(format!(
                "network.receiver = \"go-back-n\" under network.routing = \"spray\": every packet that arrives \
                 out of order is NACKed and {scheme} resends from it, as an RDMA RC NIC would (resends are in \
                 the retransmission counts)"
            )));
            Receiver::GoBackN
        }
        r => r,
    };
    if receiver == Receiver::Reorder && drops && !net.sleek.enabled {
        let sleek = if req.sleek {
            format!(
                "; {scheme} finds losses sooner with SLEEK (network.sleek.enabled = true: uet-htsim's resends on \
                 out-of-order counts and probes)"
            )
        } else {
            String::new()
        };
        notes.push(Note::warning(format!(
            "the reorder receiver never NACKs, and the fabric drops packets (no trimming): every loss waits for \
             the retransmission timeout (network.rto){sleek}"
        )));
    }
    Ok(receiver)
}

/// `network.recovery` for this run: as set, or chosen when unset: "packet"
/// for a scheme that runs UET's packet delivery on the reorder receiver,
/// "flow" for every other. Per-packet recovery needs the reorder receiver
/// (a go-back-N receiver drops what the SACK bitmap would name).
fn choose_recovery(
    net: &NetConfig,
    req: &Requirements,
    scheme: &str,
    notes: &mut Vec<Note>,
) -> Result<Recovery, String> {
    match net.recovery {
        Recovery::Auto if req.reorder_receiver && net.receiver == Receiver::Reorder => {
            notes.push(Note::chosen(format!(
                "network.recovery = \"packet\" (chosen: {scheme} runs Ultra Ethernet's packet delivery, which \
                 times each packet and resends only the packets a trim NACK or their own timer names)"
            )));
            Ok(Recovery::Packet)
        }
        Recovery::Auto => Ok(Recovery::Flow),
        Recovery::Packet if net.receiver != Receiver::Reorder => Err(format!(
            "network.recovery = \"packet\" with network.receiver = \"go-back-n\": per-packet recovery resends \
             single packets and relies on the receiver keeping what arrives out of order, which a go-back-N \
             receiver drops. Set network.receiver = \"reorder\" (or leave it unset for {scheme}), or \
             network.recovery = \"flow\""
        )),
        r => Ok(r),
    }
}

/// SLEEK (`network.sleek`) reads the sender's window and PSNs: it needs
/// per-packet recovery and a scheme that keeps a window (NSCC).
fn check_sleek(net: &NetConfig, req: &Requirements, scheme: &str) -> Result<(), String> {
    if !net.sleek.enabled {
        return Ok(());
    }
    if net.recovery != Recovery::Packet {
        return Err("network.sleek.enabled = true with network.recovery = \"flow\": SLEEK resends single packets \
                    by their PSNs, which only per-packet recovery keeps. Set network.recovery = \"packet\" (or leave \
                    it unset for a scheme that runs UET's packet delivery), or turn SLEEK off"
            .into());
    }
    if !req.sleek {
        return Err(format!(
            "network.sleek.enabled = true, but scheme '{scheme}' keeps no window and delay target for SLEEK to \
             read (uet-htsim runs SLEEK with its sender-based NSCC only): use nscc with sender_cc = true, or turn \
             SLEEK off"
        ));
    }
    Ok(())
}

/// Some data class drops packets (PFC off or a lossy priority) without trimming.
fn drops_packets(net: &NetConfig) -> bool {
    any_lossy_class(net) && !net.trim.enabled
}

/// Trimming needs a class PFC leaves lossy; without a threshold it trims
/// only what the shared buffer refuses.
fn check_trimming(net: &NetConfig, notes: &mut Vec<Note>) -> Result<(), String> {
    if !net.trim.enabled {
        return Ok(());
    }
    if !any_lossy_class(net) {
        return Err("network.trim.enabled = true, but network.pfc.enabled = true keeps every data class lossless: \
                    PFC pauses before a switch would trim a packet, so nothing is ever trimmed. Set \
                    network.pfc.enabled = false, or list the trimmed priorities in network.pfc.lossy_prios"
            .into());
    }
    if net.trim.threshold.is_none() {
        let alpha = net.pfc.alpha_per_100g.min(1.0);
        let at_most = (alpha * net.buffer.0 as f64) as u64;
        notes.push(Note::warning(format!(
            "network.trim.threshold is unset: a packet is trimmed only when the shared buffer refuses it \
             (the dynamic threshold: up to {} per 100 Gbps queue with network.buffer = {}), so deep buffers \
             trim late or never; the UE spec (1.0 §3.6.17) recommends one Plane_BDP",
            fmt_bytes(at_most),
            net.buffer
        )));
    }
    Ok(())
}

/// A fabric that loses packets needs the retransmission timeout.
fn check_timeout(net: &NetConfig, req: &Requirements) -> Result<(), String> {
    if net.rto.is_none_or(|r| r.0 > 0) {
        return Ok(());
    }
    let why = if drops_packets(net) {
        if net.pfc.enabled {
            "network.pfc.lossy_prios leaves priorities that drop packets"
        } else {
            "network.pfc.enabled = false drops packets"
        }
    } else if !net.link_events.is_empty() {
        "network.link_events lose the packets on a failing link"
    } else if (net.routing == Routing::Spray || req.entropy) && net.receiver == Receiver::GoBackN {
        "a go-back-N receiver drops sprayed packets that arrive out of order"
    } else {
        return Ok(());
    };
    Err(format!(
        "network.rto = \"0us\" turns the retransmission timeout off, but {why}: a flow whose last packets are \
         lost would never finish. Remove network.rto (then 1ms here) or give a duration"
    ))
}

fn routing_name(r: Routing) -> &'static str {
    match r {
        Routing::Ecmp => "ecmp",
        Routing::Symmetric => "symmetric",
        Routing::Spray => "spray",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TrimConfig;
    use crate::units::{Bytes, Dur};

    fn hpcc() -> Requirements {
        Requirements { int_on_data: true, int_by_position: true, ..Default::default() }
    }
    fn uet(entropy: bool) -> Requirements {
        Requirements { reorder_receiver: true, entropy, ..Default::default() }
    }

    #[test]
    fn position_int_is_refused_under_spraying_only() {
        let spray = NetConfig { routing: Routing::Spray, ..Default::default() };
        let e = resolve(&spray, &hpcc(), "hpcc").unwrap_err();
        assert!(e.contains("hpcc") && e.contains("network.routing = \"spray\"") && e.contains("\"ecmp\""), "{e}");
        for routing in [Routing::Ecmp, Routing::Symmetric] {
            assert!(resolve(&NetConfig { routing, ..Default::default() }, &hpcc(), "hpcc").is_ok());
        }
        // ... unless the scenario asks to study it, with a warning
        let asked = Requirements { int_spray_accepted: true, ..hpcc() };
        let r = resolve(&spray, &asked, "hpcc").unwrap();
        assert!(r.notes.iter().any(|n| n.kind == NoteKind::Warning && n.text.contains("mismatched")));
        // a scheme that does not compare by position runs sprayed, on the reorder receiver chosen for it
        let r = resolve(&spray, &Requirements::default(), "dcqcn").unwrap();
        assert_eq!(r.net.receiver, Receiver::Reorder);
        assert_eq!(r.notes.len(), 1);
        assert_eq!(r.notes[0].kind, NoteKind::Chosen);
        // ... or, asked for, on go-back-N with a warning
        let gbn = NetConfig { receiver: Receiver::GoBackN, ..spray.clone() };
        let r = resolve(&gbn, &Requirements::default(), "dcqcn").unwrap();
        assert_eq!((r.net.receiver, r.notes[0].kind), (Receiver::GoBackN, NoteKind::Warning));
    }

    #[test]
    fn uet_transport_gets_the_reorder_receiver_and_refuses_go_back_n_when_sprayed() {
        let r = resolve(&NetConfig::default(), &uet(true), "nscc").unwrap();
        assert_eq!(r.net.receiver, Receiver::Reorder);
        assert_eq!(r.notes[0].kind, NoteKind::Chosen);
        assert!(r.notes[0].text.contains("network.receiver = \"reorder\""));
        let gbn = NetConfig { receiver: Receiver::GoBackN, ..Default::default() };
        let e = resolve(&gbn, &uet(true), "nscc").unwrap_err();
        assert!(e.contains("load_balancer") && e.contains("network.receiver"), "{e}");
        // per-flow ECMP on go-back-N is a RoCE-style choice the scenario may make
        assert_eq!(resolve(&gbn, &uet(false), "nscc").unwrap().net.receiver, Receiver::GoBackN);
        // other schemes keep go-back-N by default, silently
        let r = resolve(&NetConfig::default(), &Requirements::default(), "dcqcn").unwrap();
        assert_eq!((r.net.receiver, r.notes.len()), (Receiver::GoBackN, 0));
    }

    #[test]
    fn uet_transport_gets_per_packet_recovery_on_the_reorder_receiver_only() {
        let r = resolve(&NetConfig::default(), &uet(true), "nscc").unwrap();
        assert_eq!(r.net.recovery, Recovery::Packet);
        assert!(r.notes.iter().any(|n| n.kind == NoteKind::Chosen && n.text.contains("network.recovery = \"packet\"")));
        // on a go-back-N receiver it keeps the per-flow timer; asked for, per packet is refused
        let gbn = NetConfig { receiver: Receiver::GoBackN, ..Default::default() };
        assert_eq!(resolve(&gbn, &uet(false), "nscc").unwrap().net.recovery, Recovery::Flow);
        let asked = NetConfig { recovery: Recovery::Packet, ..gbn.clone() };
        let e = resolve(&asked, &uet(false), "nscc").unwrap_err();
        assert!(e.contains("network.recovery") && e.contains("go-back-n"), "{e}");
        // RoCE schemes keep the per-flow timer, even on the reorder receiver, unless asked
        let spray = NetConfig { routing: Routing::Spray, ..Default::default() };
        assert_eq!(resolve(&spray, &Requirements::default(), "dcqcn").unwrap().net.recovery, Recovery::Flow);
        let asked = NetConfig { recovery: Recovery::Packet, ..spray };
        assert_eq!(resolve(&asked, &Requirements::default(), "dcqcn").unwrap().net.recovery, Recovery::Packet);
        // the flow timer stays available to UET schemes
        let flow = NetConfig { recovery: Recovery::Flow, ..Default::default() };
        assert_eq!(resolve(&flow, &uet(true), "nscc").unwrap().net.recovery, Recovery::Flow);
    }

    #[test]
    fn ecn_and_int_signals_must_be_there() {
        let off = NetConfig {
            ecn: crate::config::EcnConfig { mode: EcnMode::Off, ..Default::default() },
            ..Default::default()
        };
        let dcqcn = Requirements { ecn_signal: true, ..Default::default() };
        assert!(resolve(&off, &dcqcn, "dcqcn").unwrap_err().contains("network.ecn.mode"));
        // a scheme's own marking replaces the network's
        let own = Requirements { ecn_signal: true, ecn: Some(Default::default()), ..Default::default() };
        assert!(resolve(&off, &own, "dctcp").is_ok());
        let no_int = NetConfig { int: Some(false), ..Default::default() };
        assert!(resolve(&no_int, &hpcc(), "hpcc").unwrap_err().contains("network.int = false"));
    }

    #[test]
    fn trimming_needs_a_lossy_class_and_warns_without_threshold() {
        let trim = TrimConfig { enabled: true, ..Default::default() };
        let lossless = NetConfig { trim: trim.clone(), ..Default::default() };
        let e = resolve(&lossless, &Requirements::default(), "nscc").unwrap_err();
        assert!(e.contains("network.trim.enabled") && e.contains("network.pfc.enabled"), "{e}");
        let mut mixed = NetConfig { trim: trim.clone(), data_classes: 2, ..Default::default() };
        mixed.pfc.lossy_prios = vec![1];
        let r = resolve(&mixed, &Requirements::default(), "nscc").unwrap();
        assert!(r.notes.iter().any(|n| n.kind == NoteKind::Warning && n.text.contains("trim.threshold")));
        mixed.trim.threshold = Some(Bytes(100_000));
        let r = resolve(&mixed, &Requirements::default(), "dcqcn").unwrap();
        assert!(r.notes.iter().all(|n| n.kind == NoteKind::Chosen), "{:?}", r.notes);
        // trimming resends selectively: the reorder receiver is chosen, go-back-N refused
        assert_eq!(r.net.receiver, Receiver::Reorder);
        mixed.receiver = Receiver::GoBackN;
        let e = resolve(&mixed, &Requirements::default(), "dcqcn").unwrap_err();
        assert!(e.contains("network.trim.enabled") && e.contains("network.receiver"), "{e}");
    }

    #[test]
    fn a_queue_limit_on_lossless_classes_is_warned_about() {
        let lossless = NetConfig { queue_limit: Some(Bytes(100_000)), ..Default::default() };
        let r = resolve(&lossless, &Requirements::default(), "dcqcn").unwrap();
        assert!(r.notes.iter().any(|n| n.kind == NoteKind::Warning && n.text.contains("limits nothing")));
        let mut lossy = lossless.clone();
        lossy.pfc.enabled = false;
        let r = resolve(&lossy, &Requirements::default(), "dcqcn").unwrap();
        assert!(!r.notes.iter().any(|n| n.text.contains("queue_limit")), "{:?}", r.notes);
    }

    #[test]
    fn dropping_fabrics_keep_go_back_n_and_warn_about_the_reorder_receiver() {
        let lossy =
            NetConfig { pfc: crate::config::PfcConfig { enabled: false, ..Default::default() }, ..Default::default() };
        let r = resolve(&lossy, &Requirements::default(), "dcqcn").unwrap();
        assert_eq!((r.net.receiver, r.notes.len()), (Receiver::GoBackN, 0));
        // sprayed: still go-back-N (reorder would leave every loss to the timeout), said so
        let spray = NetConfig { routing: Routing::Spray, ..lossy.clone() };
        let r = resolve(&spray, &Requirements::default(), "dcqcn").unwrap();
        assert_eq!((r.net.receiver, r.notes[0].kind), (Receiver::GoBackN, NoteKind::Warning));
        // the reorder receiver asked for on a dropping fabric: a warning about the timeout
        let reorder = NetConfig { receiver: Receiver::Reorder, ..lossy };
        let r = resolve(&reorder, &Requirements::default(), "dcqcn").unwrap();
        assert!(r.notes.iter().any(|n| n.kind == NoteKind::Warning && n.text.contains("timeout")));
    }

    #[test]
    fn a_lossy_fabric_needs_the_timeout() {
        let mut net = NetConfig { rto: Some(Dur(0)), ..Default::default() };
        assert!(resolve(&net, &Requirements::default(), "dcqcn").is_ok(), "lossless: no timer needed");
        net.pfc.enabled = false;
        assert!(resolve(&net, &Requirements::default(), "dcqcn").unwrap_err().contains("network.rto"));
        // trimming recovers every loss by its NACK
        net.trim = TrimConfig { enabled: true, threshold: Some(Bytes(100_000)), ..Default::default() };
        assert!(resolve(&net, &Requirements::default(), "dcqcn").is_ok());
        net.rto = Some(Dur(1_000_000_000));
        net.trim.enabled = false;
        assert!(resolve(&net, &Requirements::default(), "dcqcn").is_ok());
    }
}
