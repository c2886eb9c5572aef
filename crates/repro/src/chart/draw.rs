//! Drawing charts with plotters into SVG text. Log axes are drawn in log10
//! space with ticks from [`super::ticks`], so every axis, linear, log or
//! categorical, is one plotters coordinate type with explicit key points.
//! Legends go under the axes (never over the data), one per figure.

use std::sync::Once;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontTransform;

use super::ticks::{labels, ticks, Ticks};
use super::{BarChart, Chart, Dash, Figure, Scale, Series, TickFormat};

const FONT: &str = "sans-serif";
/// Font sizes as plotters takes them: it writes size / 1.24 as the SVG
/// font-size (ab_glyph's em), so 15 here is a 12 px label.
const LABEL_PX: f64 = 15.0;
const LEGEND_PX: f64 = 15.0;
const DESC_PX: f64 = 17.0;
const CAPTION_PX: f64 = 18.0;
const TITLE_PX: f64 = 21.0;
const LEGEND_ROW: u32 = 20;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A linear axis in drawing space with the ticks of [`super::ticks`]:
/// labelled ones for bold grid lines and labels, the others for light lines.
#[derive(Clone)]
struct Axis {
    lo: f64,
    hi: f64,
    ticks: Ticks,
}

impl Ranged for Axis {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let f = if self.hi > self.lo { (v - self.lo) / (self.hi - self.lo) } else { 0.5 };
        limit.0 + (f * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.ticks.minor.clone()
        } else {
            self.ticks.major.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}
type Res<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    format!("drawing failed: {e}")
}

/// Text is laid out with DejaVu Sans metrics (the font PNG and PDF export
/// embed), so labels measure the same in every format.
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

fn color(hex: &str) -> RGBColor {
    let h = hex.trim_start_matches('#');
    let c = |i: usize| h.get(i..i + 2).and_then(|s| u8::from_str_radix(s, 16).ok()).unwrap_or(0);
    RGBColor(c(0), c(2), c(4))
}

fn text_width(area: &Area, text: &str, px: f64) -> u32 {
    area.estimate_text_size(text, &TextStyle::from((FONT, px).into_font()))
        .map(|s| s.0)
        .unwrap_or((text.len() as f64 * px * 0.6) as u32)
}

/// Adds `id` to the document's root element and replaces a failed drawing
/// by a visible message (never an empty file).
fn finish(svg: String, id: &str, res: Res<()>, w: u32, h: u32) -> String {
    let esc = |s: &str| {
        let mut o = String::new();
        let _ = pulldown_cmark_escape::escape_html(&mut o, s);
        o
    };
    match res {
        Ok(()) => svg.replacen("<svg ", &format!("<svg id=\"{}\" ", esc(id)), 1),
        Err(e) => format!(
            "<svg id=\"{}\" width=\"{w}\" height=\"{h}\" xmlns=\"http://www.w3.org/2000/svg\"><text x=\"10\" y=\"20\">{}</text></svg>\n",
            esc(id),
            esc(&e)
        ),
    }
}

/// A legend entry: how a label's series is drawn.
struct Item {
    label: String,
    color: RGBColor,
    dash: Dash,
    marker: Option<usize>,
    bar: Option<bool>,
}

fn line_items<'a>(panels: impl Iterator<Item = &'a Chart>) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    for c in panels {
        for (i, s) in c.series.iter().enumerate() {
            if !s.label.is_empty() && !out.iter().any(|x| x.label == s.label) {
                out.push(Item {
                    label: s.label.clone(),
                    color: color(&s.color),
                    dash: s.dash,
                    marker: s.markers.then_some(i),
                    bar: None,
                });
            }
        }
    }
    out
}

/// Rows the legend needs at this width.
fn legend_rows(area: &Area, items: &[Item], width: u32) -> u32 {
    if items.is_empty() {
        return 0;
    }
    let (mut rows, mut x) = (1, 10);
    for it in items {
        let w = text_width(area, &it.label, LEGEND_PX) + 46;
        if x + w > width && x > 10 {
            rows += 1;
            x = 10;
        }
        x += w;
    }
    rows
}

