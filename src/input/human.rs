//! A bot that plays like a person: it glances at the screen every few
//! frames, acts on what it saw a reaction time later, and holds what it
//! pressed for variable spells (quick taps to line up a shot, longer holds
//! to cross the arena or get out of a bullet's way, now and then a lapse).
//!
//! It is a pure function of (seed, player) and the worlds it is shown: its
//! only randomness is its own `Mwc`, its geometry is integer (1/16 of an
//! arena unit), and it reads the world without changing it. Locally and in
//! synctest the world it is shown is the confirmed one, so a run is
//! reproducible from its seed. Online, each peer's bot sees that peer's
//! current world, which may be a prediction about to be rolled back: the
//! bot is still deterministic for that peer's run (same seed, same worlds
//! in the same order), but the two peers' bots do not see the same worlds,
//! and the inputs it sends are whatever it decided; the replay records them.
//!
//! # Statistics and where the targets come from
//!
//! Measured by the unit test below over 3-minute matches (seeds 1-4, both
//! players): 3.5-4.5 input changes per second (a "change" is a frame whose
//! buttons differ from the previous frame's), dwell (frames between
//! changes) median 9-10 frames (150-170 ms), 90th percentile 26-30 frames
//! (430-500 ms). The test holds them in:
//!
//! - changes per second: 3 to 8. There is no published count of button
//!   changes for arena shooters that we know of; the nearest published
//!   figure is actions per minute in real-time strategy games (Wikipedia,
//!   "Actions per minute": beginners below 50 APM, Korean professionals 250
//!   to 350 on average). 3-8 changes a second is 180-480 a minute, which for
//!   a game where every movement key press and release counts is our
//!   estimate of an engaged, ordinary player, not a measured figure.
//! - dwell: median 3 to 15 frames (50-250 ms), 90th percentile 15 to 60
//!   frames (0.25-1 s). Also an estimate: quick taps and re-presses take a
//!   few frames, holds across the arena (640 units at 4 a frame) under a
//!   second.
//! - reaction time 150-250 ms (9-15 frames), uniform per decision: the
//!   textbook simple visual reaction time is about 190 ms for college-age
//!   people (Wikipedia, "Mental chronometry"), and choosing a direction
//!   under load is slower than a simple reaction.

#![deny(clippy::float_arithmetic, clippy::float_cmp, clippy::float_cmp_const)]

use super::Input;
use crate::sim::{
    ARENA_HEIGHT, ARENA_WIDTH, EnemyKind, Fx, Mwc, OWNER_ENEMY, PLAYERS, STATE_WINDUP, World,
};

/// Fixed-point bits dropped from the sim's I16F16: the bot works in 1/16 units.
const SHIFT: u32 = 12;
const UNIT: i32 = 1 << (16 - SHIFT);

/// Frames from a glance to the hands acting on it (150-250 ms at 60 fps).
const REACTION: (u32, u32) = (9, 15);
/// Frames between glances at the screen.
const LOOK_GAP: (u32, u32) = (6, 14);
/// A lapse: this long without a new decision, one calm glance in `LAPSE_ODDS`.
const LAPSE_GAP: (u32, u32) = (30, 60);
const LAPSE_ODDS: u32 = 12;
/// Frames a glance looks ahead, after its reaction time.
const HORIZON: u32 = 30;
/// How long a dodge or a wander is held, in frames.
const DODGE_HOLD: (u32, u32) = (6, 18);
/// Clearance (beyond touching) that counts as safe.
const SAFE: i32 = 20 * UNIT;
/// Threats farther than this are ignored (a charger dashes 280 units);
/// bullets nearer than `FOCUS_NEAR` make focus worth considering.
const SEE_BULLET: i32 = 200 * UNIT;
const SEE_ENEMY: i32 = 320 * UNIT;
const FOCUS_NEAR: i32 = 70 * UNIT;
/// Where a ship waits, and how far below its target it likes to be.
const HOME_Y: i32 = 300 * UNIT;
const BELOW_TARGET: i32 = 110 * UNIT;
/// A target this close horizontally counts as lined up.
const LINED_UP: i32 = 24 * UNIT;
/// Sizes as the sprites show them (the sim's collision radii).
const SHIP_R: i32 = 6 * UNIT;
const BULLET_R: i32 = 4 * UNIT;
/// 1/sqrt(2) in 16 fraction bits: diagonal moves are no faster.
const DIAGONAL: i32 = 46341;
const MAX_THREATS: usize = 96;
const MAX_PENDING: usize = 4;
/// Pickups farther than this are left alone.
const PICKUP_REACH: i32 = 160 * UNIT;
/// Longest wait from a glance to acting on it that the bot plans for.
const MAX_DELAY: u32 = 31;

