//! Referee's rules core: one module per game behind the `Rules` contract, plus the Python bindings.

pub mod answer;
pub mod archive;
pub mod batch;
mod borrowed;
pub mod canonical;
pub mod chance;
pub mod claims;
pub mod decisions;
mod digits;
pub mod engine;
pub mod error;
pub mod game;
pub mod incoming;
pub mod info;
pub mod json;
pub mod keys;
pub mod nullable;
pub mod opaque;
pub mod players;
pub mod registry;
pub mod replay;
pub mod request;
pub mod result;
pub mod rows;
pub mod schemas;
pub mod seal;
pub mod search;
pub mod strict;
pub mod tally;
pub mod walker;

// The games, a module each, from the one list (`registry::games!`).
games!(modules);

#[cfg(feature = "python")]
mod python;

pub use error::{Error, Result};
pub use game::{CheckedSetup, Outcome, Rules, Status, Verdict};
