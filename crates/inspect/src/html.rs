//! The HTML report (`twinstar inspect --html`): the timeline, the field
//! diff and the JSON figures in one file with no scripts and no fetches.

use std::fmt::Write as _;

use serde_json::Value;

use crate::timeline::{LEFT, STYLE, WIDTH, esc, svg_timeline};
use crate::{Divergent, Recording};

/// The divergence in words and its fields' table, or that two
/// recordings agree.
fn fields_html(divergent: Option<&Divergent>, peers: usize) -> String {
    let mut fields = String::new();
    if let Some(d) = divergent {
        let _ = write!(
            fields,
            "<h2>First divergent frame: {}</h2><p>{} (fields from {}; re-simulation reproduces A: {}, B: {})</p><table><tr><th>field</th><th>A</th><th>B</th></tr>",
            d.frame,
            esc(&d.divergence.to_string()),
            d.fields_from,
            d.reproduces[0],
            d.reproduces[1]
        );
        for f in &d.fields {
            let _ = write!(
                fields,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&f.path),
                esc(&f.a),
                esc(&f.b)
            );
        }
        fields.push_str("</table>");
    } else if peers == 2 {
        fields.push_str("<h2>The recordings are identical</h2>");
    }
    fields
}

/// The HTML report: one self-contained file (no scripts, no fetches).
pub fn html_report(peers: &[Recording], divergent: Option<&Divergent>, report: &Value) -> String {
    let (svg, height) = svg_timeline(peers, divergent);
    let fields = fields_html(divergent, peers.len());
    let summary = serde_json::to_string_pretty(report).unwrap_or_default();
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>twinstar inspect</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 16px; color: #222; }}
svg {{ background: #fafafa; border: 1px solid #ddd; }}
{STYLE}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 2px 8px; text-align: left; }}
pre {{ background: #f4f4f4; padding: 8px; overflow: auto; }}
</style></head><body>
<h1>twinstar inspect</h1>
<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}">{svg}</svg>
{fields}
<h2>Figures</h2><pre>{summary}</pre>
</body></html>
"#,
        w = LEFT + WIDTH + 70.0,
        h = height,
        summary = esc(&summary),
    )
}
