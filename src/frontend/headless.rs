//! Runs a driver with no display: local modes as fast as the CPU allows,
//! online play paced in real time.

use std::time::{Duration, Instant};

use super::InputSource;
use crate::session::{Driver, Pacer, SessionError, parse_hex_checksum};

/// Advances until the world reaches `frames`.
pub fn run(
    driver: &mut Driver,
    sources: &mut [InputSource; 2],
    frames: u32,
) -> Result<(), SessionError> {
    while driver.world().frame < frames {
        let inputs = [sources[0].next(|_| false), sources[1].next(|_| false)];
        driver.advance(inputs)?;
    }
    Ok(())
}

/// How long a peer that confirmed its last frame keeps the match going so
/// the other can confirm too and send its checksum.
pub const END_WAIT: Duration = Duration::from_secs(5);
/// Once both checksums are known, a short pause so our last message leaves.
const LINGER: Duration = Duration::from_millis(250);

/// Online: plays at 60 frames a second until frame `frames` is confirmed,
/// then exchanges end checksums with the peer (a difference is a desync).
pub fn run_online(
    driver: &mut Driver,
    sources: &mut [InputSource; 2],
    frames: u32,
) -> Result<(), SessionError> {
    let mut pacer = Pacer::new(Instant::now());
    let mut finished_at: Option<Instant> = None;
    let mut gone_at: Option<Instant> = None;
    loop {
        driver.poll()?;
        let now = Instant::now();
        // The peer ended its match and left before we confirmed ours: its
        // last inputs may still be in flight; wait for them, not forever.
        if driver.peer_gone() && !driver.target_confirmed() {
            let since = *gone_at.get_or_insert(now);
            if now.duration_since(since) > END_WAIT {
                return Err(SessionError::PeerLost(format!(
                    "left after its last frame, before frame {frames} was confirmed here"
                )));
            }
        }
        if driver.target_confirmed() {
            let since = *finished_at.get_or_insert_with(|| {
                driver.announce_done();
                now
            });
            if let Some((frame, theirs)) = driver.peer_done() {
                compare_end(driver, frames, frame, &theirs)?;
                if now.duration_since(since) >= LINGER || driver.peer_gone() {
                    return Ok(());
                }
            } else if driver.peer_gone() || now.duration_since(since) > END_WAIT {
                tracing::warn!(
                    "the other player did not report its final checksum; ours stands alone"
                );
                return Ok(());
            }
        }
        let skip = driver.take_skip_frames();
        if pacer.due(now, driver.frames_ahead(), skip) {
            let inputs = [sources[0].next(|_| false), sources[1].next(|_| false)];
            driver.advance(inputs)?;
        } else {
            let wait = pacer.next_due().saturating_duration_since(now);
            std::thread::sleep(wait.min(Duration::from_millis(1)));
        }
    }
}

/// The peer's end-of-match checksum must equal ours for the same frame.
fn compare_end(driver: &Driver, frames: u32, frame: u32, theirs: &str) -> Result<(), SessionError> {
    let (ours_frame, ours) = driver.checksum_state();
    if frame != frames || ours_frame != frames {
        tracing::warn!(
            "the other player stopped at frame {frame}, we at {frames}: checksums not compared"
        );
        return Ok(());
    }
    let theirs = parse_hex_checksum(theirs).unwrap_or(0);
    if ours != theirs {
        return Err(SessionError::Desync {
            frame: frame as i32,
            ours,
            theirs,
        });
    }
    Ok(())
}
