//! The corpus rules that a build must never ship without.
//!
//! Parsing (in `load`) already refuses unknown fields and enum values outside the schema;
//! this module checks what the types cannot express: every clinical line cited and located,
//! references that exist, well-formed DOIs and dates, slugs that keep the public contract, and
//! decision units whose rules only name inputs, values and outcomes that exist.
//!
//! Each problem names the file, a JSON path inside it and the reason, so the author can go
//! straight to the line.

use super::evaluate::Model;
use super::load::Sources;
use super::problem::Problem;
use super::source::*;
use super::syntax::{date_key, is_date, is_doi, is_ident, is_slug};
use std::collections::{BTreeMap, BTreeSet};

/// Checks the whole corpus; an empty result means it may be built.
pub fn validate(sources: &Sources) -> Vec<Problem> {
    let mut problems = Vec::new();
    let planned: BTreeSet<&str> = sources
        .coverage
        .iter()
        .flat_map(|c| c.not_covered.iter())
        .filter_map(|n| n.planned_slug.as_deref())
        .collect();
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (file, system) in &sources.systems {
        if let Some(first) = seen.insert(&system.slug, file) {
            problems.push(Problem {
                file: file.clone(),
                path: "$.slug".into(),
                reason: format!("duplicate slug '{}' (also in {first})", system.slug),
            });
        }
    }
    let by_slug: BTreeMap<&str, &System> = sources
        .systems
        .iter()
        .map(|(_, system)| (system.slug.as_str(), system))
        .collect();
    let known: BTreeSet<&str> = seen
        .keys()
        .copied()
        .chain(planned.iter().copied())
        .collect();
    for (file, system) in &sources.systems {
        let mut check = Checker {
            file,
            system,
            known_slugs: &known,
            systems: &by_slug,
            problems: &mut problems,
        };
        check.system();
    }
    let registry: BTreeSet<&str> = sources.registry.iter().map(String::as_str).collect();
    for slug in &sources.registry {
        if !seen.contains_key(slug.as_str()) {
            problems.push(Problem {
                file: "slugs.txt".into(),
                path: "$".into(),
                reason: format!(
                    "published slug '{slug}' has no file systems/{slug}.json: slugs are never \
                     removed; restore the file (a retired system keeps its page)"
                ),
            });
        }
    }
    for (slug, file) in &seen {
        if !registry.contains(slug) {
            problems.push(Problem {
                file: file.to_string(),
                path: "$.slug".into(),
                reason: format!("slug '{slug}' is not in slugs.txt: add it to publish the system"),
            });
        }
        if planned.contains(slug) {
            problems.push(Problem {
                file: "coverage.json".into(),
                path: "$.not_covered".into(),
                reason: format!("'{slug}' is authored; remove it from the not-covered list"),
            });
        }
    }
    if let Some(grounding) = &sources.grounding {
        problems.extend(super::grounding::validate(grounding, &sources.systems));
    }
    problems.sort();
    problems
}

/// Checks one system file, collecting problems.
/// The ids of a system's decision units (what `derived_from` and `defers_to` name).
fn unit_ids(system: &System) -> BTreeSet<&str> {
    system
        .decision_units
        .iter()
        .map(|u| u.id.as_str())
        .collect()
}

struct Checker<'a> {
    file: &'a str,
    system: &'a System,
    known_slugs: &'a BTreeSet<&'a str>,
    systems: &'a BTreeMap<&'a str, &'a System>,
    problems: &'a mut Vec<Problem>,
}

