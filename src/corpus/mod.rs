//! The corpus: its source format, the rules it must keep, how it is compiled, and the
//! compiled form the worker serves.

pub mod compile;
pub mod compiled;
pub mod evaluate;
pub mod grounding;
pub mod index;
pub mod source;
pub mod text;
pub mod validate;

#[cfg(any(test, feature = "tools"))]
pub mod check;
#[cfg(any(test, feature = "tools"))]
pub mod load;

#[cfg(test)]
mod evaluate_tests;
#[cfg(test)]
mod grounding_tests;
#[cfg(test)]
mod tests;
