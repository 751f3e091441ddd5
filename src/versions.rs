//! Two versions of one guideline: what changed (`GET /api/v1/systems/{id}/diff/{other}`) and
//! what a patient's inputs come to under each (`POST /api/v1/systems/{id}/rescore/{other}`),
//! for the HTTP routes and the MCP tools alike.
//!
//! Both read the compiled logic of the two systems; the comparison itself is the corpus
//! crate's (`corpus::diff`). Two systems are versions of one guideline when a chain of
//! `supersedes` links joins them; the later one's link to the earlier may state how ids
//! correspond (`maps`).

use crate::corpus::compiled::{self, Logic};
use crate::corpus::diff::{self, Change, Diff, Ids, Rescored, Version};
use crate::corpus::evaluate::{Cited, InputError};
use crate::corpus::source::{LineageEvent, Reference, Relation, Verification, NOTICE};
use crate::feature::FeatureError;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The most input sets one re-score takes.
pub const MAX_RESCORE_CASES: usize = 100;

/// The formats of a diff and a re-score.
pub const FORMATS: &[&str] = &["json", "markdown"];

/// Two versions of one lineage, in the order asked, with how their ids correspond.
pub struct Pair {
    pub from: &'static Logic,
    pub to: &'static Logic,
    /// `from` is the earlier version.
    pub forward: bool,
    /// Ids from `from` to `to`, and back.
    pub ids: Ids<'static>,
    pub back: Ids<'static>,
}

fn logic_of(slug: &str) -> Option<&'static Logic> {
    let i = compiled::SYSTEMS.iter().position(|s| s.slug == slug)?;
    compiled::logic(i)
}

/// Whether `to` is reached from `from` by following links of one direction (`later`:
/// `superseded_by`, else `supersedes`), and the last link's earlier side.
fn reaches(from: &'static Logic, to: &str, later: bool) -> bool {
    let mut frontier = vec![from];
    let mut seen = vec![from.slug.as_str()];
    while let Some(at) = frontier.pop() {
        let next = if later {
            &at.currency.superseded_by
        } else {
            &at.currency.supersedes
        };
        for slug in next {
            if slug == to {
                return true;
            }
            if seen.contains(&slug.as_str()) {
                continue;
            }
            seen.push(slug);
            if let Some(l) = logic_of(slug) {
                frontier.push(l);
            }
        }
    }
    false
}

