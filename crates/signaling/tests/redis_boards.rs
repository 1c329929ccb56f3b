//! The Redis boards (`redis_boards`) against a real `redis-server`: two
//! nodes' views of one Redis rank, page and serve exactly what the memory
//! boards (`boards`, the rules' reference) do for the same uploads, one
//! ranked upload per match holds across them, and a Redis that stops is an
//! error in one line, not a hang or a panic. Needs `redis-server`
//! (scripts/lib/debian-packages.sh installs it for the tests).

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use time::{Date, Month};
use twinstar_signaling::boards::{AlreadyRanked, Board, Boards, Entry, parse_cursor};
use twinstar_signaling::directory::Directory;
use twinstar_signaling::redis_boards::RedisBoards;

/// `redis-server` on a free loopback port, without persistence; killed
/// when dropped.
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    fn start() -> Redis {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server is not installed: apt-get install redis-server");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(10), "no redis");
            std::thread::sleep(Duration::from_millis(50));
        }
        Redis { child, port }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn day(d: u8) -> Date {
    Date::from_calendar_date(2026, Month::November, d).unwrap()
}

/// Upload `i` of a varied set: scores with ties, two presets, dailies,
/// days of this ISO week and of the one before (the 28th is a Saturday).
fn entry(i: u64) -> Entry {
    Entry {
        id: format!("id{i}"),
        seq: i,
        names: [format!("P{i}"), "Bo".into()],
        score: i % 7 * 100,
        wave: (i % 5) as u32,
        frames: 600 + (i % 3) as u32 * 60,
        fps: 60,
        preset: if i.is_multiple_of(4) {
            "stress"
        } else {
            "default"
        }
        .into(),
        date: day([28, 28, 27, 23, 20][(i % 5) as usize]),
        daily: i.is_multiple_of(3),
    }
}

/// Every page of `board`, following the cursors.
async fn pages(
    boards: &RedisBoards,
    board: Board,
    preset: &str,
    today: Date,
) -> Vec<twinstar_signaling::boards::Page> {
    let mut all = Vec::new();
    let mut after = None;
    loop {
        let page = boards.page(board, preset, today, after).await.unwrap();
        after = page.next.as_deref().map(|c| parse_cursor(c).unwrap());
        let done = after.is_none();
        all.push(page);
        if done {
            return all;
        }
    }
}

/// Every page of `board` for `preset` in the memory boards, first to last.
fn memory_pages(
    memory: &Boards,
    board: Board,
    preset: &str,
    today: Date,
) -> Vec<twinstar_signaling::boards::Page> {
    let mut want = Vec::new();
    let mut after = None;
    loop {
        let page = memory.page(board, preset, today, after);
        after = page.next.as_deref().map(|c| parse_cursor(c).unwrap());
        let done = after.is_none();
        want.push(page);
        if done {
            return want;
        }
    }
}

/// The keys' lifetimes in Redis at `url` after the uploads of
/// `two_nodes_share_boards_in_redis_that_match_the_memory_boards`.
fn expiry_is_as_designed(url: &str) {
    // What expires: a match's key after a week, a day's and a week's
    // buckets a day after their last day (counted from `today`), nothing
    // that the all-time board links.
    let ttl = |key: &str| -> i64 {
        let mut redis = redis::Client::open(url)
            .and_then(|c| c.get_connection())
            .expect("a connection");
        redis::cmd("TTL")
            .arg(format!("twinstar:boards:{key}"))
            .query(&mut redis)
            .expect("TTL")
    };
    const DAY: i64 = 24 * 3600;
    // Seconds left, so a minute's leeway for a slow run.
    let about = |key: &str, lifetime: i64| {
        let left = ttl(key);
        assert!(
            (lifetime - 60..=lifetime).contains(&left),
            "{key}: {left} s left"
        );
    };
    about("match:m1", 7 * DAY);
    about("board:daily:2026-11-28", 2 * DAY);
    about("board:week:default:2026-W48", 3 * DAY);
    // -1: no expiry; -2: no such key (the 20th's daily bucket, past).
    assert_eq!(ttl("board:all:default"), -1);
    assert_eq!(ttl("entry:id9"), -1);
    assert_eq!(ttl("bytes:id9"), -1);
    assert_eq!((entry(9).date, entry(9).daily), (day(20), true));
    assert_eq!(ttl("board:daily:2026-11-20"), -2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_share_boards_in_redis_that_match_the_memory_boards() {
    let redis = Redis::start();
    let url = format!("redis://127.0.0.1:{}", redis.port);
    let node = || RedisBoards::new(Arc::new(Directory::new(&url).unwrap()));
    let (a, b) = (node(), node());
    let today = day(28);
    let mut memory = Boards::default();
    for i in 1..=50u64 {
        let e = entry(i);
        let bytes = vec![i as u8; 3];
        let want = memory.add(&format!("m{i}"), e.clone(), bytes.clone(), today);
        // Uploads land on either node; the shared counter numbers them
        // in upload order, as the memory boards' `seq` does here.
        let on = if i % 2 == 0 { &a } else { &b };
        let got = on.add(&format!("m{i}"), e, bytes, today).await.unwrap();
        assert_eq!(got, want, "upload {i}");
    }
    // One ranked upload per match, whichever node the second one reaches.
    assert_eq!(
        a.add("m1", entry(99), vec![], today).await,
        Ok(Err(AlreadyRanked))
    );
    for board in Board::ALL {
        for preset in ["default", "stress", "none"] {
            let want = memory_pages(&memory, board, preset, today);
            for boards in [&a, &b] {
                let got = pages(boards, board, preset, today).await;
                assert_eq!(got, want, "{board:?} {preset}");
            }
        }
    }
    let lines: usize = (pages(&a, Board::All, "default", today).await.iter())
        .map(|p| p.entries.len())
        .sum();
    assert!(lines > 20, "more than one page was walked: {lines}");
    expiry_is_as_designed(&url);
    // Any node serves any replay's bytes.
    assert_eq!(b.bytes("id2").await, Ok(Some(vec![2; 3])));
    assert_eq!(a.bytes("id3").await, Ok(Some(vec![3; 3])));
    assert_eq!(a.bytes("nope").await, Ok(None));
    // Redis stops: every call says why, in one line, within a second.
    drop(redis);
    let started = Instant::now();
    let errors = [
        a.add("m200", entry(200), vec![1], today).await.unwrap_err(),
        a.page(Board::All, "default", today, None)
            .await
            .unwrap_err(),
        a.bytes("id2").await.unwrap_err(),
    ];
    assert!(started.elapsed() < Duration::from_secs(3));
    for e in errors {
        assert!(!e.is_empty() && !e.contains('\n'), "{e}");
    }
}
