//! A reason the corpus cannot be built: the file, a JSON path inside it, and the reason, shown
//! as `corpus/<file> at <path>: <reason>` so an author can go straight to the line.

use std::fmt;

/// One reason the corpus cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// The file, relative to `corpus/`.
    pub file: String,
    /// A JSON path inside the file (`$` for the file itself).
    pub path: String,
    pub reason: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "corpus/{} at {}: {}", self.file, self.path, self.reason)
    }
}
