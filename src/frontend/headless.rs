//! Runs a driver as fast as the CPU allows, with no display.

use super::InputSource;
use crate::session::{Driver, SessionError};

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
