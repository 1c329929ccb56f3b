//! Pong as a [`twinstar_netcode::Game`]: two paddles, a ball, first to 11.
//! Fixed-point (I16F16) throughout, so every machine computes the same
//! bits; the whole state is plain old data, saved and hashed by copy.

use bytemuck::{Pod, Zeroable};
use fixed::types::I16F16;
use twinstar_netcode::{Frame, Game, GameInfo};

type Fx = I16F16;

/// The field: 640 x 360 units; paddles 60 high, 8 wide, 20 from the ends.
const WIDTH: Fx = Fx::lit("640");
const HEIGHT: Fx = Fx::lit("360");
const PADDLE_HALF: Fx = Fx::lit("30");
const PADDLE_X: [Fx; 2] = [Fx::lit("20"), Fx::lit("620")];
const BALL_HALF: Fx = Fx::lit("4");

/// A player's input: the buttons held on one frame.
pub const UP: u8 = 1;
pub const DOWN: u8 = 2;

/// The rules: how fast things move, and the score that wins a game.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Rules {
    pub paddle_speed: Fx,
    pub ball_speed: Fx,
    pub winning_score: u32,
}

/// The whole match.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct State {
    pub frame: Frame,
    pub score: [u32; 2],
    /// Games finished (someone reached the winning score).
    pub games: u32,
    /// The serve's random generator (multiply-with-carry, like twinstar's).
    pub rng: [u32; 2],
    pub paddles: [Fx; 2],
    pub ball: [Fx; 2],
    pub velocity: [Fx; 2],
    pub rules: Rules,
}

/// What a frame did, for sound and effects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Wall,
    Paddle(usize),
    Point(usize),
}

/// The game, as a type the netcode is generic over.
pub struct Pong;

impl Game<2> for Pong {
    const INFO: GameInfo = GameInfo {
        name: "pong",
        version: env!("CARGO_PKG_VERSION"),
        sim_version: 1,
        fps: 60,
        presets: &["default", "fast"],
    };
    type Input = u8;
    type Config = Rules;
    type State = State;
    type Event = Event;

    fn preset(name: &str) -> Option<Rules> {
        let (paddle, ball) = match name {
            "default" => (5, 4),
            "fast" => (8, 7),
            _ => return None,
        };
        Some(Rules {
            paddle_speed: Fx::from_num(paddle),
            ball_speed: Fx::from_num(ball),
            winning_score: 11,
        })
    }

    fn preset_name(rules: &Rules) -> Option<&'static str> {
        Self::INFO
            .presets
            .iter()
            .copied()
            .find(|name| Self::preset(name).as_ref() == Some(rules))
    }

    fn check_config(rules: &Rules) -> Result<(), String> {
        let fast = |v: Fx| v > Fx::ZERO && v < Fx::from_num(40);
        if fast(rules.paddle_speed) && fast(rules.ball_speed) && rules.winning_score > 0 {
            Ok(())
        } else {
            Err(format!(
                "speeds must be in 0..40 and the winning score positive: {rules:?}"
            ))
        }
    }

    fn start(seed: u64, rules: &Rules) -> State {
        let mut state = State {
            frame: 0,
            score: [0, 0],
            games: 0,
            // Nonzero halves: a multiply-with-carry generator stuck at 0 stays 0.
            rng: [seed as u32 | 1, (seed >> 32) as u32 | 1],
            paddles: [HEIGHT / 2; 2],
            ball: [WIDTH / 2, HEIGHT / 2],
            velocity: [Fx::ZERO; 2],
            rules: *rules,
        };
        serve(&mut state, (seed & 1) as usize);
        state
    }

    fn step(state: &mut State, inputs: [u8; 2], events: &mut Vec<Event>) {
        state.frame += 1;
        for (player, input) in inputs.into_iter().enumerate() {
            let dir = i32::from(input & DOWN != 0) - i32::from(input & UP != 0);
            let y = state.paddles[player] + state.rules.paddle_speed * dir;
            state.paddles[player] = y.clamp(PADDLE_HALF, HEIGHT - PADDLE_HALF);
        }
        let [x, y] = [
            state.ball[0] + state.velocity[0],
            state.ball[1] + state.velocity[1],
        ];
        state.ball = [x, y];
        if y < BALL_HALF || y > HEIGHT - BALL_HALF {
            state.velocity[1] = -state.velocity[1];
            state.ball[1] = y.clamp(BALL_HALF, HEIGHT - BALL_HALF);
            events.push(Event::Wall);
        }
        for (player, paddle_x) in PADDLE_X.into_iter().enumerate() {
            let toward = (state.velocity[0] < Fx::ZERO) == (player == 0);
            let reached = (x - paddle_x).abs() <= BALL_HALF;
            let offset = y - state.paddles[player];
            if toward && reached && offset.abs() <= PADDLE_HALF + BALL_HALF {
                // The farther from the paddle's middle, the steeper the return.
                state.velocity[0] = -state.velocity[0];
                state.velocity[1] = offset / 8;
                events.push(Event::Paddle(player));
            }
        }
        if x < Fx::ZERO || x > WIDTH {
            let scorer = usize::from(x < Fx::ZERO);
            state.score[scorer] += 1;
            events.push(Event::Point(scorer));
            if state.score[scorer] >= state.rules.winning_score {
                state.score = [0, 0];
                state.games += 1;
            }
            serve(state, 1 - scorer);
        }
    }

    fn frame(state: &State) -> Frame {
        state.frame
    }

    fn checksum(state: &State) -> u128 {
        xxhash_rust::xxh3::xxh3_128(bytemuck::bytes_of(state))
    }

    fn inject_desync(state: &mut State, salt: u32) {
        state.score[0] = state.score[0].wrapping_add(salt);
    }

    fn state_bytes(state: &State) -> Option<Vec<u8>> {
        Some(bytemuck::bytes_of(state).to_vec())
    }

    fn state_from_bytes(bytes: &[u8]) -> Option<State> {
        bytemuck::try_pod_read_unaligned(bytes).ok()
    }

    fn diff(a: &State, b: &State) -> Vec<twinstar_netcode::FieldDiff> {
        let fields: [(&str, String, String); 7] = [
            ("frame", format!("{}", a.frame), format!("{}", b.frame)),
            ("score", format!("{:?}", a.score), format!("{:?}", b.score)),
            ("games", format!("{}", a.games), format!("{}", b.games)),
            ("rng", format!("{:?}", a.rng), format!("{:?}", b.rng)),
            (
                "paddles",
                format!("{:?}", a.paddles),
                format!("{:?}", b.paddles),
            ),
            ("ball", format!("{:?}", a.ball), format!("{:?}", b.ball)),
            (
                "velocity",
                format!("{:?}", a.velocity),
                format!("{:?}", b.velocity),
            ),
        ];
        (fields.into_iter().filter(|(_, x, y)| x != y))
            .map(|(path, a, b)| twinstar_netcode::FieldDiff {
                path: path.into(),
                a,
                b,
            })
            .collect()
    }

    fn figures(state: &State) -> (u32, u64) {
        (state.games, u64::from(state.score[0] + state.score[1]))
    }
}

