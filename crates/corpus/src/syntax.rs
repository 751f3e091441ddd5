//! The syntax of the corpus's identifiers and dates: slugs, DOIs and (partial) calendar dates.
//!
//! The build checks the corpus with these rules and the worker reads requests with the same
//! ones (a slug in a path, the `since` date of the changes list), so both agree on what a slug
//! or a date is.

/// `^[a-z0-9-]+$`
pub fn is_slug(s: &str) -> bool {
    is_ident(s, '-')
}

/// Lower-case ASCII letters and digits joined by `sep`.
pub fn is_ident(s: &str, sep: char) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == sep)
}

/// `10.\d{4,9}/\S+`, anchored.
pub fn is_doi(doi: &str) -> bool {
    let Some(rest) = doi.strip_prefix("10.") else {
        return false;
    };
    let Some((registrant, suffix)) = rest.split_once('/') else {
        return false;
    };
    (4..=9).contains(&registrant.len())
        && registrant.bytes().all(|b| b.is_ascii_digit())
        && !suffix.is_empty()
        && !suffix.chars().any(char::is_whitespace)
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD` naming a day that exists in the Gregorian calendar:
/// months 01-12, and a day within its month (29 February only in a leap year).
pub fn is_date(date: &str) -> bool {
    let parts: Vec<&str> = date.split('-').collect();
    let num = |s: &str, len: usize| {
        (s.len() == len && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    let month = |m: &str| num(m, 2).filter(|m| (1..=12).contains(m));
    match parts.as_slice() {
        [y] => num(y, 4).is_some(),
        [y, m] => num(y, 4).is_some() && month(m).is_some(),
        [y, m, d] => match (num(y, 4), month(m), num(d, 2)) {
            (Some(y), Some(m), Some(d)) => (1..=days_in_month(y, m)).contains(&d),
            _ => false,
        },
        _ => false,
    }
}

/// The number of days in a month (1-12) of a Gregorian year.
fn days_in_month(year: u32, month: u32) -> u32 {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A sortable key of a partial date (a missing month or day sorts as the first).
pub fn date_key(date: &str) -> String {
    match date.len() {
        4 => format!("{date}-01-01"),
        7 => format!("{date}-01"),
        _ => date.to_string(),
    }
}