/// The nine ways to hold the direction keys (none first).
const MOVES: [(u16, i32, i32); 9] = [
    (0, 0, 0),
    (Input::UP, 0, -1),
    (Input::DOWN, 0, 1),
    (Input::LEFT, -1, 0),
    (Input::RIGHT, 1, 0),
    (Input::UP | Input::LEFT, -1, -1),
    (Input::UP | Input::RIGHT, 1, -1),
    (Input::DOWN | Input::LEFT, -1, 1),
    (Input::DOWN | Input::RIGHT, 1, 1),
];

fn q(v: Fx) -> i32 {
    v.to_bits() >> SHIFT
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pt {
    x: i32,
    y: i32,
}

impl Pt {
    fn of(v: crate::sim::Vec2) -> Pt {
        Pt {
            x: q(v.x),
            y: q(v.y),
        }
    }

    fn dist(self, o: Pt) -> i32 {
        let (dx, dy) = ((self.x - o.x) as i64, (self.y - o.y) as i64);
        (dx * dx + dy * dy).isqrt() as i32
    }
}

/// Something that kills on contact, as the bot expects it to move: still
/// for `wait` frames, then in a straight line.
#[derive(Clone, Copy, Debug, Default)]
struct Threat {
    pos: Pt,
    vel: Pt,
    wait: u32,
    reach: i32,
    bullet: bool,
    /// A charger's dash speed (per frame) once `wait` ends.
    dash: i32,
}

impl Threat {
    fn at(&self, t: u32) -> Pt {
        let moving = t.saturating_sub(self.wait) as i32;
        Pt {
            x: self.pos.x + self.vel.x * moving,
            y: self.pos.y + self.vel.y * moving,
        }
    }
}

/// What one glance decided, taking effect `at` (a tick of the bot's own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Plan {
    at: u32,
    moves: u16,
    hold: u32,
    fire: bool,
    focus: bool,
    start: bool,
    /// Where the ship aims (0..32), when it aims at something.
    aim: Option<u32>,
    /// Bomb this time (held for the plan's spell; the sim bombs on a press).
    bomb: bool,
}

#[derive(Clone, Debug)]
pub struct HumanBot {
    rng: Mwc,
    player: usize,
    /// Inputs produced so far.
    tick: u32,
    next_look: u32,
    /// Decisions seen but not yet acted on, oldest first.
    pending: [Plan; MAX_PENDING],
    pending_len: usize,
    /// What the hands hold now; direction keys for `move_left` more frames.
    held: Plan,
    move_left: u32,
    /// The enemy it is after (its id), kept until it dies or attention wanders.
    target: Option<u32>,
}

impl HumanBot {
    pub fn new(seed: u64, player: usize) -> Self {
        // Not ScriptBot's salt: the two bots' streams should not coincide.
        let salt = (player as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03);
        HumanBot {
            rng: Mwc::from_seed(seed ^ salt),
            player: player % PLAYERS,
            tick: 0,
            next_look: 0,
            pending: [Plan::default(); MAX_PENDING],
            pending_len: 0,
            held: Plan::default(),
            move_left: 0,
            target: None,
        }
    }

