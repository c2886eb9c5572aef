//! Scheme counters, OSCAR's gradient-estimate error, and engine figures.

use ccsim_core::results::Series;
use ccsim_core::time::{ser_time, Time};

use super::traces::ack_samples;
use super::{need, Ctx, Params};

/// A scheme counter summed over switches (`SwitchCc::counters`); per second
/// of simulated time with `per_second`, or a byte counter as Gbps over the
/// run with `gbps`.
pub fn counter(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let name = need(p.text("name"), "name")?;
    let v = match cx.r.scheme_counters.iter().find(|(n, _)| n == name) {
        Some(&(_, v)) => v as f64,
        // a scheme that never counted this reports nothing: zero
        None => 0.0,
    };
    let secs = cx.r.engine.sim_end as f64 / 1e12;
    Ok(Some(if p.bool("gbps").unwrap_or(false) {
        v * 8.0 / secs / 1e9
    } else if p.bool("per_second").unwrap_or(false) {
        v / secs
    } else {
        v
    }))
}

pub fn events(_p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(Some(cx.r.engine.events as f64))
}

pub fn data_packets(_p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(Some(cx.r.engine.data_packets as f64))
}

/// Linear interpolation of a sampled series at `t`.
fn series_at(s: &Series, t: Time) -> f64 {
    let i = s.t.partition_point(|&x| x <= t);
    if i == 0 {
        return s.v.first().copied().unwrap_or(0.0);
    }
    if i == s.t.len() {
        return *s.v.last().unwrap();
    }
    let (t0, t1) = (s.t[i - 1] as f64, s.t[i] as f64);
    let (v0, v1) = (s.v[i - 1], s.v[i]);
    v0 + (v1 - v0) * (t as f64 - t0) / (t1 - t0)
}

/// OSCAR's delay-gradient precision: the flow's ACK samples (send time,
/// arrival) replayed through batched least squares (`estimator = "bls"`,
/// period `tau`, default 5 us) or per-packet divide + EWMA (`"ewma"`,
/// old-value weight `weight`, default 0.875); at every non-idle BLS batch
/// starting after `from`, both are compared with the true gradient of the
/// bottleneck queue `port` over the batch's send span, shifted by the
/// sender's first hop (propagation + one full packet):
/// g = (q(last + o) - q(first + o)) x 8 / (C x (last - first)).
/// The value is the mean squared error of the chosen estimator.
pub fn gradient_error(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    use ccsim_cc::oscar::{Bls, DivideEwma};
    let f = need(p.flow("flow"), "flow")?;
    let port = need(p.port("port"), "port")?;
    let acks = ack_samples(cx, f)?;
    let name = format!("{}:{}", port.node, port.peer);
    let q =
        cx.r.queues.iter().find(|s| s.name == name).ok_or_else(|| format!("port {name}: its queue is not traced"))?;
    let cap = cx.r.ports.iter().find(|x| x.port == port).ok_or_else(|| format!("port {name}: no such egress"))?.rate_bps
        as f64;
    let src = need(cx.scn.flows.get(f as usize), &format!("flow {f}"))?.src;
    let link = cx.scn.topo.links.iter().find(|l| l.a == src || l.b == src).ok_or("the sender has no link")?;
    let up = link.from(src);
    let offset = up.delay + ser_time(cx.scn.net.packet_size(), up.rate_bps);
    let estimator = p.text("estimator").unwrap_or("bls");
    if !matches!(estimator, "bls" | "ewma" | "ratio") {
        return Err(format!(
            "estimator = \"{estimator}\": expected \"bls\", \"ewma\" or \"ratio\" (MSE of ewma / MSE of bls)"
        ));
    }
    // tau and the EWMA weight default to the run's OSCAR configuration
    let own = cx.scn.resolved_table(&cx.r.scheme).ok();
    let cfg = |k: &str| own.as_ref().and_then(|(base, t)| (base == "oscar").then(|| t.get(k)).flatten());
    let tau = p
        .time("tau")
        .or_else(|| cfg("bls_period").and_then(|v| v.as_str()).and_then(|s| ccsim_core::units::parse_dur(s).ok()));
    let weight = p.num("weight").or_else(|| cfg("ewma_weight").and_then(|v| v.as_float()));
    let from = p.time("from").unwrap_or(0);
    let mut bls = Bls::new(tau.unwrap_or(5_000_000), 3, 3.0);
    let mut ewma = DivideEwma::new(weight.unwrap_or(0.875));
    let (mut n, mut sum_bls, mut sum_ewma) = (0usize, 0.0, 0.0);
    for &(send, at) in acks {
        let delay = at - send;
        let g_ewma = ewma.push(send, delay);
        if let Some(b) = bls.push(send, delay, 0.0) {
            if b.idle || b.first_send < from || b.last_send <= b.first_send {
                continue;
            }
            let span = (b.last_send - b.first_send) as f64 / 1e12;
            let dq = series_at(q, b.last_send + offset) - series_at(q, b.first_send + offset);
            let truth = dq * 8.0 / cap / span;
            n += 1;
            sum_bls += (b.gradient - truth).powi(2);
            sum_ewma += (g_ewma - truth).powi(2);
        }
    }
    if n == 0 {
        return Ok(None);
    }
    Ok(Some(match estimator {
        "bls" => sum_bls / n as f64,
        "ewma" => sum_ewma / n as f64,
        _ => sum_ewma / sum_bls,
    }))
}