/// Every system of the lineage of `logic`, for the message that refuses a pair.
fn lineage_of(logic: &'static Logic) -> Vec<String> {
    let mut out = vec![logic.slug.clone()];
    let mut i = 0;
    while i < out.len() {
        if let Some(l) = logic_of(&out[i]) {
            for s in l
                .currency
                .supersedes
                .iter()
                .chain(&l.currency.superseded_by)
            {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
        }
        i += 1;
    }
    out
}

/// The two systems of a request, checked to be two versions of one guideline.
pub fn pair(slug: &str, other: &str, names: (&str, &str)) -> Result<Pair, FeatureError> {
    let from = logic_of(slug).ok_or_else(|| crate::search::unknown_slug(names.0, slug))?;
    let to = logic_of(other).ok_or_else(|| crate::search::unknown_slug(names.1, other))?;
    if from.slug == to.slug {
        return Err(FeatureError::argument(
            names.1,
            format!("'{other}' is the same system; name another version of it"),
        ));
    }
    let forward = if reaches(from, &to.slug, true) {
        true
    } else if reaches(from, &to.slug, false) {
        false
    } else {
        let lineage = lineage_of(from);
        return Err(FeatureError::argument(
            names.1,
            if lineage.len() > 1 {
                format!(
                    "'{other}' is not a version of '{slug}'; its versions: {}",
                    lineage[1..].join(", ")
                )
            } else {
                format!("'{other}' is not a version of '{slug}', which has no other version in the corpus")
            },
        ));
    };
    let (earlier, later) = if forward { (from, to) } else { (to, from) };
    let maps = later
        .crossrefs
        .iter()
        .find(|x| x.relation == Relation::Supersedes && x.slug.as_deref() == Some(&earlier.slug))
        .and_then(|x| x.maps.as_ref());
    Ok(Pair {
        from,
        to,
        forward,
        ids: Ids::of(maps, forward),
        back: Ids::of(maps, !forward),
    })
}

fn version(l: &'static Logic) -> Version<'static> {
    Version {
        slug: &l.slug,
        name: &l.short_name,
        version: &l.version,
        model: l.model(),
    }
}

/// One side of the pair, as the answer names it.
#[derive(Serialize)]
pub struct SystemRef {
    pub slug: &'static str,
    pub name: &'static str,
    pub version: &'static str,
    pub status: &'static str,
    pub effective: &'static str,
    pub link: String,
}

fn system_ref(l: &'static Logic) -> SystemRef {
    let entry = compiled::system(&l.slug);
    SystemRef {
        slug: &l.slug,
        name: &l.short_name,
        version: &l.version,
        status: entry.map_or("", |e| e.status.as_str()),
        effective: &l.currency.effective,
        link: format!("/api/v1/systems/{}", l.slug),
    }
}

/// The references each side's cited lines point to, as citation strings.
#[derive(Serialize)]
pub struct Refs {
    pub from: BTreeMap<String, String>,
    pub to: BTreeMap<String, String>,
}

fn refs_of<'a>(l: &Logic, lines: impl Iterator<Item = &'a Cited<'a>>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for c in lines {
        if let Some(r) = l.references.get(c.citation) {
            out.insert(c.citation.to_string(), r.short_citation());
        }
    }
    out
}

/// A version event of the later system that the sources announce the change with.
#[derive(Serialize)]
pub struct Announced {
    pub date: &'static str,
    pub version: &'static str,
    pub event: &'static str,
    pub summary: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation: Option<String>,
}

/// The answer of a diff.
#[derive(Serialize)]
pub struct DiffAnswer {
    pub notice: &'static str,
    pub from: SystemRef,
    pub to: SystemRef,
    /// `forward` when `from` is the earlier version, `backward` when it is the later one.
    pub direction: &'static str,
    /// How the later version's ids correspond to the earlier's, where they differ (cited).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correspondence: Option<Cited<'static>>,
    pub changes: Vec<Change<'static>>,
    pub counts: BTreeMap<&'static str, usize>,
    /// What the later version's own lineage says it changed, cited.
    pub announced: Vec<Announced>,
    pub references: Refs,
    pub links: Links,
}

#[derive(Serialize)]
pub struct Links {
    #[serde(rename = "self")]
    pub self_: String,
    pub diff: String,
    pub rescore: String,
    /// The diff the other way round.
    pub reverse: String,
}

fn links(pair: &Pair, rescore: bool) -> Links {
    let (a, b) = (&pair.from.slug, &pair.to.slug);
    let diff = format!("/api/v1/systems/{a}/diff/{b}");
    let rescore_link = format!("/api/v1/systems/{a}/rescore/{b}");
    Links {
        self_: if rescore {
            rescore_link.clone()
        } else {
            diff.clone()
        },
        diff,
        rescore: rescore_link,
        reverse: format!("/api/v1/systems/{b}/diff/{a}"),
    }
}

fn announced(later: &'static Logic, earlier: &'static Logic) -> Vec<Announced> {
    let since = crate::corpus::syntax::date_key(&earlier.currency.effective);
    later
        .lineage
        .iter()
        .filter(|e| crate::corpus::syntax::date_key(&e.date) > since)
        .map(|e: &'static LineageEvent| Announced {
            date: &e.date,
            version: &e.version,
            event: e.event.as_str(),
            summary: &e.summary,
            citation: e
                .citation
                .as_ref()
                .and_then(|c| later.references.get(c))
                .map(Reference::short_citation),
        })
        .collect()
}

