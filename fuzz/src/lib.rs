//! Helpers shared by the fuzz targets: structured values built from the
//! fuzzer's bytes (`arbitrary`), and the replay mutator's record repair.
//! The targets themselves call the game's own decoders (`twinstar::...`).

use std::path::PathBuf;

use arbitrary::{Arbitrary, Result, Unstructured};
use twinstar_netcode::connect::{DelaySetting, Role};
use twinstar_netcode::testing::protocol::{Claim, DesyncState, Hello, Message, Watch};
use twinstar::sim::{Input, PLAYERS, SimConfig};

/// Any string, sometimes one the decoders expect (a preset name, a hex
/// checksum), so structure-aware targets reach the paths behind them.
pub fn text(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=5)? {
        0 => "default".into(),
        1 => "stress".into(),
        2 => format!("{:032x}", u128::arbitrary(u)?),
        _ => String::arbitrary(u)?,
    })
}

pub fn role(u: &mut Unstructured) -> Result<Role> {
    Ok(*u.choose(&[Role::Host, Role::Join, Role::Quick])?)
}

pub fn delay(u: &mut Unstructured) -> Result<DelaySetting> {
    Ok(match u.int_in_range(0..=2)? {
        0 => DelaySetting::Auto,
        1 => DelaySetting::Table,
        _ => DelaySetting::Fixed(u.arbitrary()?),
    })
}

/// A claim; the player is usually 1 or 2, sometimes anything.
pub fn claim(u: &mut Unstructured) -> Result<Claim> {
    let match_id = u.int_in_range(0..=3)?;
    let player = if u.ratio(1, 4)? {
        u.arbitrary()?
    } else {
        u.int_in_range(1..=2)?
    };
    Ok(Claim { match_id, player })
}

pub fn hello(u: &mut Unstructured) -> Result<Hello> {
    let current = Hello::new(
        &twinstar::game::GAME,
        role(u)?,
        0,
        "default",
    );
    let rejoin_len = u.int_in_range(0..=9)?;
    let mut rejoin = Vec::new();
    for _ in 0..rejoin_len {
        rejoin.push(claim(u)?);
    }
    Ok(Hello {
        protocol: if u.ratio(1, 8)? {
            u.arbitrary()?
        } else {
            current.protocol
        },
        game: if u.ratio(1, 8)? {
            text(u)?
        } else {
            current.game
        },
        game_version: text(u)?,
        sim_version: if u.ratio(1, 8)? {
            u.arbitrary()?
        } else {
            current.sim_version
        },
        role: role(u)?,
        nonce: u.int_in_range(0..=3)?,
        seed: u.arbitrary()?,
        preset: text(u)?,
        rejoin,
        resume: if u.arbitrary()? {
            Some(claim(u)?)
        } else {
            None
        },
        confirmed: u.arbitrary()?,
        name: text(u)?,
    })
}