    /// The buttons for the next frame, given the world that frame starts from.
    pub fn next_input(&mut self, world: &World) -> Input {
        if self.tick >= self.next_look {
            let reaction = self.rng.range(REACTION.0, REACTION.1);
            let last = match self.pending_len {
                0 => self.tick,
                n => self.pending[n - 1].at,
            };
            // Hands act in the order the eyes saw.
            let at = (self.tick + reaction).max(last + 1);
            let (mut plan, calm) = self.look(world, (at - self.tick).min(MAX_DELAY));
            plan.at = at;
            if self.pending_len == MAX_PENDING {
                self.pending.copy_within(1.., 0);
                self.pending_len -= 1;
            }
            self.pending[self.pending_len] = plan;
            self.pending_len += 1;
            let gap = if calm && self.rng.below(LAPSE_ODDS) == 0 {
                LAPSE_GAP
            } else {
                LOOK_GAP
            };
            self.next_look = self.tick + self.rng.range(gap.0, gap.1);
        }
        while self.pending_len > 0 && self.pending[0].at <= self.tick {
            self.held = self.pending[0];
            self.move_left = self.held.hold;
            self.pending.copy_within(1.., 0);
            self.pending_len -= 1;
        }
        self.tick += 1;
        let moving = self.move_left > 0;
        self.move_left = self.move_left.saturating_sub(1);
        let h = &self.held;
        Input(0)
            .with(h.moves, moving)
            .with(Input::FIRE, h.fire)
            .with(Input::FOCUS, h.focus)
            .with(Input::START, h.start)
            .with(Input::BOMB, h.bomb)
            .with_aim(h.aim)
    }

    /// One glance: the plan it leads to, and whether the screen looked calm.
    /// `delay`: frames until the hands act on this glance.
    fn look(&mut self, world: &World, delay: u32) -> (Plan, bool) {
        let me = world.players[self.player];
        if world.is_game_over() {
            // Hold start most of the time, so both players' presses meet.
            let start = self.rng.below(4) != 0;
            return (
                Plan {
                    start,
                    ..Plan::default()
                },
                true,
            );
        }
        if me.alive == 0 {
            return (Plan::default(), true);
        }
        let pos = Pt::of(me.pos);
        let errand = self.errand(world, pos);
        let (threats, n) = threats_near(world, pos);
        let threats = &threats[..n];
        let bullet_near = threats
            .iter()
            .any(|t| t.bullet && t.pos.dist(pos) < FOCUS_NEAR);
        let (target_point, aim_enemy) = self.aim_point(world, pos, delay);
        // A partner to revive or a pickup within reach comes first.
        let aim = errand.unwrap_or(target_point);
        let cfg = &world.config;
        let speeds = [q(cfg.player_speed), q(cfg.player_focus_speed)];
        let course = self.course(pos, speeds, delay);

        // How long a dodge is held, nominally (drawn before the search).
        let nominal = self.rng.range(DODGE_HOLD.0, DODGE_HOLD.1);
        let options = Options {
            course: &course,
            delay,
            nominal,
            speeds,
            bullet_near,
            aim,
        };
        let (clearance, m, focus, still_clearance) = self.best_move(&options, threats);
        let (bits, dx, dy) = MOVES[m];
        let dodging = clearance < SAFE || still_clearance < SAFE;
        let hold = if bits == 0 {
            0
        } else if dodging || dx == 0 {
            nominal
        } else {
            let speed = velocity(dx, dy, speeds[focus as usize]).x.abs().max(1);
            self.line_up_hold(aim.x - course[delay as usize].x, speed)
        };
        let lined_up = aim_enemy && (target_point.x - pos.x).abs() < LINED_UP;
        // The gun points at the target (where it will be), kept steady
        // unless it moved a good deal: a hand does not twitch the stick.
        let aim_dir = self.aim_at(world, pos, delay);
        let aim_dir = match (aim_dir, self.held.aim) {
            (Some(new), Some(old)) if aim_gap(new, old) < 2 => Some(old),
            (new, _) => new,
        };
        let fire = self.keep_firing(lined_up || aim_dir.is_some());
        let cornered = clearance < 0 || crowded(threats, pos);
        let bomb = me.bombs > 0 && !self.held.bomb && cornered && self.rng.below(3) != 0;
        let plan = Plan {
            at: 0,
            moves: bits,
            hold,
            fire,
            focus,
            start: false,
            aim: aim_dir,
            bomb,
        };
        (plan, !dodging && !bullet_near)
    }

