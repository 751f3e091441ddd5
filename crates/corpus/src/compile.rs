//! Compiles validated sources into what the worker serves, at build time.
//!
//! The output is bytes and Rust source: prebuilt response bodies (system detail, organs,
//! coverage, the RSS feed), the `fst` term index with its postings, and static tables of
//! system summaries, search documents and version events. At request time the worker only
//! slices and concatenates these; it never parses corpus JSON.

use super::index::{write_postings, Field, Posting};
use super::load::Sources;
use super::source::*;
use super::syntax::date_key;
use super::text::{identity_terms, text_terms, xml_escape};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Counts of what a system (or the whole corpus) contains.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub lines: u32,
    pub draft_lines: u32,
    pub verified_lines: u32,
    pub outcomes: u32,
    pub decision_units: u32,
    pub rules: u32,
    pub inputs: u32,
    /// Test vectors of the decision units (`examples`), each evaluated by the build.
    pub examples: u32,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.lines += other.lines;
        self.draft_lines += other.draft_lines;
        self.verified_lines += other.verified_lines;
        self.outcomes += other.outcomes;
        self.decision_units += other.decision_units;
        self.rules += other.rules;
        self.inputs += other.inputs;
        self.examples += other.examples;
    }
}

/// Everything the build writes.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// SHA-256 (hex) of every served artefact: changes exactly when served content changes.
    pub hash: String,
    /// Files for `include_dir`, relative to the compiled directory.
    pub files: Vec<(String, Vec<u8>)>,
    /// The `fst` map from term to term number.
    pub fst: Vec<u8>,
    /// The postings blob (see `index`).
    pub postings: Vec<u8>,
    /// Rust source of the static tables, `include!`d by `corpus::compiled`.
    pub tables: String,
    /// Rust source of the grounding knowledge, `include!`d by `knowledge`.
    pub knowledge: String,
    /// Corpus-wide counts.
    pub totals: Counts,
    /// Number of distinct index terms.
    pub terms: usize,
}

/// Counts the lines of one system.
pub fn count(system: &System) -> Counts {
    let mut lines: Vec<LineRef> = Vec::new();
    lines.extend(system.scope.iter().map(|l| l.line()));
    lines.extend(system.inputs.iter().map(|l| l.line()));
    for unit in &system.decision_units {
        lines.push(unit.line());
        lines.extend(unit.rules.iter().map(|r| r.line()));
    }
    for o in &system.outcomes {
        lines.push(o.definition.line());
        lines.extend(o.risk.iter().map(|l| l.line()));
        lines.extend(o.management.iter().map(|l| l.line()));
    }
    for v in &system.variants {
        lines.push(v.label.line());
        lines.extend(v.procedures.iter().map(|p| p.line()));
    }
    let verified = lines
        .iter()
        .filter(|l| l.verification == Verification::Verified)
        .count() as u32;
    Counts {
        lines: lines.len() as u32,
        draft_lines: lines.len() as u32 - verified,
        verified_lines: verified,
        outcomes: system.outcomes.len() as u32,
        decision_units: system.decision_units.len() as u32,
        rules: system
            .decision_units
            .iter()
            .map(|u| u.rules.len() as u32)
            .sum(),
        inputs: system.inputs.len() as u32,
        examples: system
            .decision_units
            .iter()
            .map(|u| u.examples.len() as u32)
            .sum(),
    }
}

#[derive(Serialize)]
struct CrossrefOut<'a> {
    relation: Relation,
    note: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    slug: Option<&'a str>,
    /// Whether the target is served by this corpus yet (planned systems are not).
    #[serde(skip_serializing_if = "Option::is_none")]
    available: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    external: Option<&'a External>,
    /// On a `supersedes` link: how the earlier version's ids correspond to this one's.
    #[serde(skip_serializing_if = "Option::is_none")]
    maps: Option<&'a Correspondence>,
}

