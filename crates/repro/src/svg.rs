//! A minimal SVG line-chart writer: linear or log axes with ticks, labels and
//! grid lines, any number of series (colour, dash pattern, optional markers),
//! and a legend. No dependencies; the output is a standalone SVG document.

use std::fmt::Write;

/// Colours for series, one per scheme or per series (cycled).
pub const PALETTE: [&str; 10] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    Log,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dash {
    Solid,
    Dashed,
    Dotted,
    LongShort,
}

impl Dash {
    pub fn nth(i: usize) -> Dash {
        [Dash::Solid, Dash::Dashed, Dash::Dotted, Dash::LongShort][i % 4]
    }
    fn attr(self) -> &'static str {
        match self {
            Dash::Solid => "",
            Dash::Dashed => " stroke-dasharray=\"7,4\"",
            Dash::Dotted => " stroke-dasharray=\"2,3\"",
            Dash::LongShort => " stroke-dasharray=\"8,3,2,3\"",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub color: String,
    pub dash: Dash,
    pub markers: bool,
    pub points: Vec<(f64, f64)>,
}

#[derive(Clone, Debug)]
pub struct Chart {
    /// Id prefix of the chart's SVG definitions (unique per HTML page).
    pub id: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    /// Start a linear y axis at zero even if all values are larger.
    pub y_from_zero: bool,
    pub width: f64,
    pub height: f64,
    pub series: Vec<Series>,
}

impl Chart {
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Chart {
        Chart {
            id: "plot".into(),
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            y_from_zero: true,
            width: 820.0,
            height: 480.0,
            series: Vec::new(),
        }
    }
}

/// Escapes text for XML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A chart title centred on the whole width, its font shrunk so that it
/// fits (about 0.6 em per character of a bold sans-serif).
fn title_text(title: &str, width: f64, size: f64) -> String {
    let chars = title.chars().count().max(1) as f64;
    let size = size.min((width - 16.0) / (0.6 * chars)).max(8.0);
    format!(
        "<text x=\"{:.1}\" y=\"22\" text-anchor=\"middle\" font-size=\"{size:.1}\" font-weight=\"bold\">{}</text>",
        width / 2.0,
        escape(title)
    )
}

/// A compact tick label: 0.5, 2, 150, 20K, 1.5M, 3G.
pub fn fmt_tick(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "K")
    } else {
        (v, "")
    };
    let s = if x == x.round() { format!("{}", x as i64) } else { format!("{:.3}", x) };
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    format!("{s}{suffix}")
}

/// An axis: data range mapped onto pixels, with ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub scale: Scale,
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
}

