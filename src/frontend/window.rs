//! The match loop in the window (a fixed 60 Hz simulation under any
//! display rate, drawn with interpolation) with its pause menu, and the
//! online connection screen. Opening the window, `Ui` and screenshots live
//! in `ui`; menus in `menu`; the replay viewer in `replay_view`.
//!
//! Everything here returns what happened (`MatchEnd`, `ConnectOutcome`);
//! `app` decides what comes next.

use std::path::PathBuf;
use std::task::Poll;
use web_time::{Duration, Instant};

use macroquad::prelude::*;

use super::InputSource;
use super::assets::Align;
use super::audio::sound_changes;
use super::music::{Track, intensity_for};
pub use super::ui::{
    Screenshot, Ui, WindowError, backdrop, display_available, open, save_screenshot,
};
// The input gate is its own leaf (keys.rs); screens name it through here.
use super::chat_box::ChatBox;
use super::controls_card;
use super::effects::EventLedger;
use super::frame_times::FrameTimes;
use super::hud::{self, MatchInfo};
pub use super::keys::{clicked, end_frame, enter_screen, pad_button, pad_pressed, pressed};
use super::match_menu::{self, Choice, MatchMenu, MenuKind};
use super::overlay::{NetGraph, draw_alerts};
use super::scene::{self, Motion};
use super::touch_controls::TouchControls;
use crate::session::{Finished, Match, UploadReport};
use crate::sim::Input;
use twinstar_netcode::connect::{ConnectError, Connector, Seat, Stage};
use twinstar_netcode::session::{Next, WatchControl, WatchState, WatchStatus};

/// Most frames simulated per drawn frame, so a stall (window drag,
/// debugger) does not turn into a burst (the pacer also drops old debt).
const MAX_FRAMES_PER_DRAW: u32 = 8;
/// Drawn frames left out of the drawing-time figures.
const WARM_UP_DRAWS: u32 = 30;

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
    /// The first match on this device: the controls card shows until the
    /// first wave or any input (the settings' `controls_seen`).
    pub first_match: bool,
    /// The pads' mapping, for the controls card.
    pub pad: crate::input::PadMap,
    /// Game overs go into this device's records as this way of playing
    /// ("solo", "co-op", "online"); none for synctest and watching.
    pub records_as: Option<&'static str>,
    /// `--until-game-over`: no rematch; the first game over stops the
    /// clock with the result panel up (and ends the match when a
    /// screenshot was asked for, which then shows that panel).
    pub until_game_over: bool,
}

/// A match played in a window: how it ended and what drawing cost.
pub struct MatchEnd {
    pub finished: Finished,
    /// Drawing through buffer swap, per drawn frame.
    pub draw: FrameTimes,
    /// Simulating, per simulated frame: its advance, with the rollback
    /// (or synctest) re-simulation it asked for.
    pub sim: FrameTimes,
    /// `--screenshot` could not be written.
    pub screenshot_error: Option<String>,
    /// Where the replay sent to be ranked ranked, or why not (set by the
    /// caller, which sends it after the match).
    pub upload: Option<UploadReport>,
    /// The result panel's figures as the match left them (names, bests).
    pub info: MatchInfo,
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
    /// The pause menu or the "leave the match?" one, when open.
    menu: Option<MatchMenu>,
    /// The controls card is up: the first match's, or asked for from the menu.
    card: Card,
    pad_map: crate::input::PadMap,
    /// The key map of each player at this machine's keyboard.
    keys: [Option<crate::input::KeyMap>; 2],
    records_as: Option<&'static str>,
    /// The game over last put in the records (its frame).
    recorded: Option<u32>,
    /// Stop at the first game over: pause there, or leave (`Leave`).
    at_game_over: AtGameOver,
}

/// What the first game over does (`--until-game-over`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AtGameOver {
    /// Nothing: both players may start again.
    Rematch,
    /// The clock stops; the result panel stays up until Esc.
    Pause,
    /// The match ends there (a screenshot shows the result panel).
    Leave,
}

/// Whether and why the controls card is on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Card {
    Hidden,
    /// Before the first wave of the first match on this device.
    FirstMatch,
    /// Chosen in the match's menu: up until any input.
    FromMenu,
}

/// Frames the first match's card stays up at most: until the first wave.
const CARD_FRAMES: u32 = 240;

