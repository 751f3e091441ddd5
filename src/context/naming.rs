//! Systems a finding names explicitly: "Bosniak IIF cyst follow-up", "per Fleischner", "TI-RADS
//! TR4", "LIRADS". A named system ranks first, whatever the search index and the cue table
//! make of the rest of the text, because the reader has already chosen it.
//!
//! The names are the corpus's own: each system's short name and abbreviations, and those of its
//! synonyms that are written as names or codes (with a capital letter: "Bosniak IIF", "TR4",
//! "Deauville 3"; a lowercase synonym such as "incidental thyroid nodule" describes a finding
//! and names nothing). Matching is on whole words of the folded text, so "TIRADS" does not
//! match inside "K-TIRADS". Three rules keep it robust:
//!
//! - **Longest name wins.** A match inside a longer match of another system ("TIRADS" within
//!   "K-TIRADS", "LI-RADS" within "LI-RADS TRA") is dropped, unless the longer one is only a
//!   synonym and the shorter a name ("Bosniak" within ACR's synonym "Bosniak IIF follow-up"
//!   still names Bosniak).
//! - **Names before synonyms.** When the text holds a short name or an abbreviation, synonyms
//!   elsewhere in it name nothing.
//! - **One version per shared name.** When versions share a name ("BI-RADS"), the current one
//!   is named (else the draft before the retired one, then the newest).
//!
//! Short all-capital abbreviations ("HRS", "BTS", "MPD") must match in capitals too, so the
//! "48 hrs" of a report names nothing.

use crate::corpus::compiled::{SystemEntry, SYSTEMS};
use crate::corpus::source::Status;
use crate::corpus::text;
use crate::corpus::text::{FastHash, Word};

/// A system the finding names, with the name it used (as the corpus writes it).
#[derive(Clone, Debug, PartialEq)]
pub struct Named {
    /// Index into [`SYSTEMS`].
    pub index: usize,
    pub name: &'static str,
}

/// How strongly a name identifies its system: short names and abbreviations before synonyms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    Name,
    Synonym,
}

/// One occurrence of a name in the finding's words.
#[derive(Clone, Debug)]
struct Hit {
    index: usize,
    tier: Tier,
    start: usize,
    end: usize,
    name: &'static str,
}

impl Hit {
    fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether `other` is a longer match, at least as strong, of another system around this one.
    fn inside(&self, other: &Hit) -> bool {
        other.index != self.index
            && other.tier <= self.tier
            && other.start <= self.start
            && other.end >= self.end
            && other.len() > self.len()
    }
}

/// The names of a system worth matching, with their tier.
fn names(system: &'static SystemEntry) -> impl Iterator<Item = (&'static str, Tier)> {
    std::iter::once(system.short_name)
        .chain(system.abbreviations.iter().copied())
        .map(|n| (n, Tier::Name))
        .chain(
            system
                .synonyms
                .iter()
                .copied()
                .filter(|s| s.chars().any(|c| c.is_uppercase()))
                .map(|n| (n, Tier::Synonym)),
        )
}

/// A short all-capital abbreviation ("HRS", "BTS", "TR4"), matched only in capitals.
fn capitals_only(name: &str) -> bool {
    name.len() <= 4
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && name.chars().any(|c| c.is_ascii_uppercase())
}

/// Whether `text` holds `name` exactly, as a whole word.
fn has_word_exact(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// How a version is preferred among systems sharing a name: current, then draft, then retired;
/// then the newest.
fn preference(system: &SystemEntry) -> (u8, std::cmp::Reverse<&'static str>) {
    let status = match system.status {
        Status::Current => 0,
        Status::Draft => 1,
        Status::Retired => 2,
    };
    (status, std::cmp::Reverse(system.effective))
}

/// A name ready to match: the system, the name as written, its tier and its folded words.
struct Name {
    index: usize,
    name: &'static str,
    tier: Tier,
    words: Vec<Word>,
}

/// Every name worth matching, folded once per isolate, and the names by their first word. A
/// name of fewer than three letters and digits ("C0") is too short to name anything in free
/// text.
struct Names {
    all: Vec<Name>,
    by_first: text::WordTable<Word, Vec<usize>>,
}

fn all_names() -> &'static Names {
    static NAMES: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut all = Vec::new();
        for (index, system) in SYSTEMS.iter().enumerate() {
            for (name, tier) in names(system) {
                let words = text::words(name);
                let chars: usize = words.iter().map(|w| w.len()).sum();
                if chars >= 3 {
                    all.push(Name {
                        index,
                        name,
                        tier,
                        words,
                    });
                }
            }
        }
        let mut by_first: std::collections::HashMap<Word, Vec<usize>, FastHash> =
            std::collections::HashMap::default();
        for (k, n) in all.iter().enumerate() {
            by_first.entry(n.words[0].clone()).or_default().push(k);
        }
        Names {
            all,
            by_first: by_first.into(),
        }
    })
}

/// The systems `text` names explicitly, in the order of [`SYSTEMS`]. Each word of the text
/// looks up the names that start with it, so the work grows with the text, not with the
/// names times the text.
pub fn named_systems(text: &str) -> Vec<Named> {
    named_systems_in(text, &text::words(text))
}

