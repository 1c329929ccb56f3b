//! Broad phase for bullet-vs-enemy collisions: a uniform grid over the arena,
//! rebuilt every step by counting sort. Stress has ~300 enemies and ~2500
//! bullets; testing every pair would cost ~750k distance checks a frame.

use crate::math::Vec2;
use crate::world::{ARENA_HEIGHT, ARENA_WIDTH, Enemy, MAX_ENEMIES};

/// Must exceed the largest collision distance (enemy + bullet radius), so
/// a 3x3 block of cells covers every possible hit.
const CELL_SHIFT: u32 = 5; // 32 units
const COLS: usize = ((ARENA_WIDTH.to_bits() >> 16) as usize >> CELL_SHIFT) + 1;
const ROWS: usize = ((ARENA_HEIGHT.to_bits() >> 16) as usize >> CELL_SHIFT) + 1;
const CELLS: usize = COLS * ROWS;

pub struct EnemyGrid {
    /// Enemies of cell c are `items[start[c]..start[c + 1]]`.
    start: [u16; CELLS + 1],
    items: [u16; MAX_ENEMIES],
}

fn cell_coords(pos: Vec2) -> (usize, usize) {
    let col = (pos.x.to_bits() >> 16).max(0) as usize >> CELL_SHIFT;
    let row = (pos.y.to_bits() >> 16).max(0) as usize >> CELL_SHIFT;
    (col.min(COLS - 1), row.min(ROWS - 1))
}

impl EnemyGrid {
    pub fn build(enemies: &[Enemy]) -> Self {
        let mut grid = EnemyGrid {
            start: [0; CELLS + 1],
            items: [0; MAX_ENEMIES],
        };
        let mut cell_of = [0u16; MAX_ENEMIES];
        for (i, e) in enemies.iter().enumerate() {
            let (c, r) = cell_coords(e.pos);
            let cell = r * COLS + c;
            cell_of[i] = cell as u16;
            grid.start[cell + 1] += 1;
        }
        for c in 0..CELLS {
            grid.start[c + 1] += grid.start[c];
        }
        let mut fill = grid.start;
        for (i, &cell) in cell_of[..enemies.len()].iter().enumerate() {
            let slot = &mut fill[cell as usize];
            grid.items[*slot as usize] = i as u16;
            *slot += 1;
        }
        grid
    }

    /// Calls `f` with the index of every enemy in the 3x3 block of cells
    /// around `pos`.
    pub fn for_each_near(&self, pos: Vec2, mut f: impl FnMut(usize)) {
        let (col, row) = cell_coords(pos);
        for r in row.saturating_sub(1)..=(row + 1).min(ROWS - 1) {
            let first = r * COLS + col.saturating_sub(1);
            let last = r * COLS + (col + 1).min(COLS - 1);
            // Cells of one row are contiguous in `items`.
            let (a, b) = (self.start[first] as usize, self.start[last + 1] as usize);
            for &i in &self.items[a..b] {
                f(i as usize);
            }
        }
    }
}
