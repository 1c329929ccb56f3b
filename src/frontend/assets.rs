//! Sprites and the bitmap font, built into the binary (so it runs from any
//! directory) and uploaded as textures once per window; the starfield
//! behind them is a platform asset (`platform::assets`: fetched by the
//! page after its first frame). Sounds: `audio`.

use std::borrow::Cow;
use std::cell::RefCell;

use macroquad::experimental::coroutines::{Coroutine, start_coroutine};
use macroquad::prelude::*;

use crate::platform::assets::{Asset, asset};

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
    pub background: Starfield,
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
            background: Starfield::load(),
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

/// An asset's bytes or why they did not come.
pub type Loaded = Result<Cow<'static, [u8]>, String>;

/// A platform asset on its way: at hand natively, fetched by a macroquad
/// coroutine in the page. Started together, the page's fetches overlap
/// (one after the other, 38 of them would take 38 round trips).
pub enum Arriving {
    Here(Cow<'static, [u8]>),
    Fetching(Coroutine<Loaded>),
    Taken,
}

impl Arriving {
    pub fn start(file: Asset) -> Arriving {
        match file.at_hand() {
            Some(bytes) => Arriving::Here(Cow::Borrowed(bytes)),
            None => Arriving::Fetching(start_coroutine(async move { file.load().await })),
        }
    }

    /// The bytes once they are here, once (`None` while on their way and
    /// after they were taken).
    pub fn take(&mut self) -> Option<Loaded> {
        if let Arriving::Fetching(fetch) = self {
            if !fetch.is_done() {
                return None;
            }
            let loaded = fetch
                .retrieve()
                .unwrap_or_else(|| Err("the fetch was stopped".to_string()));
            *self = Arriving::Taken;
            return Some(loaded);
        }
        match std::mem::replace(self, Arriving::Taken) {
            Arriving::Here(bytes) => Some(Ok(bytes)),
            _ => None,
        }
    }

    /// The bytes, waiting a frame at a time (in a coroutine).
    pub async fn wait(mut self) -> Loaded {
        loop {
            if let Some(loaded) = self.take() {
                return loaded;
            }
            next_frame().await;
        }
    }
}

/// The starfield behind the game and the menus: at hand natively; in the
/// page it arrives a few frames after the first, which draws the clear
/// colour beneath it instead.
pub struct Starfield {
    texture: RefCell<Option<Texture2D>>,
    arriving: RefCell<Arriving>,
}

impl Starfield {
    fn load() -> Starfield {
        let file = asset!("sprites/background.png");
        Starfield {
            texture: RefCell::new(file.at_hand().map(texture)),
            arriving: RefCell::new(match file.at_hand() {
                Some(_) => Arriving::Taken,
                None => Arriving::start(file),
            }),
        }
    }

    /// The texture, once it is here.
    pub fn texture(&self) -> Option<Texture2D> {
        let arrived = self.arriving.borrow_mut().take();
        match arrived {
            Some(Ok(bytes)) => {
                tracing::info!("starfield: fetched, {} B", bytes.len());
                self.texture.replace(Some(texture(&bytes)));
            }
            Some(Err(e)) => tracing::warn!("no starfield: {e}"),
            None => {}
        }
        self.texture.borrow().clone()
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
