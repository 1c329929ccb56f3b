//! The network overlay (F1), after GGPO's performance monitor: what the
//! netcode is doing right now, readable at a glance.
//!
//! Top line: ping, input delay, frames ahead, bytes per second each way and
//! whether the path is direct or relayed; then the latency as the player
//! feels it (`session::FeltLatency`: the delay on their presses in frames
//! and ms, the one-way delay rollback hides, rollback frames per second,
//! from the last 4 s of the graph). Below, a scrolling graph of
//! rollback frames per simulated frame (last 4 seconds; one bar per frame,
//! green 0-2, yellow 3-5, red 6+). `draw_alerts` shows an interruption
//! (with the time left to wait) or synchronizing, overlay on or off.

use std::collections::VecDeque;
use web_time::{Duration, Instant};

use macroquad::prelude::*;

use super::assets::{Align, BitmapFont};
use crate::session::FrameReport;
use twinstar_netcode::session::{FeltLatency, MAX_PREDICTION, NetStatus, OnlineState};

const GRAPH_FRAMES: usize = 240;

/// What the overlay remembers between drawn frames.
#[derive(Debug)]
pub struct NetGraph {
    rollbacks: VecDeque<u32>,
    bytes_at: Option<(Instant, u64, u64)>,
    /// Bytes per second sent and received over the last second.
    rate: (f64, f64),
    /// Synctest: the fixed rollback distance (explains the flat graph).
    pub check_distance: Option<usize>,
}

impl NetGraph {
    pub fn new(check_distance: Option<usize>) -> NetGraph {
        NetGraph {
            rollbacks: VecDeque::with_capacity(GRAPH_FRAMES),
            bytes_at: None,
            rate: (0.0, 0.0),
            check_distance,
        }
    }

    /// One advance's rollback count (re-simulated frames).
    pub fn record(&mut self, report: &FrameReport) {
        if report.new_frames == 0 && report.resimulated == 0 {
            return;
        }
        if self.rollbacks.len() == GRAPH_FRAMES {
            self.rollbacks.pop_front();
        }
        self.rollbacks.push_back(report.resimulated);
    }

    fn update_rate(&mut self, status: &NetStatus) {
        let now = Instant::now();
        match self.bytes_at {
            None => self.bytes_at = Some((now, status.bytes_sent, status.bytes_received)),
            Some((at, sent, received)) => {
                let dt = now.duration_since(at);
                if dt >= Duration::from_secs(1) {
                    let secs = dt.as_secs_f64();
                    self.rate = (
                        status.bytes_sent.saturating_sub(sent) as f64 / secs,
                        status.bytes_received.saturating_sub(received) as f64 / secs,
                    );
                    self.bytes_at = Some((now, status.bytes_sent, status.bytes_received));
                }
            }
        }
    }

    fn mean(&self) -> f64 {
        if self.rollbacks.is_empty() {
            return 0.0;
        }
        self.rollbacks.iter().map(|&r| f64::from(r)).sum::<f64>() / self.rollbacks.len() as f64
    }

    pub fn draw(&mut self, font: &BitmapFont, status: Option<&NetStatus>) {
        let lines = self.lines(status);
        // At least wide enough for its longest line (the felt latency's
        // runs past 560 pixels).
        let widest = lines.iter().map(|l| font.width(l, 2.0)).fold(0.0, f32::max);
        let (w, h) = (widest.max(540.0) + 20.0, 194.0);
        let x = 12.0;
        let y = screen_height() - h - 12.0;
        draw_rectangle(x, y, w, h, Color::new(0.0, 0.0, 0.05, 0.78));
        draw_rectangle_lines(x, y, w, h, 1.0, Color::new(0.4, 0.5, 0.9, 0.9));
        let text = Color::new(0.85, 0.9, 1.0, 1.0);
        let dim = Color::new(0.6, 0.65, 0.8, 1.0);
        for (i, line) in lines.iter().enumerate() {
            font.draw(
                line,
                x + 10.0,
                y + 10.0 + 24.0 * i as f32,
                2.0,
                text,
                Align::Left,
            );
        }
        // Graph: one bar per simulated frame, full height = the prediction window.
        let (gx, gy, gw, gh) = (x + 10.0, y + 86.0, w - 20.0, 80.0);
        draw_rectangle(gx, gy, gw, gh, Color::new(0.05, 0.07, 0.15, 1.0));
        let bar = gw / GRAPH_FRAMES as f32;
        for (i, &r) in self.rollbacks.iter().enumerate() {
            let frac = (r as f32 / MAX_PREDICTION as f32).min(1.0);
            let color = match r {
                0..=2 => Color::new(0.3, 0.9, 0.4, 1.0),
                3..=5 => Color::new(1.0, 0.85, 0.2, 1.0),
                _ => Color::new(1.0, 0.3, 0.3, 1.0),
            };
            let bh = (frac * gh).max(if r > 0 { 2.0 } else { 0.0 });
            draw_rectangle(gx + i as f32 * bar, gy + gh - bh, bar.max(1.0), bh, color);
        }
        font.draw(
            &format!("rollback frames per frame (4 s), mean {:.2}", self.mean()),
            x + 10.0,
            y + h - 22.0,
            2.0,
            dim,
            Align::Left,
        );
    }

