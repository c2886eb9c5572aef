//! Test fixtures shared by this crate's tests and the CLI's.

use ccsim_core::results::{FlowResult, FlowTrace, RunResult, Series as SimSeries};
use ccsim_core::time::US;

/// A small result: 100 flows (sizes 1..100 KB, slowdowns 1 + slow x (i mod 10)),
/// one traced queue ("2:3", 50 samples rising by 1 KB per 10 us) and one flow trace.
pub fn sample_result(slow: f64) -> RunResult {
    let flows = (0..100u32)
        .map(|i| FlowResult {
            id: i,
            src: 0,
            dst: 1,
            size: 1000 * (i as u64 + 1),
            start: 0,
            fct: Some(10 * US),
            ideal_fct: 5 * US,
            slowdown: Some(1.0 + slow * (i % 10) as f64),
            retransmits: 0,
            conn: None,
            tag: None,
            ..Default::default()
        })
        .collect();
    RunResult {
        flows,
        queues: vec![SimSeries {
            name: "2:3".into(),
            t: (0..50).map(|i| i * 10 * US).collect(),
            v: (0..50).map(|i| (i * 1000) as f64).collect(),
        }],
        flow_traces: vec![FlowTrace {
            flow: 0,
            line_rate_bps: 100e9,
            t: vec![0, 10 * US],
            rate_bps: vec![100e9, 50e9],
            window: vec![f64::MAX, 1e5],
            acked: vec![0.0, 1e4],
            probe: vec![0.0, 0.5],
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// A chart's validity, as tests check it: well-formed XML whose root is an
/// `<svg>` element with a width and a height (the renderers of the `export`
/// feature parse the same files; their tests check that too).
#[cfg(test)]
pub fn valid_svg(svg: &str) -> Result<(), String> {
    let doc = roxmltree::Document::parse(svg).map_err(|e| format!("invalid SVG: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "svg" {
        return Err(format!("invalid SVG: the root element is <{}>", root.tag_name().name()));
    }
    for a in ["width", "height"] {
        root.attribute(a).ok_or_else(|| format!("invalid SVG: the <svg> element has no {a}"))?;
    }
    Ok(())
}