/// The ball from the middle toward `player`, at a random slope.
fn serve(state: &mut State, player: usize) {
    let [z, w] = &mut state.rng;
    *z = 36969 * (*z & 0xffff) + (*z >> 16);
    *w = 18000 * (*w & 0xffff) + (*w >> 16);
    let slope = Fx::from_bits(((*z << 16).wrapping_add(*w) % (3 << 16)) as i32 - (3 << 15));
    let speed = state.rules.ball_speed;
    state.ball = [WIDTH / 2, HEIGHT / 2];
    state.velocity = [if player == 0 { -speed } else { speed }, slope];
}

/// A bot's input for `player`: follow the ball once it comes its way,
/// with a slack that changes every few seconds, so it misses now and then
/// like a person.
pub fn bot(state: &State, player: usize) -> u8 {
    let coming = (state.velocity[0] < Fx::ZERO) == (player == 0);
    let slack = Fx::from_num(6 + (state.frame / 150 + player as u32 * 7) % 5 * 9);
    let gap = state.ball[1] - state.paddles[player];
    if !coming {
        0
    } else if gap < -slack {
        UP
    } else if gap > slack {
        DOWN
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(seed: u64, frames: u32) -> State {
        let rules = Pong::preset("default").unwrap();
        let mut state = Pong::start(seed, &rules);
        let mut events = Vec::new();
        for f in 0..frames {
            // Player 1 follows the ball; player 2 wanders.
            let inputs = [bot(&state, 0), [UP, DOWN, 0][(f / 40 % 3) as usize]];
            Pong::step(&mut state, inputs, &mut events);
        }
        state
    }

    /// The same seed and inputs give the same bits; points are scored.
    #[test]
    fn a_match_is_deterministic_and_scores() {
        let a = play(7, 6_000);
        assert_eq!(Pong::checksum(&a), Pong::checksum(&play(7, 6_000)));
        assert_ne!(Pong::checksum(&a), Pong::checksum(&play(8, 6_000)));
        assert!(a.score[0] + a.score[1] + a.games > 0, "{a:?}");
    }

    /// Presets name themselves, and only sane rules pass the check.
    #[test]
    fn presets_resolve_and_bad_rules_are_refused() {
        for name in Pong::INFO.presets {
            let rules = Pong::preset(name).unwrap();
            assert_eq!(Pong::preset_name(&rules), Some(*name));
            assert!(Pong::check_config(&rules).is_ok());
        }
        let bad = Rules {
            winning_score: 0,
            ..Pong::preset("default").unwrap()
        };
        assert!(Pong::check_config(&bad).is_err());
    }

    /// A state crosses the wire as bytes and back, and a diff names fields.
    #[test]
    fn states_round_trip_and_diff_by_field() {
        let a = play(3, 500);
        let b = Pong::state_from_bytes(&Pong::state_bytes(&a).unwrap()).unwrap();
        assert_eq!(a, b);
        let mut c = b;
        c.score[1] += 1;
        let diffs = Pong::diff(&a, &c);
        assert_eq!(diffs.len(), 1);
        assert_eq!(diffs[0].path, "score");
    }
}