    /// How long to hold a move that lines up under the target, `gap` away
    /// at `speed` a frame: as long as the gap needs, misjudged by up to a
    /// quarter either way; small gaps become quick taps.
    fn line_up_hold(&mut self, gap: i32, speed: i32) -> u32 {
        let frames = (gap.abs() / speed) as u32;
        let err = self.rng.range(0, frames / 2);
        (frames + err).saturating_sub(frames / 4).clamp(1, 45)
    }

    /// Fire is held while something is aimed at, and let go now and then.
    fn keep_firing(&mut self, aimed: bool) -> bool {
        self.rng.below(if aimed { 12 } else { 4 }) != 0
    }

    /// Every way to hold the keys for a nominal dodge, judged by the
    /// clearance it keeps, then by how close it ends to the aim point: the
    /// chosen move's clearance, index in `MOVES` and focus, and the
    /// clearance of standing still.
    fn best_move(&self, o: &Options, threats: &[Threat]) -> (i32, usize, bool, i32) {
        let mut best: Option<(i32, i32, usize, bool)> = None;
        let mut still_clearance = 0;
        for focus in [false, true] {
            if focus && !o.bullet_near {
                continue;
            }
            for (m, &(bits, dx, dy)) in MOVES.iter().enumerate() {
                if m == 0 && focus {
                    continue;
                }
                let vel = velocity(dx, dy, o.speeds[focus as usize]);
                let path = Path {
                    course: o.course,
                    delay: o.delay,
                    then: vel,
                    until: o.delay + o.nominal,
                };
                let clearance = clearance(&path, o.delay + HORIZON, threats).min(SAFE);
                if m == 0 {
                    still_clearance = clearance;
                }
                let end = path.at(o.delay + o.nominal);
                let mut cost = (end.x - o.aim.x).abs() + (end.y - o.aim.y).abs() / 2;
                // Habits: keep doing what the hands do; focus near bullets.
                if bits == self.held.moves && self.move_left > 0 {
                    cost -= 4 * UNIT;
                }
                if focus {
                    cost -= 2 * UNIT;
                }
                let better = match best {
                    None => true,
                    Some((c, k, _, _)) => clearance > c || (clearance == c && cost < k),
                };
                if better {
                    best = Some((clearance, cost, m, focus));
                }
            }
        }
        let (clearance, _, m, focus) = best.unwrap_or((SAFE, 0, 0, false));
        (clearance, m, focus, still_clearance)
    }

    /// Somewhere to go besides the fight: the downed partner (to stand by
    /// it until it is back), else a pickup near enough to be worth it.
    fn errand(&self, world: &World, pos: Pt) -> Option<Pt> {
        let partner = &world.players[(self.player + 1) % PLAYERS];
        if partner.is_downed() {
            return Some(Pt::of(partner.pos));
        }
        world
            .pickups()
            .iter()
            .map(|p| Pt::of(p.pos))
            .filter(|p| p.dist(pos) < PICKUP_REACH)
            .min_by_key(|p| p.dist(pos))
    }