/// Any control-channel message, every variant reachable.
pub fn message(u: &mut Unstructured) -> Result<Message> {
    Ok(match u.int_in_range(0..=18)? {
        0 => Message::Hello(hello(u)?),
        1 => Message::Ping {
            seq: u.arbitrary()?,
        },
        2 => Message::Pong {
            seq: u.arbitrary()?,
        },
        3 => Message::Measured {
            rtt_us: u.arbitrary()?,
            jitter_us: u.arbitrary()?,
        },
        4 => Message::Done {
            frame: u.arbitrary()?,
            checksum: u.arbitrary()?,
        },
        5 => Message::Bye { reason: text(u)? },
        6 => Message::Desync {
            frame: u.arbitrary()?,
            sender: u.arbitrary()?,
            receiver: u.arbitrary()?,
        },
        7 => Message::Busy,
        8 => Message::CatchUp {
            chunks: u.arbitrary()?,
        },
        9 => Message::CaughtUp {
            frame: u.arbitrary()?,
            checksum: u.arbitrary()?,
        },
        10 => Message::Chat { text: text(u)? },
        11 => {
            let mut watch = Watch::this_build(&twinstar::game::GAME);
            if u.arbitrary()? {
                watch.protocol = u.arbitrary()?;
                watch.game = text(u)?;
                watch.sim_version = u.arbitrary()?;
                watch.game_version = text(u)?;
                watch.name = text(u)?;
            }
            Message::Watch(watch)
        }
        12 => Message::WatchRefused { reason: text(u)? },
        13 => Message::Streaming {
            seed: u.arbitrary()?,
            preset: text(u)?,
            frame: u.arbitrary()?,
            name: text(u)?,
            players: vec![text(u)?, text(u)?],
        },
        14 => Message::Relayed {
            from: text(u)?,
            frame: u.arbitrary()?,
            text: text(u)?,
        },
        // Small measurements and pongs for the first probes, so the
        // handshake target finishes handshakes.
        16 => Message::Away,
        17 => Message::DesyncState(DesyncState {
            frame: u.arbitrary()?,
            checksum: u.arbitrary()?,
            world: u.arbitrary()?,
            inputs_from: u.arbitrary()?,
            inputs: u.arbitrary()?,
        }),
        15 => Message::Pong {
            seq: u.int_in_range(0..=20)?,
        },
        _ => Message::Measured {
            rtt_us: u.int_in_range(0..=300_000)?,
            jitter_us: u.int_in_range(0..=50_000)?,
        },
    })
}

/// One frame's inputs: mostly held buttons (long runs), sometimes changes.
pub fn frames(u: &mut Unstructured, max: usize) -> Result<Vec<[Input; PLAYERS]>> {
    let n = u.int_in_range(0..=max)?;
    let mut out = Vec::with_capacity(n);
    let mut held = [Input::default(); PLAYERS];
    for _ in 0..n {
        if u.ratio(1, 8)? {
            held = [Input(u.arbitrary()?), Input(u.arbitrary()?)];
        }
        out.push(held);
    }
    Ok(out)
}

/// Simulation rules: a preset, a preset with one field changed, or any
/// bytes at all (a replay header carries the raw `SimConfig`).
pub fn config(u: &mut Unstructured) -> Result<SimConfig> {
    let base = if u.arbitrary()? {
        SimConfig::DEFAULT
    } else {
        SimConfig::STRESS
    };
    let mut bytes = bytemuck::bytes_of(&base).to_vec();
    match u.int_in_range(0..=2)? {
        0 => {}
        1 => {
            let at = u.choose_index(bytes.len())?;
            bytes[at] = u.arbitrary()?;
        }
        _ => u.fill_buffer(&mut bytes)?,
    }
    Ok(bytemuck::pod_read_unaligned(&bytes))
}

/// A file for this process alone (the structure-aware replay target goes
/// through the real `Writer`, which writes files): in /dev/shm when there
/// is one, so it costs no disk.
pub fn scratch_file(name: &str) -> PathBuf {
    let dir = std::path::Path::new("/dev/shm");
    let dir = if dir.is_dir() {
        dir.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    dir.join(format!("twinstar-fuzz-{}-{name}", std::process::id()))
}

/// Rewrites every whole record's check value so a mutated replay gets past
/// the checks to the record parsers (used by `replay_bytes`' mutator some of
/// the time; without it nearly every mutation ends at the first check).
pub fn fix_replay_checks(data: &mut [u8]) {
    const PREAMBLE: usize = 14;
    let mut at = PREAMBLE;
    while at + 4 <= data.len() {
        let len = u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]) as usize;
        let body_end = at + 4 + len;
        if len == 0 || body_end + 4 > data.len() {
            return;
        }
        let check = xxhash_rust::xxh3::xxh3_64(&data[at + 4..body_end]) as u32;
        data[body_end..body_end + 4].copy_from_slice(&check.to_le_bytes());
        at = body_end + 4;
    }
}
