//! The radref corpus: its source format, the rules it must keep, and how it is compiled.
//!
//! Two users share this crate. The worker uses the modules it needs at request time: the
//! source types its compiled logic deserialises into ([`source`]), text folding ([`text`]),
//! the evaluator ([`evaluate`]), reading postings ([`index`]) and the syntax of slugs and dates
//! ([`syntax`]). The build (`build.rs`) and the `corpus-check` tool also use, behind the
//! `build` feature, what only building needs: reading the directory ([`load`]), the rules
//! ([`validate`], [`grounding`]), running the logic ([`check`]), compiling ([`compile`]) and placing the bodies ([`store`]).
//! The worker never links those.

pub mod diff;
pub mod evaluate;
pub mod index;
pub mod source;
pub mod syntax;
pub mod text;

#[cfg(feature = "build")]
pub mod check;
#[cfg(feature = "build")]
pub mod compile;
#[cfg(feature = "build")]
pub mod grounding;
#[cfg(feature = "build")]
pub mod load;
#[cfg(feature = "build")]
pub mod problem;
#[cfg(feature = "build")]
pub mod store;
#[cfg(feature = "build")]
pub mod validate;
