//! The online match.

pub mod machine;
