//! A small document model written twice: as Markdown (charts as SVG files
//! beside it) and as one self-contained HTML page (charts inline).

use std::fmt::Write as _;

use crate::svg::escape;

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

/// Escapes text and turns `**bold**`, `` `code` `` and `[text](#anchor)` into HTML.
fn inline(t: &str) -> String {
    let e = escape(t);
    let mut out = String::with_capacity(e.len());
    let mut rest = e.as_str();
    let mut bold = false;
    let mut code = false;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("**") {
            out.push_str(if bold { "</b>" } else { "<b>" });
            bold = !bold;
            rest = &rest[2..];
        } else if c == '`' {
            out.push_str(if code { "</code>" } else { "<code>" });
            code = !code;
            rest = &rest[1..];
        } else if c == '[' {
            if let Some((text, href, len)) = link(rest) {
                let _ = write!(out, "<a href=\"{href}\">{text}</a>");
                rest = &rest[len..];
            } else {
                out.push(c);
                rest = &rest[1..];
            }
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if bold {
        out.push_str("</b>");
    }
    if code {
        out.push_str("</code>");
    }
    out
}

/// `[text](target)` at the start of `s`: (text, target, length).
fn link(s: &str) -> Option<(&str, &str, usize)> {
    let close = s.find("](")?;
    let end = s[close..].find(')')? + close;
    let text = &s[1..close];
    let href = &s[close + 2..end];
    (!text.contains('[') && !href.contains(' ')).then_some((text, href, end + 1))
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
        assert!(html.contains("<b>bold</b> and <a href=\"#a\">link</a> and <code>x&lt;y</code>"), "{html}");
        assert!(html.contains("<td class=\"yes\">yes</td>"));
        assert!(html.contains("<title>T &amp; t</title>"));
    }
}
