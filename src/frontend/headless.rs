//! Runs a match with no display: local modes as fast as the CPU allows,
//! online play paced in real time. Both players are bots (or whatever
//! input sources the caller passes).

use web_time::{Duration, Instant};

use super::InputSource;
use crate::session::{Finished, Match};
use crate::sim::Input;
use twinstar_netcode::session::Next;

/// Plays `game` to its end.
pub fn run(game: Match, sources: &mut [InputSource; 2]) -> Finished {
    run_until(game, sources, false)
}

/// Plays `game` to its end, or (`until_game_over`) to its first game over.
pub fn run_until(
    mut game: Match,
    sources: &mut [InputSource; 2],
    until_game_over: bool,
) -> Finished {
    loop {
        match game.next(Instant::now()) {
            Next::Frame => {
                let world = game.driver().world();
                let inputs = super::frame_inputs(sources, world, |_| false, [Input(0); 2]);
                game.advance(inputs);
                if until_game_over && game.driver().world().is_game_over() {
                    game.leave("game over");
                }
            }
            Next::Wait(until) => {
                let wait = until.saturating_duration_since(Instant::now());
                // Short naps: the network is polled between frames too.
                std::thread::sleep(wait.min(Duration::from_millis(1)));
            }
            Next::Over => return game.finish(),
        }
    }
}
