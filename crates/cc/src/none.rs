//! Scheme "none": no congestion control. Every flow sends at its NIC's line rate,
//! optionally limited to a fixed window of bytes in flight. A baseline for the
//! fabric itself (what PFC alone does) and for ideal-FCT checks.

use crate::registry::SchemeConfig;
use ccsim_core::cc::{FlowView, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::Packet;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoneConfig {
    /// Window in multiples of the flow's BDP (`flow.bdp` = line rate x base RTT
    /// of the flow's path), rounded up to whole bytes; 0 = no window.
    /// Default 1.0 (ccsim's choice, no external source: one BDP lets a lone flow
    /// run at line rate while bounding what each flow can put into queues).
    pub window_bdps: f64,
}

impl Default for NoneConfig {
    fn default() -> Self {
        NoneConfig { window_bdps: 1.0 }
    }
}

impl SchemeConfig for NoneConfig {
    const NAME: &'static str = "none";
    const SUMMARY: &'static str = "no congestion control: line rate, optional fixed window";
    const PARAMS: &'static [(&'static str, &'static str)] =
        &[("window_bdps", "window in flow BDPs (line rate x path base RTT); 0 = no window")];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.window_bdps.is_finite() && self.window_bdps >= 0.0) {
            return Err(("window_bdps", "must be a finite number >= 0".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(NoCc { cfg: self })
    }
}

/// The "none" scheme.
pub struct NoCc {
    cfg: NoneConfig,
}

impl Scheme for NoCc {
    fn name(&self) -> &str {
        NoneConfig::NAME
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        let window = if self.cfg.window_bdps > 0.0 {
            ((self.cfg.window_bdps * flow.bdp as f64).ceil() as u64).max(1)
        } else {
            u64::MAX
        };
        Box::new(NoneSender { window })
    }
}

/// Sender of the "none" scheme: sets line rate and its fixed window once.
pub struct NoneSender {
    window: u64,
}

impl SenderCc for NoneSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        cx.rate = cx.flow.line_rate as f64;
        cx.window = self.window;
    }
    fn on_ack(&mut self, _cx: &mut SenderCx, _ack: &Packet) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack_ecn, flow, Harness};

    #[test]
    fn line_rate_and_bdp_window_that_never_change() {
        let scheme = NoneConfig::default().into_scheme();
        let mut s = scheme.sender(&flow());
        let mut h = Harness::new(flow());
        h.rate = 1.0;
        h.start(s.as_mut());
        assert_eq!(h.rate, 100e9);
        assert_eq!(h.window, 125_000);
        h.ack(s.as_mut(), &ack_ecn(1000));
        assert_eq!((h.rate, h.window), (100e9, 125_000));
        assert_eq!(scheme.requirements(), Default::default());
    }

    #[test]
    fn window_multiple_and_no_window() {
        let s = NoneConfig { window_bdps: 2.5 }.into_scheme();
        let mut h = Harness::new(flow());
        h.start(s.sender(&flow()).as_mut());
        assert_eq!(h.window, 312_500);
        let s = NoneConfig { window_bdps: 0.0 }.into_scheme();
        let mut h = Harness::new(flow());
        h.window = 5;
        h.start(s.sender(&flow()).as_mut());
        assert_eq!(h.window, u64::MAX);
    }
}