/// What changed between the two versions of a pair, from `from` to `to`.
pub fn diff(pair: &Pair) -> DiffAnswer {
    let Diff { changes, counts } = diff::diff(version(pair.from), version(pair.to), &pair.ids);
    let (earlier, later) = if pair.forward {
        (pair.from, pair.to)
    } else {
        (pair.to, pair.from)
    };
    let correspondence = pair
        .ids
        .line
        .map(|l| Cited::of(crate::corpus::source::AsLine::line(l)));
    let mut from_refs = refs_of(pair.from, changes.iter().flat_map(|c| c.from.iter()));
    let mut to_refs = refs_of(pair.to, changes.iter().flat_map(|c| c.to.iter()));
    if let Some(c) = &correspondence {
        let refs = if pair.forward {
            &mut to_refs
        } else {
            &mut from_refs
        };
        refs.extend(refs_of(later, std::iter::once(c)));
    }
    DiffAnswer {
        notice: NOTICE,
        from: system_ref(pair.from),
        to: system_ref(pair.to),
        direction: if pair.forward { "forward" } else { "backward" },
        correspondence,
        changes,
        counts,
        announced: announced(later, earlier),
        references: Refs {
            from: from_refs,
            to: to_refs,
        },
        links: links(pair, false),
    }
}

fn mark(refs: &[(&str, &str)], side: &str, c: &Cited) -> String {
    let n = refs
        .iter()
        .position(|(s, id)| *s == side && *id == c.citation)
        .map_or(0, |i| i + 1);
    let draft = if c.verification == Verification::Draft {
        "; draft"
    } else {
        ""
    };
    format!("[{n}, {}{draft}]", c.locator)
}

/// The diff as one markdown block: the changes by kind, each with both sides' cited lines,
/// then the sources' own account and the numbered references.
pub fn diff_markdown(d: &DiffAnswer) -> String {
    let mut refs: Vec<(&str, &str)> = Vec::new();
    for id in d.references.from.keys() {
        refs.push(("from", id));
    }
    for id in d.references.to.keys() {
        refs.push(("to", id));
    }
    let mut md = format!(
        "## {} ({}) → {} ({}): what changed\n\n{} change(s).\n",
        d.from.name,
        d.from.slug,
        d.to.name,
        d.to.slug,
        d.changes.len()
    );
    let mut kind = None;
    for c in &d.changes {
        if kind != Some(c.kind) {
            md.push_str(&format!("\n### {}\n", c.kind.as_str().replace('_', " ")));
            kind = Some(c.kind);
        }
        md.push_str(&format!("- {}\n", c.summary));
        for l in &c.from {
            md.push_str(&format!(
                "  - {}: {} {}\n",
                d.from.version,
                l.text,
                mark(&refs, "from", l)
            ));
        }
        for l in &c.to {
            md.push_str(&format!(
                "  - {}: {} {}\n",
                d.to.version,
                l.text,
                mark(&refs, "to", l)
            ));
        }
    }
    if !d.announced.is_empty() {
        md.push_str("\n### What the sources announce\n");
        for a in &d.announced {
            md.push_str(&format!(
                "- {} ({} {}): {}\n",
                a.date, a.version, a.event, a.summary
            ));
        }
    }
    md.push_str("\nReferences:\n");
    for (i, (side, id)) in refs.iter().enumerate() {
        let map = if *side == "from" {
            &d.references.from
        } else {
            &d.references.to
        };
        md.push_str(&format!("{}. {}\n", i + 1, map[*id]));
    }
    md.push_str(&format!("\n{NOTICE}\nLink: {}\n", d.links.self_));
    md
}

/// One case of a re-score batch: its answer, or why its inputs were refused.
#[derive(Serialize)]
pub struct Case {
    pub index: usize,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub rescored: Option<Rescored<'static>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CaseError>,
}