impl Checker<'_> {
    fn fail(&mut self, path: impl Into<String>, reason: impl Into<String>) {
        self.problems.push(Problem {
            file: self.file.to_string(),
            path: path.into(),
            reason: reason.into(),
        });
    }

    fn system(&mut self) {
        let s = self.system;
        if !is_slug(&s.slug) {
            self.fail(
                "$.slug",
                format!("slug '{}' must match ^[a-z0-9-]+$", s.slug),
            );
        }
        let stem = self
            .file
            .rsplit('/')
            .next()
            .unwrap_or(self.file)
            .trim_end_matches(".json");
        if stem != s.slug {
            self.fail(
                "$.slug",
                format!("slug '{}' does not match the file name '{stem}'", s.slug),
            );
        }
        for (field, value) in [
            ("name", &s.name),
            ("short_name", &s.short_name),
            ("issuer", &s.issuer),
            ("version", &s.version),
            ("summary", &s.summary),
        ] {
            if value.trim().is_empty() {
                self.fail(format!("$.{field}"), "must not be empty");
            }
        }
        if s.organs.is_empty() {
            self.fail("$.organs", "at least one organ is required");
        }
        for (i, organ) in s.organs.iter().enumerate() {
            if organ.trim().is_empty() || *organ != organ.to_lowercase() {
                self.fail(
                    format!("$.organs[{i}]"),
                    "organs are non-empty and lower case",
                );
            }
        }
        if s.modalities.is_empty() {
            self.fail("$.modalities", "at least one modality is required");
        }
        for (i, m) in s.modalities.iter().enumerate() {
            if !MODALITIES.contains(&m.as_str()) {
                self.fail(
                    format!("$.modalities[{i}]"),
                    format!("unknown modality '{m}'; allowed: {}", MODALITIES.join(", ")),
                );
            }
        }
        self.currency();
        self.references();
        self.lineage();
        for (i, line) in s.scope.iter().enumerate() {
            self.line(&format!("$.scope[{i}]"), line);
        }
        self.inputs();
        self.units();
        self.outcomes();
        self.variants();
        self.crossrefs();
        self.codes();
        for (i, gap) in s.gaps.iter().enumerate() {
            if gap.topic.trim().is_empty() || gap.reason.trim().is_empty() {
                self.fail(format!("$.gaps[{i}]"), "a gap needs a topic and a reason");
            }
        }
    }

    fn currency(&mut self) {
        let c = &self.system.currency;
        self.date("$.currency.effective", &c.effective);
        self.date("$.currency.last_reviewed", &c.last_reviewed);
        if let Some(added) = &c.added {
            self.date("$.currency.added", added);
        }
        for (field, slugs) in [
            ("supersedes", &c.supersedes),
            ("superseded_by", &c.superseded_by),
        ] {
            for (i, slug) in slugs.iter().enumerate() {
                self.known_slug(&format!("$.currency.{field}[{i}]"), slug);
            }
        }
    }

    fn references(&mut self) {
        if self.system.references.is_empty() {
            self.fail("$.references", "at least one reference is required");
        }
        for (id, r) in &self.system.references {
            let path = format!("$.references.{id}");
            if !is_ident(id, '_') {
                self.fail(
                    &path,
                    format!("reference id '{id}' must match ^[a-z0-9_]+$"),
                );
            }
            if r.authors.is_empty() || r.authors.iter().any(|a| a.trim().is_empty()) {
                self.fail(format!("{path}.authors"), "authors must be non-empty names");
            }
            if r.title.trim().is_empty() {
                self.fail(format!("{path}.title"), "must not be empty");
            }
            if !(1900..=2100).contains(&r.year) {
                self.fail(
                    format!("{path}.year"),
                    format!("implausible year {}", r.year),
                );
            }
            if let Some(doi) = &r.doi {
                if !is_doi(doi) {
                    self.fail(
                        format!("{path}.doi"),
                        format!("malformed DOI '{doi}': must match 10.NNNN/suffix (no 'doi:' or URL prefix)"),
                    );
                }
            }
            if let Some(pmid) = &r.pmid {
                if pmid.is_empty() || !pmid.bytes().all(|b| b.is_ascii_digit()) {
                    self.fail(
                        format!("{path}.pmid"),
                        format!("PMID '{pmid}' must be digits"),
                    );
                }
            }
            if let Some(url) = &r.url {
                if !url.starts_with("https://") && !url.starts_with("http://") {
                    self.fail(format!("{path}.url"), "url must be http(s)");
                }
            }
        }
    }

    fn lineage(&mut self) {
        let lineage = &self.system.lineage;
        if lineage.is_empty() {
            self.fail("$.lineage", "at least one version event is required");
        }
        for (i, e) in lineage.iter().enumerate() {
            let path = format!("$.lineage[{i}]");
            self.date(&format!("{path}.date"), &e.date);
            if e.summary.trim().is_empty() {
                self.fail(format!("{path}.summary"), "must not be empty");
            }
            if let Some(c) = &e.citation {
                self.citation(&format!("{path}.citation"), c);
            }
            if i > 0 && date_key(&lineage[i - 1].date) > date_key(&e.date) {
                self.fail(
                    format!("{path}.date"),
                    "lineage must be in date order, oldest first",
                );
            }
        }
    }

    fn inputs(&mut self) {
        let mut ids = BTreeSet::new();
        let unit_ids = unit_ids(self.system);
        for (i, input) in self.system.inputs.iter().enumerate() {
            let path = format!("$.inputs[{i}]");
            self.line(&path, input);
            if !is_ident(&input.id, '_') || !input.id.starts_with(|c: char| c.is_ascii_lowercase())
            {
                self.fail(
                    format!("{path}.id"),
                    format!("input id '{}' must match ^[a-z][a-z0-9_]*$", input.id),
                );
            }
            if !ids.insert(input.id.as_str()) {
                self.fail(
                    format!("{path}.id"),
                    format!("duplicate input id '{}'", input.id),
                );
            }
            if RESERVED_PARAMS.contains(&input.id.as_str()) {
                self.fail(
                    format!("{path}.id"),
                    format!(
                        "input id '{}' is reserved: the evaluate route reads it as a parameter",
                        input.id
                    ),
                );
            }
            if input.listed && input.kind != InputType::Multi {
                self.fail(
                    format!("{path}.listed"),
                    "only a multi input is listed (its values read as the whole list)",
                );
            }
            if !input.named_by.is_empty() {
                let percent = input.kind == InputType::Number && input.unit.as_deref() == Some("%");
                let flag = input.kind == InputType::Boolean && input.about.is_none();
                if !percent && !flag {
                    self.fail(
                        format!("{path}.named_by"),
                        "only a number input in % or a boolean input about a finding is named by report phrases",
                    );
                }
                let mut seen = BTreeSet::new();
                for (j, phrase) in input.named_by.iter().enumerate() {
                    let folded = crate::text::joined(phrase);
                    if folded.is_empty() || folded != *phrase {
                        self.fail(
                            format!("{path}.named_by[{j}]"),
                            format!("'{phrase}' must be folded words (lower case, single spaces)"),
                        );
                    }
                    if !seen.insert(folded) {
                        self.fail(
                            format!("{path}.named_by[{j}]"),
                            format!("duplicate phrase '{phrase}'"),
                        );
                    }
                }
            }
            match input.kind {
                InputType::Enum | InputType::Multi => {
                    if input.values.is_empty() {
                        self.fail(
                            format!("{path}.values"),
                            "enum and multi inputs need values",
                        );
                    }
                    let mut values = BTreeSet::new();
                    for (j, v) in input.values.iter().enumerate() {
                        if input.kind == InputType::Multi && v.value.contains(',') {
                            self.fail(
                                format!("{path}.values[{j}]"),
                                "a multi value cannot contain ',' (the GET form separates values with it)",
                            );
                        }
                        if !values.insert(v.value.as_str()) {
                            self.fail(
                                format!("{path}.values[{j}]"),
                                format!("duplicate value '{}'", v.value),
                            );
                        }
                    }
                }
                InputType::Number => {
                    if input.unit.as_deref().is_none_or(|u| u.trim().is_empty()) {
                        self.fail(format!("{path}.unit"), "number inputs need a unit");
                    }
                }
                InputType::Boolean => {}
            }
            if let Some(unit) = &input.derived_from {
                if !unit_ids.contains(unit.as_str()) {
                    self.fail(
                        format!("{path}.derived_from"),
                        format!("no decision unit '{unit}'"),
                    );
                }
            }
        }
    }

    fn units(&mut self) {
        let inputs: BTreeMap<&str, &Input> = self
            .system
            .inputs
            .iter()
            .map(|i| (i.id.as_str(), i))
            .collect();
        let outcomes: BTreeSet<&str> = self
            .system
            .outcomes
            .iter()
            .map(|o| o.code.as_str())
            .collect();
        let unit_ids = unit_ids(self.system);
        let mut ids = BTreeSet::new();
        for (u, unit) in self.system.decision_units.iter().enumerate() {
            let path = format!("$.decision_units[{u}]");
            self.line(&path, unit);
            if !ids.insert(unit.id.as_str()) {
                self.fail(
                    format!("{path}.id"),
                    format!("duplicate decision unit id '{}'", unit.id),
                );
            }
            if unit.rules.is_empty() {
                self.fail(format!("{path}.rules"), "a decision unit needs rules");
            }
            for (i, id) in unit.inputs.iter().enumerate() {
                if !inputs.contains_key(id.as_str()) {
                    self.fail(format!("{path}.inputs[{i}]"), format!("no input '{id}'"));
                }
            }
            let mut vars: BTreeMap<&str, Var> = unit
                .inputs
                .iter()
                .filter_map(|id| {
                    inputs
                        .get(id.as_str())
                        .map(|i| (id.as_str(), Var::Input(i)))
                })
                .collect();
            if let Some(score) = &unit.score {
                for (i, id) in score.sum.iter().enumerate() {
                    let spath = format!("{path}.score.sum[{i}]");
                    match inputs.get(id.as_str()) {
                        Some(input) if !unit.inputs.contains(id) => {
                            let _ = input;
                            self.fail(spath, format!("'{id}' is not an input of this unit"))
                        }
                        Some(input) if input.values.iter().all(|v| v.points.is_none()) => {
                            self.fail(spath, format!("input '{id}' has no points to sum"))
                        }
                        Some(_) => {}
                        None => self.fail(spath, format!("no input '{id}'")),
                    }
                }
                if vars.insert(score.id.as_str(), Var::Score).is_some() {
                    self.fail(
                        format!("{path}.score.id"),
                        "score id collides with an input id",
                    );
                }
            }
            for (r, rule) in unit.rules.iter().enumerate() {
                let rpath = format!("{path}.rules[{r}]");
                self.line(&rpath, rule);
                match (&rule.outcome, &rule.result) {
                    (None, None) => self.fail(&rpath, "a rule needs an outcome or a result"),
                    (Some(code), _) if !outcomes.contains(code.as_str()) => self.fail(
                        format!("{rpath}.outcome"),
                        format!("outcome '{code}' is not defined in outcomes"),
                    ),
                    _ => {}
                }
                // A rule that defers names other units of this system and decides nothing
                // of its own: a result says where to look, never an outcome.
                for (d, id) in rule.defers_to.iter().enumerate() {
                    let dpath = format!("{rpath}.defers_to[{d}]");
                    if id == &unit.id {
                        self.fail(dpath, "a unit does not defer to itself");
                    } else if !unit_ids.contains(id.as_str()) {
                        self.fail(dpath, format!("no decision unit '{id}' in this system"));
                    }
                }
                if !rule.defers_to.is_empty() && rule.outcome.is_some() {
                    self.fail(
                        format!("{rpath}.defers_to"),
                        "a rule that defers has a result, not an outcome",
                    );
                }
                self.condition(&format!("{rpath}.when"), &rule.when, &vars);
            }
            for (k, example) in unit.examples.iter().enumerate() {
                self.example(&format!("{path}.examples[{k}]"), example, &outcomes);
            }
        }
        if let Err(cycle) = Model::of(self.system).order() {
            self.fail(
                "$.decision_units",
                format!(
                    "decision units feed each other in a cycle through derived inputs: {}",
                    cycle.join(" -> ")
                ),
            );
        }
    }

    /// An example gives primary inputs with values of their types, and expects an outcome
    /// and/or result, or `needs` alone.
    fn example(&mut self, path: &str, example: &Example, outcomes: &BTreeSet<&str>) {
        let model = Model::of(self.system);
        for id in example.inputs.keys() {
            if model.input(id).is_some_and(|i| i.derived_from.is_some()) {
                self.fail(
                    format!("{path}.inputs.{id}"),
                    format!("'{id}' is derived from another unit; examples give primary inputs"),
                );
            }
        }
        if let Err(e) = model.inputs_from_json(&example.inputs) {
            self.fail(format!("{path}.{}", e.field()), e.to_string());
        }
        let e = &example.expect;
        match (&e.outcome, &e.result, &e.needs) {
            (None, None, None) => self.fail(
                format!("{path}.expect"),
                "expect needs an outcome and/or a result, or needs alone",
            ),
            (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => self.fail(
                format!("{path}.expect"),
                "needs stands alone: a unit that needs inputs has no outcome or result",
            ),
            _ => {}
        }
        if let Some(code) = &e.outcome {
            if !outcomes.contains(code.as_str()) {
                self.fail(
                    format!("{path}.expect.outcome"),
                    format!("outcome '{code}' is not defined in outcomes"),
                );
            }
        }
        if let Some(needs) = &e.needs {
            if needs.is_empty() {
                self.fail(
                    format!("{path}.expect.needs"),
                    "needs lists at least one input",
                );
            }
            for (i, id) in needs.iter().enumerate() {
                match model.input(id) {
                    None => self.fail(
                        format!("{path}.expect.needs[{i}]"),
                        format!("no input '{id}'"),
                    ),
                    Some(input) if input.derived_from.is_some() => self.fail(
                        format!("{path}.expect.needs[{i}]"),
                        format!("'{id}' is derived; a unit reports the primary inputs it needs"),
                    ),
                    Some(_) => {}
                }
            }
        }
    }

    fn condition(&mut self, path: &str, cond: &Condition, vars: &BTreeMap<&str, Var>) {
        match cond {
            Condition::Always(a) => {
                if !a.always {
                    self.fail(path, "{\"always\": false} never holds; remove the rule");
                }
            }
            Condition::Not(n) => self.condition(&format!("{path}.not"), &n.not, vars),
            Condition::All(a) => {
                for (i, c) in a.all.iter().enumerate() {
                    self.condition(&format!("{path}.all[{i}]"), c, vars);
                }
            }
            Condition::Any(a) => {
                for (i, c) in a.any.iter().enumerate() {
                    self.condition(&format!("{path}.any[{i}]"), c, vars);
                }
            }
            Condition::Compare(c) => match vars.get(c.var.as_str()) {
                None => self.fail(
                    format!("{path}.var"),
                    format!("'{}' is neither an input nor the score of this unit", c.var),
                ),
                Some(var) => {
                    if let Err(reason) = check_compare(c, var) {
                        self.fail(path, reason);
                    }
                }
            },
        }
    }

    fn outcomes(&mut self) {
        let mut codes = BTreeSet::new();
        for (i, o) in self.system.outcomes.iter().enumerate() {
            let path = format!("$.outcomes[{i}]");
            if o.code.trim().is_empty() || o.code.trim() != o.code {
                self.fail(
                    format!("{path}.code"),
                    "code must be non-empty without outer spaces",
                );
            }
            if !codes.insert(o.code.as_str()) {
                self.fail(
                    format!("{path}.code"),
                    format!("duplicate outcome code '{}'", o.code),
                );
            }
            if o.label.trim().is_empty() {
                self.fail(format!("{path}.label"), "must not be empty");
            }
            self.line(&format!("{path}.definition"), &o.definition);
            if let Some(risk) = &o.risk {
                self.line(&format!("{path}.risk"), risk);
            }
            for (j, m) in o.management.iter().enumerate() {
                self.line(&format!("{path}.management[{j}]"), m);
            }
        }
    }

    fn variants(&mut self) {
        let mut ids = BTreeSet::new();
        for (i, v) in self.system.variants.iter().enumerate() {
            let path = format!("$.variants[{i}]");
            if !ids.insert(v.id.as_str()) {
                self.fail(
                    format!("{path}.id"),
                    format!("duplicate variant id '{}'", v.id),
                );
            }
            self.line(&format!("{path}.label"), &v.label);
            for (j, p) in v.procedures.iter().enumerate() {
                self.line(&format!("{path}.procedures[{j}]"), p);
            }
        }
    }

    fn crossrefs(&mut self) {
        for (i, x) in self.system.crossrefs.iter().enumerate() {
            let path = format!("$.crossrefs[{i}]");
            match (&x.slug, &x.external) {
                (Some(slug), None) => {
                    self.known_slug(&format!("{path}.slug"), slug);
                    if *slug == self.system.slug {
                        self.fail(format!("{path}.slug"), "a system cannot refer to itself");
                    }
                }
                (None, Some(ext)) => {
                    if ext.id.trim().is_empty() {
                        self.fail(format!("{path}.external.id"), "must not be empty");
                    }
                }
                _ => self.fail(&path, "a crossref has exactly one of slug or external"),
            }
            if let Some(maps) = &x.maps {
                self.correspondence(&format!("{path}.maps"), x, maps);
            }
        }
    }

    /// A `supersedes` link's correspondence: cited, and naming ids that exist on both sides.
    fn correspondence(&mut self, path: &str, x: &Crossref, maps: &Correspondence) {
        self.line(path, maps);
        let old = match (x.relation, x.slug.as_deref()) {
            (Relation::Supersedes, Some(slug)) => self.systems.get(slug).copied(),
            _ => {
                return self.fail(
                    path,
                    "maps belongs on a 'supersedes' link to a system of the corpus",
                )
            }
        };
        let Some(old) = old else { return };
        let this = self.system;
        for (from, to) in &maps.inputs {
            if !old.inputs.iter().any(|i| i.id == *from) {
                self.fail(
                    format!("{path}.inputs.{from}"),
                    format!("'{}' has no input '{from}'", old.slug),
                );
            }
            if !this.inputs.iter().any(|i| i.id == *to) {
                self.fail(
                    format!("{path}.inputs.{from}"),
                    format!("this system has no input '{to}'"),
                );
            }
        }
        for (from, to) in &maps.outcomes {
            if !old.outcomes.iter().any(|o| o.code == *from) {
                self.fail(
                    format!("{path}.outcomes.{from}"),
                    format!("'{}' has no outcome '{from}'", old.slug),
                );
            }
            if to.is_empty() {
                self.fail(
                    format!("{path}.outcomes.{from}"),
                    "name at least one outcome of this system",
                );
            }
            for code in to {
                if !this.outcomes.iter().any(|o| o.code == *code) {
                    self.fail(
                        format!("{path}.outcomes.{from}"),
                        format!("this system has no outcome '{code}'"),
                    );
                }
            }
        }
    }

    /// Every external code of the system, wherever it is carried.
    fn codes(&mut self) {
        let s = self.system;
        let mut all: Vec<(String, &Code)> = Vec::new();
        all.extend(
            s.codes
                .iter()
                .enumerate()
                .map(|(k, c)| (format!("$.codes[{k}]"), c)),
        );
        for (i, input) in s.inputs.iter().enumerate() {
            all.extend(
                input
                    .codes
                    .iter()
                    .enumerate()
                    .map(|(k, c)| (format!("$.inputs[{i}].codes[{k}]"), c)),
            );
            for (j, v) in input.values.iter().enumerate() {
                all.extend(
                    v.codes
                        .iter()
                        .enumerate()
                        .map(|(k, c)| (format!("$.inputs[{i}].values[{j}].codes[{k}]"), c)),
                );
            }
        }
        for (u, unit) in s.decision_units.iter().enumerate() {
            all.extend(
                unit.codes
                    .iter()
                    .enumerate()
                    .map(|(k, c)| (format!("$.decision_units[{u}].codes[{k}]"), c)),
            );
        }
        for (o, outcome) in s.outcomes.iter().enumerate() {
            all.extend(
                outcome
                    .codes
                    .iter()
                    .enumerate()
                    .map(|(k, c)| (format!("$.outcomes[{o}].codes[{k}]"), c)),
            );
        }
        for (path, c) in all {
            if let Err(reason) = check_code(c) {
                self.fail(path, reason);
            }
        }
    }

    fn known_slug(&mut self, path: &str, slug: &str) {
        if !self.known_slugs.contains(slug) {
            self.fail(
                path,
                format!("unknown slug '{slug}': not in the corpus nor planned in coverage.json"),
            );
        }
    }

    fn citation(&mut self, path: &str, citation: &str) {
        if citation.trim().is_empty() {
            self.fail(path, "uncited: citation is empty");
        } else if !self.system.references.contains_key(citation) {
            self.fail(
                path,
                format!("citation '{citation}' is not a reference id of this system"),
            );
        }
    }

    fn line(&mut self, path: &str, item: &impl AsLine) {
        let line = item.line();
        if line.text.trim().is_empty() {
            self.fail(format!("{path}.text"), "a clinical line needs its text");
        }
        self.citation(&format!("{path}.citation"), line.citation);
        if line.locator.trim().is_empty() {
            self.fail(format!("{path}.locator"), "unlocated: locator is empty");
        }
        if line.verification == Verification::Verified {
            match (line.reviewer, line.reviewed_on) {
                (Some(r), Some(d)) if !r.trim().is_empty() => {
                    self.date(&format!("{path}.reviewed_on"), d)
                }
                _ => self.fail(
                    format!("{path}.verification"),
                    "'verified' requires reviewer and reviewed_on",
                ),
            }
        }
    }

    fn date(&mut self, path: &str, date: &str) {
        if !is_date(date) {
            self.fail(
                path,
                format!("'{date}' is not an ISO 8601 date (YYYY, YYYY-MM or YYYY-MM-DD)"),
            );
        }
    }
}