    /// The aim direction (0..32) at the enemy this bot is after, led by
    /// where it drifts while the shot flies; none without a target.
    fn aim_at(&self, world: &World, pos: Pt, delay: u32) -> Option<u32> {
        let e = world.enemies().iter().find(|e| Some(e.id) == self.target)?;
        let p = Pt::of(e.pos);
        let flight = p.dist(pos) / q(world.config.player_bullet_speed).max(1);
        let lead = flight + delay as i32;
        let (x, y) = (p.x + q(e.vel.x) * lead, p.y + q(e.vel.y) * lead);
        let dir = crate::sim::nearest_direction(
            Fx::from_bits((x - pos.x) << SHIFT),
            Fx::from_bits((y - pos.y) << SHIFT),
        );
        // The sim's 64 directions to the input's 32 (rounded).
        Some(dir.div_ceil(2) % Input::AIM_DIRECTIONS)
    }

    /// Where the ship wants to be: under its target (kept while it lives,
    /// changed when attention wanders), or home when there is none.
    fn aim_point(&mut self, world: &World, pos: Pt, delay: u32) -> (Pt, bool) {
        let enemies = world.enemies();
        let kept = self
            .target
            .and_then(|id| enemies.iter().find(|e| e.id == id))
            .filter(|e| q(e.pos.y) < pos.y - 40 * UNIT);
        let wander = self.rng.below(10) == 0;
        let target = match kept {
            Some(e) if !wander => Some(e),
            _ => enemies.iter().min_by_key(|e| {
                let p = Pt::of(e.pos);
                let below = if p.y > pos.y - 40 * UNIT {
                    SEE_ENEMY * 4
                } else {
                    0
                };
                (p.x - pos.x).abs() + (pos.y - p.y).abs() / 2 + below
            }),
        };
        self.target = target.map(|e| e.id);
        match target {
            Some(e) => {
                // Lead it by where it drifts while the hands react and the
                // shot flies up.
                let p = Pt::of(e.pos);
                let flight = (pos.y - p.y).max(0) / q(world.config.player_bullet_speed).max(1);
                let x = p.x + q(e.vel.x) * (flight + delay as i32);
                let y = (p.y + BELOW_TARGET).clamp(HOME_Y, q(ARENA_HEIGHT) - 16 * UNIT);
                (Pt { x, y }, true)
            }
            None => (
                Pt {
                    x: q(ARENA_WIDTH) / 2,
                    y: HOME_Y,
                },
                false,
            ),
        }
    }

    /// Where the ship will be over the next `delay` frames (index 0: now)
    /// as the hands carry out what was already decided.
    fn course(&self, pos: Pt, speeds: [i32; 2], delay: u32) -> [Pt; MAX_DELAY as usize + 1] {
        let mut course = [pos; MAX_DELAY as usize + 1];
        let (mut held, mut move_left) = (self.held, self.move_left);
        let mut next = 0;
        for k in 0..delay {
            while next < self.pending_len && self.pending[next].at <= self.tick + k {
                held = self.pending[next];
                move_left = held.hold;
                next += 1;
            }
            let (_, dx, dy) = MOVES
                .iter()
                .copied()
                .find(|&(bits, _, _)| bits == held.moves && move_left > 0)
                .unwrap_or(MOVES[0]);
            move_left = move_left.saturating_sub(1);
            let v = velocity(dx, dy, speeds[held.focus as usize]);
            let p = course[k as usize];
            course[k as usize + 1] = inside(p.x + v.x, p.y + v.y);
        }
        course
    }
}

/// Steps between two of the 32 aim directions, the short way round.
fn aim_gap(a: u32, b: u32) -> u32 {
    let d = a.abs_diff(b) % Input::AIM_DIRECTIONS;
    d.min(Input::AIM_DIRECTIONS - d)
}

fn velocity(dx: i32, dy: i32, speed: i32) -> Pt {
    let s = if dx != 0 && dy != 0 {
        ((speed as i64 * DIAGONAL as i64) >> 16) as i32
    } else {
        speed
    };
    Pt {
        x: dx * s,
        y: dy * s,
    }
}