    /// The panel's text: the link, the traffic and, online, what the
    /// player feels.
    fn lines(&mut self, status: Option<&NetStatus>) -> Vec<String> {
        let line1 = match status {
            Some(s) => {
                self.update_rate(s);
                let ping = s
                    .ping_ms
                    .map_or_else(|| "-".into(), |p| format!("{p:.0} ms"));
                format!(
                    "ping {ping}  delay {}f  ahead {:+}  stalls {}",
                    s.input_delay, s.frames_ahead, s.stalled_frames
                )
            }
            None => match self.check_distance {
                Some(d) => format!("synctest: every frame rolled back {d} frames"),
                None => "local match: no network".to_string(),
            },
        };
        let line2 = match status {
            Some(s) => {
                let path = match s.connection {
                    Some("relay") => "RELAYED (TURN)".to_string(),
                    Some(kind) => format!("direct ({kind})"),
                    None => "path unknown".to_string(),
                };
                format!(
                    "up {:.0} B/s  down {:.0} B/s  {path}",
                    self.rate.0, self.rate.1
                )
            }
            None => "up 0 B/s  down 0 B/s".to_string(),
        };
        let mut lines = vec![line1, line2];
        // What the player feels: the delay on their own presses, the part
        // of the trip rollback hides, and how often it corrects.
        if let Some(s) = status {
            let per_s = self.mean() * f64::from(crate::sim::FPS);
            let felt =
                FeltLatency::new(crate::sim::FPS, f64::from(s.input_delay), s.ping_ms, per_s);
            lines.push(felt.to_string());
        }
        lines
    }
}

/// The banners about the connection, shown with or without the overlay:
/// an interruption or a dropped player with the time left to wait, or
/// synchronizing.
pub fn draw_alerts(font: &BitmapFont, status: Option<&NetStatus>) {
    let Some(s) = status else { return };
    let (cx, y) = (screen_width() / 2.0, screen_height() - 90.0);
    let left = |d: &Duration| d.as_secs_f32().ceil() as u64;
    let window = s.reconnect_window.as_secs();
    let (title, detail) = match &s.state {
        OnlineState::Playing => return,
        OnlineState::Synchronizing => {
            font.draw_shadowed("synchronizing...", cx, y + 30.0, 3.0, YELLOW, Align::Center);
            return;
        }
        OnlineState::PeerAway { gives_up_in } => (
            format!(
                "P{}'S GAME IS IN THE BACKGROUND - {} s LEFT",
                s.peer_player,
                left(gives_up_in)
            ),
            "the match is paused until it comes back (Esc leaves)".to_string(),
        ),
        OnlineState::Reconnecting { gives_up_in } => (
            format!(
                "RECONNECTING TO P{} - {} s LEFT",
                s.peer_player,
                left(gives_up_in)
            ),
            "opening a new connection through the server (Esc leaves)".to_string(),
        ),
        OnlineState::AwaitingRejoin { gives_up_in } => (
            format!(
                "RECONNECTING TO P{} - {} s LEFT",
                s.peer_player,
                left(gives_up_in)
            ),
            format!(
                "waiting up to {window} s for it to come back (by itself, or with the room code after a crash) (Esc leaves)"
            ),
        ),
        OnlineState::Interrupted { gives_up_in } => (
            format!("CONNECTION TO P{} INTERRUPTED", s.peer_player),
            format!(
                "waiting up to {window} s for it to come back: {} s left (Esc leaves)",
                left(gives_up_in)
            ),
        ),
    };
    font.draw_shadowed(&title, cx, y, 3.0, RED, Align::Center);
    font.draw_shadowed(&detail, cx, y + 36.0, 2.0, WHITE, Align::Center);
}
