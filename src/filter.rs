//! Choosing systems: the filters of the systems list (and of the MCP tool that lists them),
//! the spellings of modalities users write, and the full-text query parameter.
//!
//! Reading a filter is checking it: an unknown enum value is refused with the allowed values,
//! so the route and the tool give the same answers and the same errors.

use crate::corpus::compiled::{self, SystemEntry, SYSTEMS};
use crate::corpus::source::{Family, Status, MODALITIES};
use crate::error::ApiError;
use crate::input::{is_blank, one_of, Params, Refusal};
use crate::knowledge::LEXICON;
use crate::search;
use serde_json::json;

/// The full-text query parameter `q`, refused when longer than search accepts.
pub fn query_text(request: &impl Params) -> Result<Option<String>, ApiError> {
    let q = request.get("q")?;
    if q.as_ref()
        .is_some_and(|q| q.chars().count() > search::MAX_QUERY_CHARS)
    {
        return Err(ApiError::bad_param(
            "q",
            format!("'q' is longer than {} characters", search::MAX_QUERY_CHARS),
        ));
    }
    Ok(q)
}

/// Maps a modality as users write it to the interface's name.
pub fn modality(value: &str) -> Option<&'static str> {
    let v = value.trim();
    LEXICON
        .modality_spellings
        .iter()
        .find(|(spelling, _)| spelling.eq_ignore_ascii_case(v))
        .map(|(_, name)| *name)
}

/// The filters of the systems list, read and checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemFilter {
    pub organ: Option<String>,
    pub modality: Option<&'static str>,
    pub family: Option<Family>,
    pub status: Option<Status>,
    pub q: Option<String>,
}

impl SystemFilter {
    /// Reads `organ`, `modality`, `family`, `status` and `q`; unknown enum values are refused
    /// with the allowed values.
    pub fn read(params: &impl Params) -> Result<SystemFilter, ApiError> {
        let modality_name = match params.get("modality")? {
            None => None,
            Some(m) => Some(modality(&m).ok_or_else(|| {
                ApiError::bad_param(
                    "modality",
                    format!(
                        "unknown modality '{m}'; allowed: {} (aliases such as MR, ultrasound, mammo, PET, X-ray are accepted)",
                        MODALITIES.join(", ")
                    ),
                )
            })?),
        };
        Ok(SystemFilter {
            organ: params.get("organ")?.map(|o| o.trim().to_lowercase()),
            modality: modality_name,
            family: one_of(
                params,
                "family",
                &Family::ALL,
                Family::as_str,
                Refusal::BadRequest,
            )?,
            status: one_of(
                params,
                "status",
                &Status::ALL,
                Status::as_str,
                Refusal::BadRequest,
            )?,
            q: query_text(params)?.filter(|q| !is_blank(q)),
        })
    }

    fn keeps(&self, s: &SystemEntry) -> bool {
        self.family.is_none_or(|f| s.family == f)
            && self.status.is_none_or(|st| s.status == st)
            && self.modality.is_none_or(|m| s.modalities.contains(&m))
            && self
                .organ
                .as_ref()
                .is_none_or(|o| s.organs.iter().any(|x| x == o))
    }

    /// The matching systems. Without q: every one, by slug. With q: those the query reaches
    /// (directly or through one of their outcomes), best first.
    pub fn select(&self) -> Vec<&'static SystemEntry> {
        match &self.q {
            None => {
                let mut all: Vec<&SystemEntry> = SYSTEMS.iter().filter(|s| self.keeps(s)).collect();
                all.sort_by_key(|s| s.slug);
                all
            }
            Some(q) => {
                let mut out: Vec<&SystemEntry> = Vec::new();
                for hit in search::search(q, 1000) {
                    if let Some(s) = compiled::system(hit.slug) {
                        if self.keeps(s) && !out.iter().any(|o| o.slug == s.slug) {
                            out.push(s);
                        }
                    }
                }
                out
            }
        }
    }

    /// The filters as the response's `meta.filters` reports them.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "organ": self.organ,
            "modality": self.modality,
            "family": self.family.map(Family::as_str),
            "status": self.status.map(Status::as_str),
            "q": self.q,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modality_spellings_map_case_insensitively() {
        assert_eq!(modality("mr"), Some("MRI"));
        assert_eq!(modality(" Ultrasound "), Some("US"));
        assert_eq!(modality("pet/ct"), Some("PET/CT"));
        assert_eq!(modality("SPECT"), None);
        for (spelling, name) in LEXICON.modality_spellings {
            assert_eq!(modality(spelling), Some(*name));
        }
    }
}