/// A point the ship can reach: inside the arena by its radius.
fn inside(x: i32, y: i32) -> Pt {
    Pt {
        x: x.clamp(SHIP_R, q(ARENA_WIDTH) - SHIP_R),
        y: y.clamp(SHIP_R, q(ARENA_HEIGHT) - SHIP_R),
    }
}

/// What the search for the next move needs (`HumanBot::best_move`).
struct Options<'a> {
    course: &'a [Pt; MAX_DELAY as usize + 1],
    delay: u32,
    /// Frames a dodge is held, nominally.
    nominal: u32,
    /// Normal and focused speed.
    speeds: [i32; 2],
    bullet_near: bool,
    aim: Pt,
}

/// The ship's expected course: what the hands already do for `delay`
/// frames, then `then` until frame `until`, then still.
struct Path<'a> {
    course: &'a [Pt; MAX_DELAY as usize + 1],
    delay: u32,
    then: Pt,
    until: u32,
}

impl Path<'_> {
    fn at(&self, t: u32) -> Pt {
        let start = self.course[t.min(self.delay) as usize];
        let b = t.min(self.until).saturating_sub(self.delay) as i32;
        inside(start.x + self.then.x * b, start.y + self.then.y * b)
    }
}

/// The least room (distance beyond touching) the ship keeps over `frames`.
fn clearance(path: &Path, frames: u32, threats: &[Threat]) -> i32 {
    let aimed = threats;
    let mut least = SAFE;
    for t in 1..=frames {
        let ship = path.at(t);
        for threat in aimed.iter() {
            let room = ship.dist(threat.at(t)) - threat.reach;
            least = least.min(room);
        }
        if least < 0 {
            break;
        }
    }
    least
}

/// A dash from `from` toward `to`, along the sim's 64 directions.
fn dash_velocity(from: Pt, to: Pt, speed: i32) -> Pt {
    let dir = crate::sim::nearest_direction(
        Fx::from_bits((to.x - from.x) << SHIFT),
        Fx::from_bits((to.y - from.y) << SHIFT),
    );
    let unit = crate::sim::Vec2::direction(dir);
    Pt {
        x: ((q(unit.x) as i64 * speed as i64) >> (16 - SHIFT)) as i32,
        y: ((q(unit.y) as i64 * speed as i64) >> (16 - SHIFT)) as i32,
    }
}

/// A bomb's other reason: six threats or more close around `pos`.
fn crowded(threats: &[Threat], pos: Pt) -> bool {
    threats
        .iter()
        .filter(|t| t.pos.dist(pos) < 60 * UNIT)
        .count()
        >= 6
}