/// "Nice" step (1, 2 or 5 x 10^k) giving about `n` intervals over `span`.
fn nice_step(span: f64, n: f64) -> f64 {
    let raw = span / n;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

impl Axis {
    /// Fits an axis to values (non-finite values, and non-positive ones on a log axis, ignored).
    pub fn fit(values: impl Iterator<Item = f64>, scale: Scale, from_zero: bool) -> Axis {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in values {
            if v.is_finite() && (scale == Scale::Linear || v > 0.0) {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        match scale {
            Scale::Linear => {
                if !lo.is_finite() {
                    lo = 0.0;
                    hi = 1.0;
                }
                if from_zero {
                    lo = lo.min(0.0);
                    hi = hi.max(0.0);
                }
                if hi - lo <= 1e-12 * hi.abs().max(1.0) {
                    let pad = if hi == 0.0 { 1.0 } else { hi.abs() * 0.1 };
                    hi += pad;
                    if !from_zero {
                        lo -= pad;
                    }
                }
                let step = nice_step(hi - lo, 5.0);
                let lo = (lo / step).floor() * step;
                let hi = (hi / step).ceil() * step;
                let n = ((hi - lo) / step).round() as usize;
                let ticks = (0..=n)
                    .map(|i| lo + i as f64 * step)
                    .map(|t| if t.abs() < step * 1e-9 { 0.0 } else { t })
                    .collect();
                Axis { scale, lo, hi, ticks }
            }
            Scale::Log => {
                if !lo.is_finite() {
                    lo = 1.0;
                    hi = 10.0;
                }
                let mut a = lo.log10().floor();
                let mut b = hi.log10().ceil();
                if b <= a {
                    b = a + 1.0;
                }
                if b - a > 12.0 {
                    a = b - 12.0;
                }
                let mut ticks = Vec::new();
                let decades = (b - a) as i32;
                for k in a as i32..=b as i32 {
                    let base = 10f64.powi(k);
                    ticks.push(base);
                    if decades <= 2 && k < b as i32 {
                        ticks.push(2.0 * base);
                        ticks.push(5.0 * base);
                    }
                }
                Axis { scale, lo: 10f64.powf(a), hi: 10f64.powf(b), ticks }
            }
        }
    }

    /// Position of `v` as a fraction 0..1 of the axis.
    pub fn frac(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => (v - self.lo) / (self.hi - self.lo),
            Scale::Log => (v.max(self.lo * 1e-3).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10()),
        }
    }
}

const LEFT: f64 = 72.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 56.0;
const LEGEND_W: f64 = 190.0;

impl Chart {
    /// Renders the chart as a standalone SVG document.
    pub fn render(&self) -> String {
        let (w, h) = (self.width, self.height);
        let right = LEGEND_W + 10.0;
        let pw = (w - LEFT - right).max(50.0);
        let ph = (h - TOP - BOTTOM).max(50.0);
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        let xa = Axis::fit(pts().map(|p| p.0), self.x_scale, false);
        let ya = Axis::fit(pts().map(|p| p.1), self.y_scale, self.y_from_zero);
        let px = |x: f64| LEFT + xa.frac(x) * pw;
        let py = |y: f64| TOP + ph - ya.frac(y) * ph;

        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">"
        );
        let _ = writeln!(s, "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"white\"/>");
        let _ = writeln!(
            s,
            "<defs><clipPath id=\"{}\"><rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{pw:.1}\" height=\"{ph:.1}\"/></clipPath></defs>",
            escape(&self.id)
        );
        let _ = writeln!(s, "{}", title_text(&self.title, w, 15.0));
        // Grid and ticks.
        let _ = writeln!(s, "<g stroke=\"#e3e3e3\" stroke-width=\"1\">");
        for &t in &xa.ticks {
            let x = px(t);
            let _ = writeln!(s, "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{:.1}\"/>", TOP + ph);
        }
        for &t in &ya.ticks {
            let y = py(t);
            let _ = writeln!(s, "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\"/>", LEFT + pw);
        }
        let _ = writeln!(s, "</g>");
        let _ = writeln!(s, "<g stroke=\"black\" stroke-width=\"1\">");
        let _ =
            writeln!(s, "<line x1=\"{LEFT}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>", TOP + ph, LEFT + pw, TOP + ph);
        let _ = writeln!(s, "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{:.1}\"/>", TOP + ph);
        for &t in &xa.ticks {
            let x = px(t);
            let _ =
                writeln!(s, "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/>", TOP + ph, TOP + ph + 5.0);
        }
        for &t in &ya.ticks {
            let y = py(t);
            let _ = writeln!(s, "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{LEFT}\" y2=\"{y:.1}\"/>", LEFT - 5.0);
        }
        let _ = writeln!(s, "</g>");
        let _ = writeln!(s, "<g fill=\"#333\">");
        for &t in &xa.ticks {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                px(t),
                TOP + ph + 19.0,
                escape(&fmt_tick(t))
            );
        }
        for &t in &ya.ticks {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                LEFT - 8.0,
                py(t) + 4.0,
                escape(&fmt_tick(t))
            );
        }
        let _ = writeln!(s, "</g>");
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            LEFT + pw / 2.0,
            h - 14.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            s,
            "<text x=\"16\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1})\">{}</text>",
            TOP + ph / 2.0,
            TOP + ph / 2.0,
            escape(&self.y_label)
        );
        if self.series.iter().all(|x| x.points.is_empty()) {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#888\">no data</text>",
                LEFT + pw / 2.0,
                TOP + ph / 2.0
            );
        }
        // Series.
        let _ = writeln!(s, "<g clip-path=\"url(#{})\" fill=\"none\" stroke-width=\"1.6\">", escape(&self.id));
        for se in &self.series {
            let visible: Vec<(f64, f64)> = se
                .points
                .iter()
                .filter(|p| {
                    p.0.is_finite()
                        && p.1.is_finite()
                        && (self.x_scale == Scale::Linear || p.0 > 0.0)
                        && (self.y_scale == Scale::Linear || p.1 > 0.0)
                })
                .map(|&(x, y)| (px(x), py(y)))
                .collect();
            if visible.is_empty() {
                continue;
            }
            let color = escape(&se.color);
            let mut pl = String::new();
            for (i, (x, y)) in visible.iter().enumerate() {
                if i > 0 {
                    pl.push(' ');
                }
                let _ = write!(pl, "{x:.1},{y:.1}");
            }
            let _ = writeln!(s, "<polyline points=\"{pl}\" stroke=\"{color}\"{}/>", se.dash.attr());
            if se.markers {
                for (x, y) in &visible {
                    let _ =
                        writeln!(s, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.5\" fill=\"{color}\" stroke=\"none\"/>");
                }
            }
        }
        let _ = writeln!(s, "</g>");
        // Legend.
        let lx = LEFT + pw + 14.0;
        let _ = writeln!(s, "<g font-size=\"11\">");
        for (i, se) in self.series.iter().enumerate() {
            let y = TOP + 8.0 + i as f64 * 17.0;
            if y > h - 10.0 {
                let _ = writeln!(
                    s,
                    "<text x=\"{lx:.1}\" y=\"{:.1}\" fill=\"#555\">... {} more</text>",
                    y + 4.0,
                    self.series.len() - i
                );
                break;
            }
            let _ = writeln!(
                s,
                "<line x1=\"{lx:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{}\" stroke-width=\"2\"{}/>",
                lx + 26.0,
                escape(&se.color),
                se.dash.attr()
            );
            let mut label = se.label.clone();
            if label.chars().count() > 26 {
                label = label.chars().take(25).collect::<String>() + "…";
            }
            let _ = writeln!(s, "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>", lx + 32.0, y + 4.0, escape(&label));
        }
        let _ = writeln!(s, "</g>");
        s.push_str("</svg>\n");
        s
    }
}

