//! Charts: what a figure shows, as plain data (axes, line series, bars,
//! panels side by side), drawn with the plotters library ([`draw`]), ticked
//! in one unit per axis ([`ticks`]) and written as SVG, PNG or PDF
//! ([`export`], through resvg and svg2pdf with an embedded DejaVu Sans).
//!
//! Issue 25 replaced a hand-written SVG writer whose charts mixed tick
//! formats, drew categorical settings on numeric axes and hid series under
//! one another; this module keeps only the data model and the tick rules.

pub mod draw;
pub mod export;
pub mod ticks;

/// Colours for series, one per scheme or per series (cycled): matplotlib's "tab10".
pub const PALETTE: [&str; 10] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    Log,
}

/// How the tick labels of an axis read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickFormat {
    /// Plain numbers, one precision per axis ("0, 2.5, 5.0"; "200k" past 10^5).
    Number,
    /// Byte counts with their unit ("500 KB", "1.5 MB").
    Bytes,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dash {
    Solid,
    Dashed,
    Dotted,
}

impl Dash {
    pub fn nth(i: usize) -> Dash {
        [Dash::Solid, Dash::Dashed, Dash::Dotted][i % 3]
    }
}

/// One line of a chart.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    /// "#rrggbb".
    pub color: String,
    pub dash: Dash,
    /// Draw a marker at every point (its shape follows the series' index).
    pub markers: bool,
    /// (x, y) in data units; NaN values break the line.
    pub points: Vec<(f64, f64)>,
}

/// One axes of lines.
#[derive(Clone, Debug)]
pub struct Chart {
    /// `id` of the SVG element (an anchor in HTML pages).
    pub id: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub x_format: TickFormat,
    pub y_format: TickFormat,
    /// Start a linear y axis at zero even if all values are larger.
    pub y_from_zero: bool,
    /// Names of the x positions 0, 1, 2, ...: a categorical x axis.
    pub x_categories: Option<Vec<String>>,
    /// Draw only this x range (a time window), in x data units.
    pub x_range: Option<(f64, f64)>,
    pub width: u32,
    pub height: u32,
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
            x_format: TickFormat::Number,
            y_format: TickFormat::Number,
            y_from_zero: true,
            x_categories: None,
            x_range: None,
            width: 820,
            height: 480,
            series: Vec::new(),
        }
    }

    /// The chart as a standalone SVG document.
    pub fn render(&self) -> String {
        Figure::single(self.clone()).render()
    }
}

/// Charts side by side under one title, sharing one legend (series of the
/// same label are drawn alike in every panel).
#[derive(Clone, Debug)]
pub struct Figure {
    pub id: String,
    pub title: String,
    pub panels: Vec<Chart>,
    pub width: u32,
    pub height: u32,
}

impl Figure {
    pub fn single(c: Chart) -> Figure {
        Figure { id: c.id.clone(), title: String::new(), width: c.width, height: c.height, panels: vec![c] }
    }

    pub fn render(&self) -> String {
        draw::figure_svg(self)
    }
}

/// One series of bars, a value (or none) per group.
#[derive(Clone, Debug)]
pub struct Bars {
    pub label: String,
    pub color: String,
    /// Drawn light with a solid outline (the paper's values beside ccsim's).
    pub outlined: bool,
    pub values: Vec<Option<f64>>,
    /// Whiskers: (low, high) per group.
    pub ranges: Vec<Option<(f64, f64)>>,
}

/// Grouped bars: one group per name, one bar per series in each.
#[derive(Clone, Debug)]
pub struct BarChart {
    pub id: String,
    pub title: String,
    pub y_label: String,
    pub y_scale: Scale,
    pub groups: Vec<String>,
    pub series: Vec<Bars>,
    pub width: u32,
    pub height: u32,
}

impl BarChart {
    pub fn new(id: &str, title: &str, y_label: &str, groups: Vec<String>) -> BarChart {
        BarChart {
            id: id.into(),
            title: title.into(),
            y_label: y_label.into(),
            y_scale: Scale::Linear,
            groups,
            series: Vec::new(),
            width: 820,
            height: 440,
        }
    }

    pub fn render(&self) -> String {
        draw::bars_svg(self)
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
mod tests {
    use super::*;

    #[test]
    fn decimate_keeps_peaks_in_order() {
        let pts: Vec<(f64, f64)> =
            (0..10_000).map(|i| (i as f64, if i == 4321 { 99.0 } else { (i % 7) as f64 })).collect();
        let d = decimate(&pts, 100);
        assert!(d.len() <= 102);
        assert!(d.iter().any(|p| p.1 == 99.0));
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
