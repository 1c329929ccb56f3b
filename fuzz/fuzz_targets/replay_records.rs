//! Structure-aware replays: arbitrary headers (any `SimConfig` bytes),
//! frames and events written by the game's own `replay::Writer`, read back
//! by `replay::read_bytes` (must give exactly what was written: the round
//! trip), re-simulated by `replay::verify`, then mutated (bytes changed, the
//! file cut) and read again, which must not panic.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use twinstar::replay;
use twinstar_netcode::replay::{CHECKSUM_INTERVAL, EventKind};
use twinstar_fuzz::{config, frames, scratch_file, text};

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let config = config(u)?;
    let mut header = twinstar::replay::header("local", u.arbitrary()?, &config);
    header.start_unix_ms = u.arbitrary()?;
    header.input_delay = u.arbitrary()?;
    if u.arbitrary()? {
        header.room = Some(text(u)?);
        header.peers = vec![text(u)?, text(u)?];
    }
    let path = scratch_file("replay_records.tsr");
    let Ok(mut writer) = twinstar::replay::create(&path, &header) else {
        return Ok(());
    };
    let mut written = Vec::new();
    let mut events = Vec::new();
    let mut checksums = Vec::new();
    let steps = u.int_in_range(0..=12)?;
    for _ in 0..steps {
        if u.ratio(1, 3)? {
            let kind = match u.int_in_range(0..=7)? {
                7 => EventKind::Other(text(u)?),
                k => EventKind::WRITTEN[k as usize].clone(),
            };
            let detail = text(u)?;
            let frame = writer.frames();
            // An event over the record limit is refused before any byte.
            if writer.event(kind.clone(), &detail).is_ok() {
                // In the file a kind is its name: `Other("chat")` (which
                // the game never makes) reads back as `Chat`.
                events.push((frame, EventKind::from(String::from(kind)), detail));
            }
        } else {
            for inputs in frames(u, 150)? {
                let checksum: u128 = u.arbitrary()?;
                let before = writer.frames();
                writer.frame(inputs, || checksum).expect("write");
                if (before + 1) % CHECKSUM_INTERVAL == 0 {
                    checksums.push((before + 1, checksum));
                }
                written.push(inputs);
            }
        }
    }
    let finish = u.arbitrary()?;
    let last: u128 = u.arbitrary()?;
    let reason = text(u)?;
    let path = if finish {
        let path = writer.finish(last, &reason).expect("finish");
        if written.len() as u32 % CHECKSUM_INTERVAL != 0 {
            checksums.push((written.len() as u32, last));
        }
        path
    } else {
        // Frames since the last whole chunk are not on disk yet.
        let on_disk =
            written.len() / CHECKSUM_INTERVAL as usize * CHECKSUM_INTERVAL as usize;
        written.truncate(on_disk);
        checksums.retain(|&(frame, _)| frame as usize <= on_disk);
        let path = writer.path().to_path_buf();
        drop(writer);
        path
    };
    let mut bytes = std::fs::read(&path).expect("read back");
    let _ = std::fs::remove_file(&path);

    // Rules the simulation cannot run are refused when read, with a
    // message that says so.
    if let Err(e) = config.check() {
        let refused = replay::read_bytes(&bytes).expect_err("unsound rules are refused");
        assert!(refused.to_string().contains(&e), "{refused}");
        return Ok(());
    }
    // The round trip: exactly what was written.
    let read = replay::read_bytes(&bytes).expect("a written replay reads back");
    assert_eq!(read.header, header);
    assert_eq!(twinstar::replay::rules(&read.header), Some(config));
    assert_eq!(read.inputs, written);
    assert_eq!(read.checksums, checksums);
    let read_events: Vec<_> = read
        .events
        .iter()
        .map(|e| (e.frame, e.kind.clone(), e.detail.clone()))
        .collect();
    assert_eq!(read_events, events);
    assert_eq!(read.end.is_some(), finish);
    assert_eq!(read.cut.is_none(), finish);
    if let Some(end) = &read.end {
        assert_eq!((end.frame as usize, end.checksum), (written.len(), last));
        assert_eq!(end.reason, reason);
    }
    // Any rules a file can carry are simulated without a panic.
    replay::verify(&read).expect("config");

    // Then hostile: some bytes changed, maybe cut short.
    let changes = u.int_in_range(0..=4)?;
    for _ in 0..changes {
        if bytes.is_empty() {
            break;
        }
        let at = u.choose_index(bytes.len())?;
        bytes[at] = u.arbitrary()?;
    }
    if u.arbitrary()? {
        bytes.truncate(u.int_in_range(0..=bytes.len())?);
    }
    if u.arbitrary()? {
        twinstar_fuzz::fix_replay_checks(&mut bytes);
    }
    if let Ok(mut replay) = replay::read_bytes(&bytes) {
        replay.inputs.truncate(1_200);
        replay::verify(&replay).expect("config");
    }
    Ok(())
}
