//! Frontends drive a `session::Driver`: headless (tests, CI, benchmarks)
//! or a macroquad window (menus, the match with its HUD, effects, sounds
//! and network overlay, the replay viewer).

pub mod assets;
pub mod audio;
pub mod chat_box;
pub mod controls_card;
pub mod cues;
pub mod effects;
pub mod frame_times;
pub mod headless;
pub mod hud;
pub mod keys;
pub mod layout;
pub mod look;
pub mod match_menu;
pub mod menu;
pub mod mouse_aim;
pub mod music;
pub mod overlay;
pub mod pads;
pub mod particles;
pub mod records_screen;
pub mod replay_video;
pub mod replay_view;
pub mod scene;
pub mod soundtrack;
pub mod telegraphs;
pub mod text;
pub mod touch_controls;
pub mod ui;
pub mod ui_layout;
pub mod window;
use crate::input::{BotStyle, HumanBot, Input, KeyMap, ScriptBot};
use crate::sim::World;

/// Fails with [`window::WindowError::NoDisplay`] when no window could open:
/// commands check this before any work, so the error comes first and alone.
pub fn require_display() -> Result<(), window::WindowError> {
    if window::display_available() {
        Ok(())
    } else {
        Err(window::WindowError::NoDisplay)
    }
}

/// Where one player's inputs come from.
#[derive(Clone, Debug)]
pub enum InputSource {
    Bot(ScriptBot),
    Human(Box<HumanBot>),
    Keys(KeyMap),
}

impl InputSource {
    /// A bot of this style for `player`, seeded from the match seed.
    pub fn bot(style: BotStyle, seed: u64, player: usize) -> InputSource {
        match style {
            BotStyle::Script => InputSource::Bot(ScriptBot::new(seed, player)),
            BotStyle::Human => InputSource::Human(Box::new(HumanBot::new(seed, player))),
        }
    }

    /// The next frame's input. `world` is the world that frame starts from
    /// (the human bot reacts to it; online that is this peer's current,
    /// possibly predicted, world, so each peer's bot is reproducible for
    /// that peer's run); `is_down` answers for keyboard sources, and `pad`
    /// is what this player's gamepad or touch controls hold now, added to
    /// the keys (bots ignore both).
    pub fn next(
        &mut self,
        world: &World,
        is_down: impl Fn(macroquad::input::KeyCode) -> bool,
        pad: Input,
    ) -> Input {
        match self {
            InputSource::Bot(bot) => bot.next_input(),
            InputSource::Human(bot) => bot.next_input(world),
            InputSource::Keys(map) => Input(map.read(is_down).0 | pad.0),
        }
    }

    pub fn is_keys(&self) -> bool {
        matches!(self, InputSource::Keys(_))
    }
}

/// The inputs of one frame: keyboard sources get the pads' inputs in
/// order (`pads[0]` to the first keyboard player). Everything passed in is
/// what was read this frame, so a press goes into this frame's input.
pub fn frame_inputs(
    sources: &mut [InputSource; 2],
    world: &World,
    is_down: impl Fn(macroquad::input::KeyCode) -> bool + Copy,
    pads: [Input; 2],
) -> [Input; 2] {
    let mut next_pad = pads.into_iter();
    let mut out = [Input(0); 2];
    for (source, slot) in sources.iter_mut().zip(&mut out) {
        let pad = if source.is_keys() {
            next_pad.next().unwrap_or(Input(0))
        } else {
            Input(0)
        };
        *slot = source.next(world, is_down, pad);
    }
    out
}

/// How many players the keyboard (and so the pads) plays.
pub fn keyboard_players(sources: &[InputSource; 2]) -> usize {
    sources.iter().filter(|s| s.is_keys()).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{PadButton, PadMap, PadState};
    use crate::session::{Driver, Match};
    use crate::sim::SimConfig;
    use twinstar_netcode::session::{Next, Pacing};
    use web_time::Instant;

    /// The whole input path adds no frame: a pad state read while frame N
    /// is due is frame N's input, and the ship has moved when that frame's
    /// step returns (the same holds for touch, which feeds the same slot).
    #[test]
    fn a_pad_read_in_a_frame_is_that_frames_input() {
        let config = SimConfig::preset("default").expect("default preset");
        let driver = Driver::local(9, config).expect("a local session");
        let mut game = Match::new(driver, Pacing::Unpaced, Some(60));
        let mut sources = [
            InputSource::Keys(KeyMap::PLAYER_ONE),
            InputSource::Keys(KeyMap::PLAYER_TWO),
        ];
        let pushed = PadState {
            stick: (1.0, 0.0),
            ..PadState::default()
        }
        .with(PadButton::A);
        let held = PadMap::STANDARD.read(&pushed);
        assert_eq!(held, Input(Input::RIGHT | Input::FIRE));
        let mut checked = 0;
        for frame in 0..40u32 {
            assert_eq!(game.next(Instant::now()), Next::Frame);
            let pad = if frame >= 20 { held } else { Input(0) };
            let world = game.driver().world();
            let before = world.players[0].pos.x;
            let inputs = frame_inputs(&mut sources, world, |_| false, [pad, Input(0)]);
            assert_eq!(inputs, [pad, Input(0)]);
            let report = game.advance(inputs);
            assert_eq!(report.inputs, Some([pad, Input(0)]), "frame {frame}");
            let after = game.driver().world().players[0].pos.x;
            if frame == 20 {
                assert!(after > before, "moved right in the frame the pad was read");
                checked += 1;
            } else if frame < 20 {
                assert_eq!(after, before, "frame {frame}: still without input");
            }
        }
        assert_eq!(checked, 1);
    }

    #[test]
    fn pads_go_to_keyboard_players_only() {
        let mut sources = [
            InputSource::bot(BotStyle::Script, 1, 0),
            InputSource::Keys(KeyMap::PLAYER_TWO),
        ];
        assert_eq!(keyboard_players(&sources), 1);
        let world = World::new(1, crate::sim::SimConfig::DEFAULT);
        let fire = Input(Input::FIRE | Input::FOCUS);
        let inputs = frame_inputs(&mut sources, &world, |_| false, [fire, Input(0)]);
        // The bot's slot ignores pads; the keyboard player gets the first.
        assert_eq!(inputs[1], fire);
    }
}
