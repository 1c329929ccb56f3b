//! The macroquad window: the match loop (a fixed 60 Hz simulation under any
//! display rate, drawn with interpolation), the online connection screen,
//! and screenshots. Menus live in `menu`; the replay viewer in `replay_view`.
//!
//! Everything here returns what happened (`MatchEnd`, `ConnectOutcome`);
//! `app` decides what comes next.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use web_time::{Duration, Instant};

use macroquad::prelude::*;

use super::InputSource;
use super::assets::{Align, Sprites};
use super::audio::{Audio, sound_changes};
use super::music::{Track, intensity_for};
// The input gate is its own leaf (keys.rs); screens name it through here.
use super::chat_box::ChatBox;
use super::effects::EventLedger;
use super::hud::{self, MatchInfo};
pub use super::keys::{clicked, end_frame, enter_screen, pad_button, pad_pressed, pressed};
use super::overlay::{NetGraph, draw_alerts};
use super::scene::{self, Motion};
use super::touch_controls::TouchControls;
use crate::net::connect::{BackgroundConnect, ConnectError, Stage};
use crate::platform::tasks::MaybeSend;
use crate::session::{Finished, Match, Next, UploadReport, WatchControl, WatchStatus};
use crate::sim::Input;

/// Most frames simulated per drawn frame, so a stall (window drag,
/// debugger) does not turn into a burst (the pacer also drops old debt).
const MAX_FRAMES_PER_DRAW: u32 = 8;
/// Drawn frames left out of the drawing-time figures.
const WARM_UP_DRAWS: u32 = 30;

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
    super::require_display()?;
    super::audio::install_panic_filter();
    let slot: Arc<Mutex<Option<T>>> = Arc::default();
    let out = slot.clone();
    macroquad::Window::from_config(window_conf(title), async move {
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

/// Saves what was drawn this frame (call before `next_frame`).
pub fn save_screenshot(path: &Path) -> Result<(), String> {
    let image = get_screen_data();
    let (w, h) = (image.width as usize, image.height as usize);
    // OpenGL rows run bottom-up.
    let mut rows = Vec::with_capacity(w * h * 4);
    for y in (0..h).rev() {
        rows.extend_from_slice(&image.bytes[y * w * 4..(y + 1) * w * 4]);
    }
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

/// How a match is shown.
#[derive(Clone, Debug, Default)]
pub struct MatchOptions {
    /// Saved when the match ends (after `--frames N`, or when it ends otherwise).
    pub screenshot: Option<PathBuf>,
    /// Network overlay shown at the start (F1 toggles).
    pub overlay: bool,
    pub info: MatchInfo,
    pub check_distance: Option<usize>,
    /// Room chat shown and Enter opens its prompt (online matches; the
    /// settings' `chat`, `--no-chat`).
    pub chat: bool,
}

/// Milliseconds spent per drawn frame (drawing through buffer swap).
#[derive(Clone, Debug, Default)]
pub struct DrawStats {
    samples: Vec<f32>,
}

impl DrawStats {
    fn add(&mut self, d: Duration) {
        // A 10-minute match at 60 Hz is 36k samples: fine to keep.
        self.samples.push(d.as_secs_f32() * 1000.0);
    }

    /// (mean, 99th percentile) in ms, when anything was drawn.
    pub fn summary(&self) -> Option<(f64, f64)> {
        if self.samples.is_empty() {
            return None;
        }
        let mut sorted = self.samples.clone();
        sorted.sort_by(f32::total_cmp);
        let mean = sorted.iter().map(|&s| f64::from(s)).sum::<f64>() / sorted.len() as f64;
        let p99 = sorted[(sorted.len() * 99 / 100).min(sorted.len() - 1)];
        Some((mean, f64::from(p99)))
    }
}

/// A match played in a window: how it ended and what drawing cost.
pub struct MatchEnd {
    pub finished: Finished,
    pub draw: DrawStats,
    /// `--screenshot` could not be written.
    pub screenshot_error: Option<String>,
    /// Where the replay sent to be ranked ranked, or why not (set by the
    /// caller, which sends it after the match).
    pub upload: Option<UploadReport>,
}

/// What the window keeps across the frames of a match: the effects ledger,
/// interpolation, the overlay's graph, the result panel's texts.
struct MatchScreen {
    ledger: EventLedger,
    motion: Motion,
    graph: NetGraph,
    info: MatchInfo,
    overlay: bool,
    chat: ChatBox,
    /// The last pad connected or removed, and when: shown for a while.
    pad_notice: Option<(String, Instant)>,
    touch: TouchControls,
    mouse: super::mouse_aim::MouseAim,
}

/// Where a touch screen's "leave" button sits: the top right corner.
fn leave_button() -> Rect {
    let side = screen_width().min(screen_height()) * 0.14;
    Rect::new(
        screen_width() - side * 1.6 - 8.0,
        8.0,
        side * 1.6,
        side * 0.6,
    )
}

/// Seconds a pad's connection or removal stays on screen.
const PAD_NOTICE_SECONDS: u64 = 5;

impl MatchScreen {
    /// Runs the frames due now (at most `MAX_FRAMES_PER_DRAW`) with inputs
    /// from `sources`; effects and sounds follow each frame's report.
    fn run_due_frames(&mut self, ui: &mut Ui, game: &mut Match, sources: &mut [InputSource; 2]) {
        let now = Instant::now();
        // While a chat line is typed, the keyboard plays no part.
        let typing = self.chat.is_typing();
        let keys = |key| !typing && is_key_down(key);
        let players = super::keyboard_players(sources);
        self.touch.update(game.driver().world().is_game_over());
        let touch = if typing { Input(0) } else { self.touch.input() };
        for _ in 0..MAX_FRAMES_PER_DRAW {
            if game.next(now) != Next::Frame {
                return;
            }
            // The pads are read now, beside the keyboard's state of this
            // frame: a press goes into the frame being simulated.
            super::pads::poll();
            let mut pads = if typing {
                [Input(0); 2]
            } else {
                super::pads::player_inputs(players)
            };
            // The touch controls play the first keyboard player, and the
            // mouse aims for that player unless a stick already does.
            pads[0] = Input(pads[0].0 | touch.0);
            let world = game.driver().world();
            if let Some(first) = sources.iter().position(InputSource::is_keys)
                && pads[0].aim().is_none()
                && !self.touch.seen()
                && let Some(aim) = self.mouse.aim(world, first, self.touch.side())
            {
                pads[0] = pads[0].with_aim(Some(aim));
            }
            let inputs = super::frame_inputs(sources, world, keys, pads);
            self.motion.remember(game.driver().world());
            let report = game.advance(inputs);
            self.graph.record(&report);
            if let Some(inputs) = report.inputs {
                self.info.holding_start = inputs.map(|i| i.has(Input::START));
            }
            let changes = self.ledger.apply(&report);
            for (frame, event) in &changes.fired {
                self.info.note(*frame, event);
            }
            // Whose ship is "own": the players whose start key is known here.
            let local = self.info.start_keys.each_ref().map(Option::is_some);
            let sounds = sound_changes(&changes, &self.ledger, local);
            for (frame, cue) in sounds.start {
                ui.audio.play_event(cue, frame);
            }
            for (frame, cue) in sounds.stop {
                ui.audio.cancel_event(cue, frame);
            }
        }
    }

    fn draw(&mut self, ui: &Ui, game: &Match) {
        let alpha = game.alpha(Instant::now());
        let driver = game.driver();
        let world = driver.world();
        let side = self.touch.side();
        let layout = scene::draw_world(&ui.sprites, world, &self.motion, &self.ledger, alpha, side);
        hud::draw_hud(&ui.sprites, world, &layout, &self.ledger, &self.info.names);
        (self.chat).draw(&ui.sprites.font, &layout, world.frame, &self.info.names);
        let status = driver.net_status();
        if world.is_game_over() {
            let chat: Vec<String> = self.chat.last(3).map(ToString::to_string).collect();
            hud::draw_result(&ui.sprites.font, world, &self.info, &chat);
        }
        if self.overlay {
            self.graph.draw(&ui.sprites.font, status.as_ref());
        }
        draw_alerts(&ui.sprites.font, status.as_ref());
        if let Some(watching) = driver.watch_status() {
            draw_watching(ui, &watching);
        }
        self.touch.draw(world.is_game_over());
        if self.touch.seen() && world.is_game_over() {
            let r = leave_button();
            draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.0, 0.0, 0.0, 0.5));
            draw_rectangle_lines(r.x, r.y, r.w, r.h, 2.0, LIGHTGRAY);
            let (cx, cy) = (r.x + r.w / 2.0, r.y + r.h * 0.3);
            ui.sprites
                .font
                .draw("LEAVE", cx, cy, 2.0, WHITE, Align::Center);
        }
        if let Some((text, at)) = &self.pad_notice
            && at.elapsed() < Duration::from_secs(PAD_NOTICE_SECONDS)
        {
            let (cx, y) = (screen_width() / 2.0, screen_height() * 0.25);
            let color = Color::new(1.0, 0.85, 0.4, 1.0);
            ui.sprites
                .font
                .draw_shadowed(text, cx, y, 2.0, color, Align::Center);
        }
    }

    /// Puts a pad's arrival or departure on screen. A match cannot pause
    /// for a pad (online the other player's game runs on), so a removed
    /// pad's player keeps the keyboard and the match goes on.
    fn note_pads(&mut self) {
        use super::pads::PadNotice;
        if let Some(notice) = super::pads::take_notices().pop() {
            let text = match notice {
                PadNotice::Connected(name) => format!("gamepad connected: {name}"),
                PadNotice::Disconnected(name) => format!(
                    "gamepad disconnected: {name} - the match goes on; plug it back in or use the keys"
                ),
            };
            self.pad_notice = Some((text, Instant::now()));
        }
    }
}

/// A spectator's line at the bottom: the room and how far behind live.
fn draw_watching(ui: &Ui, watching: &WatchStatus) {
    let (room, behind) = (&watching.room, watching.behind_s);
    let text = if watching.paused {
        format!(
            "watching {room} - paused, {behind:.1} s behind live (Space resumes, End jumps to live)"
        )
    } else if watching.ended {
        format!("watching {room} - the match has ended (Esc leaves)")
    } else if !watching.live {
        format!("watching {room} - {behind:.1} s behind live (End jumps to live, Space pauses)")
    } else {
        format!("watching {room} - {behind:.1} s behind live (Space pauses, Esc leaves)")
    };
    let (cx, y) = (screen_width() / 2.0, screen_height() - 30.0);
    ui.sprites
        .font
        .draw_shadowed(&text, cx, y, 2.0, LIGHTGRAY, Align::Center);
}

/// Keeps the screen on while it lives (a match, a replay being watched):
/// a phone must not dim and lock in the middle of a match nobody touches
/// (a watched one, a bot's, a long rally on a gamepad). Dropped at the
/// end however the screen ends; only the page has a wake lock to take.
pub struct KeepAwake(());

impl KeepAwake {
    pub fn hold() -> KeepAwake {
        crate::platform::screen::keep_awake(true);
        KeepAwake(())
    }
}

impl Drop for KeepAwake {
    fn drop(&mut self) {
        crate::platform::screen::keep_awake(false);
    }
}

/// Plays until Esc, the planned last frame, or a failure; the match's
/// lifecycle (its end, the checksum exchange, the verdict) is the session's.
pub async fn play_match(
    ui: &mut Ui,
    mut game: Match,
    mut sources: [InputSource; 2],
    options: MatchOptions,
) -> MatchEnd {
    enter_screen();
    let mut info = options.info.clone();
    info.started_frame = game.driver().world().frame;
    info.names = game.driver().player_names();
    let mut screen = MatchScreen {
        ledger: EventLedger::new(),
        motion: Motion::default(),
        graph: NetGraph::new(options.check_distance),
        info,
        overlay: options.overlay,
        chat: ChatBox::new(options.chat),
        pad_notice: None,
        touch: TouchControls::default(),
        mouse: Default::default(),
    };
    super::keys::set_in_match(true);
    // The match's music, kept through the result panel until a menu.
    ui.audio.play_music(Track::Play);
    let _awake = KeepAwake::hold();
    let mut draw = DrawStats::default();
    let mut frames_drawn = 0u32;
    loop {
        ui.audio.set_intensity(intensity_for(game.driver().world()));
        ui.audio.update();
        // Esc closes the chat prompt first; only then does it leave.
        let esc_used = screen.chat.handle_keys(&mut game);
        if !esc_used && pressed(KeyCode::Escape) {
            game.leave("the player pressed Esc");
        }
        // On a touch screen the result panel's way out is a button.
        if screen.touch.seen()
            && game.driver().world().is_game_over()
            && clicked(MouseButton::Left)
            && leave_button().contains(mouse_position().into())
        {
            game.leave("the player tapped leave");
        }
        if pressed(KeyCode::F1) {
            screen.overlay = !screen.overlay;
        }
        // Space and End type into an open chat prompt.
        if game.driver().watch_status().is_some() && !screen.chat.is_typing() {
            if pressed(KeyCode::Space) {
                game.watch_control(WatchControl::TogglePause);
            }
            if pressed(KeyCode::End) {
                game.watch_control(WatchControl::JumpToLive);
            }
        }
        screen.note_pads();
        screen.run_due_frames(ui, &mut game, &mut sources);
        screen.chat.collect(&mut game);
        let drawing = Instant::now();
        screen.draw(ui, &game);
        if game.is_over() {
            super::keys::set_in_match(false);
            let shot = options.screenshot.as_deref().map(save_screenshot);
            return MatchEnd {
                finished: game.finish(),
                draw,
                screenshot_error: shot.and_then(Result::err),
                upload: None,
            };
        }
        end_frame().await;
        // The first frames compile shaders and upload textures: not drawing cost.
        if frames_drawn >= WARM_UP_DRAWS {
            draw.add(drawing.elapsed());
        }
        frames_drawn += 1;
    }
}

/// What the host tells the other player.
#[derive(Clone, Debug)]
pub struct Share {
    /// The signaling server's URL (this machine's LAN address when the
    /// server runs here).
    pub server: String,
    /// The room's link for a browser, when the server serves the web client.
    pub link: Option<String>,
}

/// How a connection attempt ended (a player's or a spectator's).
pub enum ConnectOutcome<C> {
    Connected(Box<C>),
    /// The player pressed Esc.
    Cancelled,
    Failed(ConnectError),
    /// `--screenshot` of the waiting screen was taken (or failed).
    Captured(Result<(), String>),
}

/// What the waiting screen says beside the attempt's own status.
pub struct Waiting<'a> {
    /// "HOSTING A MATCH", "WATCHING A MATCH", ...
    pub title: &'static str,
    /// The host's: how the other player gets in.
    pub share: Option<&'a Share>,
}

