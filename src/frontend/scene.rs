//! Drawing one world: background, sprites, effects and screen shake, with
//! motion interpolated between the last two simulated frames.
//!
//! The simulation ticks at 60 Hz whatever the display does; a drawn frame
//! falls somewhere between two ticks. `alpha` (0..=1) is how far: ships are
//! drawn between their previous and current position, enemies and bullets
//! back along their velocity by `1 - alpha` of a frame.

use macroquad::prelude::*;

use super::assets::{EXPLOSION_FRAMES, SPRITE_PIXELS_PER_UNIT, Sprites};
use super::effects::{self, EventLedger, HitMark};
use super::look::{self, palette};
use crate::sim::{EnemyKind, Event, Fx, OWNER_ENEMY, PLAYERS, Vec2 as SimVec2, World};

/// Frames an explosion lasts (8 strip frames, 4 ticks each).
const EXPLOSION_TICKS: u32 = 32;
/// A ship that moved further than this in one frame respawned: no lerp.
const TELEPORT_UNITS: f32 = 16.0;

fn f(v: Fx) -> f32 {
    v.to_num::<f32>()
}

fn v(p: SimVec2) -> Vec2 {
    vec2(f(p.x), f(p.y))
}

pub use super::layout::Layout;

/// Ship positions of the frame before the current one, for interpolation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Motion {
    previous: [Vec2; PLAYERS],
}

impl Motion {
    /// Call before each simulated frame.
    pub fn remember(&mut self, world: &World) {
        for (slot, p) in self.previous.iter_mut().zip(&world.players) {
            *slot = v(p.pos);
        }
    }

    fn ship(&self, world: &World, player: usize, alpha: f32) -> Vec2 {
        let now = v(world.players[player].pos);
        let before = self.previous[player];
        if before.distance(now) > TELEPORT_UNITS {
            now
        } else {
            before.lerp(now, alpha)
        }
    }
}

fn draw_sprite(
    texture: &Texture2D,
    layout: &Layout,
    center: Vec2,
    rotation: f32,
    size_scale: f32,
    tint: Color,
) {
    let size = vec2(texture.width(), texture.height()) / SPRITE_PIXELS_PER_UNIT
        * layout.scale
        * size_scale;
    let at = layout.to_screen(center) - size / 2.0;
    draw_texture_ex(
        texture,
        at.x,
        at.y,
        tint,
        DrawTextureParams {
            dest_size: Some(size),
            rotation,
            ..Default::default()
        },
    );
}

/// Screen-shake offset in pixels from recent player deaths; none with
/// reduced motion (`effects::shake`).
fn shake(ledger: &EventLedger, world: &World, layout: &Layout) -> Vec2 {
    let [x, y] = effects::shake(ledger, world.frame, look::get().reduced_motion);
    vec2(x, y) * layout.scale
}

/// Draws the arena and everything in it, `side` pixels kept free on each
/// side ([`Layout::fit`]); returns where the arena went (the HUD lines up
/// with it).
pub fn draw_world(
    sprites: &Sprites,
    world: &World,
    motion: &Motion,
    ledger: &EventLedger,
    alpha: f32,
    side: f32,
) -> Layout {
    clear_background(Color::from_rgba(4, 6, 16, 255));
    let mut layout = Layout::fit(side);
    layout.origin += shake(ledger, world, &layout);
    let size = layout.size();
    if let Some(starfield) = sprites.background.texture() {
        draw_texture_ex(
            &starfield,
            layout.origin.x,
            layout.origin.y,
            WHITE,
            DrawTextureParams {
                dest_size: Some(size),
                ..Default::default()
            },
        );
    }
    // Enemies and bullets are drawn back along their velocity by the part
    // of a frame not yet elapsed.
    let back = 1.0 - alpha.clamp(0.0, 1.0);
    super::telegraphs::draw_under(sprites, world, &layout);
    draw_enemies(sprites, world, ledger, &layout, back);
    draw_bullets(sprites, world, &layout, back);
    draw_ships(sprites, world, motion, &layout, alpha);
    super::telegraphs::draw_over(sprites, world, ledger, &layout);
    draw_explosions(sprites, world, ledger, &layout);
    super::particles::draw(&sprites.font, ledger, world.frame, &layout);
    layout
}

