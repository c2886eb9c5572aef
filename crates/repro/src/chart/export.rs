//! Writing a chart in the formats a paper needs: SVG as drawn, PNG rendered
//! by resvg (at twice the drawn size, for print), PDF converted by svg2pdf.
//! Both read the SVG through usvg with DejaVu Sans embedded in the binary,
//! so the output does not depend on the fonts of the machine. In PDFs the
//! text is drawn as outlines (usvg lays it out and writes the glyphs as
//! paths): the figure looks the same and embeds nothing a publisher's font
//! check could flag, and svg2pdf is built without its font-subsetting
//! `text` feature, which was about a fifth of the whole build's CPU
//! (write-fonts, skrifa, read-fonts, subsetter; docs/PERFORMANCE.md).
//!
//! PNG and PDF need the crate's `export` feature (the command's `export`
//! feature turns it on): resvg, svg2pdf and their text shaping are about a
//! quarter of the default build's CPU, so the quick start's build leaves them
//! out (issue 34) and asking it for PNG or PDF is refused with the fix.

use std::path::Path;

/// A file format of the charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    Svg,
    Png,
    Pdf,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Svg, Format::Png, Format::Pdf];

    pub fn ext(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
            Format::Pdf => "pdf",
        }
    }

    /// Whether this build can write the format: SVG always, PNG and PDF
    /// with the `export` feature.
    pub fn available(self) -> bool {
        self == Format::Svg || cfg!(feature = "export")
    }

    /// The formats this build can write.
    pub fn available_all() -> Vec<Format> {
        Format::ALL.into_iter().filter(|f| f.available()).collect()
    }

    /// "svg,png,pdf" (any order, at least one). A format this build cannot
    /// write is refused with the way to build it.
    pub fn parse_list(s: &str) -> Result<Vec<Format>, String> {
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim) {
            let f = Format::ALL
                .into_iter()
                .find(|f| f.ext() == part.to_ascii_lowercase())
                .ok_or_else(|| format!("unknown chart format '{part}': expected svg, png or pdf (comma-separated)"))?;
            if !f.available() {
                return Err(format!(
                    "chart format '{part}': this build writes SVG only; PNG and PDF need the `export` feature \
                     (cargo build --release -p ccsim --features export, or cargo install --path crates/cli \
                     --features export)"
                ));
            }
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out.sort();
        Ok(out)
    }
}

/// Pixels per SVG unit in PNG files.
pub const PNG_SCALE: f32 = 2.0;

#[cfg(feature = "export")]
mod render {
    use std::sync::{Arc, OnceLock};

    use resvg::usvg;

    use super::PNG_SCALE;

    fn options() -> &'static usvg::Options<'static> {
        static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
        OPTIONS.get_or_init(|| {
            let mut db = usvg::fontdb::Database::new();
            db.load_font_data(dejavu::sans::regular().to_vec());
            db.load_font_data(dejavu::sans::bold().to_vec());
            db.set_sans_serif_family("DejaVu Sans");
            usvg::Options { font_family: "DejaVu Sans".into(), fontdb: Arc::new(db), ..Default::default() }
        })
    }

    /// Parses an SVG document (also the test of a chart's validity).
    pub fn parse(svg: &str) -> Result<usvg::Tree, String> {
        usvg::Tree::from_str(svg, options()).map_err(|e| format!("invalid SVG: {e}"))
    }

    pub fn to_png(svg: &str) -> Result<Vec<u8>, String> {
        let tree = parse(svg)?;
        let size = tree.size().to_int_size().scale_by(PNG_SCALE).ok_or("the chart has no size")?;
        let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("the chart has no size")?;
        pixmap.fill(resvg::tiny_skia::Color::WHITE);
        resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(PNG_SCALE, PNG_SCALE), &mut pixmap.as_mut());
        pixmap.encode_png().map_err(|e| format!("PNG encoding failed: {e}"))
    }

    pub fn to_pdf(svg: &str) -> Result<Vec<u8>, String> {
        // text to outlines: usvg writes each laid-out text as its glyphs' paths
        let outlined = parse(svg)?.to_string(&usvg::WriteOptions { preserve_text: false, ..Default::default() });
        let tree = parse(&outlined)?;
        svg2pdf::to_pdf(&tree, svg2pdf::ConversionOptions::default(), svg2pdf::PageOptions::default())
            .map_err(|e| format!("PDF conversion failed: {e}"))
    }
}

