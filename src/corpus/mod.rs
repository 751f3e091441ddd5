//! The corpus as the worker sees it: the compiled form it serves ([`compiled`]), and the
//! shared parts of the corpus crate (`crates/corpus`) it reads that form with: the source
//! types, text folding, the evaluator, postings and the syntax of slugs and dates.
//!
//! The corpus crate's build-time modules (loading, validation, grounding knowledge, checks,
//! compilation) are linked only into host tests and the `tools` binaries, never into the
//! worker.

pub mod compiled;

pub use radref_corpus::{diff, evaluate, index, source, syntax, text};

#[cfg(any(test, feature = "tools"))]
pub use radref_corpus::{check, compile, grounding, load, problem, validate};

#[cfg(test)]
mod evaluate_tests;
#[cfg(test)]
mod grounding_tests;
#[cfg(test)]
mod tests;