/// Where a touch screen's MENU (LEAVE at game over) button sits: beside
/// the arena or above it, clear of the HUD (`ui_layout::menu_button`).
fn leave_button(side: f32) -> Rect {
    let (w, h) = (screen_width(), screen_height());
    super::ui_layout::menu_button(w, h, side, &super::layout::Layout::fit_in(w, h, side))
}

/// Seconds a pad's connection or removal stays on screen.
const PAD_NOTICE_SECONDS: u64 = 5;

impl MatchScreen {
    /// The screen of a match starting now, with the controls card up on
    /// the first match on this device when someone plays at its keyboard.
    fn new(game: &Match, sources: &[InputSource; 2], options: &MatchOptions) -> MatchScreen {
        let mut info = options.info.clone();
        info.started_frame = game.driver().world().frame;
        info.names = game.driver().player_names();
        let keys = [0, 1].map(|i| match &sources[i] {
            InputSource::Keys(map) => Some(*map),
            InputSource::Bot(_) | InputSource::Human(_) => None,
        });
        let first_card = options.first_match && keys.iter().any(Option::is_some);
        if first_card {
            tracing::info!("the controls card is shown (the first match on this device)");
        }
        MatchScreen {
            ledger: EventLedger::new(),
            motion: Motion::default(),
            graph: NetGraph::new(options.check_distance),
            info,
            overlay: options.overlay,
            chat: ChatBox::new(options.chat),
            pad_notice: None,
            touch: TouchControls::default(),
            mouse: Default::default(),
            menu: None,
            card: if first_card {
                Card::FirstMatch
            } else {
                Card::Hidden
            },
            pad_map: options.pad,
            keys,
            records_as: options.records_as,
            recorded: None,
            at_game_over: match (options.until_game_over, &options.screenshot) {
                (false, _) => AtGameOver::Rematch,
                (true, None) => AtGameOver::Pause,
                (true, Some(_)) => AtGameOver::Leave,
            },
        }
    }