/// One series of a bar chart: a value (and optional error range) per group.
#[derive(Clone, Debug)]
pub struct Bars {
    pub label: String,
    pub color: String,
    /// Drawn as an outline with diagonal hatching (e.g. the paper's values).
    pub hatched: bool,
    pub values: Vec<Option<f64>>,
    /// (low, high) whiskers per group.
    pub ranges: Vec<Option<(f64, f64)>>,
}

/// Grouped bars: one group per category, one bar per series in each.
#[derive(Clone, Debug)]
pub struct BarChart {
    pub id: String,
    pub title: String,
    pub y_label: String,
    pub groups: Vec<String>,
    pub series: Vec<Bars>,
    pub y_scale: Scale,
    pub width: f64,
    pub height: f64,
}

impl BarChart {
    pub fn new(id: &str, title: &str, y_label: &str, groups: Vec<String>) -> BarChart {
        BarChart {
            id: id.into(),
            title: title.into(),
            y_label: y_label.into(),
            groups,
            series: Vec::new(),
            y_scale: Scale::Linear,
            width: 640.0,
            height: 360.0,
        }
    }

    /// Renders the chart as a standalone SVG document.
    pub fn render(&self) -> String {
        let (w, h) = (self.width, self.height);
        let right = LEGEND_W - 40.0;
        let pw = (w - LEFT - right).max(50.0);
        let ph = (h - TOP - BOTTOM - 14.0).max(50.0);
        let vals = || {
            self.series.iter().flat_map(|s| {
                s.values.iter().flatten().copied().chain(s.ranges.iter().flatten().flat_map(|&(a, b)| [a, b]))
            })
        };
        let ya = Axis::fit(vals(), self.y_scale, self.y_scale == Scale::Linear);
        let py = |y: f64| TOP + ph - ya.frac(y).clamp(0.0, 1.0) * ph;
        let ng = self.groups.len().max(1) as f64;
        let gw = pw / ng;
        let nb = self.series.len().max(1) as f64;
        let bw = (gw * 0.8 / nb).min(48.0);
        let id = escape(&self.id);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">"
        );
        let _ = writeln!(s, "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"white\"/>");
        let _ = writeln!(
            s,
            "<defs><pattern id=\"{id}-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#777\" stroke-width=\"2\"/></pattern></defs>"
        );
        let _ = writeln!(s, "{}", title_text(&self.title, w, 14.0));
        let _ = writeln!(s, "<g stroke=\"#e3e3e3\">");
        for &t in &ya.ticks {
            let y = py(t);
            let _ = writeln!(s, "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\"/>", LEFT + pw);
        }
        let _ = writeln!(s, "</g><g fill=\"#333\">");
        for &t in &ya.ticks {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                LEFT - 8.0,
                py(t) + 4.0,
                escape(&fmt_tick(t))
            );
        }
        for (g, name) in self.groups.iter().enumerate() {
            let mut label = name.clone();
            if label.chars().count() > 18 {
                label = label.chars().take(17).collect::<String>() + "…";
            }
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                LEFT + (g as f64 + 0.5) * gw,
                TOP + ph + 18.0,
                escape(&label)
            );
        }
        let _ = writeln!(s, "</g>");
        let _ = writeln!(
            s,
            "<text x=\"16\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1})\">{}</text>",
            TOP + ph / 2.0,
            TOP + ph / 2.0,
            escape(&self.y_label)
        );
        let base = py(if self.y_scale == Scale::Log { ya.lo } else { 0.0f64.max(ya.lo) });
        for (k, se) in self.series.iter().enumerate() {
            let color = escape(&se.color);
            for g in 0..self.groups.len() {
                let x = LEFT + g as f64 * gw + (gw - bw * nb) / 2.0 + k as f64 * bw;
                if let Some(v) = se.values.get(g).copied().flatten() {
                    let y = py(v);
                    let (top, hgt) = if y < base { (y, base - y) } else { (base, y - base) };
                    let fill = if se.hatched { format!("url(#{id}-hatch)") } else { color.clone() };
                    let _ = writeln!(
                        s,
                        "<rect x=\"{:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\" stroke=\"{color}\" stroke-width=\"1\"/>",
                        x + 1.0,
                        bw - 2.0,
                        hgt.max(0.5)
                    );
                } else {
                    let _ = writeln!(
                        s,
                        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"9\" fill=\"#888\">n/a</text>",
                        x + bw / 2.0,
                        base - 3.0
                    );
                }
                if let Some((lo, hi)) = se.ranges.get(g).copied().flatten() {
                    let cx = x + bw / 2.0;
                    let _ = writeln!(
                        s,
                        "<path d=\"M{cx:.1},{:.1}V{:.1}M{:.1},{:.1}H{:.1}M{:.1},{:.1}H{:.1}\" stroke=\"black\" fill=\"none\"/>",
                        py(lo),
                        py(hi),
                        cx - 3.0,
                        py(lo),
                        cx + 3.0,
                        cx - 3.0,
                        py(hi),
                        cx + 3.0
                    );
                }
            }
        }
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{base:.1}\" x2=\"{:.1}\" y2=\"{base:.1}\" stroke=\"black\"/>",
            LEFT + pw
        );
        let _ = writeln!(s, "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{:.1}\" stroke=\"black\"/>", TOP + ph);
        let lx = LEFT + pw + 12.0;
        for (k, se) in self.series.iter().enumerate() {
            let y = TOP + 8.0 + k as f64 * 18.0;
            let fill = if se.hatched { format!("url(#{id}-hatch)") } else { escape(&se.color) };
            let _ = writeln!(
                s,
                "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"14\" height=\"10\" fill=\"{fill}\" stroke=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text>",
                y - 5.0,
                escape(&se.color),
                lx + 20.0,
                y + 4.0,
                escape(&se.label)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// Reduces a long series to at most about `max` points, keeping each bucket's
/// minimum and maximum (so peaks survive) in time order.
pub fn decimate(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max < 4 {
        return points.to_vec();
    }
    let buckets = max / 2;
    let per = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(max + 2);
    for chunk in points.chunks(per) {
        let (mut imin, mut imax) = (0, 0);
        for (i, p) in chunk.iter().enumerate() {
            if p.1 < chunk[imin].1 {
                imin = i;
            }
            if p.1 > chunk[imax].1 {
                imax = i;
            }
        }
        let (a, b) = if imin <= imax { (imin, imax) } else { (imax, imin) };
        out.push(chunk[a]);
        if b != a {
            out.push(chunk[b]);
        }
    }
    out
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A small XML well-formedness check: tags balance, attributes are
    /// quoted, no raw '<' or unescaped '&' in text. Returns the element names seen.
    pub fn check_well_formed(doc: &str) -> Result<Vec<String>, String> {
        let mut stack: Vec<String> = Vec::new();
        let mut seen = Vec::new();
        let b = doc.as_bytes();
        let mut i = 0;
        let check_text = |t: &str| -> Result<(), String> {
            let mut rest = t;
            while let Some(p) = rest.find('&') {
                let after = &rest[p + 1..];
                let end = after.find(';').ok_or_else(|| format!("unterminated entity in {t:?}"))?;
                let ent = &after[..end];
                let ok = matches!(ent, "amp" | "lt" | "gt" | "quot" | "apos")
                    || (ent.starts_with('#') && ent[1..].chars().all(|c| c.is_ascii_digit()) && ent.len() > 1);
                if !ok {
                    return Err(format!("bad entity &{ent};"));
                }
                rest = &after[end + 1..];
            }
            if t.contains('>') {
                return Err(format!("raw '>' in text {t:?}"));
            }
            Ok(())
        };
        while i < b.len() {
            if b[i] == b'<' {
                let end = doc[i..].find('>').ok_or("unterminated tag")? + i;
                let tag = &doc[i + 1..end];
                if let Some(name) = tag.strip_prefix('/') {
                    let open = stack.pop().ok_or_else(|| format!("close </{name}> without open"))?;
                    if open != name.trim() {
                        return Err(format!("</{name}> closes <{open}>"));
                    }
                } else {
                    let self_closing = tag.ends_with('/');
                    let body = tag.trim_end_matches('/');
                    let name: String = body.chars().take_while(|c| !c.is_whitespace()).collect();
                    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':') {
                        return Err(format!("bad element name in <{tag}>"));
                    }
                    // attributes: name="value" pairs
                    let mut rest = body[name.len()..].trim();
                    while !rest.is_empty() {
                        let eq = rest.find('=').ok_or_else(|| format!("attribute without value in <{tag}>"))?;
                        let an = rest[..eq].trim();
                        if an.is_empty() || an.contains(char::is_whitespace) {
                            return Err(format!("bad attribute name in <{tag}>"));
                        }
                        let after = rest[eq + 1..].trim_start();
                        if !after.starts_with('"') {
                            return Err(format!("unquoted attribute in <{tag}>"));
                        }
                        let close = after[1..].find('"').ok_or("unterminated attribute")? + 1;
                        let val = &after[1..close];
                        if val.contains('<') {
                            return Err(format!("'<' in attribute of <{tag}>"));
                        }
                        check_text(val)?;
                        rest = after[close + 1..].trim_start();
                    }
                    seen.push(name.clone());
                    if !self_closing {
                        stack.push(name);
                    }
                }
                i = end + 1;
            } else {
                let next = doc[i..].find('<').map(|p| p + i).unwrap_or(b.len());
                check_text(&doc[i..next])?;
                if stack.is_empty() && !doc[i..next].trim().is_empty() {
                    return Err("text outside the root element".into());
                }
                i = next;
            }
        }
        if !stack.is_empty() {
            return Err(format!("unclosed elements: {stack:?}"));
        }
        Ok(seen)
    }

    #[test]
    fn checker_rejects_broken_documents() {
        assert!(check_well_formed("<a><b></a>").is_err());
        assert!(check_well_formed("<a x=1/>").is_err());
        assert!(check_well_formed("<a>x & y</a>").is_err());
        assert!(check_well_formed("<a><b/>").is_err());
        assert!(check_well_formed("<a x=\"1\"><b/>t &amp; u</a>").is_ok());
    }

    #[test]
    fn chart_is_well_formed_with_legend_ticks_and_escaped_text() {
        let mut c = Chart::new("Queue <port 2:3> & more", "time (us)", "queue (KB)");
        c.series.push(Series {
            label: "hpcc \"2:3\"".into(),
            color: PALETTE[0].into(),
            dash: Dash::Solid,
            markers: false,
            points: (0..100).map(|i| (i as f64, (i % 17) as f64 * 3.0)).collect(),
        });
        c.series.push(Series {
            label: "dcqcn <b>".into(),
            color: PALETTE[1].into(),
            dash: Dash::Dashed,
            markers: true,
            points: vec![(0.0, 1.0), (50.0, f64::NAN), (99.0, 40.0)],
        });
        let svg = c.render();
        let names = check_well_formed(&svg).unwrap();
        assert_eq!(names[0], "svg");
        assert_eq!(names.iter().filter(|n| *n == "polyline").count(), 2);
        assert!(svg.contains("Queue &lt;port 2:3&gt; &amp; more"));
        assert!(svg.contains("hpcc &quot;2:3&quot;"));
        assert!(svg.contains("dcqcn &lt;b&gt;"));
        assert!(svg.contains("stroke-dasharray"));
        // Tick labels of the x axis 0..100.
        for t in ["0", "20", "40", "60", "80", "100"] {
            assert!(svg.contains(&format!(">{t}</text>")), "missing tick {t}");
        }
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn log_axes_span_whole_decades() {
        let a = Axis::fit([3.0, 450.0, -1.0, 0.0].into_iter(), Scale::Log, false);
        assert_eq!((a.lo, a.hi), (1.0, 1000.0));
        assert_eq!(a.ticks, vec![1.0, 10.0, 100.0, 1000.0]);
        let b = Axis::fit([1.2, 7.0].into_iter(), Scale::Log, false);
        assert_eq!(b.ticks, vec![1.0, 2.0, 5.0, 10.0]);
        assert!((a.frac(10.0) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn linear_axes_have_nice_ticks() {
        let a = Axis::fit([0.3, 9.2].into_iter(), Scale::Linear, true);
        assert_eq!(a.lo, 0.0);
        assert_eq!(a.hi, 10.0);
        assert_eq!(a.ticks, vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let flat = Axis::fit([5.0, 5.0].into_iter(), Scale::Linear, false);
        assert!(flat.lo < 5.0 && flat.hi > 5.0);
        let empty = Axis::fit(std::iter::empty(), Scale::Linear, true);
        assert_eq!((empty.lo, empty.hi), (0.0, 1.0));
    }

    #[test]
    fn empty_chart_says_no_data() {
        let c = Chart::new("t", "x", "y");
        let svg = c.render();
        check_well_formed(&svg).unwrap();
        assert!(svg.contains("no data"));
    }

    #[test]
    fn tick_labels_are_compact() {
        assert_eq!(fmt_tick(0.0), "0");
        assert_eq!(fmt_tick(2.5), "2.5");
        assert_eq!(fmt_tick(5000.0), "5000");
        assert_eq!(fmt_tick(20000.0), "20K");
        assert_eq!(fmt_tick(1.5e6), "1.5M");
        assert_eq!(fmt_tick(3e10), "30G");
    }

    #[test]
    fn decimation_keeps_peaks_and_order() {
        let pts: Vec<(f64, f64)> =
            (0..10_000).map(|i| (i as f64, if i == 5_123 { 1e6 } else { (i % 10) as f64 })).collect();
        let d = decimate(&pts, 500);
        assert!(d.len() <= 502, "{}", d.len());
        assert!(d.iter().any(|p| p.1 == 1e6));
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(decimate(&pts[..10], 500).len(), 10);
    }
}
