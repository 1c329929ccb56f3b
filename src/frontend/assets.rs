//! Sprites and the bitmap font, built into the binary (so it runs from any
//! directory) and uploaded as textures once per window. Sounds: `audio`.

use macroquad::prelude::*;

use crate::sim::EnemyKind;

/// Sprites are drawn at twice their world size (assets/README.md).
pub const SPRITE_PIXELS_PER_UNIT: f32 = 2.0;
pub const EXPLOSION_FRAMES: u32 = 8;

pub struct Sprites {
    pub ships: [Texture2D; 2],
    pub wanderer: Texture2D,
    pub shooter: Texture2D,
    pub charger: Texture2D,
    pub bullet_player: Texture2D,
    pub bullet_enemy: Texture2D,
    pub explosion: Texture2D,
    pub background: Texture2D,
    pub font: BitmapFont,
}

fn texture(png: &[u8]) -> Texture2D {
    let texture = Texture2D::from_file_with_format(png, Some(ImageFormat::Png));
    // Pixel art: keep edges crisp when scaled.
    texture.set_filter(FilterMode::Nearest);
    texture
}

impl Sprites {
    /// Must run inside the window (textures live on the GPU).
    pub fn load() -> Sprites {
        Sprites {
            ships: [
                texture(include_bytes!("../../assets/sprites/ship_p1.png")),
                texture(include_bytes!("../../assets/sprites/ship_p2.png")),
            ],
            wanderer: texture(include_bytes!("../../assets/sprites/wanderer.png")),
            shooter: texture(include_bytes!("../../assets/sprites/shooter.png")),
            charger: texture(include_bytes!("../../assets/sprites/charger.png")),
            bullet_player: texture(include_bytes!("../../assets/sprites/bullet_player.png")),
            bullet_enemy: texture(include_bytes!("../../assets/sprites/bullet_enemy.png")),
            explosion: texture(include_bytes!("../../assets/sprites/explosion.png")),
            background: texture(include_bytes!("../../assets/sprites/background.png")),
            font: BitmapFont::load(),
        }
    }

    /// The sprite of a kind, with the tint and the scale it is drawn at:
    /// the newer kinds reuse the first three's art until they get their
    /// own (a sniper is a pale shooter, a splitter a big green wanderer,
    /// the bosses giant chargers and shooters).
    pub fn enemy(&self, kind: EnemyKind) -> (&Texture2D, Color, f32) {
        match kind {
            EnemyKind::Wanderer => (&self.wanderer, WHITE, 1.0),
            EnemyKind::Shooter => (&self.shooter, WHITE, 1.0),
            EnemyKind::Charger => (&self.charger, WHITE, 1.0),
            EnemyKind::Sniper => (&self.shooter, Color::new(0.6, 0.9, 1.0, 1.0), 1.0),
            EnemyKind::Splitter => (&self.wanderer, Color::new(0.5, 1.0, 0.5, 1.0), 1.2),
            EnemyKind::Splitling => (&self.wanderer, Color::new(0.6, 1.0, 0.6, 1.0), 0.6),
            EnemyKind::Spinner => (&self.shooter, Color::new(1.0, 0.7, 1.0, 1.0), 1.2),
            EnemyKind::Warden => (&self.charger, Color::new(1.0, 0.6, 0.4, 1.0), 2.6),
            EnemyKind::Hydra => (&self.shooter, Color::new(0.8, 0.5, 1.0, 1.0), 2.6),
        }
    }
}

/// The 6x10 monospaced font of `assets/font` (layout in assets/README.md).
pub struct BitmapFont {
    texture: Texture2D,
}

pub const GLYPH_W: f32 = 6.0;
pub const GLYPH_H: f32 = 10.0;
const COLUMNS: u32 = 16;
const FIRST_CHAR: u32 = 32;
const GLYPHS: u32 = 95;

/// Text alignment relative to the x given to [`BitmapFont::draw`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

impl BitmapFont {
    fn load() -> BitmapFont {
        BitmapFont {
            texture: texture(include_bytes!("../../assets/font/font.png")),
        }
    }

    /// Width of `text` at `scale` (whole numbers keep it crisp).
    /// Scales are the caller's times the player's interface scale
    /// (`look::Look::ui_scale`: 1 unless the settings say more).
    pub fn width(&self, text: &str, scale: f32) -> f32 {
        text.chars().count() as f32 * GLYPH_W * scale * super::look::get().ui_scale
    }

    pub fn line_height(scale: f32) -> f32 {
        (GLYPH_H + 1.0) * scale * super::look::get().ui_scale
    }

    /// Draws `text` with its top edge at `y`. Characters outside printable
    /// ASCII show as '?'.
    pub fn draw(&self, text: &str, x: f32, y: f32, scale: f32, color: Color, align: Align) {
        let scale = (scale * super::look::get().ui_scale).round().max(1.0);
        // The width at the scale drawn (already the player's).
        let width = text.chars().count() as f32 * GLYPH_W * scale;
        let x = match align {
            Align::Left => x,
            Align::Center => x - width / 2.0,
            Align::Right => x - width,
        }
        .round();
        for (i, c) in text.chars().enumerate() {
            let code = c as u32;
            let glyph = if (FIRST_CHAR..FIRST_CHAR + GLYPHS).contains(&code) {
                code - FIRST_CHAR
            } else {
                '?' as u32 - FIRST_CHAR
            };
            if glyph == 0 {
                continue; // space
            }
            let source = Rect::new(
                (glyph % COLUMNS) as f32 * GLYPH_W,
                (glyph / COLUMNS) as f32 * GLYPH_H,
                GLYPH_W,
                GLYPH_H,
            );
            draw_texture_ex(
                &self.texture,
                x + i as f32 * GLYPH_W * scale,
                y.round(),
                color,
                DrawTextureParams {
                    dest_size: Some(vec2(GLYPH_W * scale, GLYPH_H * scale)),
                    source: Some(source),
                    ..Default::default()
                },
            );
        }
    }

    /// Draws with a 1-pixel dark shadow, readable over the starfield.
    pub fn draw_shadowed(
        &self,
        text: &str,
        x: f32,
        y: f32,
        scale: f32,
        color: Color,
        align: Align,
    ) {
        let s = scale.round().max(1.0);
        self.draw(
            text,
            x + s,
            y + s,
            scale,
            Color::new(0.0, 0.0, 0.0, 0.8 * color.a),
            align,
        );
        self.draw(text, x, y, scale, color, align);
    }
}
