//! How a command ended, on the page's console (browser only): the same
//! lines as the native game, then one line for machines.

use super::{Failure, Report, conclusion};
use crate::platform::browser::log;

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
