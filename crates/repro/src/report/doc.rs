//! A small document model written twice: as Markdown (charts as SVG files
//! beside it) and as one self-contained HTML page (charts inline).

use std::fmt::Write as _;

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let _ = pulldown_cmark_escape::escape_html(&mut out, s);
    out
}

/// One block of a report.
#[derive(Clone, Debug)]
pub enum Block {
    /// Level (1..4), text, anchor id.
    Heading(u8, String, String),
    /// A paragraph; `**bold**` and `[text](#anchor)` are the only markup.
    Para(String),
    Quote(String),
    List(Vec<String>),
    /// Header and rows; cells use the paragraph markup.
    Table(Vec<String>, Vec<Vec<String>>),
    /// A chart: file name (in `charts/`) and the SVG document.
    Chart(String, String),
}

#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub title: String,
    pub blocks: Vec<Block>,
}

impl Doc {
    pub fn push(&mut self, b: Block) {
        self.blocks.push(b);
    }

    /// Markdown; charts as links to `charts/<name>`.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        for b in &self.blocks {
            match b {
                Block::Heading(l, t, a) => {
                    let _ = writeln!(s, "<a id=\"{a}\"></a>\n{} {t}\n", "#".repeat(*l as usize));
                }
                Block::Para(t) => {
                    let _ = writeln!(s, "{t}\n");
                }
                Block::Quote(t) => {
                    let _ = writeln!(s, "> {}\n", t.replace('\n', "\n> "));
                }
                Block::List(items) => {
                    for i in items {
                        let _ = writeln!(s, "- {i}");
                    }
                    s.push('\n');
                }
                Block::Table(h, rows) => {
                    let cell = |c: &str| c.replace('|', "\\|").replace('\n', " ");
                    let _ = writeln!(s, "| {} |", h.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | "));
                    let _ = writeln!(s, "|{}", " --- |".repeat(h.len()));
                    for r in rows {
                        let _ = writeln!(s, "| {} |", r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | "));
                    }
                    s.push('\n');
                }
                Block::Chart(name, _) => {
                    let _ = writeln!(s, "![{name}](charts/{name})\n");
                }
            }
        }
        s
    }

    /// A self-contained HTML page.
    pub fn html(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>{}</style></head><body>",
            escape(&self.title),
            CSS
        );
        for b in &self.blocks {
            match b {
                Block::Heading(l, t, a) => {
                    let _ = writeln!(s, "<h{l} id=\"{}\">{}</h{l}>", escape(a), inline(t));
                }
                Block::Para(t) => {
                    let _ = writeln!(s, "<p>{}</p>", inline(t));
                }
                Block::Quote(t) => {
                    let _ = writeln!(s, "<blockquote>{}</blockquote>", inline(t));
                }
                Block::List(items) => {
                    let _ = writeln!(
                        s,
                        "<ul>{}</ul>",
                        items.iter().map(|i| format!("<li>{}</li>", inline(i))).collect::<String>()
                    );
                }
                Block::Table(h, rows) => {
                    let _ = write!(
                        s,
                        "<table><thead><tr>{}</tr></thead><tbody>",
                        h.iter().map(|c| format!("<th>{}</th>", inline(c))).collect::<String>()
                    );
                    for r in rows {
                        let _ = write!(
                            s,
                            "<tr>{}</tr>",
                            r.iter()
                                .map(|c| format!("<td class=\"{}\">{}</td>", class_of(c), inline(c)))
                                .collect::<String>()
                        );
                    }
                    let _ = writeln!(s, "</tbody></table>");
                }
                Block::Chart(_, svg) => {
                    let body = svg.trim_start();
                    let _ = writeln!(s, "<div class=\"chart\">{body}</div>");
                }
            }
        }
        s.push_str("</body></html>\n");
        s
    }
}

const CSS: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.4}\
table{border-collapse:collapse;margin:0.6em 0;font-size:0.9em}th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}\
th{background:#f3f3f3}td.yes{background:#e5f5e0}td.no{background:#fde0dd}blockquote{color:#555;border-left:3px solid #ccc;margin:0.5em 0;padding-left:0.8em}\
.chart svg{max-width:100%;height:auto}h2{border-bottom:1px solid #ddd;margin-top:1.6em}h3{margin-top:1.4em}code{background:#f4f4f4}";

/// Cells that hold a verdict get a colour.
fn class_of(cell: &str) -> &'static str {
    match cell {
        "yes" | "reproduced" => "yes",
        "no" | "not reproduced" | "error" => "no",
        _ => "",
    }
}

/// A paragraph's or cell's Markdown as inline HTML, by pulldown-cmark (a
/// Markdown library: `*italic*`, `**bold**`, `` `code` ``, links, escapes).
/// Raw HTML in the text is shown as text, and a text that Markdown would
/// read as a block (a lone "-" cell is a list item, "# x" a heading) is
/// shown as written.
fn inline(t: &str) -> String {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let events: Vec<Event> = Parser::new(t).collect();
    let inline_only = events.iter().all(|e| match e {
        Event::Start(tag) => {
            matches!(tag, Tag::Paragraph | Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. })
        }
        Event::Rule | Event::TaskListMarker(_) | Event::FootnoteReference(_) => false,
        _ => true,
    });
    if !inline_only {
        return escape(t);
    }
    let events = events
        .into_iter()
        .filter(|e| !matches!(e, Event::Start(Tag::Paragraph) | Event::End(TagEnd::Paragraph)))
        .map(|e| match e {
            Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
            Event::SoftBreak => Event::Text(" ".into()),
            e => e,
        });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_both_forms() {
        let mut d = Doc { title: "T & t".into(), blocks: vec![] };
        d.push(Block::Heading(2, "A <b>".into(), "a".into()));
        d.push(Block::Para("**bold** and [link](#a) and `x<y`".into()));
        d.push(Block::Table(vec!["k".into(), "v".into()], vec![vec!["a|b".into(), "yes".into()]]));
        let md = d.markdown();
        assert!(md.contains("## A <b>") && md.contains("| a\\|b | yes |"), "{md}");
        let html = d.html();
        assert!(html.contains("<h2 id=\"a\">A &lt;b&gt;</h2>"), "{html}");
        assert!(html.contains("<strong>bold</strong> and <a href=\"#a\">link</a> and <code>x&lt;y</code>"), "{html}");
        assert!(html.contains("<td class=\"yes\">yes</td>"));
        assert!(html.contains("<title>T &amp; t</title>"));
    }

    #[test]
    fn italics_render_and_block_markers_stay_text() {
        // issue 25: the report HTML showed `*italic*` as literal asterisks
        assert_eq!(inline("*ccsim chose:* a <b> and 5 < 6"), "<em>ccsim chose:</em> a &lt;b&gt; and 5 &lt; 6");
        assert_eq!(inline("-"), "-", "a lone dash cell is not a list");
        assert_eq!(inline("1. first"), "1. first");
        assert_eq!(inline("# x"), "# x");
        assert_eq!(inline("<100KB"), "&lt;100KB");
        assert_eq!(inline("a\nb"), "a b");
    }
}