fn draw_legend(area: &Area, items: &[Item]) -> Res<()> {
    let (width, _) = area.dim_in_pixel();
    let (mut x, mut y) = (10i32, 8i32);
    for it in items {
        let w = (text_width(area, &it.label, LEGEND_PX) + 46) as i32;
        if x + w > width as i32 && x > 10 {
            x = 10;
            y += LEGEND_ROW as i32;
        }
        match it.bar {
            Some(outlined) => {
                let fill = if outlined { it.color.mix(0.25).filled() } else { it.color.filled() };
                area.draw(&Rectangle::new([(x + 4, y - 6), (x + 22, y + 6)], fill)).map_err(err)?;
                area.draw(&Rectangle::new([(x + 4, y - 6), (x + 22, y + 6)], it.color.stroke_width(1))).map_err(err)?;
            }
            None => {
                let style = it.color.stroke_width(2);
                let seg = [(x, y), (x + 26, y)];
                match it.dash {
                    Dash::Solid => area.draw(&PathElement::new(seg.to_vec(), style)).map_err(err)?,
                    d => {
                        let (on, off) = dash_pattern(d);
                        let mut a = x;
                        while a < x + 26 {
                            let b = (a + on as i32).min(x + 26);
                            area.draw(&PathElement::new(vec![(a, y), (b, y)], style)).map_err(err)?;
                            a = b + off as i32;
                        }
                    }
                }
                if let Some(m) = it.marker {
                    draw_marker(area, m, (x + 13, y), it.color)?;
                }
            }
        }
        area.draw(&Text::new(it.label.clone(), (x + 32, y - 7), (FONT, LEGEND_PX))).map_err(err)?;
        x += w;
    }
    Ok(())
}

fn dash_pattern(d: Dash) -> (u32, u32) {
    match d {
        Dash::Solid => (1, 0),
        Dash::Dashed => (8, 5),
        Dash::Dotted => (2, 4),
    }
}

/// Marker shapes cycle circle, triangle, square, cross, so overlapping
/// series stay apart.
fn draw_marker<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, shape: usize, p: (i32, i32), c: RGBColor) -> Res<()> {
    let r = match shape % 4 {
        0 => area.draw(&Circle::new(p, 3, c.filled())),
        1 => area.draw(&TriangleMarker::new(p, 4, c.filled())),
        2 => area.draw(&Rectangle::new([(p.0 - 3, p.1 - 3), (p.0 + 3, p.1 + 3)], c.filled())),
        _ => area.draw(&Cross::new(p, 4, c.stroke_width(2))),
    };
    r.map_err(|e| err(format!("{e:?}")))
}

/// A value in drawing space (log10 on log axes); None if it cannot be drawn.
fn to_axis(v: f64, s: Scale) -> Option<f64> {
    match s {
        Scale::Linear => v.is_finite().then_some(v),
        Scale::Log => (v > 0.0 && v.is_finite()).then(|| v.log10()),
    }
}

fn from_axis(v: f64, s: Scale) -> f64 {
    match s {
        Scale::Linear => v,
        Scale::Log => 10f64.powf(v),
    }
}

