//! The page's inspector (web/inspect.html, web/inspect.js): the
//! twinstar-inspect crate's report and world re-simulation, exported to
//! JavaScript. Its own wasm, loaded only by the inspector's page.
//!
//! JS adds one or two peers ([`Inspector::add_peer`]: a replay's bytes,
//! its sidecar's when picked) and any desync reports, calls
//! [`Inspector::analyze`] for the report's JSON (the same as
//! `twinstar inspect --json`) and [`Inspector::timeline`] for the SVG, then
//! [`Inspector::world_at`] as the cursor moves.

use serde_json::json;
use twinstar_inspect::{
    Divergent, LEFT, Recording, Scrubber, WIDTH, divergence, drawn, json_report, svg_element,
};
use wasm_bindgen::prelude::*;

/// One or two peers' recordings of one match.
#[wasm_bindgen]
#[derive(Default)]
pub struct Inspector {
    peers: Vec<Recording>,
    scrubbers: Vec<Scrubber>,
    divergent: Option<Divergent>,
}

#[wasm_bindgen]
impl Inspector {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Inspector {
        #[cfg(target_arch = "wasm32")]
        console_error_panic_hook::set_once();
        Inspector::default()
    }

    /// Adds a peer (at most two): its replay's name and bytes, and its
    /// telemetry sidecar's when there is one. Errors are one line naming
    /// the file.
    pub fn add_peer(
        &mut self,
        name: &str,
        replay: &[u8],
        sidecar_name: Option<String>,
        sidecar: Option<Vec<u8>>,
    ) -> Result<(), JsError> {
        if self.peers.len() == 2 {
            return Err(JsError::new("two recordings at most"));
        }
        let sidecar = sidecar_name.as_deref().zip(sidecar.as_deref());
        let recording =
            Recording::from_bytes(name, replay, sidecar).map_err(|e| JsError::new(&e))?;
        let scrubber = Scrubber::new(recording.replay.clone())
            .ok_or_else(|| JsError::new(&format!("{name}: unreadable simulation config")))?;
        self.peers.push(recording);
        self.scrubbers.push(scrubber);
        Ok(())
    }

    /// Adds a desync report (`desync-*.json`) to a peer (0 or 1); it counts
    /// when it names that peer's replay.
    pub fn add_desync_report(&mut self, peer: usize, json: &[u8]) -> Result<(), JsError> {
        let report = serde_json::from_slice(json).map_err(|e| JsError::new(&e.to_string()))?;
        let peer = (self.peers.get_mut(peer)).ok_or_else(|| JsError::new("no such recording"))?;
        peer.desync_reports.push(report);
        Ok(())
    }

    /// The report as JSON (`twinstar inspect --json`'s), after finding
    /// where two recordings part.
    pub fn analyze(&mut self) -> Result<String, JsError> {
        self.divergent = match &self.peers[..] {
            [a, b] => divergence(a, b).map_err(|e| JsError::new(&e))?,
            _ => None,
        };
        Ok(json_report(&self.peers, self.divergent.as_ref()).to_string())
    }

    /// The timeline as one `<svg>` element.
    pub fn timeline(&self) -> String {
        svg_element(&self.peers, self.divergent.as_ref())
    }

    /// Where frames are on the timeline: `{"left", "width", "frames"}`
    /// (frame f at x = left + width * f / frames, in SVG pixels).
    pub fn geometry(&self) -> String {
        json!({"left": LEFT, "width": WIDTH, "frames": self.frames()}).to_string()
    }

    /// The longer recording's length in frames.
    pub fn frames(&self) -> u32 {
        self.scrubbers
            .iter()
            .map(Scrubber::frames)
            .max()
            .unwrap_or(0)
    }

    /// What to draw of `peer`'s world at `frame` (twinstar-inspect's
    /// `drawn`), with the inputs that led to it (`inputs`: both players'
    /// 16 bits, or null at frame 0).
    pub fn world_at(&self, peer: usize, frame: u32) -> Result<String, JsError> {
        let scrubber =
            (self.scrubbers.get(peer)).ok_or_else(|| JsError::new("no such recording"))?;
        let mut view = drawn(&scrubber.world_at(frame));
        view["inputs"] = json!(scrubber.inputs_at(frame.min(scrubber.frames())));
        Ok(view.to_string())
    }
}
