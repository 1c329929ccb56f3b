//! The page's side of `app` (browser only): how a command ended, on the
//! page's console (the same lines as the native game, then one line for
//! machines), and what the page does where the native game blocks. The
//! native side is `native.rs`, with the same `windowed`,
//! `connect_blocking` and `open_when_connecting`.

use web_time::Duration;

use super::{Failure, Report, conclusion};
use crate::frontend::window;
use crate::net::connect::{BackgroundConnect, Connector, Seat, Stage};
use crate::platform::browser::log;

/// How long the browser connects before it opens the window anyway (see
/// [`open_when_connecting`]): a host, who waits for someone to come, only
/// until the signaling server has let it in (a server a continent away
/// answers well within this; one that does not is reported on the waiting
/// screen)...
const HOST_CONNECTS_FIRST: Duration = Duration::from_millis(500);
/// ...a joiner until the connection is made (about 0.3 s on loopback
/// with the page's thread free), or for this long.
const JOINER_CONNECTS_FIRST: Duration = Duration::from_millis(1500);

/// Prefix of the one console line that says how a command ended (tests
/// read it): `TWINSTAR-RESULT {"exit":0,"summary":{...}}`.
pub const RESULT_PREFIX: &str = "TWINSTAR-RESULT ";

/// Prints how a command ended: the same lines as the native game, then one
/// machine-readable line.
pub fn conclude_in_page(result: Result<Report, Failure>) {
    let (lines, exit) = conclusion(&result, true);
    for line in lines {
        log(&line.text);
    }
    let summary = match &result {
        Ok(Report::Summary(s)) | Err(Failure::Runtime(_, Some(s))) => serde_json::to_value(s).ok(),
        _ => None,
    };
    let error = result.as_ref().err().map(|f| f.message().to_string());
    let line = serde_json::json!({ "exit": exit, "summary": summary, "error": error });
    log(&format!("{RESULT_PREFIX}{line}"));
}

/// Runs `body` in a window, then `then` on what it returned. The page's
/// event loop runs the window after this returns, so `then` runs at the
/// end of `body` inside it and its report goes to the console; this
/// returns `Running`.
pub(super) fn windowed<T, Fut>(
    title: &str,
    body: impl FnOnce(window::Ui) -> Fut + 'static,
    then: impl FnOnce(Option<T>) -> Result<Report, Failure> + 'static,
) -> Result<Report, Failure>
where
    T: 'static,
    Fut: std::future::Future<Output = T> + 'static,
{
    window::open(title, move |ui| async move {
        let ended = body(ui).await;
        conclude_in_page(then(Some(ended)));
    })?;
    Ok(Report::Running)
}

/// The browser cannot block: its event loop delivers the network. So
/// `what` (online play, watching) needs its window.
pub(super) fn connect_blocking<S: Seat>(
    _connector: Connector<S>,
    what: &str,
) -> Result<S::Connection, Failure> {
    Err(Failure::BadInput(format!(
        "{what} in the browser needs its window; leave out --headless"
    )))
}

/// Opens the window of a match still connecting, once the connection is
/// made or has gone far enough. The window's GL setup holds the page's
/// one thread for a few hundred ms (~300 in headless Chromium), and then
/// every drawn frame does for ~20 ms; the connection's messages (the
/// WebRTC offer, the data channel opening, the latency probes) waited
/// behind them, so a joining page took 1.2-1.4 s. The window opens once
/// the connection is made instead (a host's: once it is in the room; see
/// the limits above), and the match starts at its first frame.
pub(super) fn open_when_connecting<T: 'static, C: 'static>(
    start: T,
    hosting: bool,
    connector: fn(&T) -> &BackgroundConnect<C>,
    open: impl FnOnce(T) -> Result<Report, Failure> + 'static,
) -> Result<Report, Failure> {
    wasm_bindgen_futures::spawn_local(async move {
        let waited = web_time::Instant::now();
        let (limit, until) = if hosting {
            (HOST_CONNECTS_FIRST, Stage::Connecting)
        } else {
            (JOINER_CONNECTS_FIRST, Stage::CatchingUp)
        };
        while !connector(&start).ended() && waited.elapsed() < limit {
            let status = connector(&start).status();
            if !connecting_before(status.stage, until) || status.failed_attempt.is_some() {
                break;
            }
            gloo_timers::future::sleep(Duration::from_millis(1)).await;
        }
        if let Err(failure) = open(start) {
            conclude_in_page(Err(failure));
        }
    });
    Ok(Report::Running)
}

/// Whether a player's connect is at a stage before `until` (the stages in
/// their order: signaling, in the room, measuring, catching up).
fn connecting_before(stage: Stage, until: Stage) -> bool {
    let order = |s| match s {
        Stage::Signaling => 0,
        Stage::Connecting => 1,
        Stage::Measuring => 2,
        _ => 3,
    };
    order(stage) < order(until)
}