/// The drawable runs of a series within the x range, in drawing space.
fn segments(s: &Series, c: &Chart, x_lim: (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let mut out = vec![vec![]];
    for &(x, y) in &s.points {
        let x = if c.x_categories.is_some() { Some(x) } else { to_axis(x, c.x_scale) };
        match (x, to_axis(y, c.y_scale)) {
            (Some(x), Some(y)) if x >= x_lim.0 - 1e-12 && x <= x_lim.1 + 1e-12 => out.last_mut().unwrap().push((x, y)),
            _ => {
                if !out.last().unwrap().is_empty() {
                    out.push(vec![]);
                }
            }
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn extent(v: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    v.fold(None, |acc, x| match acc {
        None => Some((x, x)),
        Some((a, b)) => Some((a.min(x), b.max(x))),
    })
}

/// The x range drawn, in drawing space.
fn x_limits(c: &Chart) -> (f64, f64) {
    if let Some(cats) = &c.x_categories {
        return (-0.5, cats.len().max(1) as f64 - 0.5);
    }
    let data = || extent(c.series.iter().flat_map(|s| s.points.iter().filter_map(|p| to_axis(p.0, c.x_scale))));
    let (lo, hi) = match c.x_range {
        Some((a, b)) => match (to_axis(a, c.x_scale), to_axis(b, c.x_scale)) {
            (Some(a), Some(b)) if b > a => (a, b),
            _ => data().unwrap_or((0.0, 1.0)),
        },
        None => data().unwrap_or((0.0, 1.0)),
    };
    if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    }
}

fn y_limits(c: &Chart, segs: &[Vec<Vec<(f64, f64)>>]) -> (f64, f64) {
    let (mut lo, mut hi) = extent(segs.iter().flatten().flatten().map(|p| p.1)).unwrap_or((0.0, 1.0));
    if c.y_scale == Scale::Linear && c.y_from_zero {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    if hi <= lo {
        let d = if c.y_scale == Scale::Log { 0.5 } else { (hi.abs() * 0.1).max(1.0) };
        return (lo - d, hi + d);
    }
    let pad = (hi - lo) * 0.06;
    let lo = if c.y_scale == Scale::Linear && c.y_from_zero && lo >= 0.0 { lo } else { lo - pad };
    (lo, hi + pad)
}

/// Tick labels keyed by drawing-space position.
struct TickText(Vec<(f64, String)>);

impl TickText {
    fn new(t: &Ticks, scale: Scale, format: TickFormat, cats: Option<&Vec<String>>) -> TickText {
        match cats {
            Some(c) => {
                TickText(t.major.iter().map(|&x| (x, c.get(x.round() as usize).cloned().unwrap_or_default())).collect())
            }
            None => {
                let values: Vec<f64> = t.major.iter().map(|&x| from_axis(x, scale)).collect();
                TickText(t.major.iter().copied().zip(labels(&values, format, scale)).collect())
            }
        }
    }
    fn at(&self, x: f64) -> String {
        self.0.iter().find(|(p, _)| (p - x).abs() < 1e-9).map(|(_, s)| s.clone()).unwrap_or_default()
    }
    fn widest(&self, area: &Area) -> u32 {
        self.0.iter().map(|(_, s)| text_width(area, s, LABEL_PX)).max().unwrap_or(0)
    }
}

/// Shortens a category name for an axis.
fn short(s: &str) -> String {
    if s.chars().count() > 28 {
        format!("{}…", s.chars().take(27).collect::<String>())
    } else {
        s.to_string()
    }
}

/// How the x labels fit: (rotated, label area height).
fn x_label_layout(area: &Area, xt: &TickText, plot_w: u32, categorical: bool) -> (bool, u32) {
    let n = xt.0.len().max(1) as u32;
    let widest = xt.widest(area);
    if categorical && widest + 8 > plot_w / n {
        (true, (widest + 34).min(area.dim_in_pixel().1 / 2))
    } else {
        (false, 46)
    }
}

fn axis_ticks(c: &Chart, lo: f64, hi: f64, x: bool) -> Ticks {
    if x {
        if let Some(cats) = &c.x_categories {
            return Ticks { major: (0..cats.len()).map(|i| i as f64).collect(), minor: vec![] };
        }
        ticks(lo, hi, c.x_scale, 7)
    } else {
        ticks(lo, hi, c.y_scale, 6)
    }
}

/// The axes of a panel: ranges with their ticks and tick labels, titles.
struct Frame<'s> {
    title: &'s str,
    x: Axis,
    y: Axis,
    x_text: TickText,
    y_text: TickText,
    /// Empty: no x axis title and no vertical grid lines (bars).
    x_label: &'s str,
    y_label: &'s str,
    /// x positions are categories (their labels may be turned upright).
    categorical: bool,
}

/// Lays out a panel on `area` (label room from the widest tick label,
/// x labels turned upright when categories do not fit side by side), draws
/// its caption, grid and tick labels, and returns the chart to draw in.
fn draw_frame<'a, 'b>(area: &'a Area<'b>, f: Frame) -> Res<Ctx<'a, 'b>> {
    let y_area = f.y_text.widest(area) + 34;
    let plot_w = area.dim_in_pixel().0.saturating_sub(y_area + 24);
    let (rotate, x_area) = x_label_layout(area, &f.x_text, plot_w, f.categorical);
    let (x_labels, y_labels) = (f.x.ticks.major.len().max(1) + 1, f.y.ticks.major.len().max(1) + 1);
    let mut chart = ChartBuilder::on(area)
        .caption(f.title, (FONT, CAPTION_PX))
        .margin(10)
        .margin_right(18)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area)
        .build_cartesian_2d(f.x, f.y)
        .map_err(err)?;
    let xf = |v: &f64| f.x_text.at(*v);
    let yf = |v: &f64| f.y_text.at(*v);
    let font = (FONT, LABEL_PX).into_font();
    let x_style =
        if rotate { font.transform(FontTransform::Rotate90).into_text_style(area) } else { font.into_text_style(area) };
    let mut mesh = chart.configure_mesh();
    if f.x_label.is_empty() {
        mesh.disable_x_mesh();
    } else {
        mesh.x_desc(f.x_label);
    }
    mesh.y_desc(f.y_label)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_label_style(x_style)
        .y_label_style((FONT, LABEL_PX))
        .axis_desc_style((FONT, DESC_PX))
        .bold_line_style(BLACK.mix(0.13))
        .light_line_style(BLACK.mix(0.04))
        .x_labels(x_labels)
        .y_labels(y_labels)
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// An axis title that says when its axis is logarithmic (unless it does
/// already): a reader takes equal steps for equal differences otherwise.
fn axis_title(label: &str, scale: Scale) -> String {
    if scale == Scale::Log && !label.is_empty() && !label.to_lowercase().contains("log") {
        format!("{label} (log scale)")
    } else {
        label.to_string()
    }
}

/// One panel of lines.
fn line_chart(area: &Area, c: &Chart) -> Res<()> {
    let (xlo, xhi) = x_limits(c);
    let segs: Vec<Vec<Vec<(f64, f64)>>> = c.series.iter().map(|s| segments(s, c, (xlo, xhi))).collect();
    let (ylo, yhi) = y_limits(c, &segs);
    let xt = axis_ticks(c, xlo, xhi, true);
    let yt = axis_ticks(c, ylo, yhi, false);
    let cats = c.x_categories.as_ref().map(|v| v.iter().map(|s| short(s)).collect::<Vec<_>>());
    let x_text = TickText::new(&xt, c.x_scale, c.x_format, cats.as_ref());
    let y_text = TickText::new(&yt, c.y_scale, c.y_format, None);
    let (x_label, y_label) = (axis_title(&c.x_label, c.x_scale), axis_title(&c.y_label, c.y_scale));
    let frame = Frame {
        title: &c.title,
        x: Axis { lo: xlo, hi: xhi, ticks: xt },
        y: Axis { lo: ylo, hi: yhi, ticks: yt },
        x_text,
        y_text,
        x_label: &x_label,
        y_label: &y_label,
        categorical: cats.is_some(),
    };
    let mut chart = draw_frame(area, frame)?;
    // draw the first series last, so that it is never hidden under the others
    for (i, (s, segs)) in c.series.iter().zip(&segs).enumerate().rev() {
        draw_line(&mut chart, i, s, segs)?;
    }
    Ok(())
}

type Ctx<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;

fn draw_line(chart: &mut Ctx, i: usize, s: &Series, segs: &[Vec<(f64, f64)>]) -> Res<()> {
    let c = color(&s.color);
    let style = c.stroke_width(2);
    for seg in segs {
        match s.dash {
            Dash::Solid => chart.draw_series(LineSeries::new(seg.iter().copied(), style)).map(|_| ()),
            d => {
                let (on, off) = dash_pattern(d);
                chart.draw_series(DashedLineSeries::new(seg.iter().copied(), on, off, style)).map(|_| ())
            }
        }
        .map_err(err)?;
        if s.markers {
            let pts = seg.iter().copied();
            match i % 4 {
                0 => chart.draw_series(pts.map(|p| Circle::new(p, 3, c.filled()))).map(|_| ()),
                1 => chart.draw_series(pts.map(|p| TriangleMarker::new(p, 4, c.filled()))).map(|_| ()),
                2 => chart
                    .draw_series(pts.map(|p| EmptyElement::at(p) + Rectangle::new([(-3, -3), (3, 3)], c.filled())))
                    .map(|_| ()),
                _ => chart.draw_series(pts.map(|p| Cross::new(p, 4, c.stroke_width(2)))).map(|_| ()),
            }
            .map_err(err)?;
        }
    }
    Ok(())
}

/// A figure: its panels side by side, a title over them, one legend under.
pub fn figure_svg(f: &Figure) -> String {
    register_font();
    let mut svg = String::new();
    let res = {
        let root = SVGBackend::with_string(&mut svg, (f.width, f.height)).into_drawing_area();
        draw_figure(&root, f).and_then(|_| root.present().map_err(err))
    };
    finish(svg, &f.id, res, f.width, f.height)
}

fn draw_figure(root: &Area, f: &Figure) -> Res<()> {
    root.fill(&WHITE).map_err(err)?;
    let items = line_items(f.panels.iter());
    let rows = legend_rows(root, &items, f.width);
    let legend_h = if rows == 0 { 0 } else { rows * LEGEND_ROW + 6 };
    let (body, foot) = root.split_vertically(f.height.saturating_sub(legend_h));
    let body = if f.title.is_empty() {
        body
    } else {
        body.titled(&f.title, (FONT, TITLE_PX).into_font().style(FontStyle::Bold)).map_err(err)?
    };
    let cells = body.split_evenly((1, f.panels.len().max(1)));
    for (cell, c) in cells.iter().zip(&f.panels) {
        line_chart(cell, c)?;
    }
    draw_legend(&foot, &items)
}

/// Grouped bars with whiskers.
pub fn bars_svg(b: &BarChart) -> String {
    register_font();
    let mut svg = String::new();
    let res = {
        let root = SVGBackend::with_string(&mut svg, (b.width, b.height)).into_drawing_area();
        draw_bars(&root, b).and_then(|_| root.present().map_err(err))
    };
    finish(svg, &b.id, res, b.width, b.height)
}

fn bar_y_limits(b: &BarChart) -> (f64, f64) {
    let vals = b.series.iter().flat_map(|s| {
        s.values.iter().flatten().copied().chain(s.ranges.iter().flatten().flat_map(|&(lo, hi)| [lo, hi]))
    });
    let vals: Vec<f64> = vals.filter_map(|v| to_axis(v, b.y_scale)).collect();
    let (mut lo, mut hi) = extent(vals.into_iter()).unwrap_or((0.0, 1.0));
    if b.y_scale == Scale::Linear {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    } else {
        lo = lo.floor();
    }
    if hi <= lo {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.08;
    (if lo < 0.0 { lo - pad } else { lo }, hi + pad)
}

fn draw_bars(root: &Area, b: &BarChart) -> Res<()> {
    root.fill(&WHITE).map_err(err)?;
    let items: Vec<Item> = b
        .series
        .iter()
        .map(|s| Item {
            label: s.label.clone(),
            color: color(&s.color),
            dash: Dash::Solid,
            marker: None,
            bar: Some(s.outlined),
        })
        .collect();
    let legend_h = legend_rows(root, &items, b.width) * LEGEND_ROW + 6;
    let (body, foot) = root.split_vertically(b.height.saturating_sub(legend_h));
    let (ylo, yhi) = bar_y_limits(b);
    let n = b.groups.len().max(1);
    let xt = Ticks { major: (0..n).map(|i| i as f64).collect(), minor: vec![] };
    let yt = ticks(ylo, yhi, b.y_scale, 6);
    let groups: Vec<String> = b.groups.iter().map(|s| short(s)).collect();
    let x_text = TickText::new(&xt, Scale::Linear, TickFormat::Number, Some(&groups));
    let y_text = TickText::new(&yt, b.y_scale, TickFormat::Number, None);
    let y_label = axis_title(&b.y_label, b.y_scale);
    let frame = Frame {
        title: &b.title,
        x: Axis { lo: -0.5, hi: n as f64 - 0.5, ticks: xt },
        y: Axis { lo: ylo, hi: yhi, ticks: yt },
        x_text,
        y_text,
        x_label: "",
        y_label: &y_label,
        categorical: true,
    };
    let mut chart = draw_frame(&body, frame)?;
    let base = if b.y_scale == Scale::Linear { 0.0f64.max(ylo) } else { ylo };
    let k = b.series.len().max(1) as f64;
    let w = 0.8 / k;
    for (j, s) in b.series.iter().enumerate() {
        let c = color(&s.color);
        for (i, v) in s.values.iter().enumerate() {
            let x0 = i as f64 - 0.4 + j as f64 * w + w * 0.06;
            let x1 = x0 + w * 0.88;
            if let Some(v) = v.and_then(|v| to_axis(v, b.y_scale)) {
                let fill = if s.outlined { c.mix(0.22).filled() } else { c.filled() };
                chart.draw_series([Rectangle::new([(x0, base), (x1, v)], fill)]).map_err(err)?;
                chart.draw_series([Rectangle::new([(x0, base), (x1, v)], c.stroke_width(1))]).map_err(err)?;
            }
            if let Some((lo, hi)) = s.ranges.get(i).copied().flatten() {
                if let (Some(lo), Some(hi)) = (to_axis(lo, b.y_scale), to_axis(hi, b.y_scale)) {
                    let xm = (x0 + x1) / 2.0;
                    let dx = (x1 - x0) / 4.0;
                    let whisker = BLACK.stroke_width(1);
                    for seg in [
                        vec![(xm, lo), (xm, hi)],
                        vec![(xm - dx, lo), (xm + dx, lo)],
                        vec![(xm - dx, hi), (xm + dx, hi)],
                    ] {
                        chart.draw_series([PathElement::new(seg, whisker)]).map_err(err)?;
                    }
                }
            }
        }
    }
    if ylo < 0.0 && b.y_scale == Scale::Linear {
        chart
            .draw_series([PathElement::new(vec![(-0.5, 0.0), (n as f64 - 0.5, 0.0)], BLACK.stroke_width(1))])
            .map_err(err)?;
    }
    draw_legend(&foot, &items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::valid_svg as parse;

    fn chart() -> Chart {
        let mut c = Chart::new("t", "x", "y");
        for (k, name) in ["a", "b"].iter().enumerate() {
            c.series.push(Series {
                label: name.to_string(),
                color: super::super::PALETTE[k].into(),
                dash: Dash::nth(k),
                markers: true,
                points: (1..6).map(|i| (i as f64, (i * (k + 1)) as f64)).collect(),
            });
        }
        c
    }

    /// Whether the SVG has a text element reading `t` (plotters puts the
    /// text on its own line).
    fn has_text(svg: &str, t: &str) -> bool {
        svg.contains(&format!(">\n{t}\n<")) || svg.contains(&format!(">{t}<"))
    }

    #[test]
    fn a_chart_is_valid_svg_with_its_labels_and_legend() {
        let svg = chart().render();
        parse(&svg).unwrap();
        assert!(svg.starts_with("<svg id=\"plot\" "), "{}", &svg[..80]);
        for text in ["a", "b", "x", "y", "t"] {
            assert!(has_text(&svg, text), "{text} missing");
        }
    }

    #[test]
    fn log_axes_say_so_in_their_title() {
        let mut c = chart();
        c.y_scale = Scale::Log;
        let svg = c.render();
        assert!(has_text(&svg, "y (log scale)") && has_text(&svg, "x"), "the log axis is not named");
        // a title that already says it is left alone
        assert_eq!(axis_title("slowdown (log)", Scale::Log), "slowdown (log)");
        assert_eq!(axis_title("slowdown", Scale::Linear), "slowdown");
    }

    #[test]
    fn categorical_axes_name_their_settings() {
        let mut c = chart();
        c.x_categories = Some(vec!["false".into(), "true".into(), "16KiB".into(), "64KiB".into(), "x".into()]);
        for s in &mut c.series {
            s.points = s.points.iter().enumerate().map(|(i, p)| (i as f64, p.1)).collect();
        }
        let svg = c.render();
        parse(&svg).unwrap();
        for t in ["false", "true", "16KiB", "64KiB"] {
            assert!(has_text(&svg, t), "{t} missing");
        }
    }

    #[test]
    fn a_time_window_hides_what_is_outside() {
        let mut c = chart();
        c.series[0].points = vec![(0.0, 1.0), (5.0, 2.0), (10.0, 1000.0)];
        c.series.truncate(1);
        c.x_range = Some((0.0, 6.0));
        let svg = c.render();
        // the y axis fits the window's values (<= 2), not the 1000 outside it
        assert!(!has_text(&svg, "1000") && !has_text(&svg, "800"), "y axis not fitted to the window");
        assert!(has_text(&svg, "2.0") || has_text(&svg, "2"));
    }

    #[test]
    fn bars_draw_every_group() {
        let mut b = BarChart::new("b1", "bars", "change (%)", vec!["hpcc/dcqcn".into(), "swift/dcqcn".into()]);
        b.series.push(super::super::Bars {
            label: "paper".into(),
            color: "#555555".into(),
            outlined: true,
            values: vec![Some(-50.0), None],
            ranges: vec![Some((-60.0, -40.0)), None],
        });
        b.series.push(super::super::Bars {
            label: "ccsim".into(),
            color: "#1f77b4".into(),
            outlined: false,
            values: vec![Some(-30.0), Some(12.0)],
            ranges: vec![None, None],
        });
        let svg = b.render();
        parse(&svg).unwrap();
        for t in ["hpcc/dcqcn", "swift/dcqcn", "paper", "ccsim", "change (%)"] {
            assert!(has_text(&svg, t), "{t} missing");
        }
    }
}
