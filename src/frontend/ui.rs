//! The window every screen draws in: opening it, the `Ui` handle (the
//! textures, the font and the sounds), the menus' backdrop and
//! screenshots. Below both `menu` and `window`, which each draw on it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use macroquad::prelude::*;

use super::assets::Sprites;
use super::audio::Audio;

#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error("no display found (DISPLAY and WAYLAND_DISPLAY are unset); run with --headless")]
    NoDisplay,
}

/// Whether a window could open at all (X11 or Wayland; a page always
/// has its canvas).
pub fn display_available() -> bool {
    crate::platform::screen::display_available()
}

fn window_conf(title: &str) -> Conf {
    Conf {
        window_title: title.to_string(),
        window_width: 1280,
        window_height: 720,
        high_dpi: true,
        ..Default::default()
    }
}

/// Opens the window, runs `body` in it and returns its result once the
/// window loop ends (also when the player closes the window early: then
/// `None`). In the browser the page's event loop runs the window after
/// this returns, so it returns `None` at once: see `app::windowed`.
pub fn open<T, F, Fut>(title: &str, body: F) -> Result<Option<T>, WindowError>
where
    T: 'static,
    F: FnOnce(Ui) -> Fut + 'static,
    Fut: std::future::Future<Output = T> + 'static,
{
    open_with(window_conf(title), body)
}

/// [`open`] with a window of exactly `width` x `height` pixels that does
/// not wait for the display's refresh (a video's frames: as fast as they
/// are drawn, one pixel per pixel even on a high-DPI screen).
pub fn open_sized<T, F, Fut>(
    title: &str,
    (width, height): (u32, u32),
    body: F,
) -> Result<Option<T>, WindowError>
where
    T: 'static,
    F: FnOnce(Ui) -> Fut + 'static,
    Fut: std::future::Future<Output = T> + 'static,
{
    let mut conf = window_conf(title);
    conf.window_width = width as i32;
    conf.window_height = height as i32;
    conf.high_dpi = false;
    conf.window_resizable = false;
    conf.platform.swap_interval = Some(0);
    open_with(conf, body)
}

fn open_with<T, F, Fut>(conf: Conf, body: F) -> Result<Option<T>, WindowError>
where
    T: 'static,
    F: FnOnce(Ui) -> Fut + 'static,
    Fut: std::future::Future<Output = T> + 'static,
{
    super::require_display()?;
    super::audio::install_panic_filter();
    let slot: Arc<Mutex<Option<T>>> = Arc::default();
    let out = slot.clone();
    macroquad::Window::from_config(conf, async move {
        let ui = Ui::new();
        let result = body(ui).await;
        *out.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
    });
    let taken = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    Ok(taken)
}

/// What every screen draws with: textures, the font and the sounds.
pub struct Ui {
    pub sprites: Sprites,
    pub audio: Audio,
}

impl Ui {
    fn new() -> Ui {
        // The player's palette, scale and motion, for every screen.
        super::look::set((&crate::settings::Settings::load_or_default()).into());
        Ui {
            sprites: Sprites::load(),
            audio: Audio::new(0),
        }
    }
}

/// A capture requested by `--screenshot PATH` after `frames` frames.
#[derive(Clone, Debug)]
pub struct Screenshot {
    pub path: PathBuf,
    pub after_frames: u32,
}

/// What was drawn this frame (call before `next_frame`): its width, its
/// height and its RGBA pixels, the top row first.
pub fn screen_pixels() -> (u32, u32, Vec<u8>) {
    let image = get_screen_data();
    let (w, h) = (image.width as usize, image.height as usize);
    // OpenGL rows run bottom-up.
    let mut rows = Vec::with_capacity(w * h * 4);
    for y in (0..h).rev() {
        rows.extend_from_slice(&image.bytes[y * w * 4..(y + 1) * w * 4]);
    }
    (w as u32, h as u32, rows)
}

/// Saves what was drawn this frame (call before `next_frame`).
pub fn save_screenshot(path: &Path) -> Result<(), String> {
    let (w, h, rows) = screen_pixels();
    let (w, h) = (w as usize, h as usize);
    let fail =
        |e: &dyn std::fmt::Display| format!("cannot save screenshot {}: {e}", path.display());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    }
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
    writer.write_image_data(&rows).map_err(|e| fail(&e))?;
    writer.finish().map_err(|e| fail(&e))
}

/// The color behind the menus' starfield.
const BACKDROP: Color = Color::new(0.024, 0.03, 0.086, 1.0);

/// The dimmed starfield behind every menu screen.
pub fn backdrop(ui: &Ui) {
    clear_background(BACKDROP);
    if let Some(starfield) = ui.sprites.background.texture() {
        draw_texture_ex(
            &starfield,
            0.0,
            0.0,
            Color::new(1.0, 1.0, 1.0, 0.55),
            DrawTextureParams {
                dest_size: Some(vec2(screen_width(), screen_height())),
                ..Default::default()
            },
        );
    }
}
