//! Fixed-point numbers and 2D vectors for the simulation.
//!
//! Every simulation quantity is an `Fx` (I16F16: 16 integer bits, 16 fraction
//! bits) or an integer. The arena is 640 x 360 units, so positions and
//! velocities sit far inside I16F16's +-32768 range. Products that could
//! overflow (squared distances across the arena) are computed on raw `i64`.

use bytemuck::{Pod, Zeroable};
use fixed::types::I16F16;

use crate::directions::{DIRECTION_BITS, DIRECTION_COUNT};

pub type Fx = I16F16;

/// Shorthand for an integer-valued `Fx`.
pub const fn fx(n: i16) -> Fx {
    Fx::from_bits((n as i32) << 16)
}

/// `num / den` as an `Fx`, exact to the last bit for the constants we use.
pub const fn fx_ratio(num: i32, den: i32) -> Fx {
    Fx::from_bits(((num as i64) << 16).div_euclid(den as i64) as i32)
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Vec2 {
    pub x: Fx,
    pub y: Fx,
}

impl Vec2 {
    pub const ZERO: Vec2 = Vec2 {
        x: Fx::ZERO,
        y: Fx::ZERO,
    };

    pub const fn new(x: Fx, y: Fx) -> Self {
        Vec2 { x, y }
    }

    /// Unit vector number `index` (wrapped) of the direction table.
    pub fn direction(index: u32) -> Self {
        let (x, y) = DIRECTION_BITS[index as usize % DIRECTION_COUNT];
        Vec2::new(Fx::from_bits(x), Fx::from_bits(y))
    }

    pub fn scaled(self, k: Fx) -> Self {
        Vec2::new(self.x.saturating_mul(k), self.y.saturating_mul(k))
    }

    pub fn saturating_add(self, o: Vec2) -> Self {
        Vec2::new(self.x.saturating_add(o.x), self.y.saturating_add(o.y))
    }

    /// Squared distance in raw units (2^-32 of a unit squared), overflow free.
    pub fn dist2_raw(self, o: Vec2) -> i64 {
        let dx = (self.x.to_bits() - o.x.to_bits()) as i64;
        let dy = (self.y.to_bits() - o.y.to_bits()) as i64;
        dx * dx + dy * dy
    }

    /// True when the two points are closer than `r`.
    pub fn within(self, o: Vec2, r: Fx) -> bool {
        let r = r.to_bits() as i64;
        self.dist2_raw(o) < r * r
    }
}

/// Index of the table direction closest to the vector (dx, dy): the one with
/// the largest dot product. Integer math only; used for aiming.
pub fn nearest_direction(dx: Fx, dy: Fx) -> u32 {
    let (dx, dy) = (dx.to_bits() as i64, dy.to_bits() as i64);
    let mut best = 0u32;
    let mut best_dot = i64::MIN;
    for (i, &(x, y)) in DIRECTION_BITS.iter().enumerate() {
        let dot = dx * x as i64 + dy * y as i64;
        if dot > best_dot {
            best_dot = dot;
            best = i as u32;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_direction_points_the_right_way() {
        assert_eq!(nearest_direction(fx(10), fx(0)), 0);
        assert_eq!(nearest_direction(fx(0), fx(10)), 16);
        assert_eq!(nearest_direction(fx(-10), fx(0)), 32);
        assert_eq!(nearest_direction(fx(0), fx(-10)), 48);
    }

    #[test]
    fn within_is_strict_and_overflow_free() {
        let a = Vec2::new(fx(-600), fx(-300));
        let b = Vec2::new(fx(600), fx(300));
        assert!(!a.within(b, fx(100)));
        assert!(Vec2::ZERO.within(Vec2::new(fx(3), fx(4)), fx(6)));
        assert!(!Vec2::ZERO.within(Vec2::new(fx(3), fx(4)), fx(5)));
    }
}