    /// Runs the frames due now (at most `MAX_FRAMES_PER_DRAW`) with inputs
    /// from `sources`; effects and sounds follow each frame's report.
    fn run_due_frames(
        &mut self,
        ui: &mut Ui,
        game: &mut Match,
        sources: &mut [InputSource; 2],
        sim: &mut FrameTimes,
    ) {
        let now = Instant::now();
        // While a chat line is typed, the keyboard plays no part.
        let typing = self.chat.is_typing();
        let keys = |key| !typing && is_key_down(key);
        let players = super::keyboard_players(sources);
        self.touch.update(game.driver().world().is_game_over());
        let touch = if typing { Input(0) } else { self.touch.input() };
        for _ in 0..MAX_FRAMES_PER_DRAW {
            self.stop_at_game_over(game);
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
            let simulating = Instant::now();
            let report = game.advance(inputs);
            sim.add(simulating.elapsed());
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

    /// `--until-game-over`: at the game over, before any later frame
    /// (the players' start would begin a new game), stop the clock or end
    /// the match.
    fn stop_at_game_over(&self, game: &mut Match) {
        if self.at_game_over == AtGameOver::Rematch
            || game.is_paused()
            || !game.driver().world().is_game_over()
        {
            return;
        }
        if self.at_game_over == AtGameOver::Leave || !game.pause() {
            game.leave("game over");
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
        if self.touch.seen() && self.menu.is_none() {
            // At game over the corner button leaves; during play it opens
            // the match's menu (a tap alone never ends a running match).
            let label = if world.is_game_over() {
                "LEAVE"
            } else {
                "MENU"
            };
            let r = leave_button(self.touch.side());
            draw_rectangle(r.x, r.y, r.w, r.h, Color::new(0.0, 0.0, 0.0, 0.5));
            draw_rectangle_lines(r.x, r.y, r.w, r.h, 2.0, LIGHTGRAY);
            let (cx, cy) = (r.x + r.w / 2.0, r.y + r.h * 0.3);
            ui.sprites
                .font
                .draw(label, cx, cy, 2.0, WHITE, Align::Center);
        }
        if let Some(menu) = &self.menu {
            match_menu::draw(&ui.sprites.font, menu);
        }
        if self.card != Card::Hidden {
            let players = self.card_players();
            let footer = "any key, button or touch to go on";
            controls_card::draw(&ui.sprites.font, &players, footer);
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

    /// The players the controls card is for (those at this machine), with
    /// the device each plays with: touch once the screen was touched, a
    /// pad when one is connected, else their keys.
    fn card_players(&self) -> Vec<(usize, controls_card::Device)> {
        let pads = super::pads::connected().len();
        let mut keyboard_players = 0;
        let mut out = Vec::new();
        for (player, source) in self.keys.iter().enumerate() {
            let Some(keys) = source else { continue };
            let device = if self.touch.seen() && player == 0 {
                controls_card::Device::Touch
            } else if pads > keyboard_players {
                controls_card::Device::Pad(self.pad_map)
            } else {
                controls_card::Device::Keys(*keys)
            };
            keyboard_players += 1;
            out.push((player, device));
        }
        out
    }

    /// At a game over: the run goes into this device's records, and the
    /// result panel learns the personal best it is compared with.
    fn keep_record(&mut self, game: &Match) {
        let (Some(mode), Some(ended)) = (self.records_as, self.info.ended_frame) else {
            return;
        };
        if self.recorded == Some(ended) {
            return;
        }
        self.recorded = Some(ended);
        let driver = game.driver();
        let world = driver.world();
        use twinstar_netcode::Game as _;
        let preset =
            crate::sim::Twinstar::preset_name(&driver.options().config).unwrap_or("custom");
        let run = crate::records::Run {
            mode: mode.to_string(),
            preset: preset.to_string(),
            team_score: world.shared_score(),
            wave: world.team.best_wave.max(world.spawner.wave),
            seconds: ended.saturating_sub(self.info.started_frame) / crate::sim::FPS,
            ended_unix: crate::records::now_unix(),
        };
        let mut records = crate::records::load();
        self.info.best = records.best(mode, preset).map(|b| (b.team_score, b.wave));
        self.info.new_best = records.add(run);
        if let Err(e) = crate::records::save(&records) {
            tracing::warn!("the records were not kept: {e}");
        }
        tracing::info!(
            "game over: team score {}, wave {}; new best: {:?}",
            world.shared_score(),
            world.team.best_wave,
            self.info.new_best
        );
    }

    /// The card goes at any input (a key, a click or touch, a pad's
    /// button), or, the first match's, when the first wave comes.
    fn follow_card(&mut self, game: &Match) {
        let any_input = get_last_key_pressed().is_some()
            || is_mouse_button_pressed(MouseButton::Left)
            || touches().iter().any(|t| t.phase == TouchPhase::Started)
            || super::pads::any_just_pressed();
        let frames = game
            .driver()
            .world()
            .frame
            .saturating_sub(self.info.started_frame);
        let over = self.card == Card::FirstMatch && frames >= CARD_FRAMES;
        if !(any_input || over) {
            return;
        }
        if self.card == Card::FirstMatch {
            tracing::info!("the controls card was dismissed");
            remember_controls_seen();
        }
        self.card = Card::Hidden;
    }

    /// Esc, a pad's B/Back/Start, or the touch menu button: the pause menu
    /// where the match can pause, else "leave the match?". Spectators and
    /// a finished match's result panel leave at once, as they always did.
    fn open_menu_when_asked(&mut self, game: &mut Match) {
        let over = game.driver().world().is_game_over();
        let tapped = self.touch.seen()
            && clicked(MouseButton::Left)
            && leave_button(self.touch.side()).contains(mouse_position().into());
        if !(match_menu::opened(over) || tapped) {
            return;
        }
        if game.driver().watch_status().is_some() || over {
            game.leave("the player left");
            return;
        }
        let kind = if game.pause() {
            tracing::info!("paused at frame {}", game.driver().world().frame);
            MenuKind::Pause
        } else {
            MenuKind::Leave
        };
        self.menu = Some(MatchMenu::open(kind));
    }

    /// One frame of the open menu: its moves, and what a choice does.
    async fn follow_menu(&mut self, ui: &mut Ui, game: &mut Match) {
        let Some(menu) = &mut self.menu else { return };
        let choice = match_menu::moves(menu)
            .into_iter()
            .find_map(|m| menu.step(m));
        match choice {
            None => {}
            Some(Choice::Resume) => {
                self.menu = None;
                if game.is_paused() {
                    game.resume(Instant::now());
                    tracing::info!("resumed at frame {}", game.driver().world().frame);
                }
            }
            Some(Choice::Controls) => self.card = Card::FromMenu,
            Some(Choice::Settings) => {
                super::keys::set_in_match(false);
                edit_settings_in_match(ui).await;
                super::keys::set_in_match(true);
                // The settings list played the menu's music: the match's again.
                ui.audio.play_music(Track::Play);
                enter_screen();
            }
            Some(Choice::Leave) => {
                self.menu = None;
                let frame = game.driver().world().frame;
                tracing::info!("left from the match's menu at frame {frame}");
                game.leave("the player left");
            }
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

/// The first match's card was seen: it does not come back on this device.
fn remember_controls_seen() {
    let mut settings = crate::settings::Settings::load_or_default();
    if !settings.controls_seen {
        settings.controls_seen = true;
        if let Err(e) = settings.keep() {
            tracing::warn!("the settings were not saved: {e}");
        }
    }
}

/// The Settings screen over a paused match: what it saves applies at once
/// (scale, palette, volume, pads); key bindings from the next match.
async fn edit_settings_in_match(ui: &mut Ui) {
    let settings = crate::settings::Settings::load_or_default();
    if let Some(edited) = super::menu::settings_screen(ui, &settings).await {
        if let Err(e) = edited.keep() {
            tracing::warn!("the settings were not saved: {e}");
        }
        super::pads::configure(&edited);
        super::look::set((&edited).into());
        ui.audio.set_volume(edited.volume);
        ui.audio.set_music_volume(edited.music_volume);
    }
}

/// A spectator's line at the bottom: the room and how far behind live.
fn draw_watching(ui: &Ui, watching: &WatchStatus) {
    let (room, behind) = (&watching.room, watching.behind_s);
    let text = match watching.state {
        WatchState::Paused => format!(
            "watching {room} - paused, {behind:.1} s behind live (Space resumes, End jumps to live)"
        ),
        WatchState::Ended => format!("watching {room} - the match has ended (Esc leaves)"),
        WatchState::Behind => {
            format!("watching {room} - {behind:.1} s behind live (End jumps to live, Space pauses)")
        }
        WatchState::Live => {
            format!("watching {room} - {behind:.1} s behind live (Space pauses, Esc leaves)")
        }
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

/// How long a match that has not begun may show its first picture
/// without redrawing it (see `play_match`): a synchronization takes a
/// few hundred ms; a longer wait has alerts to show, and they are drawn.
const SYNC_WITHOUT_REDRAW: Duration = Duration::from_secs(1);

/// Plays until Esc, the planned last frame, or a failure; the match's
/// lifecycle (its end, the checksum exchange, the verdict) is the session's.
pub async fn play_match(
    ui: &mut Ui,
    mut game: Match,
    mut sources: [InputSource; 2],
    options: MatchOptions,
) -> MatchEnd {
    enter_screen();
    let mut screen = MatchScreen::new(&game, &sources, &options);
    tracing::info!("the match is on screen");
    super::keys::set_in_match(true);
    // The match's music, kept through the result panel until a menu.
    ui.audio.play_music(Track::Play);
    let _awake = KeepAwake::hold();
    let (mut draw, mut sim) = (FrameTimes::default(), FrameTimes::default());
    let mut frames_drawn = 0u32;
    let on_screen = Instant::now();
    loop {
        ui.audio.set_intensity(intensity_for(game.driver().world()));
        ui.audio.update();
        // Esc closes the chat prompt first; only then does it open the menu.
        let esc_used = screen.chat.handle_keys(&mut game);
        if screen.card != Card::Hidden {
            screen.follow_card(&game);
        } else if screen.menu.is_some() {
            screen.follow_menu(ui, &mut game).await;
        } else if !esc_used {
            screen.open_menu_when_asked(&mut game);
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
        screen.run_due_frames(ui, &mut game, &mut sources, &mut sim);
        screen.chat.collect(&mut game);
        screen.keep_record(&game);
        let drawing = Instant::now();
        // Until the peers have synchronized (GGRS's round trips, polled
        // once a frame), the page shows the match's first picture and
        // draws no other: each redraw of it would hold the next round
        // trip for a frame of software GL.
        let syncing = crate::platform::screen::UNDRAWN_FRAME_KEEPS_PICTURE
            && frames_drawn > 0
            && game.driver().world().frame == 0
            && on_screen.elapsed() < SYNC_WITHOUT_REDRAW;
        if !syncing {
            screen.draw(ui, &game);
        }
        if game.is_over() {
            super::keys::set_in_match(false);
            let shot = options.screenshot.as_deref().map(save_screenshot);
            return MatchEnd {
                finished: game.finish(),
                draw,
                sim,
                screenshot_error: shot.and_then(Result::err),
                upload: None,
                info: screen.info.clone(),
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

/// A left match's result panel over its last frame while its replay is
/// ranked: "board: sending..." until `poll` gives the server's answer,
/// then where it ranked (or why not) until Enter, Esc or a click. Esc
/// before the answer stops waiting (`None`).
pub async fn ranking_panel(
    ui: &mut Ui,
    finished: &Finished,
    info: &MatchInfo,
    mut poll: impl FnMut() -> Option<UploadReport>,
    hold: bool,
) -> Option<UploadReport> {
    enter_screen();
    let world = finished.driver.world();
    let (motion, ledger) = (Motion::default(), EventLedger::new());
    let mut info = MatchInfo {
        board: hud::Board::Sending,
        left: true,
        ..info.clone()
    };
    let mut answer = None;
    loop {
        ui.audio.update();
        if answer.is_none()
            && let Some(report) = poll()
        {
            tracing::info!("the result panel shows the board: {:?}", report.lines());
            info.board = hud::Board::Answered(report.clone());
            answer = Some(report);
        }
        let leave = pressed(KeyCode::Escape)
            || (answer.is_some() && (pressed(KeyCode::Enter) || clicked(MouseButton::Left)));
        if leave {
            return answer;
        }
        let layout = scene::draw_world(&ui.sprites, world, &motion, &ledger, 1.0, 0.0);
        hud::draw_hud(&ui.sprites, world, &layout, &ledger, &info.names);
        hud::draw_result(&ui.sprites.font, world, &info, &[]);
        end_frame().await;
        // A run of a set length (--frames) ends once the answer is drawn:
        // nobody is there to go on.
        if answer.is_some() && !hold {
            return answer;
        }
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
/// cancels. The connector runs in the background on its own.
pub async fn connect_screen<S: Seat>(
    ui: &mut Ui,
    connecting: Connector<S>,
    waiting: Waiting<'_>,
    screenshot: Option<Screenshot>,
) -> ConnectOutcome<S::Connection> {
    enter_screen();
    let mut drawn = 0u32;
    let mut said_offline = false;
    // What the last drawn frame showed: where an undrawn frame keeps its
    // picture (the page), the screen is drawn again only when it changes,
    // so the connection's messages do not wait behind redrawing the same
    // picture (a menu join in headless Chromium: 1.7 s, 16 latency probes
    // read 94 ms on loopback).
    let mut shown: Option<String> = None;
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
        // The probes' count is left out: each probe would redraw the
        // screen and delay the next probe's answer by a frame; it shows
        // with the dots' next step.
        let status = connecting.status();
        let showing = format!(
            "{:?} {:?} {offline} {} {}x{}",
            status.stage,
            status.failed_attempt,
            dots_tick(),
            screen_width(),
            screen_height()
        );
        if !crate::platform::screen::UNDRAWN_FRAME_KEEPS_PICTURE || shown.as_ref() != Some(&showing)
        {
            draw_waiting(ui, &connecting, &waiting, offline);
            shown = Some(showing);
        }
        drawn += 1;
        if let Some(shot) = &screenshot
            && drawn >= shot.after_frames
        {
            return ConnectOutcome::Captured(save_screenshot(&shot.path));
        }
        end_frame().await;
    }
}

/// How many of the waiting screen's three dots show now (they cycle three
/// times a second).
fn dots_tick() -> usize {
    (get_time() * 3.0) as usize % 4
}

/// What the waiting screen says while the device has no network.
const OFFLINE: &str =
    "this device is offline: online play needs the network (local play and replays work offline)";

/// The waiting screen: the room code, the server (to share, on the host),
/// the stage in words and, on the host, a failed attempt by a player with
/// no path; `offline`, that the device has no network.
fn draw_waiting<S: Seat>(ui: &Ui, connecting: &Connector<S>, waiting: &Waiting<'_>, offline: bool) {
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
    let tick = dots_tick();
    let what = match (status.stage, hosting) {
        (Stage::Connecting, true) => {
            "waiting for the other player to join - tell them the code".to_string()
        }
        (Stage::Measuring, _) => format!(
            "connected; measuring latency ({}/{})",
            status.probes, status.probes_wanted
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