#[cfg(feature = "export")]
pub use render::{parse, to_pdf, to_png};

/// Writes `<dir>/<stem>.<ext>` for every format (PNG and PDF: an error in
/// a build without the `export` feature).
pub fn write(dir: &Path, stem: &str, svg: &str, formats: &[Format]) -> std::io::Result<()> {
    for f in formats {
        let bytes = match f {
            Format::Svg => svg.as_bytes().to_vec(),
            #[cfg(feature = "export")]
            Format::Png => to_png(svg).map_err(std::io::Error::other)?,
            #[cfg(feature = "export")]
            Format::Pdf => to_pdf(svg).map_err(std::io::Error::other)?,
            #[cfg(not(feature = "export"))]
            Format::Png | Format::Pdf => {
                let e = format!("{} charts need ccsim built with its `export` feature", f.ext().to_uppercase());
                return Err(std::io::Error::other(e));
            }
        };
        std::fs::write(dir.join(format!("{stem}.{}", f.ext())), bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{Chart, Series};

    fn sample() -> String {
        let mut c = Chart::new("Queue", "time (us)", "queue");
        c.series.push(Series {
            label: "s32→h5".into(),
            color: "#1f77b4".into(),
            dash: crate::chart::Dash::Solid,
            markers: false,
            points: vec![(0.0, 0.0), (1.0, 3.0), (2.0, 1.0)],
        });
        c.render()
    }

    #[test]
    fn formats_parse_and_refuse_unknown_names() {
        assert_eq!(Format::parse_list("SVG, svg").unwrap(), vec![Format::Svg]);
        let e = Format::parse_list("svg,jpg").unwrap_err();
        assert!(e.contains("'jpg'") && e.contains("svg, png or pdf"), "{e}");
    }

    #[cfg(feature = "export")]
    #[test]
    fn png_and_pdf_parse_in_an_export_build() {
        assert_eq!(Format::parse_list("pdf, SVG").unwrap(), vec![Format::Svg, Format::Pdf]);
        assert_eq!(Format::available_all(), Format::ALL.to_vec());
    }

    /// Without the renderers, PNG and PDF are refused with the way to get
    /// them, at parsing and at writing, and nothing is written for them.
    #[cfg(not(feature = "export"))]
    #[test]
    fn png_and_pdf_are_refused_without_the_export_feature() {
        for list in ["png", "svg,pdf"] {
            let e = Format::parse_list(list).unwrap_err();
            assert!(e.contains("SVG only") && e.contains("--features export"), "{e}");
        }
        assert_eq!(Format::available_all(), vec![Format::Svg]);
        let t = ccsim_scenario::testutil::TempDir::new("export-off");
        let e = write(t.path(), "q", &sample(), &[Format::Svg, Format::Png]).unwrap_err();
        assert!(e.to_string().contains("`export` feature"), "{e}");
        assert!(t.path().join("q.svg").is_file() && !t.path().join("q.png").exists());
    }

    #[cfg(feature = "export")]
    #[test]
    fn png_and_pdf_hold_the_rendered_chart() {
        let svg = sample();
        let png = to_png(&svg).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // width in the IHDR chunk: twice the drawn 820 px
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 1640);
        let pdf = to_pdf(&svg).unwrap();
        assert!(pdf.starts_with(b"%PDF-"));
        // text is drawn (as outlines), not dropped: the same chart without
        // its text elements makes a much smaller PDF
        let mut bare = svg.clone();
        while let (Some(a), Some(b)) = (bare.find("<text"), bare.find("</text>")) {
            bare.replace_range(a..b + "</text>".len(), "");
        }
        assert!(bare.len() < svg.len(), "the sample chart has text");
        let bare_pdf = to_pdf(&bare).unwrap();
        assert!(pdf.len() > bare_pdf.len() + 2000, "text not drawn: {} vs {} bytes", pdf.len(), bare_pdf.len());
        assert!(!pdf.windows(8).any(|w| w == b"FontFile"), "a font is embedded");
    }

    #[test]
    fn write_writes_each_format() {
        let t = ccsim_scenario::testutil::TempDir::new("export");
        let formats = Format::available_all();
        write(t.path(), "q", &sample(), &formats).unwrap();
        for f in formats {
            assert!(std::fs::metadata(t.path().join(format!("q.{}", f.ext()))).unwrap().len() > 100);
        }
        crate::testing::valid_svg(&std::fs::read_to_string(t.path().join("q.svg")).unwrap()).unwrap();
    }
}