#[derive(Serialize)]
struct Detail<'a> {
    notice: &'static str,
    slug: &'a str,
    name: &'a str,
    short_name: &'a str,
    abbreviations: &'a [String],
    synonyms: &'a [String],
    family: Family,
    status: Status,
    organs: &'a [String],
    modalities: &'a [String],
    issuer: &'a str,
    version: &'a str,
    summary: &'a str,
    currency: &'a Currency,
    lineage: &'a [LineageEvent],
    references: &'a BTreeMap<String, Reference>,
    scope: &'a [Line],
    inputs: &'a [Input],
    decision_units: &'a [DecisionUnit],
    outcomes: &'a [Outcome],
    #[serde(skip_serializing_if = "<[Variant]>::is_empty")]
    variants: &'a [Variant],
    crossrefs: Vec<CrossrefOut<'a>>,
    gaps: &'a [Gap],
    #[serde(skip_serializing_if = "<[Code]>::is_empty")]
    codes: &'a [Code],
    counts: Counts,
    links: Links,
}

#[derive(Serialize)]
struct Links {
    #[serde(rename = "self")]
    self_: String,
}

#[derive(Serialize)]
struct Summary<'a> {
    slug: &'a str,
    name: &'a str,
    short_name: &'a str,
    family: Family,
    status: Status,
    organs: &'a [String],
    modalities: &'a [String],
    issuer: &'a str,
    version: &'a str,
    summary: &'a str,
    currency: &'a Currency,
    counts: Counts,
    links: Links,
}

/// A document of the search index: a system or one of its outcomes.
struct DocSpec {
    kind: &'static str,
    system: usize,
    code: String,
    label: String,
}

/// The event of the changes feed that announces a system joining the corpus (beside the
/// lineage's version events).
pub const ADDED: &str = "added";

/// A system whose outcomes named by a clinical variant's id (appropriateness criteria: the
/// decision unit chooses the variant) answer with that variant's procedures: each rating and
/// relative radiation level becomes a management line of the outcome, cited where the
/// variant's table is. An outcome that states its own management keeps it.
pub fn with_variant_answers(system: &System) -> System {
    let mut system = system.clone();
    for outcome in &mut system.outcomes {
        let Some(variant) = system.variants.iter().find(|v| v.id == outcome.code) else {
            continue;
        };
        if !outcome.management.is_empty() {
            continue;
        }
        outcome.management = variant
            .procedures
            .iter()
            .map(|p| Line {
                text: format!(
                    "{}: {}{}.",
                    p.procedure,
                    p.rating.words(),
                    p.rrl
                        .as_deref()
                        .map(|r| format!(" (relative radiation level {r})"))
                        .unwrap_or_default()
                ),
                citation: p.citation.clone(),
                locator: p.locator.clone(),
                consensus: p.consensus,
                verification: p.verification,
                reviewer: p.reviewer.clone(),
                reviewed_on: p.reviewed_on.clone(),
            })
            .collect();
    }
    system
}

