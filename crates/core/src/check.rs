//! Invariant checks of a finished run (`SimOptions::check`, `ccsim run
//! --check`; with [`deep_checks`] every run checks the buffer accounting):
//!
//! * byte conservation: every data byte a host sent was delivered, dropped
//!   or is still queued or on a wire;
//! * a lossless fabric (PFC on, no link failures) dropped nothing;
//! * the shared-buffer accounting of every switch matches what it queues;
//! * after the run's results are taken, the packets still in flight are
//!   played out (no new data is sent, no timer fires): then no packet may
//!   be left allocated and every ingress account must be empty. Skipped
//!   after a PFC deadlock, whose packets can never leave.

use crate::event::Ev;
use crate::state::Simulator;

/// Whether runs check themselves as they go (the *deep* checks): each NIC
/// choice against a scan of the host's flows, the INT a switch hook pushes,
/// no packet queued towards a failed link, and the buffer accounting at the
/// end of every run. On in debug builds; in a release build when the
/// environment sets `CCSIM_DEEP_CHECKS=1` (the test command does: its tests
/// run in the release build of the quick start). Read once per process.
pub fn deep_checks() -> bool {
    static DEEP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEEP.get_or_init(|| {
        cfg!(debug_assertions) || std::env::var("CCSIM_DEEP_CHECKS").is_ok_and(|v| !v.is_empty() && v != "0")
    })
}

/// Most events played out to drain the fabric after a checked run.
const DRAIN_EVENTS: u64 = 100_000_000;

impl Simulator {
    /// The checks that hold at any time: conservation, no loss where
    /// lossless, buffer accounting.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        let in_flight = self.data_in_flight();
        let accounted =
            self.count.data_bytes_delivered + self.count.data_bytes_dropped + self.count.data_bytes_trimmed + in_flight;
        if accounted != self.count.data_bytes_sent {
            return Err(format!(
                "byte conservation: hosts sent {} data bytes, but {} were delivered, {} dropped, {} trimmed and {} are in flight ({} unaccounted)",
                self.count.data_bytes_sent,
                self.count.data_bytes_delivered,
                self.count.data_bytes_dropped,
                self.count.data_bytes_trimmed,
                in_flight,
                self.count.data_bytes_sent as i128 - accounted as i128
            ));
        }
        if self.net.pfc.enabled
            && self.net.pfc.lossy_prios.is_empty()
            && self.net.link_events.is_empty()
            && self.count.drops > 0
        {
            return Err(format!("a lossless fabric (PFC on, no link failures) dropped {} packets", self.count.drops));
        }
        self.check_buffer_accounting().map_err(|e| format!("buffer accounting: {e}"))
    }

    /// Plays out the packets still in flight (arrivals and transmissions
    /// only; hosts send no new data and timers do not fire), then checks
    /// that every packet was freed and the switches hold nothing.
    pub(crate) fn drain_and_check(&mut self) -> Result<(), String> {
        self.ctl.draining = true;
        let mut n = 0u64;
        while let Some((t, ev)) = self.events.pop() {
            self.now = self.now.max(t);
            match ev {
                Ev::Arrive { port, gen, pkt, .. } => {
                    self.arrival(port, gen, pkt);
                }
                Ev::TxDone { port } => {
                    self.ports[port as usize].tx_pending = false;
                    self.try_send(port);
                }
                Ev::HostWake { host } => {
                    let p = self.hosts[host as usize].port;
                    self.try_send(p);
                }
                _ => {}
            }
            n += 1;
            if n > DRAIN_EVENTS {
                return Err(format!("the fabric did not drain within {DRAIN_EVENTS} events after the run"));
            }
        }
        let live = self.pool.live();
        if live > 0 {
            return Err(format!("{live} packets were never freed (a packet leak)"));
        }
        self.check_buffer_accounting().map_err(|e| format!("after draining, buffer accounting: {e}"))?;
        if let Some(p) = self.ports.iter().find(|p| p.cls.iter().any(|c| c.ing_bytes > 0 || c.hdrm_bytes > 0)) {
            return Err(format!("after draining, switch {} still accounts bytes from {}", p.node, p.peer));
        }
        Ok(())
    }
}