/// Enemy bullets and enemies within sight, and how they will move.
fn threats_near(world: &World, pos: Pt) -> ([Threat; MAX_THREATS], usize) {
    let mut out = [Threat::default(); MAX_THREATS];
    let mut n = 0;
    let mut push = |t: Threat, sight: i32| {
        if n < MAX_THREATS && t.pos.dist(pos) < sight {
            out[n] = t;
            n += 1;
        }
    };
    for e in world.enemies() {
        let p = Pt::of(e.pos);
        let mut t = Threat {
            pos: p,
            vel: Pt::of(e.vel),
            wait: 0,
            reach: SHIP_R + q(e.kind().radius()),
            bullet: false,
            dash: 0,
        };
        let winding = e.state == STATE_WINDUP;
        match e.kind() {
            EnemyKind::Charger if winding => {
                // About to dash at where its target stood when the wind-up
                // began (`aim`), after the wind-up's frames.
                t.wait = (e.timer as u32).saturating_sub(1);
                t.dash = q(world.config.charger_dash_speed);
                t.vel = dash_velocity(p, Pt::of(e.aim), t.dash);
            }
            EnemyKind::Sniper if winding => {
                // Its shot, as a bullet that leaves when the wind-up ends.
                push(t, SEE_ENEMY);
                t.wait = (e.timer as u32).saturating_sub(1);
                t.vel = dash_velocity(p, Pt::of(e.aim), 6 * UNIT);
                t.reach = SHIP_R + BULLET_R;
                t.bullet = true;
                push(t, SEE_BULLET * 2);
                continue;
            }
            _ => {}
        }
        push(t, SEE_ENEMY);
    }
    for b in world.bullets() {
        if b.owner == OWNER_ENEMY {
            push(
                Threat {
                    pos: Pt::of(b.pos),
                    vel: Pt::of(b.vel),
                    wait: 0,
                    reach: SHIP_R + BULLET_R,
                    bullet: true,
                    dash: 0,
                },
                SEE_BULLET,
            );
        }
    }
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimConfig;

    /// Input changes per minute and dwell times (frames between changes)
    /// of one input stream.
    struct Stats {
        changes_per_minute: u32,
        dwell_median: u32,
        dwell_p90: u32,
    }

    fn stats(inputs: &[Input]) -> Stats {
        let mut dwells = Vec::new();
        let mut run = 1;
        for pair in inputs.windows(2) {
            if pair[0] == pair[1] {
                run += 1;
            } else {
                dwells.push(run);
                run = 1;
            }
        }
        dwells.sort_unstable();
        let at = |pct: usize| dwells[(dwells.len() * pct / 100).min(dwells.len() - 1)];
        Stats {
            changes_per_minute: (dwells.len() as u64 * 3600 / inputs.len() as u64) as u32,
            dwell_median: at(50),
            dwell_p90: at(90),
        }
    }

    fn play(seed: u64, frames: u32) -> [Vec<Input>; 2] {
        let mut world = World::new(seed, SimConfig::DEFAULT);
        let mut bots = [HumanBot::new(seed, 0), HumanBot::new(seed, 1)];
        let mut log = [Vec::new(), Vec::new()];
        for _ in 0..frames {
            let inputs = [bots[0].next_input(&world), bots[1].next_input(&world)];
            world.step(inputs, &mut ());
            log[0].push(inputs[0]);
            log[1].push(inputs[1]);
        }
        log
    }

    #[test]
    fn its_inputs_have_human_statistics() {
        for seed in 1..=4 {
            for (player, inputs) in play(seed, 3 * 3600).iter().enumerate() {
                let s = stats(inputs);
                eprintln!(
                    "seed {seed} player {player}: {} changes/min, dwell median {} p90 {} frames",
                    s.changes_per_minute, s.dwell_median, s.dwell_p90
                );
                assert!(
                    (3 * 60..=8 * 60).contains(&s.changes_per_minute),
                    "seed {seed} player {player}: {} changes a minute",
                    s.changes_per_minute
                );
                assert!(
                    (3..=15).contains(&s.dwell_median),
                    "median {}",
                    s.dwell_median
                );
                assert!((15..=60).contains(&s.dwell_p90), "p90 {}", s.dwell_p90);
            }
        }
    }

    #[test]
    fn it_is_a_pure_function_of_seed_and_world() {
        assert_eq!(play(5, 2000), play(5, 2000));
        assert_ne!(play(5, 2000), play(6, 2000));
    }

    #[test]
    fn it_restarts_after_a_game_over() {
        let mut world = World::new(1, SimConfig::DEFAULT);
        world.phase = crate::sim::PHASE_GAME_OVER;
        let mut bots = [HumanBot::new(1, 0), HumanBot::new(1, 1)];
        for _ in 0..600 {
            let inputs = [bots[0].next_input(&world), bots[1].next_input(&world)];
            world.step(inputs, &mut ());
            if !world.is_game_over() {
                return;
            }
        }
        panic!("no restart within 10 s of a game over");
    }
}