/// Compiles validated sources. Call only after `validate` reported no problem.
pub fn compile(sources: &Sources) -> Result<Compiled, String> {
    // The answers of appropriateness systems carry their variant's procedures (derived here,
    // so the source states each rating once); the counts are the source's own lines.
    let answered: Vec<System> = sources
        .systems
        .iter()
        .map(|(_, s)| with_variant_answers(s))
        .collect();
    let systems: Vec<&System> = answered.iter().collect();
    let names: BTreeMap<&str, &str> = systems
        .iter()
        .map(|s| (s.slug.as_str(), s.short_name.as_str()))
        .collect();
    let mut files = Vec::new();
    let mut totals = Counts::default();
    let mut tables = String::new();
    let counts: Vec<Counts> = sources.systems.iter().map(|(_, s)| count(s)).collect();
    for c in &counts {
        totals.add(c);
    }

    // System detail bodies and summaries.
    writeln!(tables, "pub static SYSTEMS: &[SystemEntry] = &[").unwrap();
    for (system, counts) in systems.iter().zip(&counts) {
        let links = Links {
            self_: format!("/api/v1/systems/{}", system.slug),
        };
        let detail = Detail {
            notice: NOTICE,
            slug: &system.slug,
            name: &system.name,
            short_name: &system.short_name,
            abbreviations: &system.abbreviations,
            synonyms: &system.synonyms,
            family: system.family,
            status: system.status,
            organs: &system.organs,
            modalities: &system.modalities,
            issuer: &system.issuer,
            version: &system.version,
            summary: &system.summary,
            currency: &system.currency,
            lineage: &system.lineage,
            references: &system.references,
            scope: &system.scope,
            inputs: &system.inputs,
            decision_units: &system.decision_units,
            outcomes: &system.outcomes,
            variants: &system.variants,
            crossrefs: system
                .crossrefs
                .iter()
                .map(|x| CrossrefOut {
                    relation: x.relation,
                    note: &x.note,
                    slug: x.slug.as_deref(),
                    available: x.slug.as_deref().map(|s| names.contains_key(s)),
                    name: x.slug.as_deref().and_then(|s| names.get(s).copied()),
                    external: x.external.as_ref(),
                    maps: x.maps.as_ref(),
                })
                .collect(),
            gaps: &system.gaps,
            codes: &system.codes,
            counts: *counts,
            links: Links {
                self_: links.self_.clone(),
            },
        };
        let body = serde_json::to_vec(&detail).map_err(|e| e.to_string())?;
        files.push((format!("systems/{}.json", system.slug), body));
        let summary = Summary {
            slug: &system.slug,
            name: &system.name,
            short_name: &system.short_name,
            family: system.family,
            status: system.status,
            organs: &system.organs,
            modalities: &system.modalities,
            issuer: &system.issuer,
            version: &system.version,
            summary: &system.summary,
            currency: &system.currency,
            counts: *counts,
            links,
        };
        let summary = serde_json::to_string(&summary).map_err(|e| e.to_string())?;
        writeln!(
            tables,
            "    SystemEntry {{ slug: {:?}, name: {:?}, short_name: {:?}, abbreviations: &{:?}, \
             synonyms: &{:?}, family: Family::{:?}, status: Status::{:?}, organs: &{:?}, \
             modalities: &{:?}, effective: {:?}, superseded: {:?}, summary_json: {:?} }},",
            system.slug,
            system.name,
            system.short_name,
            system.abbreviations,
            system.synonyms,
            system.family,
            system.status,
            system.organs,
            system.modalities,
            system.currency.effective,
            !system.currency.superseded_by.is_empty(),
            summary
        )
        .unwrap();
    }
    writeln!(tables, "];").unwrap();

    // Organs with their counts per family.
    let mut organs: BTreeMap<&str, BTreeMap<&str, u32>> = BTreeMap::new();
    for s in &systems {
        for organ in &s.organs {
            *organs
                .entry(organ)
                .or_default()
                .entry(s.family.as_str())
                .or_default() += 1;
        }
    }
    let organ_list: Vec<serde_json::Value> = organs
        .iter()
        .map(|(organ, families)| {
            let total: u32 = families.values().sum();
            let mut by_family = serde_json::Map::new();
            for f in Family::ALL {
                by_family.insert(
                    f.as_str().into(),
                    (*families.get(f.as_str()).unwrap_or(&0)).into(),
                );
            }
            serde_json::json!({
                "organ": organ,
                "systems": total,
                "by_family": by_family,
                "links": { "systems": format!("/api/v1/systems?organ={}", organ.replace(' ', "%20")) },
            })
        })
        .collect();
    let organs_body = serde_json::json!({ "data": organ_list, "meta": { "total": organs.len() } });
    files.push((
        "organs.json".into(),
        serde_json::to_vec(&organs_body).map_err(|e| e.to_string())?,
    ));

    // Version events, newest first.
    let mut events: Vec<(String, String, serde_json::Value)> = Vec::new();
    for s in &systems {
        // A version with another version in the corpus links its events to what changed
        // between the two: from the version it supersedes, else to the one that supersedes it.
        let diff = match (
            s.currency.supersedes.first(),
            s.currency.superseded_by.first(),
        ) {
            (Some(old), _) => Some(format!("/api/v1/systems/{old}/diff/{}", s.slug)),
            (None, Some(new)) => Some(format!("/api/v1/systems/{}/diff/{new}", s.slug)),
            _ => None,
        };
        for e in &s.lineage {
            let id = format!("{}/{}/{}/{}", s.slug, e.event.as_str(), e.version, e.date);
            let mut links = serde_json::json!({ "system": format!("/api/v1/systems/{}", s.slug) });
            if let Some(diff) = &diff {
                links["diff"] = serde_json::json!(diff);
            }
            let value = serde_json::json!({
                "id": id,
                "date": e.date,
                "slug": s.slug,
                "system": s.short_name,
                "version": e.version,
                "event": e.event.as_str(),
                "summary": e.summary,
                "citation": e.citation.as_ref().and_then(|c| s.references.get(c)),
                "links": links,
            });
            events.push((date_key(&e.date), id, value));
        }
        // A system that joined the corpus after its first release is announced that day.
        if let Some(added) = &s.currency.added {
            let id = format!("{}/added/{}/{added}", s.slug, s.version);
            let value = serde_json::json!({
                "id": id,
                "date": added,
                "slug": s.slug,
                "system": s.short_name,
                "version": s.version,
                "event": ADDED,
                "summary": format!("{} ({}) joined radref's corpus.", s.name, s.version),
                "citation": serde_json::Value::Null,
                "links": { "system": format!("/api/v1/systems/{}", s.slug) },
            });
            events.push((date_key(added), id, value));
        }
    }
    events.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    writeln!(tables, "pub static EVENTS: &[EventEntry] = &[").unwrap();
    for (key, id, value) in &events {
        writeln!(
            tables,
            "    EventEntry {{ date: {key:?}, id: {id:?}, json: {:?} }},",
            value.to_string()
        )
        .unwrap();
    }
    writeln!(tables, "];").unwrap();
    files.push(("changes.xml".into(), rss(&events).into_bytes()));

    // Every decision unit id, sorted (the `units` selection of an evaluation, which the OpenAPI
    // document and the MCP tools list): a table, so they need no system body.
    let mut unit_ids: Vec<&str> = systems
        .iter()
        .flat_map(|s| s.decision_units.iter().map(|u| u.id.as_str()))
        .collect();
    unit_ids.sort_unstable();
    unit_ids.dedup();
    writeln!(
        tables,
        "/// Every decision unit id of the corpus (the `units` selection of an evaluation), sorted."
    )
    .unwrap();
    writeln!(tables, "pub static UNIT_IDS: &[&str] = &{unit_ids:?};").unwrap();

    // Coverage.
    files.push((
        "coverage.json".into(),
        coverage(sources, &systems, &counts, &totals)?,
    ));

    // Search documents and the term index.
    let mut docs: Vec<DocSpec> = Vec::new();
    let mut terms: BTreeMap<String, BTreeSet<Posting>> = BTreeMap::new();
    let mut whole_marks: Vec<(String, usize, Field)> = Vec::new();
    let mut add = |terms_of: Vec<String>, doc: usize, field: Field| {
        for t in terms_of {
            if t.len() > 64 {
                continue;
            }
            terms.entry(t).or_default().insert(Posting {
                doc: doc as u16,
                field,
                whole: false,
            });
        }
    };
    // The whole of an identifying text, joined ("LI-RADS" -> `lirads`), marked as such.
    let whole_term = |text: &str| super::text::words(text).concat();
    for (i, s) in systems.iter().enumerate() {
        let doc = docs.len();
        docs.push(DocSpec {
            kind: "System",
            system: i,
            code: String::new(),
            label: s.name.clone(),
        });
        add(identity_terms(&s.name), doc, Field::Name);
        add(identity_terms(&s.short_name), doc, Field::ShortName);
        whole_marks.push((whole_term(&s.short_name), doc, Field::ShortName));
        for a in &s.abbreviations {
            add(identity_terms(a), doc, Field::Abbreviation);
            whole_marks.push((whole_term(a), doc, Field::Abbreviation));
        }
        for a in &s.synonyms {
            add(identity_terms(a), doc, Field::Synonym);
            whole_marks.push((whole_term(a), doc, Field::Synonym));
        }
        add(identity_terms(&s.slug), doc, Field::Slug);
        for o in &s.organs {
            add(identity_terms(o), doc, Field::Organ);
        }
        for m in &s.modalities {
            add(identity_terms(m), doc, Field::Modality);
        }
        add(text_terms(&s.issuer), doc, Field::Issuer);
        add(text_terms(&s.summary), doc, Field::Summary);
        let mut text = String::new();
        for l in &s.scope {
            text.push_str(&l.text);
            text.push(' ');
        }
        for input in &s.inputs {
            text.push_str(&input.label);
            text.push(' ');
            for v in &input.values {
                text.push_str(&v.label);
                text.push(' ');
            }
        }
        for u in &s.decision_units {
            text.push_str(&u.title);
            text.push(' ');
        }
        for v in &s.variants {
            text.push_str(&v.label.text);
            text.push(' ');
            for p in &v.procedures {
                text.push_str(&p.procedure);
                text.push(' ');
            }
        }
        add(text_terms(&text), doc, Field::Text);

        let system_terms: Vec<String> = std::iter::once(&s.short_name)
            .chain(&s.abbreviations)
            .flat_map(|n| identity_terms(n))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for o in &s.outcomes {
            let doc = docs.len();
            docs.push(DocSpec {
                kind: "Outcome",
                system: i,
                code: o.code.clone(),
                label: o.label.clone(),
            });
            add(identity_terms(&o.code), doc, Field::Code);
            whole_marks.push((whole_term(&o.code), doc, Field::Code));
            // "Lung-RADS 4B", "TI-RADS TR4": the system's names joined with the code.
            for n in std::iter::once(&s.short_name).chain(&s.abbreviations) {
                add(identity_terms(&format!("{n} {}", o.code)), doc, Field::Code);
            }
            add(identity_terms(&o.label), doc, Field::Label);
            add(system_terms.clone(), doc, Field::System);
            let mut text = o.definition.text.clone();
            for l in o.risk.iter().chain(&o.management) {
                text.push(' ');
                text.push_str(&l.text);
            }
            add(text_terms(&text), doc, Field::Text);
        }
    }
    for (term, doc, field) in whole_marks {
        if let Some(set) = terms.get_mut(&term) {
            let plain = Posting {
                doc: doc as u16,
                field,
                whole: false,
            };
            if set.remove(&plain) {
                set.insert(Posting {
                    whole: true,
                    ..plain
                });
            }
        }
    }
    if docs.len() > u16::MAX as usize {
        return Err(format!(
            "{} search documents exceed the index's limit of {}",
            docs.len(),
            u16::MAX
        ));
    }
    writeln!(tables, "pub static DOCS: &[DocEntry] = &[").unwrap();
    for d in &docs {
        writeln!(
            tables,
            "    DocEntry {{ kind: DocKind::{}, system: {}, code: {:?}, label: {:?} }},",
            d.kind, d.system, d.code, d.label
        )
        .unwrap();
    }
    writeln!(tables, "];").unwrap();

    let mut builder = fst::MapBuilder::memory();
    let mut lists = Vec::with_capacity(terms.len());
    for (i, (term, postings)) in terms.iter().enumerate() {
        builder
            .insert(term, i as u64)
            .map_err(|e| format!("fst insert '{term}': {e}"))?;
        lists.push(postings.iter().copied().collect::<Vec<_>>());
    }
    let fst = builder.into_inner().map_err(|e| e.to_string())?;
    let postings = write_postings(&lists);

    writeln!(
        tables,
        "pub const TOTALS: Totals = Totals {{ systems: {}, lines: {}, draft_lines: {}, \
         verified_lines: {}, outcomes: {}, decision_units: {}, rules: {}, terms: {} }};",
        systems.len(),
        totals.lines,
        totals.draft_lines,
        totals.verified_lines,
        totals.outcomes,
        totals.decision_units,
        totals.rules,
        terms.len()
    )
    .unwrap();

    let mut hasher = Sha256::new();
    for (name, bytes) in &files {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(bytes);
        hasher.update([0]);
    }
    hasher.update(&fst);
    hasher.update(&postings);
    hasher.update(tables.as_bytes());
    let knowledge = match &sources.grounding {
        Some(g) => super::grounding::emit(g, &sources.systems),
        None => return Err("corpus/grounding/ is missing: the build needs lexicon.json, cues.json and ranking.json (corpus/README.md, Grounding knowledge)".into()),
    };
    hasher.update(knowledge.as_bytes());
    let hash = hex::encode(hasher.finalize());

    Ok(Compiled {
        hash,
        files,
        fst,
        postings,
        tables,
        knowledge,
        totals,
        terms: terms.len(),
    })
}

