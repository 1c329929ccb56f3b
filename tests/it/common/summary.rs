//! The `--json` summary as the tests read it: the line must parse into the
//! game's own `twinstar::session::Summary` (no wrong type), every key must
//! be one of its fields (the netcode's `MatchSummary` and twinstar's own),
//! and indexing it by a name that is not one of them panics. So `h["checksum"] == j["checksum"]` cannot pass by comparing
//! two nulls after a field is renamed.

use std::fmt;
use std::ops::{Deref, Index};
use std::sync::OnceLock;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde_json::Value;

/// A summary line, checked against the game's type.
#[derive(Clone, Debug)]
pub struct Summary(Value);

impl Summary {
    /// Parses `line` and checks it against `twinstar::session::Summary`.
    pub fn parse(line: &str) -> Result<Summary, String> {
        let value: Value = serde_json::from_str(line)
            .map_err(|e| format!("the last stdout line is not JSON ({e}): {line}"))?;
        Summary::check(value)
    }

    /// Checks an already parsed summary (a browser page's, say).
    pub fn check(value: Value) -> Result<Summary, String> {
        twinstar::session::Summary::deserialize(&value)
            .map_err(|e| format!("not a twinstar summary ({e}): {value}"))?;
        let unknown: Vec<&String> = (value.as_object().into_iter().flatten())
            .map(|(key, _)| key)
            .filter(|key| !fields().contains(&key.as_str()))
            .collect();
        if !unknown.is_empty() {
            return Err(format!(
                "not a twinstar summary (unknown fields {unknown:?}): {value}"
            ));
        }
        Ok(Summary(value))
    }
}

impl Index<&str> for Summary {
    type Output = Value;

    fn index(&self, field: &str) -> &Value {
        assert!(
            fields().contains(&field),
            "the summary has no field {field:?} (twinstar::session::Summary has {:?})",
            fields()
        );
        &self.0[field]
    }
}

impl Deref for Summary {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.0
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The field names of `twinstar::session::Summary`: the netcode's
/// `MatchSummary`'s, as serde's derive lists them (read by a deserializer
/// that stops at the struct), and twinstar's own.
fn fields() -> &'static [&'static str] {
    static FIELDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    FIELDS.get_or_init(|| {
        let mut names = None;
        let _ = twinstar_netcode::session::MatchSummary::deserialize(FieldNames(&mut names));
        let netcode = names.expect("MatchSummary deserializes as a struct");
        let game = twinstar::session::Summary::GAME_FIELDS;
        netcode.iter().chain(&game).copied().collect()
    })
}

struct FieldNames<'a>(&'a mut Option<&'static [&'static str]>);

#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field names read")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        *self.0 = Some(fields);
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}