/// The waiting screen of every connection (host, join, quick match,
/// watch): the room code, the server, the stage, the latency probes; Esc
/// cancels. The connector runs in the background (`BackgroundConnect`).
pub async fn connect_screen<C: MaybeSend + 'static>(
    ui: &mut Ui,
    connecting: BackgroundConnect<C>,
    waiting: Waiting<'_>,
    screenshot: Option<Screenshot>,
) -> ConnectOutcome<C> {
    enter_screen();
    let mut drawn = 0u32;
    let mut said_offline = false;
    loop {
        if pressed(KeyCode::Escape) {
            return ConnectOutcome::Cancelled;
        }
        // A page opened offline from its service worker's copy: say why
        // nothing connects (once each time the network goes).
        let offline = crate::platform::net::offline();
        if offline && !said_offline {
            tracing::warn!("{OFFLINE}");
        }
        said_offline = offline;
        if let Poll::Ready(result) = connecting.poll() {
            return match result {
                Ok(c) => ConnectOutcome::Connected(Box::new(c)),
                Err(e) => ConnectOutcome::Failed(e),
            };
        }
        draw_waiting(ui, &connecting, &waiting, offline);
        drawn += 1;
        if let Some(shot) = &screenshot
            && drawn >= shot.after_frames
        {
            return ConnectOutcome::Captured(save_screenshot(&shot.path));
        }
        end_frame().await;
    }
}

