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
    /// Blocks folded under a one-line summary (`<details>`), open on a click.
    Details(String, Vec<Block>),
    /// A table of contents: links to the level-2 headings, each with its
    /// level-3 headings in one line.
    Toc,
}

/// A level-2 heading's (text, anchor) and its level-3 headings'.
type TocEntry = (String, String, Vec<(String, String)>);

#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub title: String,
    pub blocks: Vec<Block>,
}

impl Doc {
    pub fn push(&mut self, b: Block) {
        self.blocks.push(b);
    }

    /// Every block in reading order, the blocks folded in a `Details` included.
    fn all_blocks(&self) -> Vec<&Block> {
        fn walk<'a>(blocks: &'a [Block], out: &mut Vec<&'a Block>) {
            for b in blocks {
                out.push(b);
                if let Block::Details(_, inner) = b {
                    walk(inner, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.blocks, &mut out);
        out
    }

    /// (file name, SVG) of every chart, folded ones included.
    pub fn charts(&self) -> Vec<(&str, &str)> {
        self.all_blocks()
            .into_iter()
            .filter_map(|b| match b {
                Block::Chart(name, svg) => Some((name.as_str(), svg.as_str())),
                _ => None,
            })
            .collect()
    }

    /// Markdown; charts as links to `charts/<name>`.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        self.markdown_blocks(&mut s, &self.blocks);
        s
    }

    fn markdown_blocks(&self, s: &mut String, blocks: &[Block]) {
        for b in blocks {
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
                Block::Details(summary, inner) => {
                    // GitHub renders the Markdown between the tags when blank lines surround it
                    let _ = writeln!(s, "<details><summary>{}</summary>\n", escape(summary));
                    self.markdown_blocks(s, inner);
                    s.push_str("</details>\n\n");
                }
                Block::Toc => {
                    for (t, a, subs) in self.toc() {
                        let subs: Vec<String> = subs.iter().map(|(t, a)| format!("[{}](#{a})", link_text(t))).collect();
                        let tail = if subs.is_empty() { String::new() } else { format!(": {}", subs.join(" · ")) };
                        let _ = writeln!(s, "- **[{}](#{a})**{tail}", link_text(&t));
                    }
                    s.push('\n');
                }
            }
        }
    }

    /// (text, anchor, [(text, anchor)] of the level-3 headings below) of
    /// each level-2 heading, folded blocks included.
    fn toc(&self) -> Vec<TocEntry> {
        let mut out: Vec<TocEntry> = Vec::new();
        for b in self.all_blocks() {
            match b {
                Block::Heading(2, t, a) => out.push((t.clone(), a.clone(), Vec::new())),
                Block::Heading(3, t, a) => {
                    if let Some(last) = out.last_mut() {
                        last.2.push((t.clone(), a.clone()));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// A self-contained HTML page.
    pub fn html(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title>\n<style>{}</style></head><body>",
            escape(&self.title),
            CSS
        );
        self.html_blocks(&mut s, &self.blocks);
        s.push_str("</body></html>\n");
        s
    }

    fn html_blocks(&self, s: &mut String, blocks: &[Block]) {
        for b in blocks {
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
                Block::Details(summary, inner) => {
                    let _ = writeln!(s, "<details><summary>{}</summary>", inline(summary));
                    self.html_blocks(s, inner);
                    let _ = writeln!(s, "</details>");
                }
                Block::Toc => {
                    let _ = write!(s, "<nav class=\"toc\"><ul>");
                    for (t, a, subs) in self.toc() {
                        let subs: Vec<String> = subs
                            .iter()
                            .map(|(t, a)| format!("<a href=\"#{}\">{}</a>", escape(a), inline(&link_text(t))))
                            .collect();
                        let tail = if subs.is_empty() {
                            String::new()
                        } else {
                            format!("<div class=\"sub\">{}</div>", subs.join(" · "))
                        };
                        let _ = write!(s, "<li><a href=\"#{}\">{}</a>{tail}</li>", escape(&a), inline(&link_text(&t)));
                    }
                    let _ = writeln!(s, "</ul></nav>");
                }
            }
        }
    }
}

/// A heading's text for a link in the table of contents: up to its " — "
/// (a claim's id, not its long location).
fn link_text(t: &str) -> String {
    t.split(" — ").next().unwrap_or(t).to_string()
}

/// Tables take the page's width and wrap long cells (no sideways scrolling
/// at 1280 px), charts shrink to it, folded details show their summary.
const CSS: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.4;overflow-wrap:anywhere}\
table{border-collapse:collapse;margin:0.6em 0;font-size:0.9em;max-width:100%}th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top;overflow-wrap:anywhere}\
details{margin:0.5em 0 1em}summary{cursor:pointer;color:#345}nav.toc{font-size:0.92em;background:#fafafa;border:1px solid #eee;padding:0.3em 1em}nav.toc .sub{font-size:0.9em;color:#555}\
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

    #[test]
    fn contents_and_folded_details() {
        let mut d = Doc { title: "T".into(), blocks: vec![] };
        d.push(Block::Toc);
        d.push(Block::Heading(2, "Claims".into(), "claims".into()));
        d.push(Block::Heading(3, "c-1 — Fig. 1, §2".into(), "claim-c-1".into()));
        d.push(Block::Details("Set-up".into(), vec![Block::Para("**hidden** part".into())]));
        d.push(Block::Heading(2, "Runs".into(), "runs".into()));
        let html = d.html();
        assert!(
            html.contains("<li><a href=\"#claims\">Claims</a><div class=\"sub\"><a href=\"#claim-c-1\">c-1</a></div></li><li><a href=\"#runs\">Runs</a></li>"),
            "{html}"
        );
        assert!(
            html.contains("<details><summary>Set-up</summary>\n<p><strong>hidden</strong> part</p>\n</details>"),
            "{html}"
        );
        let md = d.markdown();
        assert!(md.contains("- **[Claims](#claims)**: [c-1](#claim-c-1)\n- **[Runs](#runs)**\n"), "{md}");
        assert!(md.contains("<details><summary>Set-up</summary>\n\n**hidden** part\n\n</details>"), "{md}");
    }
}