#[derive(Serialize)]
pub struct CaseError {
    pub field: String,
    pub message: String,
}

/// How many cases moved from one answer to another in one unit.
#[derive(Serialize)]
pub struct Movement {
    pub unit: &'static str,
    pub from: String,
    pub to: String,
    pub count: usize,
}

#[derive(Serialize)]
pub struct Counts {
    pub cases: usize,
    /// Cases where at least one unit moved.
    pub moved: usize,
    /// Cases where every unit decided under both versions answers alike.
    pub unchanged: usize,
    /// Cases refused for their inputs.
    pub refused: usize,
}

/// The answer of a re-score: one case, or a batch with the cohort's movements.
#[derive(Serialize)]
pub struct RescoreAnswer {
    pub notice: &'static str,
    pub from: SystemRef,
    pub to: SystemRef,
    pub direction: &'static str,
    /// One input set: its answer.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub single: Option<Rescored<'static>>,
    /// A batch: each case, in the order given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cases: Option<Vec<Case>>,
    /// A batch: per unit, how many cases moved from which answer to which.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved: Option<Vec<Movement>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<Counts>,
    pub links: Links,
}

fn refused(field: &str, e: InputError) -> FeatureError {
    let inner = e.field();
    FeatureError::argument(
        &format!("{field}{}", inner.trim_start_matches("inputs")),
        e.to_string(),
    )
}

/// The input sets of a request: one object, or a list of 1 to [`MAX_RESCORE_CASES`] objects.
pub enum InputSets {
    One(Map<String, Value>),
    Many(Vec<Map<String, Value>>),
}