/// What the waiting screen says while the device has no network.
const OFFLINE: &str =
    "this device is offline: online play needs the network (local play and replays work offline)";

/// The waiting screen: the room code, the server (to share, on the host),
/// the stage in words and, on the host, a failed attempt by a player with
/// no path; `offline`, that the device has no network.
fn draw_waiting<C: MaybeSend + 'static>(
    ui: &Ui,
    connecting: &BackgroundConnect<C>,
    waiting: &Waiting<'_>,
    offline: bool,
) {
    let dots = ["", ".", "..", "..."];
    let status = connecting.status();
    let hosting = waiting.share.is_some();
    backdrop(ui);
    let font = &ui.sprites.font;
    let cx = screen_width() / 2.0;
    font.draw_shadowed(waiting.title, cx, 60.0, 4.0, WHITE, Align::Center);
    if let Some(room) = connecting.room() {
        font.draw("room code", cx, 150.0, 3.0, GRAY, Align::Center);
        font.draw_shadowed(
            &room.to_string(),
            cx,
            190.0,
            12.0,
            Color::new(1.0, 0.9, 0.4, 1.0),
            Align::Center,
        );
    } else {
        font.draw(
            "paired with the next player who picks Quick match",
            cx,
            200.0,
            2.0,
            GRAY,
            Align::Center,
        );
    }
    let server = match waiting.share {
        Some(share) => format!("the other player joins with server {}", share.server),
        None => format!("server {}", connecting.server()),
    };
    font.draw(&server, cx, 340.0, 2.0, GRAY, Align::Center);
    if let Some(link) = waiting.share.and_then(|s| s.link.as_ref()) {
        let text = format!("or opens {link} in a browser");
        font.draw(&text, cx, 370.0, 2.0, GRAY, Align::Center);
    }
    let tick = (get_time() * 3.0) as usize % dots.len();
    let what = match (status.stage, hosting) {
        (Stage::Connecting, true) => {
            "waiting for the other player to join - tell them the code".to_string()
        }
        (Stage::Measuring, _) => format!(
            "connected; measuring latency ({}/{})",
            status.probes,
            status.probes_wanted.max(crate::net::handshake::PROBES)
        ),
        (stage, _) => stage.to_string(),
    };
    font.draw(
        &format!("{what}{}", dots[tick]),
        cx,
        420.0,
        3.0,
        WHITE,
        Align::Center,
    );
    if offline {
        let (first, rest) = OFFLINE.split_once(" (").unwrap_or((OFFLINE, ""));
        let warn = Color::new(1.0, 0.6, 0.3, 1.0);
        font.draw(first, cx, 480.0, 2.0, warn, Align::Center);
        font.draw(&format!("({rest}"), cx, 510.0, 2.0, warn, Align::Center);
    } else if let Some(attempt) = status.failed_attempt {
        // Too long for one line: wrapped before the parenthesis.
        let text = attempt.to_string();
        let (first, rest) = text.split_once(" (").unwrap_or((&text, ""));
        let warn = Color::new(1.0, 0.6, 0.3, 1.0);
        font.draw(first, cx, 480.0, 2.0, warn, Align::Center);
        font.draw(&format!("({rest}"), cx, 510.0, 2.0, warn, Align::Center);
    }
    font.draw(
        "Esc: back",
        cx,
        screen_height() - 60.0,
        2.0,
        GRAY,
        Align::Center,
    );
}

/// The color behind the menus' starfield.
const BACKDROP: Color = Color::new(0.024, 0.03, 0.086, 1.0);

/// The dimmed starfield behind every menu screen.
pub fn backdrop(ui: &Ui) {
    clear_background(BACKDROP);
    draw_texture_ex(
        &ui.sprites.background,
        0.0,
        0.0,
        Color::new(1.0, 1.0, 1.0, 0.55),
        DrawTextureParams {
            dest_size: Some(vec2(screen_width(), screen_height())),
            ..Default::default()
        },
    );
}