fn coverage(
    sources: &Sources,
    systems: &[&System],
    counts: &[Counts],
    totals: &Counts,
) -> Result<Vec<u8>, String> {
    let mut by_family = Vec::new();
    for f in Family::ALL {
        let mut c = Counts::default();
        let mut n = 0;
        for (s, sc) in systems.iter().zip(counts) {
            if s.family == f {
                c.add(sc);
                n += 1;
            }
        }
        by_family.push(serde_json::json!({ "family": f.as_str(), "systems": n, "counts": c }));
    }
    let mut organs: BTreeMap<&str, (u32, Counts)> = BTreeMap::new();
    for (s, sc) in systems.iter().zip(counts) {
        for o in &s.organs {
            let e = organs.entry(o).or_default();
            e.0 += 1;
            e.1.add(sc);
        }
    }
    let by_organ: Vec<_> = organs
        .iter()
        .map(|(o, (n, c))| serde_json::json!({ "organ": o, "systems": n, "counts": c }))
        .collect();
    let covered: Vec<_> = systems
        .iter()
        .zip(counts)
        .map(|(s, c)| {
            serde_json::json!({
                "slug": s.slug,
                "name": s.short_name,
                "family": s.family,
                "status": s.status,
                "counts": c,
                "gaps": s.gaps,
                "inputs_not_modelled": s.gaps.iter().filter(|g| g.kind == GapKind::Input).map(|g| g.topic.as_str()).collect::<Vec<_>>(),
                "codes": code_counts(s),
            })
        })
        .collect();
    // Systems the evaluator cannot be asked at all, with what their gaps say stands in the way.
    let not_evaluable: Vec<_> = systems
        .iter()
        .filter(|s| s.decision_units.is_empty())
        .map(|s| {
            let reasons: Vec<_> = s
                .gaps
                .iter()
                .map(|g| serde_json::json!({ "topic": g.topic, "reason": g.reason }))
                .collect();
            serde_json::json!({ "slug": s.slug, "name": s.short_name, "reasons": reasons })
        })
        .collect();
    let not_covered = sources
        .coverage
        .as_ref()
        .map(|c| c.not_covered.clone())
        .unwrap_or_default();
    let body = serde_json::json!({
        "notice": NOTICE,
        "totals": { "systems": systems.len(), "counts": totals,
            "systems_with_codes": systems.iter().filter(|s| !all_codes(s).is_empty()).count() },
        "by_family": by_family,
        "by_organ": by_organ,
        "covered": covered,
        "not_evaluable": not_evaluable,
        "not_covered": not_covered,
    });
    serde_json::to_vec(&body).map_err(|e| e.to_string())
}