fn draw_enemies(
    sprites: &Sprites,
    world: &World,
    ledger: &EventLedger,
    layout: &Layout,
    back: f32,
) {
    let flashing = effects::hit_enemies(ledger, world.frame);
    for e in world.enemies() {
        let center = v(e.pos) - v(e.vel) * back;
        let kind = e.kind();
        // Chargers face where they go; the others turn slowly for life.
        let rotation = match kind {
            EnemyKind::Charger if e.vel != SimVec2::default() => {
                let d = v(e.vel);
                d.y.atan2(d.x) + std::f32::consts::FRAC_PI_2
            }
            EnemyKind::Shooter => (world.frame as f32 + e.id as f32 * 17.0) * 0.01,
            _ => 0.0,
        };
        let (texture, mut tint, size) = sprites.enemy(kind);
        if look::get().colour_blind && std::ptr::eq(texture, &sprites.shooter) {
            // The shooter's violet reads as player 1's sky blue under
            // deuteranopia (ΔE 16); pulled toward magenta it keeps 38.
            tint = Color::new(tint.r, tint.g * 0.6, tint.b * 0.6, tint.a);
        }
        draw_sprite(texture, layout, center, rotation, size, tint);
        if flashing.contains(&e.id) {
            let at = layout.to_screen(center);
            // With reduced motion a thin steady ring instead of a flash.
            match effects::hit_mark(look::get().reduced_motion) {
                HitMark::Ring {
                    radius,
                    thickness,
                    alpha,
                } => draw_circle_lines(
                    at.x,
                    at.y,
                    radius * layout.scale,
                    thickness,
                    Color::new(1.0, 1.0, 1.0, alpha),
                ),
                HitMark::Flash { radius, alpha } => draw_circle(
                    at.x,
                    at.y,
                    radius * layout.scale,
                    Color::new(1.0, 1.0, 1.0, alpha),
                ),
            }
        }
    }
}

fn draw_bullets(sprites: &Sprites, world: &World, layout: &Layout, back: f32) {
    for b in world.bullets() {
        let center = v(b.pos) - v(b.vel) * back;
        let texture = if b.owner == OWNER_ENEMY {
            &sprites.bullet_enemy
        } else {
            &sprites.bullet_player
        };
        draw_sprite(texture, layout, center, 0.0, 1.0, WHITE);
        if look::get().colour_blind {
            let at = layout.to_screen(center);
            let r = 3.0 * layout.scale;
            if b.owner == OWNER_ENEMY {
                // Enemy fire: a dark rim and a vermillion ring (a shape,
                // not only a hue, tells it from the player's).
                draw_circle_lines(at.x, at.y, r, 2.0, BLACK);
                draw_circle_lines(at.x, at.y, r + 2.0, 1.5, rgb(palette::ENEMY_BULLET));
            } else {
                draw_circle(at.x, at.y, r * 0.6, rgb(palette::PLAYER_BULLET));
            }
        }
    }
}

fn rgb([r, g, b]: [u8; 3]) -> Color {
    Color::from_rgba(r, g, b, 255)
}

/// The colour-blind palette's marker on a ship: player 1 a ring, player 2
/// a square, each in its palette colour.
fn draw_ship_marker(player: usize, at: Vec2, layout: &Layout) {
    let r = 9.0 * layout.scale;
    match player {
        0 => draw_circle_lines(at.x, at.y, r, 2.0, rgb(palette::PLAYER_ONE)),
        _ => draw_rectangle_lines(
            at.x - r,
            at.y - r,
            2.0 * r,
            2.0 * r,
            2.5,
            rgb(palette::PLAYER_TWO),
        ),
    }
}

/// Living ships, interpolated; an invulnerable one blinks.
fn draw_ships(sprites: &Sprites, world: &World, motion: &Motion, layout: &Layout, alpha: f32) {
    for (i, p) in world.players.iter().enumerate() {
        if p.alive == 0 {
            continue;
        }
        let look = look::get();
        // Invulnerable: blinking, or with reduced motion steadily faded.
        let alpha_now = effects::ship_alpha(p.invulnerable > 0, world.frame, look.reduced_motion);
        let tint = Color::new(1.0, 1.0, 1.0, alpha_now);
        let at = motion.ship(world, i, alpha);
        // The sprite points up; the ship faces its aim.
        let facing = SimVec2::direction(u32::from(p.facing));
        let rotation = f(facing.y).atan2(f(facing.x)) + std::f32::consts::FRAC_PI_2;
        draw_sprite(&sprites.ships[i], layout, at, rotation, 1.0, tint);
        if look.colour_blind {
            draw_ship_marker(i, layout.to_screen(at), layout);
        }
    }
}

/// Explosions from the ledger, so a rollback that erased a death erases
/// its explosion too.
fn draw_explosions(sprites: &Sprites, world: &World, ledger: &EventLedger, layout: &Layout) {
    for (age, event) in ledger.recent(world.frame, EXPLOSION_TICKS) {
        let (pos, scale) = match event {
            Event::EnemyKilled { pos, .. } => (*pos, 1.0),
            Event::PlayerKilled { pos, .. } => (*pos, 2.0),
            Event::BossDefeated { pos, .. } => (*pos, 4.0),
            _ => continue,
        };
        let strip = age * EXPLOSION_FRAMES / EXPLOSION_TICKS;
        let cell = sprites.explosion.height();
        let size = vec2(cell, cell) / SPRITE_PIXELS_PER_UNIT * layout.scale * scale;
        let at = layout.to_screen(v(pos)) - size / 2.0;
        draw_texture_ex(
            &sprites.explosion,
            at.x,
            at.y,
            WHITE,
            DrawTextureParams {
                dest_size: Some(size),
                source: Some(Rect::new(strip as f32 * cell, 0.0, cell, cell)),
                ..Default::default()
            },
        );
    }
}