/// [`named_systems`] of a text already cut into its folded words.
pub fn named_systems_in(text: &str, words: &[Word]) -> Vec<Named> {
    if words.is_empty() {
        return Vec::new();
    }
    let names = all_names();
    let mut hits: Vec<Hit> = Vec::new();
    // Whether the text writes a name in capitals, found once per name.
    let mut written: Vec<(&str, bool)> = Vec::new();
    let mut written_exactly = |name: &'static str| match written.iter().find(|w| w.0 == name) {
        Some(&(_, found)) => found,
        None => {
            let found = has_word_exact(text, name);
            written.push((name, found));
            found
        }
    };
    for start in 0..words.len() {
        let Some(candidates) = names.by_first.get(&words[start]) else {
            continue;
        };
        for &k in candidates {
            let n = &names.all[k];
            let matches = words
                .get(start..start + n.words.len())
                .is_some_and(|w| w == n.words.as_slice());
            if !matches || (capitals_only(n.name) && !written_exactly(n.name)) {
                continue;
            }
            hits.push(Hit {
                index: n.index,
                tier: n.tier,
                start,
                end: start + n.words.len(),
                name: n.name,
            });
        }
    }
    let kept: Vec<&Hit> = hits
        .iter()
        .filter(|h| !hits.iter().any(|o| h.inside(o)))
        .collect();
    let Some(best) = kept.iter().map(|h| h.tier).min() else {
        return Vec::new();
    };
    let kept: Vec<&Hit> = kept.into_iter().filter(|h| h.tier == best).collect();
    // A system is named unless each of its matches is also a match of a preferred version.
    let preferred_elsewhere = |h: &Hit| {
        kept.iter().any(|o| {
            o.index != h.index
                && o.start == h.start
                && o.end == h.end
                && preference(&SYSTEMS[o.index]) < preference(&SYSTEMS[h.index])
        })
    };
    let mut out: Vec<Named> = Vec::new();
    for index in 0..SYSTEMS.len() {
        let own: Vec<&&Hit> = kept.iter().filter(|h| h.index == index).collect();
        if own.is_empty() || own.iter().all(|h| preferred_elsewhere(h)) {
            continue;
        }
        // The longest of its names the text used, the first on a tie.
        let name = own
            .iter()
            .max_by(|a, b| a.len().cmp(&b.len()).then(b.start.cmp(&a.start)))
            .map(|h| h.name)
            .unwrap_or_default();
        out.push(Named { index, name });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slugs(text: &str) -> Vec<&'static str> {
        named_systems(text)
            .iter()
            .map(|n| SYSTEMS[n.index].slug)
            .collect()
    }

    #[test]
    fn names_abbreviations_and_coded_synonyms_are_recognised() {
        assert_eq!(slugs("Bosniak IIF cyst follow-up"), ["bosniak-v2019"]);
        assert_eq!(
            slugs("per Fleischner, what follow-up?"),
            ["fleischner-2017"]
        );
        assert_eq!(slugs("TI-RADS TR4 nodule, 16 mm"), ["acr-ti-rads-2017"]);
        assert_eq!(slugs("LIRADS observation"), ["acr-li-rads-ct-mri-v2018"]);
        assert_eq!(slugs("lung rads 4A"), ["acr-lung-rads-v2022"]);
        assert_eq!(slugs("TR4 nodule"), ["acr-ti-rads-2017"]);
    }

    #[test]
    fn the_longest_name_wins() {
        assert_eq!(slugs("K-TIRADS 4 nodule"), ["k-tirads-2021"]);
        assert_eq!(slugs("EU-TIRADS category"), ["eu-tirads-2017"]);
        assert_eq!(
            slugs("LI-RADS TRA after ablation"),
            ["acr-li-rads-ct-mri-tra-v2024"]
        );
        assert_eq!(
            slugs("US LI-RADS surveillance"),
            ["acr-li-rads-us-surveillance-v2024"]
        );
        // A synonym of another system around a name does not take it away.
        assert_eq!(slugs("Bosniak IIF follow-up"), ["bosniak-v2019"]);
    }

    #[test]
    fn descriptions_and_lowercase_codes_name_nothing() {
        assert!(slugs("incidental thyroid nodule on ultrasound").is_empty());
        assert!(slugs("follow-up in 48 hrs, no mpd dilatation").is_empty());
        assert!(slugs("").is_empty());
        // A word of anatomy is not a score's name.
        assert!(slugs("L2 vertebral body, posterior superior aspect: 8 mm lesion").is_empty());
        assert_eq!(slugs("ASPECTS 8 on the baseline CT"), ["aspects-2000"]);
    }

    #[test]
    fn a_shared_name_names_the_preferred_version() {
        // BI-RADS 2013 is retired, v2025 a draft: the draft is the newer edition.
        assert_eq!(slugs("BI-RADS 4 mass"), ["acr-bi-rads-v2025"]);
        // A name only one version has names that version.
        assert_eq!(slugs("BI-RADS 5th edition"), ["acr-bi-rads-2013"]);
    }
}