/// A code's form for its scheme, its name, and where it was confirmed. A SNOMED CT identifier
/// must pass its Verhoeff check digit, so a mistyped one is refused.
pub fn check_code(c: &Code) -> Result<(), String> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let ok = match c.scheme {
        CodeScheme::RadElement => {
            let rest = c
                .code
                .strip_prefix("RDES")
                .or_else(|| c.code.strip_prefix("RDE"));
            rest.is_some_and(|r| match r.split_once('.') {
                Some((element, value)) => {
                    c.code.starts_with("RDE")
                        && !c.code.starts_with("RDES")
                        && digits(element)
                        && digits(value)
                }
                None => digits(r),
            })
        }
        CodeScheme::RadLex => c.code.strip_prefix("RID").is_some_and(digits),
        CodeScheme::SnomedCt => {
            digits(&c.code) && (6..=18).contains(&c.code.len()) && verhoeff_valid(&c.code)
        }
        CodeScheme::Loinc => c.code.split_once('-').is_some_and(|(n, check)| {
            digits(n) && n.len() <= 7 && check.len() == 1 && digits(check)
        }),
        CodeScheme::Dicom => digits(&c.code),
    };
    if !ok {
        return Err(format!(
            "'{}' is not a well-formed {} code{}",
            c.code,
            c.scheme.as_str(),
            if c.scheme == CodeScheme::SnomedCt {
                " (its Verhoeff check digit fails, or it is not 6 to 18 digits)"
            } else {
                ""
            }
        ));
    }
    if c.display.trim().is_empty() {
        return Err("a code needs its display name".into());
    }
    let repo_at_commit = c.source.split_once('@').is_some_and(|(_, commit)| {
        commit.len() >= 40 && commit[..40].bytes().all(|b| b.is_ascii_hexdigit())
    });
    if !(c.source.contains("https://") || repo_at_commit) {
        return Err("a code's source is where it was confirmed: an https:// address or owner/repo:path@commit".into());
    }
    Ok(())
}

