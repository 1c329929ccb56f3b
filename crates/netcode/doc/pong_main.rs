
// ---- Running it: everything below is the netcode's. ----

use twinstar_netcode::RoomCode;
use twinstar_netcode::connect::{ConnectOptions, Connector, NetRuntime, PlayerSeat, Role};
use twinstar_netcode::session::{Driver, Match, Next, OnlineOptions, Pacing};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A synctest: every frame rolled back two frames and re-simulated, each
    // checksum compared with the first simulation's.
    let rules = Pong::preset("default").ok_or("no preset")?;
    let driver = Driver::<Pong, 2>::synctest(7, rules, 2)?;
    let mut game = Match::new(driver, Pacing::Unpaced, Some(600));
    loop {
        match game.next(std::time::Instant::now()) {
            Next::Frame => {
                let state = game.driver().world();
                let inputs = [bot(state, 0), bot(state, 1)];
                game.advance(inputs);
            }
            Next::Wait(until) => std::thread::sleep(until.saturating_duration_since(std::time::Instant::now())),
            Next::Over => break,
        }
    }
    let finished = game.finish();
    assert_eq!(finished.driver.match_summary().mismatches, 0);

    // Online: the same loop around a driver made from a connection.
    if std::env::var_os("PONG_SERVER").is_some() {
        let room = RoomCode::generate();
        let options = ConnectOptions::new(Pong::INFO, "ws://127.0.0.1:3536", Some(room), Role::Host, 7);
        let connector = Connector::<PlayerSeat<u8, 2>>::start(NetRuntime::new()?, options);
        let connection = connector.wait()?;
        let driver = Driver::<Pong, 2>::online(connection, OnlineOptions::default())?;
        let _game = Match::new(driver, Pacing::RealTime, Some(3_600));
    }
    Ok(())
}
