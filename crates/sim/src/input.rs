//! The buttons a player holds during one frame: the only thing that crosses
//! the network. Defined here because the step reads it; `crate::input`
//! re-exports it next to key maps and bots.

use bytemuck::{Pod, Zeroable};
use serde::{Deserialize, Serialize};

#[repr(transparent)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Pod, Zeroable, Serialize, Deserialize,
)]
pub struct Input(pub u8);

impl Input {
    pub const UP: u8 = 1 << 0;
    pub const DOWN: u8 = 1 << 1;
    pub const LEFT: u8 = 1 << 2;
    pub const RIGHT: u8 = 1 << 3;
    pub const FIRE: u8 = 1 << 4;
    pub const FOCUS: u8 = 1 << 5;
    pub const START: u8 = 1 << 6;
    /// Bits a valid input may have; the top bit is reserved.
    pub const ALL: u8 = 0x7F;

    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    pub fn with(self, bit: u8, on: bool) -> Self {
        if on {
            Input(self.0 | bit)
        } else {
            Input(self.0 & !bit)
        }
    }
}