/// Every external code a system carries: its own, its inputs' and their values', its units'
/// and its outcomes'.
pub fn all_codes(s: &System) -> Vec<&Code> {
    let mut out: Vec<&Code> = s.codes.iter().collect();
    for i in &s.inputs {
        out.extend(&i.codes);
        for v in &i.values {
            out.extend(&v.codes);
        }
    }
    for u in &s.decision_units {
        out.extend(&u.codes);
    }
    for o in &s.outcomes {
        out.extend(&o.codes);
    }
    out
}

/// How many codes a system carries, per scheme (schemes it has none of are left out).
fn code_counts(s: &System) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for c in all_codes(s) {
        *counts.entry(c.scheme.as_str()).or_insert(0) += 1;
    }
    counts
}

/// The RSS 2.0 feed of version events. `{{BASE}}` stands for the service's origin and is
/// replaced when served, so links are absolute wherever the worker runs.
fn rss(events: &[(String, String, serde_json::Value)]) -> String {
    let mut items = String::new();
    for (key, id, e) in events {
        let slug = e["slug"].as_str().unwrap_or_default();
        let link = e["links"]["diff"]
            .as_str()
            .map_or_else(|| format!("/api/v1/systems/{slug}"), String::from);
        let title = format!(
            "{} {}: {}",
            e["system"].as_str().unwrap_or_default(),
            e["version"].as_str().unwrap_or_default(),
            e["event"].as_str().unwrap_or_default()
        );
        let _ = write!(
            items,
            "<item><title>{}</title><link>{{{{BASE}}}}{}</link>\
             <guid isPermaLink=\"false\">{}</guid><pubDate>{}</pubDate>\
             <category>{}</category><description>{}</description></item>",
            xml_escape(&title),
            xml_escape(&link),
            xml_escape(id),
            rfc822(key),
            xml_escape(e["event"].as_str().unwrap_or_default()),
            xml_escape(e["summary"].as_str().unwrap_or_default()),
        );
    }
    let last = events
        .first()
        .map(|(k, _, _)| rfc822(k))
        .unwrap_or_else(|| rfc822("1970-01-01"));
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\"><channel>\
         <title>radref: changes to radiology classification systems</title>\
         <link>{{{{BASE}}}}/api/v1/changes</link>\
         <atom:link href=\"{{{{BASE}}}}/feed/changes.xml\" rel=\"self\" type=\"application/rss+xml\"/>\
         <description>Version events (published, updated, superseded, retired) of the radiology \
         classification systems in the radref corpus, and the systems it adds. Reference \
         material, not a medical device.</description>\
         <language>en</language><lastBuildDate>{last}</lastBuildDate>{items}</channel></rss>\n"
    )
}

/// Formats a `YYYY-MM-DD` date as an RFC 822 date at midnight UTC.
pub fn rfc822(date: &str) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    let key = date_key(date);
    let y: i64 = key[0..4].parse().unwrap_or(1970);
    let m: u32 = key[5..7].parse().unwrap_or(1);
    let d: u32 = key[8..10].parse().unwrap_or(1);
    let days = days_from_civil(y, m, d);
    format!(
        "{}, {:02} {} {} 00:00:00 +0000",
        DAYS[days.rem_euclid(7) as usize],
        d,
        MONTHS[(m.clamp(1, 12) - 1) as usize],
        y
    )
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc822_dates() {
        assert_eq!(rfc822("2017-05-01"), "Mon, 01 May 2017 00:00:00 +0000");
        assert_eq!(rfc822("1970-01-01"), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(rfc822("2025-12"), "Mon, 01 Dec 2025 00:00:00 +0000");
        assert_eq!(rfc822("2024"), "Mon, 01 Jan 2024 00:00:00 +0000");
    }

    #[test]
    fn xml_is_escaped() {
        assert_eq!(xml_escape("a < b & \"c\""), "a &lt; b &amp; &quot;c&quot;");
    }
}
