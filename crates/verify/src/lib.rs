//! Twinstar's [`ReplayVerifier`]: an uploaded replay re-simulated by the
//! game's own rules (`twinstar-sim`), so the server ranks only scores that
//! follow from the recorded inputs. The `twinstar-server` binary and the
//! game's `twinstar serve` both use it. No netcode here.
//!
//! What it checks, in order, refusing with one line at the first failure:
//! the bytes are a replay of twinstar (magic, format and simulation
//! versions, every record's check); the recording is whole (not cut short,
//! with its end record); it was recorded by this game version; its rules
//! are exactly one preset's bytes; it has two players' online match facts
//! (a room or peers); every recorded checksum (one a second, and the end's)
//! equals the re-simulation's. The score and wave are then the
//! re-simulated world's, never a number from the file.

pub mod sample;

use twinstar_replay_format::replay::{Replay, read_bytes, verify};
use twinstar_signaling::{ReplayVerifier, VerifiedReplay};
use twinstar_sim::{GAME, Input, PLAYERS, PRESET_NAMES, SimConfig, Twinstar};

/// Twinstar's verifier (no state: every call stands alone).
#[derive(Clone, Copy, Debug, Default)]
pub struct TwinstarVerifier;

impl ReplayVerifier for TwinstarVerifier {
    fn verify(&self, bytes: &[u8]) -> Result<VerifiedReplay, String> {
        verify_bytes(bytes)
    }

    fn default_preset(&self) -> &str {
        PRESET_NAMES[0]
    }

    fn daily_seed(&self, year: i32, month: u8, day: u8) -> u64 {
        twinstar_sim::daily_seed(year, u32::from(month), u32::from(day))
    }

    /// The simulation's version: each has boards of its own.
    fn rules_version(&self) -> u32 {
        twinstar_sim::SIM_VERSION
    }
}

/// The facts of a replay, or why it cannot be ranked.
pub fn verify_bytes(bytes: &[u8]) -> Result<VerifiedReplay, String> {
    let replay: Replay<Input, PLAYERS> =
        read_bytes::<Twinstar, PLAYERS>(bytes).map_err(|e| format!("not a replay: {e}"))?;
    if let Some(cut) = &replay.cut {
        return Err(format!("truncated: {cut}"));
    }
    let header = &replay.header;
    if header.game_version != GAME.version {
        return Err(format!(
            "another version: recorded by twinstar {}, this server runs {}",
            header.game_version.chars().take(32).collect::<String>(),
            GAME.version
        ));
    }
    let Some(config) = header.config::<SimConfig>() else {
        return Err("config: the recorded rules are unreadable".into());
    };
    let preset = SimConfig::preset(&header.preset)
        .filter(|rules| *rules == config)
        .map(|_| header.preset.clone())
        .ok_or_else(|| {
            "config: the recorded rules are not exactly one of this version's presets".to_owned()
        })?;
    if header.peers.is_empty() {
        return Err("not an online match: the replay names no peer".into());
    }
    let Some(verified) = verify::<Twinstar, PLAYERS>(&replay) else {
        return Err("config: the recorded rules are unreadable".into());
    };
    if let Some((frame, recorded, resimulated)) = verified.first_mismatch {
        return Err(format!(
            "checksum mismatch at frame {frame}: recorded {recorded:032x}, re-simulated {resimulated:032x}"
        ));
    }
    // Every recorded checksum was compared: one per chunk and the end's.
    let recorded = replay.checksums.len() as u32 + u32::from(replay.end.is_some());
    if verified.checked != recorded {
        return Err(format!(
            "checksum: {} of {recorded} recorded checksums could be compared",
            verified.checked
        ));
    }
    let world = &verified.state;
    Ok(VerifiedReplay {
        game_version: header.game_version.clone(),
        preset,
        seed: header.seed,
        room: header.room.clone(),
        peers: header.peers.clone(),
        start_unix_ms: header.start_unix_ms,
        frames: verified.frames,
        fps: GAME.fps,
        // The team's score and the highest wave: what the board ranks and
        // what the game's summary claims (`team_score`, `wave`).
        score: u64::from(world.team.score),
        wave: world.team.best_wave,
        names: header.player_names::<PLAYERS>(),
    })
}