/// Reads the `inputs` argument, which is required (`null` is an empty input set).
pub fn input_sets(value: Option<&Value>) -> Result<InputSets, FeatureError> {
    let about = format!(
        "'inputs' must be an object of input id to value, or a list of 1 to {MAX_RESCORE_CASES} such objects"
    );
    match value {
        None => Err(FeatureError::argument(
            "inputs",
            "'inputs' is required: an object of input id to value, or a list of them",
        )),
        Some(Value::Null) => Ok(InputSets::One(Map::new())),
        Some(Value::Object(m)) => Ok(InputSets::One(m.clone())),
        Some(Value::Array(items)) => {
            if items.is_empty() || items.len() > MAX_RESCORE_CASES {
                return Err(FeatureError::argument(
                    "inputs",
                    format!("{about}; got a list of {}", items.len()),
                ));
            }
            items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Object(m) => Ok(m.clone()),
                    _ => Err(FeatureError::argument(
                        &format!("inputs[{i}]"),
                        about.clone(),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(InputSets::Many)
        }
        Some(_) => Err(FeatureError::argument("inputs", about)),
    }
}

/// Re-scores one input set or a batch under both versions of a pair.
pub fn rescore(pair: &Pair, sets: &InputSets) -> Result<RescoreAnswer, FeatureError> {
    let run = |m: &Map<String, Value>| {
        diff::rescore(
            version(pair.from),
            version(pair.to),
            &pair.ids,
            &pair.back,
            m,
        )
    };
    let links = links(pair, true);
    let mut answer = RescoreAnswer {
        notice: NOTICE,
        from: system_ref(pair.from),
        to: system_ref(pair.to),
        direction: if pair.forward { "forward" } else { "backward" },
        single: None,
        cases: None,
        moved: None,
        counts: None,
        links,
    };
    match sets {
        InputSets::One(m) => {
            answer.single = Some(run(m).map_err(|e| refused("inputs", e))?);
        }
        InputSets::Many(list) => {
            let mut cases = Vec::new();
            let mut movements: Vec<Movement> = Vec::new();
            let mut counts = Counts {
                cases: list.len(),
                moved: 0,
                unchanged: 0,
                refused: 0,
            };
            for (index, m) in list.iter().enumerate() {
                match run(m) {
                    Ok(r) => {
                        if r.moved {
                            counts.moved += 1;
                        } else {
                            counts.unchanged += 1;
                        }
                        for u in r.units.iter().filter(|u| u.moved) {
                            let (Some(a), Some(z)) = (&u.from, &u.to) else {
                                continue;
                            };
                            let (a, z) = (a.answer.unwrap_or("-"), z.answer.unwrap_or("-"));
                            match movements
                                .iter_mut()
                                .find(|m| m.unit == u.unit && m.from == a && m.to == z)
                            {
                                Some(m) => m.count += 1,
                                None => movements.push(Movement {
                                    unit: u.unit,
                                    from: a.to_string(),
                                    to: z.to_string(),
                                    count: 1,
                                }),
                            }
                        }
                        cases.push(Case {
                            index,
                            rescored: Some(r),
                            error: None,
                        });
                    }
                    Err(e) => {
                        counts.refused += 1;
                        let field =
                            format!("inputs[{index}]{}", e.field().trim_start_matches("inputs"));
                        cases.push(Case {
                            index,
                            rescored: None,
                            error: Some(CaseError {
                                field,
                                message: e.to_string(),
                            }),
                        });
                    }
                }
            }
            movements.sort_by(|a, b| b.count.cmp(&a.count).then(a.unit.cmp(b.unit)));
            answer.cases = Some(cases);
            answer.moved = Some(movements);
            answer.counts = Some(counts);
        }
    }
    Ok(answer)
}

/// A re-score as markdown: per case, the units that moved (or that each version decides),
/// with the deciding rules cited by locator.
pub fn rescore_markdown(a: &RescoreAnswer) -> String {
    let mut md = format!(
        "## Re-score: {} ({}) → {} ({})\n",
        a.from.name, a.from.slug, a.to.name, a.to.slug
    );
    let case = |md: &mut String, r: &Rescored| {
        for u in &r.units {
            let say = |s: &Option<diff::Side>| match s {
                None => "no such unit".to_string(),
                Some(s) => match (s.answer, s.status) {
                    (Some(ans), _) => match &s.rule {
                        Some(rule) => format!("{ans} [{}]", rule.locator),
                        None => ans.to_string(),
                    },
                    (None, status) => status.as_str().replace('_', " "),
                },
            };
            md.push_str(&format!(
                "- {}{}: {} → {}\n",
                u.title,
                if u.moved { " (moved)" } else { "" },
                say(&u.from),
                say(&u.to)
            ));
        }
        for (needs, aside, name) in [
            (&r.needs.from, &r.set_aside.from, &a.from.version),
            (&r.needs.to, &r.set_aside.to, &a.to.version),
        ] {
            if !needs.is_empty() {
                md.push_str(&format!("  {name} still needs: {}\n", needs.join(", ")));
            }
            for s in aside {
                md.push_str(&format!("  {name} set aside: {}\n", s.reason));
            }
        }
    };
    if let Some(r) = &a.single {
        md.push('\n');
        case(&mut md, r);
    }
    if let (Some(cases), Some(counts), Some(moved)) = (&a.cases, &a.counts, &a.moved) {
        md.push_str(&format!(
            "\n{} case(s): {} moved, {} unchanged, {} refused.\n",
            counts.cases, counts.moved, counts.unchanged, counts.refused
        ));
        for m in moved {
            md.push_str(&format!(
                "- {}: {} → {} × {}\n",
                m.unit, m.from, m.to, m.count
            ));
        }
        for c in cases {
            md.push_str(&format!("\nCase {}:\n", c.index));
            match (&c.rescored, &c.error) {
                (Some(r), _) => case(&mut md, r),
                (None, Some(e)) => {
                    md.push_str(&format!("- refused: {} ({})\n", e.message, e.field))
                }
                _ => {}
            }
        }
    }
    md.push_str(&format!("\n{NOTICE}\n"));
    md
}
