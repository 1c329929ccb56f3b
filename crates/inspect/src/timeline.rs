//! The SVG timeline: both players' inputs as each peer recorded them,
//! then per peer its rollback depth, frames ahead, stalls, RTT, loss and
//! events, and the first divergence as a red line. Frame `f` of `frames`
//! is at x = `LEFT + WIDTH * f / frames`.

use std::fmt::Write as _;

use twinstar_netcode::replay::telemetry::{self, Telemetry};

use crate::{Divergent, Recording, Replay};

/// The timeline's classes (labels, scale texts, ticks, events).
pub(crate) const STYLE: &str = ".l { font-size: 12px; } .s { font-size: 10px; fill: #666; }
.t { stroke: #e4e4e4; }
.e { fill: #7f8c8d; } .e.desync { fill: red; } .e.stall { fill: #8e44ad; }
.e.input_delay { fill: #27ae60; } .e.interrupted, .e.reconnect { fill: #e67e22; }";

/// The drawing's width for the frames, in SVG pixels.
pub const WIDTH: f64 = 1100.0;
/// Where frame 0 is drawn (the labels are at its left).
pub const LEFT: f64 = 130.0;

pub(crate) fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The x of `frame` on a timeline of `frames`.
fn x_of(frame: u32, frames: u32) -> f64 {
    LEFT + WIDTH * f64::from(frame) / f64::from(frames.max(1))
}

/// A row of a value per frame, as the maximum per pixel column (bars).
fn bars(svg: &mut String, y: f64, h: f64, frames: u32, points: &[(u32, f64)], color: &str) {
    let top = points.iter().map(|p| p.1).fold(0.0f64, f64::max).max(1.0);
    let mut columns = vec![0.0f64; WIDTH as usize + 1];
    for &(f, v) in points {
        let c = ((x_of(f, frames) - LEFT) as usize).min(WIDTH as usize);
        columns[c] = columns[c].max(v);
    }
    let mut d = String::new();
    for (c, v) in columns.iter().enumerate().filter(|(_, v)| **v > 0.0) {
        let bh = h * v / top;
        let _ = write!(d, "M{:.1} {:.1}v{:.1}", LEFT + c as f64 + 0.5, y + h, -bh);
    }
    let _ = write!(
        svg,
        r#"<path d="{d}" stroke="{color}" stroke-width="1"/><text x="{}" y="{:.1}" class="s">max {top}</text>"#,
        LEFT + WIDTH + 4.0,
        y + 10.0
    );
}

/// A line through (frame, value) points.
fn line(svg: &mut String, y: f64, h: f64, frames: u32, points: &[(u32, f64)], color: &str) {
    if points.is_empty() {
        return;
    }
    let lo = points.iter().map(|p| p.1).fold(f64::MAX, f64::min).min(0.0);
    let hi = points
        .iter()
        .map(|p| p.1)
        .fold(f64::MIN, f64::max)
        .max(lo + 1.0);
    let mut d = String::new();
    for (i, &(f, v)) in points.iter().enumerate() {
        let py = y + h - h * (v - lo) / (hi - lo);
        let _ = write!(
            d,
            "{}{:.1} {:.1}",
            if i == 0 { "M" } else { "L" },
            x_of(f, frames),
            py
        );
    }
    let _ = write!(
        svg,
        r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="1.2"/><text x="{}" y="{:.1}" class="s">{lo:.0}..{hi:.0}</text>"#,
        LEFT + WIDTH + 4.0,
        y + 10.0
    );
}

/// A player's inputs: one colour per input held, white for none.
fn inputs_row(svg: &mut String, y: f64, h: f64, frames: u32, replay: &Replay, player: usize) {
    let mut last: Option<(u16, f64)> = None;
    let flush = |svg: &mut String, from: Option<(u16, f64)>, to: f64| {
        if let Some((bits, x0)) = from
            && bits != 0
        {
            let hue = (u32::from(bits) * 47) % 360;
            let _ = write!(
                svg,
                r#"<rect x="{x0:.1}" y="{y:.1}" width="{:.2}" height="{h}" fill="hsl({hue},60%,55%)"/>"#,
                (to - x0).max(0.3)
            );
        }
    };
    for (i, inputs) in replay.inputs.iter().enumerate() {
        let bits = inputs[player].0;
        let x = x_of(i as u32, frames);
        if last.is_none_or(|(b, _)| b != bits) {
            flush(svg, last, x);
            last = Some((bits, x));
        }
    }
    flush(svg, last, x_of(replay.frames(), frames));
}

/// A row's label at the left.
fn label(svg: &mut String, y: f64, text: &str) {
    let _ = write!(
        svg,
        r#"<text x="4" y="{:.1}" class="l">{}</text>"#,
        y + 14.0,
        esc(text)
    );
}

/// The time axis: a tick a second (fewer on a long match).
fn time_axis(svg: &mut String, frames: u32, fps: u32) {
    let step = (frames / fps / 20).max(1) * fps;
    let mut f = 0;
    while f <= frames {
        let x = x_of(f, frames);
        let _ = write!(
            svg,
            r#"<line x1="{x:.1}" x2="{x:.1}" y1="14" y2="100%" class="t"/><text x="{x:.1}" y="10" class="s">{}s</text>"#,
            f / fps
        );
        f += step;
    }
}

/// How a row draws its points (`bars` or `line`).
type Draw = fn(&mut String, f64, f64, u32, &[(u32, f64)], &str);
/// A row's points: (frame, value).
type Points = Vec<(u32, f64)>;

/// One peer's telemetry rows from `y`: rollback, frames ahead, stalls,
/// RTT, loss and events; returns the `y` below them.
fn telemetry_rows(svg: &mut String, mut y: f64, frames: u32, t: &Telemetry) -> f64 {
    let per_frame = |g: fn(&telemetry::FrameSample) -> f64| {
        t.frames.iter().map(|s| (s.frame, g(s))).collect::<Vec<_>>()
    };
    let rtt: Vec<_> = (t.seconds.iter())
        .filter_map(|s| Some((s.frame, f64::from(s.rtt_ms?))))
        .collect();
    let loss: Vec<_> = (t.seconds.iter())
        .filter_map(|s| Some((s.frame, f64::from(s.loss_permille?) / 10.0)))
        .collect();
    let rows: [(&str, Draw, Points, &str); 5] = [
        (
            "  rollback",
            bars,
            per_frame(|s| f64::from(s.rollback)),
            "#c0392b",
        ),
        (
            "  frames ahead",
            line,
            per_frame(|s| f64::from(s.ahead)),
            "#2c3e50",
        ),
        (
            "  stalls",
            bars,
            per_frame(|s| f64::from(s.stalls + s.waits)),
            "#8e44ad",
        ),
        ("  rtt ms", line, rtt, "#2980b9"),
        ("  loss %", bars, loss, "#d35400"),
    ];
    for (name, draw, points, colour) in rows {
        label(svg, y, name);
        draw(svg, y + 2.0, ROW - 6.0, frames, &points, colour);
        y += ROW;
    }
    label(svg, y, "  events");
    for e in &t.events {
        let x = x_of(e.frame, frames);
        let _ = write!(
            svg,
            r#"<g><title>frame {}: {} {}</title><circle cx="{x:.1}" cy="{:.1}" r="5" class="e {}"/></g>"#,
            e.frame,
            esc(&e.kind),
            esc(&e.detail),
            y + 12.0,
            esc(&e.kind)
        );
    }
    y + ROW
}

/// The first divergence's red line down to `y`, labelled inside the chart.
fn divergence_marker(svg: &mut String, frame: u32, frames: u32, y: f64) {
    let x = x_of(frame, frames);
    let (text_x, anchor) = if x > LEFT + WIDTH * 0.7 {
        (x - 3.0, "end")
    } else {
        (x + 3.0, "start")
    };
    let _ = write!(
        svg,
        r#"<line x1="{x:.1}" x2="{x:.1}" y1="14" y2="{y:.1}" stroke="red" stroke-width="2"/><text x="{text_x:.1}" y="{:.1}" fill="red" class="l" text-anchor="{anchor}">first divergence: frame {frame}</text>"#,
        y + 12.0,
    );
}

/// Height of one timeline row, in SVG pixels.
const ROW: f64 = 34.0;

/// The timeline's drawing (what goes inside an `<svg>`) and its height.
pub fn svg_timeline(peers: &[Recording], divergent: Option<&Divergent>) -> (String, f64) {
    let frames = peers.iter().map(|p| p.replay.frames()).max().unwrap_or(1);
    let mut svg = String::new();
    let mut y = 20.0;
    let fps = peers
        .iter()
        .find_map(|p| p.telemetry.as_ref().map(|s| s.telemetry.fps))
        .unwrap_or(60)
        .max(1);
    time_axis(&mut svg, frames, fps);
    for (i, peer) in peers.iter().enumerate() {
        let name = ["A", "B"][i.min(1)];
        label(&mut svg, y, &format!("{name}: {}", peer.file_name()));
        y += ROW * 0.6;
        for player in 0..2 {
            label(&mut svg, y, &format!("  P{} inputs", player + 1));
            inputs_row(&mut svg, y + 4.0, ROW - 12.0, frames, &peer.replay, player);
            y += ROW;
        }
        match &peer.telemetry {
            Some(s) => y = telemetry_rows(&mut svg, y, frames, &s.telemetry),
            None => {
                label(&mut svg, y, "  (no telemetry)");
                y += ROW;
            }
        }
        y += 8.0;
    }
    if let Some(d) = divergent {
        divergence_marker(&mut svg, d.frame, frames, y);
        y += 20.0;
    }
    (svg, y + 10.0)
}

/// The timeline as one `<svg>` element with its style inside (the page's).
pub fn svg_element(peers: &[Recording], divergent: Option<&Divergent>) -> String {
    let (svg, height) = svg_timeline(peers, divergent);
    let width = LEFT + WIDTH + 70.0;
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}"><style>{STYLE}</style>{svg}</svg>"#
    )
}
