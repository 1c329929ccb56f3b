//! The buttons a player holds during one frame: the only thing that crosses
//! the network. Defined here because the step reads it; `crate::input`
//! re-exports it next to key maps and bots.
//!
//! 16 bits (DESIGN.md, decision 3): four direction keys, fire, focus,
//! start, bomb, a 5-bit aim direction (32 directions) and an "aiming" bit.
//! Without the aiming bit a ship fires where it last moved (its facing),
//! and focus locks that facing so a player can strafe.

use bytemuck::{Pod, Zeroable};
use serde::{Deserialize, Serialize};

#[repr(transparent)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Pod, Zeroable, Serialize, Deserialize,
)]
pub struct Input(pub u16);

impl Input {
    pub const UP: u16 = 1 << 0;
    pub const DOWN: u16 = 1 << 1;
    pub const LEFT: u16 = 1 << 2;
    pub const RIGHT: u16 = 1 << 3;
    pub const FIRE: u16 = 1 << 4;
    pub const FOCUS: u16 = 1 << 5;
    pub const START: u16 = 1 << 6;
    pub const BOMB: u16 = 1 << 7;
    /// Set when bits 8..13 hold an aim direction (mouse, right stick, touch
    /// aim stick); clear when the ship fires along its facing.
    pub const AIMING: u16 = 1 << 13;
    /// The four direction keys.
    pub const MOVES: u16 = Self::UP | Self::DOWN | Self::LEFT | Self::RIGHT;
    /// Number of aim directions (a 5-bit field).
    pub const AIM_DIRECTIONS: u32 = 32;
    const AIM_SHIFT: u32 = 8;
    const AIM_MASK: u16 = 0x1F << Self::AIM_SHIFT;
    /// Bits a valid input may have; the top two are reserved.
    pub const ALL: u16 = 0x3FFF;

    pub fn has(self, bit: u16) -> bool {
        self.0 & bit != 0
    }

    pub fn with(self, bit: u16, on: bool) -> Self {
        if on {
            Input(self.0 | bit)
        } else {
            Input(self.0 & !bit)
        }
    }

    /// The aim direction, 0..32 (0 = right, 8 = down, 16 = left, 24 = up),
    /// when the aiming bit is set.
    pub fn aim(self) -> Option<u32> {
        self.has(Self::AIMING)
            .then_some(u32::from((self.0 & Self::AIM_MASK) >> Self::AIM_SHIFT))
    }

    /// This input aiming along `direction` (wrapped to 0..32), or not
    /// aiming at all with `None`.
    pub fn with_aim(self, direction: Option<u32>) -> Self {
        let cleared = Input(self.0 & !(Self::AIM_MASK | Self::AIMING));
        match direction {
            Some(d) => Input(
                cleared.0 | Self::AIMING | (((d % Self::AIM_DIRECTIONS) as u16) << Self::AIM_SHIFT),
            ),
            None => cleared,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aim_round_trips_and_leaves_the_buttons_alone() {
        let base = Input(Input::FIRE | Input::LEFT | Input::BOMB);
        for d in 0..Input::AIM_DIRECTIONS {
            let aimed = base.with_aim(Some(d));
            assert_eq!(aimed.aim(), Some(d));
            assert!(aimed.has(Input::FIRE) && aimed.has(Input::LEFT) && aimed.has(Input::BOMB));
            assert_eq!(aimed.0 & !Input::ALL, 0);
            assert_eq!(aimed.with_aim(None), base);
        }
        assert_eq!(base.aim(), None);
        assert_eq!(base.with_aim(Some(33)).aim(), Some(1));
    }
}