/// The Verhoeff check (dihedral group D5) over a string of digits, check digit last.
fn verhoeff_valid(number: &str) -> bool {
    const D: [[u8; 10]; 10] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
        [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
        [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
        [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
        [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
        [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ];
    const P: [[u8; 10]; 8] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
        [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
        [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ];
    let mut c = 0u8;
    for (i, b) in number.bytes().rev().enumerate() {
        let digit = (b - b'0') as usize;
        c = D[c as usize][P[i % 8][digit] as usize];
    }
    c == 0
}

/// What a condition variable refers to.
#[derive(Clone, Copy)]
enum Var<'a> {
    Input(&'a Input),
    Score,
}

fn check_compare(c: &Compare, var: &Var) -> Result<(), String> {
    let numeric = |v: &serde_json::Value| v.is_number();
    let ordering = matches!(c.op, Op::Lt | Op::Lte | Op::Gt | Op::Gte);
    match var {
        Var::Score => {
            if matches!(c.op, Op::In | Op::Has) || !numeric(&c.value) {
                return Err(format!(
                    "score '{}' is compared with a number using eq, ne, lt, lte, gt or gte",
                    c.var
                ));
            }
        }
        Var::Input(input) => match input.kind {
            InputType::Number => {
                let ok = match c.op {
                    Op::In => c.value.as_array().is_some_and(|a| a.iter().all(numeric)),
                    Op::Has => false,
                    _ => numeric(&c.value),
                };
                if !ok {
                    return Err(format!(
                        "number input '{}' needs a numeric value (in: an array of numbers)",
                        c.var
                    ));
                }
            }
            InputType::Boolean => {
                if !matches!(c.op, Op::Eq | Op::Ne) || !c.value.is_boolean() {
                    return Err(format!(
                        "boolean input '{}' is compared with eq/ne and true/false",
                        c.var
                    ));
                }
            }
            InputType::Enum | InputType::Multi => {
                if ordering {
                    return Err(format!("'{}' has no order; use eq, ne, in or has", c.var));
                }
                if input.kind == InputType::Enum && c.op == Op::Has {
                    return Err(format!(
                        "'has' applies to multi inputs; '{}' is an enum (use eq or in)",
                        c.var
                    ));
                }
                let values: Vec<&serde_json::Value> = match (&c.op, &c.value) {
                    (Op::In, serde_json::Value::Array(items)) => items.iter().collect(),
                    (Op::In, _) => return Err("'in' needs an array value".into()),
                    (_, v) => vec![v],
                };
                for v in values {
                    let declared = v
                        .as_str()
                        .is_some_and(|s| input.values.iter().any(|d| d.value == s));
                    if !declared {
                        return Err(format!("value {v} is not declared by input '{}'", c.var));
                    }
                }
            }
        },
    }
    Ok(())
}
