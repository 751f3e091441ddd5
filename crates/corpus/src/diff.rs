//! Two versions of one guideline side by side: what changed between their logic, and what one
//! set of inputs comes to under each.
//!
//! The versions are compared as data, never as prose: inputs and their values (and points),
//! decision units, the rules of each unit (paired by the outcome they decide), and outcomes
//! (matched by code). Where the later version renamed an input or renamed, split or merged a
//! category, its `supersedes` link says so (`maps`, a cited [`Correspondence`]); ids that stay
//! the same need no entry. Every change carries the cited lines of both sides, so a reader can
//! check it against the two sources.
//!
//! Re-scoring evaluates the same inputs under both versions with the one evaluator
//! ([`evaluate`]) and pairs the units by id: an input one version does not take is reported as
//! set aside for that version, never translated by guesswork, and what a version still needs
//! is asked for.

use super::evaluate::{evaluate, Cited, Evaluation, InputError, Inputs, Model, UnitStatus};
use super::source::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One version of a system, as the comparison reads it.
#[derive(Clone, Copy, Debug)]
pub struct Version<'a> {
    pub slug: &'a str,
    /// What the version is called ("Lung-RADS v2022").
    pub name: &'a str,
    pub version: &'a str,
    pub model: Model<'a>,
}

/// How the ids of `from` correspond to those of `to`, in that direction: an input id or an
/// outcome code not listed keeps its id.
#[derive(Clone, Debug, Default)]
pub struct Ids<'a> {
    pub inputs: BTreeMap<&'a str, &'a str>,
    pub outcomes: BTreeMap<&'a str, Vec<&'a str>>,
    /// The cited line that states the correspondence, when there is one.
    pub line: Option<&'a Correspondence>,
}

impl<'a> Ids<'a> {
    /// The correspondence a later version states for an earlier one, read from the earlier to
    /// the later (`forward`) or the other way.
    pub fn of(maps: Option<&'a Correspondence>, forward: bool) -> Ids<'a> {
        let Some(m) = maps else {
            return Ids::default();
        };
        let mut ids = Ids {
            line: Some(m),
            ..Ids::default()
        };
        for (old, new) in &m.inputs {
            if forward {
                ids.inputs.insert(old, new);
            } else {
                ids.inputs.insert(new, old);
            }
        }
        for (old, news) in &m.outcomes {
            for new in news {
                if forward {
                    ids.outcomes.entry(old.as_str()).or_default().push(new);
                } else {
                    ids.outcomes.entry(new.as_str()).or_default().push(old);
                }
            }
        }
        ids
    }

    fn input<'s>(&self, id: &'s str) -> &'s str
    where
        'a: 's,
    {
        self.inputs.get(id).copied().unwrap_or(id)
    }

    /// The codes of `to` an outcome of `from` became: its own code unless mapped.
    fn outcome<'s>(&self, code: &'s str) -> Vec<&'s str>
    where
        'a: 's,
    {
        match self.outcomes.get(code) {
            Some(codes) => codes.clone(),
            None => vec![code],
        }
    }
}

/// What kind of change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    InputAdded,
    InputRemoved,
    InputRenamed,
    InputChanged,
    ValuesChanged,
    ValuesRedescribed,
    PointsChanged,
    UnitAdded,
    UnitRemoved,
    CategoryAdded,
    CategoryRemoved,
    CategoryRenamed,
    CategorySplit,
    CategoryMerged,
    ThresholdMoved,
    RuleChanged,
    RuleAdded,
    RuleRemoved,
    ManagementChanged,
}

impl Kind {
    /// Every kind, in the order a diff lists them.
    pub const ALL: [Kind; 19] = [
        Kind::InputAdded,
        Kind::InputRemoved,
        Kind::InputRenamed,
        Kind::InputChanged,
        Kind::ValuesChanged,
        Kind::ValuesRedescribed,
        Kind::PointsChanged,
        Kind::UnitAdded,
        Kind::UnitRemoved,
        Kind::CategoryAdded,
        Kind::CategoryRemoved,
        Kind::CategoryRenamed,
        Kind::CategorySplit,
        Kind::CategoryMerged,
        Kind::ThresholdMoved,
        Kind::RuleChanged,
        Kind::RuleAdded,
        Kind::RuleRemoved,
        Kind::ManagementChanged,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::InputAdded => "input_added",
            Kind::InputRemoved => "input_removed",
            Kind::InputRenamed => "input_renamed",
            Kind::InputChanged => "input_changed",
            Kind::ValuesChanged => "values_changed",
            Kind::ValuesRedescribed => "values_redescribed",
            Kind::PointsChanged => "points_changed",
            Kind::UnitAdded => "unit_added",
            Kind::UnitRemoved => "unit_removed",
            Kind::CategoryAdded => "category_added",
            Kind::CategoryRemoved => "category_removed",
            Kind::CategoryRenamed => "category_renamed",
            Kind::CategorySplit => "category_split",
            Kind::CategoryMerged => "category_merged",
            Kind::ThresholdMoved => "threshold_moved",
            Kind::RuleChanged => "rule_changed",
            Kind::RuleAdded => "rule_added",
            Kind::RuleRemoved => "rule_removed",
            Kind::ManagementChanged => "management_changed",
        }
    }
}

/// A threshold that moved: the same comparison of the same input, at another value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Moved {
    pub var: String,
    pub op: Op,
    pub from: serde_json::Value,
    pub to: serde_json::Value,
}

/// One change between the versions, with the lines of both sides that show it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change<'a> {
    pub kind: Kind,
    /// What changed: an input id, a unit id or an outcome code (the earlier side's, where it
    /// has one).
    pub subject: String,
    /// The decision unit concerned (rules, thresholds and their management).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<&'a str>,
    /// One sentence saying what changed.
    pub summary: String,
    /// Values, codes or ids that only the later side has.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<String>,
    /// Values, codes or ids that only the earlier side has.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<Moved>,
    /// The cited lines of the `from` side (empty where the thing is new).
    pub from: Vec<Cited<'a>>,
    /// The cited lines of the `to` side (empty where the thing is gone).
    pub to: Vec<Cited<'a>>,
}

/// What changed from one version to the other.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff<'a> {
    pub changes: Vec<Change<'a>>,
    /// How many changes of each kind.
    pub counts: BTreeMap<&'static str, usize>,
}

fn cited<T: AsLine>(item: &T) -> Cited<'_> {
    Cited::of(item.line())
}

/// The answer a rule gives: its outcome code, else its result.
fn answer(rule: &Rule) -> &str {
    rule.outcome
        .as_deref()
        .or(rule.result.as_deref())
        .unwrap_or("")
}

/// A condition's shape with its values left out, and its values in order: two rules whose
/// shapes agree differ only in where they draw the lines.
fn shape(
    c: &Condition,
    ids: &Ids,
    out: &mut String,
    values: &mut Vec<(String, Op, serde_json::Value)>,
) {
    match c {
        Condition::Compare(x) => {
            let var = ids.input(&x.var);
            out.push_str(var);
            out.push_str(&format!("{:?}", x.op));
            out.push('?');
            values.push((var.to_string(), x.op, x.value.clone()));
        }
        Condition::All(a) => {
            out.push_str("all(");
            for p in &a.all {
                shape(p, ids, out, values);
                out.push(',');
            }
            out.push(')');
        }
        Condition::Any(a) => {
            out.push_str("any(");
            for p in &a.any {
                shape(p, ids, out, values);
                out.push(',');
            }
            out.push(')');
        }
        Condition::Not(n) => {
            out.push_str("not(");
            shape(&n.not, ids, out, values);
            out.push(')');
        }
        Condition::Always(_) => out.push_str("always"),
    }
}

type Shape = (String, Vec<(String, Op, serde_json::Value)>);

fn shape_of(rule: &Rule, ids: &Ids) -> Shape {
    let mut s = String::new();
    let mut values = Vec::new();
    shape(&rule.when, ids, &mut s, &mut values);
    (s, values)
}

/// The follow-up intervals a management text names ("6 months", "12-month"), as
/// `(number, unit)` pairs: what a change of management is recognised by across two
/// paraphrases.
fn intervals(text: &str) -> BTreeSet<String> {
    let words = super::text::words(text);
    let mut out = BTreeSet::new();
    for (i, w) in words.iter().enumerate() {
        if w.parse::<f64>().is_err() {
            continue;
        }
        if let Some(next) = words.get(i + 1) {
            let unit = match next.as_str() {
                "month" | "months" | "mo" => "months",
                "year" | "years" | "yr" => "years",
                "week" | "weeks" | "wk" => "weeks",
                "day" | "days" => "days",
                _ => continue,
            };
            out.insert(format!("{w} {unit}"));
        }
    }
    out
}

fn outcome<'a>(model: &Model<'a>, code: &str) -> Option<&'a Outcome> {
    model.outcomes.iter().find(|o| o.code == code)
}

fn unit<'a>(model: &Model<'a>, id: &str) -> Option<&'a DecisionUnit> {
    model.units.iter().find(|u| u.id == id)
}

struct Builder<'a> {
    changes: Vec<Change<'a>>,
}

impl<'a> Builder<'a> {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        kind: Kind,
        subject: &str,
        unit: Option<&'a str>,
        summary: String,
        from: Vec<Cited<'a>>,
        to: Vec<Cited<'a>>,
    ) -> &mut Change<'a> {
        self.changes.push(Change {
            kind,
            subject: subject.to_string(),
            unit,
            summary,
            added: Vec::new(),
            removed: Vec::new(),
            thresholds: Vec::new(),
            from,
            to,
        });
        self.changes.last_mut().expect("just pushed")
    }
}

fn values_of(input: &Input) -> Vec<&str> {
    input.values.iter().map(|v| v.value.as_str()).collect()
}

/// What changed from `from` to `to`.
pub fn diff<'a>(from: Version<'a>, to: Version<'a>, ids: &Ids<'a>) -> Diff<'a> {
    let mut b = Builder {
        changes: Vec::new(),
    };
    inputs(&mut b, &from, &to, ids);
    units(&mut b, &from, &to);
    categories(&mut b, &from, &to, ids);
    rules(&mut b, &from, &to, ids);
    b.changes.sort_by_key(|c| c.kind);
    let mut counts = BTreeMap::new();
    for c in &b.changes {
        *counts.entry(c.kind.as_str()).or_insert(0) += 1;
    }
    Diff {
        changes: b.changes,
        counts,
    }
}

fn inputs<'a>(b: &mut Builder<'a>, from: &Version<'a>, to: &Version<'a>, ids: &Ids<'a>) {
    let mut matched = BTreeSet::new();
    for old in from.model.inputs {
        let id = ids.input(&old.id);
        let Some(new) = to.model.input(id) else {
            b.push(
                Kind::InputRemoved,
                &old.id,
                None,
                format!("{} no longer takes '{}' ({}).", to.name, old.id, old.label),
                vec![cited(old)],
                Vec::new(),
            );
            continue;
        };
        matched.insert(new.id.as_str());
        if new.id != old.id {
            b.push(
                Kind::InputRenamed,
                &old.id,
                None,
                format!("'{}' is called '{}' in {}.", old.id, new.id, to.name),
                vec![cited(old)],
                vec![cited(new)],
            );
        }
        if old.kind != new.kind || old.unit != new.unit || old.min != new.min || old.max != new.max
        {
            b.push(
                Kind::InputChanged,
                &old.id,
                None,
                format!("'{}' changed its type, unit or range.", old.id),
                vec![cited(old)],
                vec![cited(new)],
            );
        }
        let (a, z) = (values_of(old), values_of(new));
        let added: Vec<String> = z
            .iter()
            .filter(|v| !a.contains(v))
            .map(|v| v.to_string())
            .collect();
        let removed: Vec<String> = a
            .iter()
            .filter(|v| !z.contains(v))
            .map(|v| v.to_string())
            .collect();
        if !added.is_empty() || !removed.is_empty() {
            let c = b.push(
                Kind::ValuesChanged,
                &old.id,
                None,
                format!(
                    "'{}' values{}{}.",
                    old.id,
                    if added.is_empty() {
                        String::new()
                    } else {
                        format!(" added: {}", added.join(", "))
                    },
                    if removed.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "{} removed: {}",
                            if added.is_empty() { "" } else { ";" },
                            removed.join(", ")
                        )
                    },
                ),
                vec![cited(old)],
                vec![cited(new)],
            );
            c.added = added;
            c.removed = removed;
        }
        // The same value, described otherwise: a definition that changed (PI-RADS v2.1's DWI
        // score 2), or a reworded label; the reader judges, with both sides' lines.
        let redescribed: Vec<String> = old
            .values
            .iter()
            .filter_map(|v| {
                let w = new.values.iter().find(|w| w.value == v.value)?;
                (super::text::words(&v.label) != super::text::words(&w.label))
                    .then(|| format!("{} ('{}' → '{}')", v.value, v.label, w.label))
            })
            .collect();
        if !redescribed.is_empty() {
            let c = b.push(
                Kind::ValuesRedescribed,
                &old.id,
                None,
                format!(
                    "'{}' values described otherwise: {}.",
                    old.id,
                    redescribed.join("; ")
                ),
                vec![cited(old)],
                vec![cited(new)],
            );
            c.added = old
                .values
                .iter()
                .filter(|v| {
                    new.values.iter().any(|w| {
                        w.value == v.value
                            && super::text::words(&v.label) != super::text::words(&w.label)
                    })
                })
                .map(|v| v.value.clone())
                .collect();
        }
        let moved: Vec<String> = old
            .values
            .iter()
            .filter_map(|v| {
                let w = new.values.iter().find(|w| w.value == v.value)?;
                (v.points != w.points).then(|| {
                    let p = |x: Option<f64>| x.map_or("none".to_string(), super::evaluate::num);
                    format!("{} {} → {}", v.value, p(v.points), p(w.points))
                })
            })
            .collect();
        if !moved.is_empty() {
            b.push(
                Kind::PointsChanged,
                &old.id,
                None,
                format!("'{}' scores differently: {}.", old.id, moved.join(", ")),
                vec![cited(old)],
                vec![cited(new)],
            );
        }
    }
    for new in to.model.inputs {
        if !matched.contains(new.id.as_str()) {
            b.push(
                Kind::InputAdded,
                &new.id,
                None,
                format!(
                    "{} takes a new input '{}' ({}).",
                    to.name, new.id, new.label
                ),
                Vec::new(),
                vec![cited(new)],
            );
        }
    }
}

fn units<'a>(b: &mut Builder<'a>, from: &Version<'a>, to: &Version<'a>) {
    for old in from.model.units {
        if unit(&to.model, &old.id).is_none() {
            b.push(
                Kind::UnitRemoved,
                &old.id,
                Some(&old.id),
                format!("{} has no unit '{}' ({}).", to.name, old.id, old.title),
                vec![cited(old)],
                Vec::new(),
            );
        }
    }
    for new in to.model.units {
        if unit(&from.model, &new.id).is_none() {
            b.push(
                Kind::UnitAdded,
                &new.id,
                Some(&new.id),
                format!("{} adds the unit '{}' ({}).", to.name, new.id, new.title),
                Vec::new(),
                vec![cited(new)],
            );
        }
    }
}

fn categories<'a>(b: &mut Builder<'a>, from: &Version<'a>, to: &Version<'a>, ids: &Ids<'a>) {
    let mut reached: BTreeSet<&str> = BTreeSet::new();
    // How many earlier codes each later code receives (a merge receives several).
    let mut received: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for old in from.model.outcomes {
        for code in ids.outcome(&old.code) {
            if outcome(&to.model, code).is_some() {
                received.entry(code).or_default().push(&old.code);
            }
        }
    }
    for old in from.model.outcomes {
        let targets: Vec<&Outcome> = ids
            .outcome(&old.code)
            .into_iter()
            .filter_map(|c| outcome(&to.model, c))
            .collect();
        reached.extend(targets.iter().map(|o| o.code.as_str()));
        let mapping: Vec<Cited> = ids.line.map(|l| vec![cited(l)]).unwrap_or_default();
        match targets.as_slice() {
            [] => {
                b.push(
                    Kind::CategoryRemoved,
                    &old.code,
                    None,
                    format!(
                        "{} has no category '{}' ({}).",
                        to.name, old.code, old.label
                    ),
                    vec![cited(&old.definition)],
                    Vec::new(),
                );
            }
            [one] if received.get(one.code.as_str()).is_some_and(|r| r.len() > 1) => {
                let sources = &received[one.code.as_str()];
                // A merge is reported once, at its first earlier code.
                if sources.first() == Some(&old.code.as_str()) {
                    let mut from_lines = Vec::new();
                    for code in sources {
                        if let Some(o) = outcome(&from.model, code) {
                            from_lines.push(cited(&o.definition));
                        }
                    }
                    let mut to_lines = vec![cited(&one.definition)];
                    to_lines.extend(mapping);
                    let c = b.push(
                        Kind::CategoryMerged,
                        &old.code,
                        None,
                        format!(
                            "{} became one category '{}' in {}.",
                            sources.join(", "),
                            one.code,
                            to.name
                        ),
                        from_lines,
                        to_lines,
                    );
                    c.removed = sources.iter().map(|s| s.to_string()).collect();
                    c.added = vec![one.code.clone()];
                }
            }
            [one] => {
                if one.code != old.code {
                    let mut to_lines = vec![cited(&one.definition)];
                    to_lines.extend(mapping);
                    b.push(
                        Kind::CategoryRenamed,
                        &old.code,
                        None,
                        format!("'{}' is called '{}' in {}.", old.code, one.code, to.name),
                        vec![cited(&old.definition)],
                        to_lines,
                    );
                }
                management(b, from, to, old, one);
            }
            many => {
                let mut to_lines: Vec<Cited> = many.iter().map(|o| cited(&o.definition)).collect();
                to_lines.extend(mapping);
                let codes: Vec<String> = many.iter().map(|o| o.code.clone()).collect();
                let c = b.push(
                    Kind::CategorySplit,
                    &old.code,
                    None,
                    format!(
                        "'{}' was split into {} in {}.",
                        old.code,
                        codes.join(", "),
                        to.name
                    ),
                    vec![cited(&old.definition)],
                    to_lines,
                );
                c.added = codes;
            }
        }
    }
    for new in to.model.outcomes {
        if !reached.contains(new.code.as_str()) {
            b.push(
                Kind::CategoryAdded,
                &new.code,
                None,
                format!(
                    "{} adds the category '{}' ({}).",
                    to.name, new.code, new.label
                ),
                Vec::new(),
                vec![cited(&new.definition)],
            );
        }
    }
}

/// A category's management, compared by the follow-up intervals it names.
fn management<'a>(
    b: &mut Builder<'a>,
    from: &Version<'a>,
    to: &Version<'a>,
    old: &'a Outcome,
    new: &'a Outcome,
) {
    let a: BTreeSet<String> = old
        .management
        .iter()
        .flat_map(|l| intervals(&l.text))
        .collect();
    let z: BTreeSet<String> = new
        .management
        .iter()
        .flat_map(|l| intervals(&l.text))
        .collect();
    if a == z {
        return;
    }
    let c = b.push(
        Kind::ManagementChanged,
        &old.code,
        None,
        format!(
            "Management of '{}' names other intervals in {} than in {}.",
            old.code, to.name, from.name
        ),
        old.management.iter().map(cited).collect(),
        new.management.iter().map(cited).collect(),
    );
    c.added = z.difference(&a).cloned().collect();
    c.removed = a.difference(&z).cloned().collect();
}

fn rules<'a>(b: &mut Builder<'a>, from: &Version<'a>, to: &Version<'a>, ids: &Ids<'a>) {
    for old_unit in from.model.units {
        let Some(new_unit) = unit(&to.model, &old_unit.id) else {
            continue;
        };
        let uid = Some(new_unit.id.as_str());
        // Rules are paired by the answer they give: the same condition first, then the same
        // shape with the fewest values moved, then in order.
        let mut open: Vec<usize> = (0..new_unit.rules.len()).collect();
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut alone_old: Vec<usize> = (0..old_unit.rules.len()).collect();
        let new_shapes: Vec<Shape> = new_unit
            .rules
            .iter()
            .map(|r| shape_of(r, &Ids::default()))
            .collect();
        for pass in 0..3 {
            let mut still = Vec::new();
            for &i in &alone_old {
                let r = &old_unit.rules[i];
                let answers = ids.outcome(answer(r));
                let old_shape = shape_of(r, ids);
                let fits = |j: usize| -> Option<usize> {
                    if !answers.contains(&answer(&new_unit.rules[j])) {
                        return None;
                    }
                    let (s, v) = &new_shapes[j];
                    let moved = v
                        .iter()
                        .zip(&old_shape.1)
                        .filter(|(a, b)| a.2 != b.2)
                        .count();
                    match pass {
                        0 => (*s == old_shape.0 && *v == old_shape.1).then_some(0),
                        1 => (*s == old_shape.0).then_some(moved),
                        _ => Some(0),
                    }
                };
                let best = open
                    .iter()
                    .filter_map(|&j| fits(j).map(|cost| (cost, j)))
                    .min_by_key(|(cost, j)| (*cost, *j))
                    .map(|(_, j)| j);
                match best {
                    Some(j) => {
                        open.retain(|&k| k != j);
                        pairs.push((i, j));
                    }
                    None => still.push(i),
                }
            }
            alone_old = still;
        }
        pairs.sort_unstable();
        for (i, j) in pairs {
            let (r, s) = (&old_unit.rules[i], &new_unit.rules[j]);
            let (shape_old, values_old) = shape_of(r, ids);
            let (shape_new, values_new) = new_shapes[j].clone();
            let from_line = vec![Cited::rule(old_unit, i)];
            let to_line = vec![Cited::rule(new_unit, j)];
            let label = answer(s);
            if shape_old != shape_new {
                b.push(
                    Kind::RuleChanged,
                    answer(r),
                    uid,
                    format!("The condition for '{label}' in '{}' changed.", new_unit.id),
                    from_line,
                    to_line,
                );
                continue;
            }
            let moved: Vec<Moved> = values_old
                .iter()
                .zip(&values_new)
                .filter(|(a, z)| a.2 != z.2)
                .map(|(a, z)| Moved {
                    var: z.0.clone(),
                    op: z.1,
                    from: a.2.clone(),
                    to: z.2.clone(),
                })
                .collect();
            if moved.is_empty() {
                if r.result != s.result && r.outcome.is_some() {
                    b.push(
                        Kind::ManagementChanged,
                        answer(r),
                        uid,
                        format!(
                            "'{label}' in '{}' now answers '{}' (was '{}').",
                            new_unit.id,
                            s.result.as_deref().unwrap_or("-"),
                            r.result.as_deref().unwrap_or("-")
                        ),
                        from_line,
                        to_line,
                    );
                }
                continue;
            }
            let numeric = moved.iter().all(|m| m.from.is_number() && m.to.is_number());
            let kind = if numeric {
                Kind::ThresholdMoved
            } else {
                Kind::RuleChanged
            };
            let said: Vec<String> = moved
                .iter()
                .map(|m| format!("{} {:?} {} → {}", m.var, m.op, m.from, m.to).to_lowercase())
                .collect();
            let c = b.push(
                kind,
                answer(r),
                uid,
                format!("'{label}' in '{}': {}.", new_unit.id, said.join("; ")),
                from_line,
                to_line,
            );
            c.thresholds = moved;
        }
        for i in alone_old {
            let r = &old_unit.rules[i];
            b.push(
                Kind::RuleRemoved,
                answer(r),
                uid,
                format!(
                    "No rule of '{}' in {} answers '{}' this way.",
                    new_unit.id,
                    to.name,
                    answer(r)
                ),
                vec![Cited::rule(old_unit, i)],
                Vec::new(),
            );
        }
        for j in open {
            let s = &new_unit.rules[j];
            b.push(
                Kind::RuleAdded,
                answer(s),
                uid,
                format!(
                    "A rule of '{}' in {} answers '{}'.",
                    new_unit.id,
                    to.name,
                    answer(s)
                ),
                Vec::new(),
                vec![Cited::rule(new_unit, j)],
            );
        }
    }
}

/// What one unit answered under one version.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Side<'a> {
    pub status: UnitStatus,
    /// The outcome code, else the result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<&'a str>,
    /// The deciding rule (or the one the unit stopped at), cited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<Cited<'a>>,
    /// The inputs this unit still needs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<&'a str>,
}

/// One unit under both versions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnitPair<'a> {
    pub unit: &'a str,
    pub title: &'a str,
    /// `null` where this version has no such unit.
    pub from: Option<Side<'a>>,
    pub to: Option<Side<'a>>,
    /// Both decided, and the later answer is not what the earlier one corresponds to.
    pub moved: bool,
}

/// An input one version does not take, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SetAside {
    pub input: String,
    pub reason: String,
}

/// Something of each version.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Both<T> {
    pub from: T,
    pub to: T,
}

/// One input set under both versions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rescored<'a> {
    pub units: Vec<UnitPair<'a>>,
    /// Whether any unit moved.
    pub moved: bool,
    /// The inputs each version still needs, in its order: asked for, never guessed.
    pub needs: Both<Vec<&'a str>>,
    /// Inputs given that a version does not take (no such input, or no such value).
    pub set_aside: Both<Vec<SetAside>>,
}

/// The inputs a version takes from a set given for either: those it does not take are set
/// aside with the reason. An input neither version takes, or a value neither declares, is
/// refused with the evaluator's own error.
fn take(
    version: &Version,
    other: &Version,
    ids: &Ids,
    given: &serde_json::Map<String, serde_json::Value>,
) -> Result<(Inputs, Vec<SetAside>), InputError> {
    let mut mine = serde_json::Map::new();
    let mut set_aside = Vec::new();
    for (id, value) in given {
        let own = ids.input(id);
        match version.model.input(own) {
            Some(input) => {
                let single = serde_json::Map::from_iter([(own.to_string(), value.clone())]);
                match version.model.inputs_from_json(&single) {
                    Ok(_) => {
                        mine.insert(own.to_string(), value.clone());
                    }
                    Err(e @ InputError::UndeclaredValue { .. }) => {
                        // Refused only when the other version does not take it either.
                        let elsewhere = other
                            .model
                            .inputs_from_json(&serde_json::Map::from_iter([(
                                id.clone(),
                                value.clone(),
                            )]))
                            .is_ok();
                        if !elsewhere {
                            return Err(e);
                        }
                        set_aside.push(SetAside {
                            input: id.clone(),
                            reason: format!(
                                "{} has no value {} for '{}'",
                                version.name, value, input.id
                            ),
                        });
                    }
                    Err(e) => return Err(e),
                }
            }
            None => {
                if other.model.input(id).is_none() {
                    // Neither version takes it: the other side's error names its inputs.
                    return other
                        .model
                        .inputs_from_json(&serde_json::Map::from_iter([(
                            id.clone(),
                            value.clone(),
                        )]))
                        .map(|_| (Inputs::new(), Vec::new()));
                }
                set_aside.push(SetAside {
                    input: id.clone(),
                    reason: format!("{} has no input '{id}'", version.name),
                });
            }
        }
    }
    Ok((version.model.inputs_from_json(&mine)?, set_aside))
}

fn side<'a>(eval: &Evaluation<'a>, id: &str) -> Option<Side<'a>> {
    let u = eval.unit(id)?;
    Some(Side {
        status: u.status,
        answer: u.answer,
        label: u.outcome.map(|o| o.label.as_str()),
        result: u.result,
        rule: u.rule.clone(),
        needs: u.missing.iter().map(|i| i.id.as_str()).collect(),
    })
}

/// One input set under both versions. The inputs may use either version's ids: `ids` reads
/// them for `to` (from `from`'s ids), `back` for `from`.
pub fn rescore<'a>(
    from: Version<'a>,
    to: Version<'a>,
    ids: &Ids<'a>,
    back: &Ids<'a>,
    given: &serde_json::Map<String, serde_json::Value>,
) -> Result<Rescored<'a>, InputError> {
    let (a_in, a_aside) = take(&from, &to, back, given)?;
    let (z_in, z_aside) = take(&to, &from, ids, given)?;
    let a = evaluate(from.model, &a_in, None)?;
    let z = evaluate(to.model, &z_in, None)?;
    let mut units = Vec::new();
    let mut seen = BTreeSet::new();
    for u in from.model.units.iter().chain(to.model.units) {
        if !seen.insert(u.id.as_str()) {
            continue;
        }
        let (sa, sz) = (side(&a, &u.id), side(&z, &u.id));
        let moved = match (&sa, &sz) {
            (Some(x), Some(y))
                if x.status == UnitStatus::Decided && y.status == UnitStatus::Decided =>
            {
                match (x.answer, y.answer) {
                    (Some(p), Some(q)) => !ids.outcome(p).contains(&q),
                    (p, q) => p != q,
                }
            }
            _ => false,
        };
        units.push(UnitPair {
            unit: &u.id,
            title: &u.title,
            from: sa,
            to: sz,
            moved,
        });
    }
    let moved = units.iter().any(|u| u.moved);
    Ok(Rescored {
        units,
        moved,
        needs: Both {
            from: a.missing.clone(),
            to: z.missing.clone(),
        },
        set_aside: Both {
            from: a_aside,
            to: z_aside,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(text: &str) -> serde_json::Value {
        json!({"text": text, "citation": "r", "locator": "Table 1", "consensus": "guideline", "verification": "draft"})
    }

    fn outcome(code: &str) -> Outcome {
        let mut o = json!({"code": code, "label": code, "definition": line(code), "management": [line(&format!("{code}: follow-up in 6 months"))]});
        if code == "C" {
            o["management"] = json!([line("C: follow-up in 12 months")]);
        }
        serde_json::from_value(o).unwrap()
    }

    fn input(id: &str) -> Input {
        let mut i = line(id);
        i["id"] = json!(id);
        i["label"] = json!(id);
        i["type"] = json!("number");
        i["unit"] = json!("mm");
        serde_json::from_value(i).unwrap()
    }

    fn unit(var: &str, cut: f64, codes: [&str; 2]) -> DecisionUnit {
        let mut u = line("unit");
        u["id"] = json!("category");
        u["title"] = json!("Category");
        u["inputs"] = json!([var]);
        let mut r0 = line("small");
        r0["when"] = json!({"var": var, "op": "lt", "value": cut});
        r0["outcome"] = json!(codes[0]);
        let mut r1 = line("large");
        r1["when"] = json!({"always": true});
        r1["outcome"] = json!(codes[1]);
        u["rules"] = json!([r0, r1]);
        serde_json::from_value(u).unwrap()
    }

    #[test]
    fn renamed_inputs_and_categories_moved_thresholds_and_management_are_named() {
        let (old_in, new_in) = (vec![input("size_mm")], vec![input("diameter_mm")]);
        let (old_units, new_units) = (
            vec![unit("size_mm", 6.0, ["A", "B"])],
            vec![unit("diameter_mm", 8.0, ["A", "C"])],
        );
        let (old_out, new_out) = (
            vec![outcome("A"), outcome("B")],
            vec![outcome("A"), outcome("C")],
        );
        let from = Version {
            slug: "x-1",
            name: "X 1",
            version: "1",
            model: Model {
                inputs: &old_in,
                units: &old_units,
                outcomes: &old_out,
            },
        };
        let to = Version {
            slug: "x-2",
            name: "X 2",
            version: "2",
            model: Model {
                inputs: &new_in,
                units: &new_units,
                outcomes: &new_out,
            },
        };
        let maps: Correspondence = serde_json::from_value({
            let mut m = line("B is called C");
            m["inputs"] = json!({"size_mm": "diameter_mm"});
            m["outcomes"] = json!({"B": ["C"]});
            m
        })
        .unwrap();
        let d = diff(from, to, &Ids::of(Some(&maps), true));
        let kinds: Vec<Kind> = d.changes.iter().map(|c| c.kind).collect();
        assert!(kinds.contains(&Kind::InputRenamed), "{kinds:?}");
        assert!(kinds.contains(&Kind::CategoryRenamed), "{kinds:?}");
        assert!(kinds.contains(&Kind::ManagementChanged), "{kinds:?}");
        let moved = d
            .changes
            .iter()
            .find(|c| c.kind == Kind::ThresholdMoved)
            .expect("threshold");
        assert_eq!(moved.thresholds[0].var, "diameter_mm");
        assert_eq!(
            (
                moved.thresholds[0].from.as_f64(),
                moved.thresholds[0].to.as_f64()
            ),
            (Some(6.0), Some(8.0))
        );
        // The rename is no removal: nothing of the earlier version is reported gone.
        assert!(
            !kinds.contains(&Kind::InputRemoved) && !kinds.contains(&Kind::CategoryRemoved),
            "{kinds:?}"
        );
        // Without the correspondence the same pair is an input and a category removed and added.
        let plain = diff(from, to, &Ids::default());
        let kinds: Vec<Kind> = plain.changes.iter().map(|c| c.kind).collect();
        assert!(
            kinds.contains(&Kind::InputRemoved) && kinds.contains(&Kind::CategoryAdded),
            "{kinds:?}"
        );
        // A re-score reads the earlier id for the later version: 7 mm is B then, A now.
        let given = serde_json::Map::from_iter([("size_mm".to_string(), json!(7))]);
        let r = rescore(
            from,
            to,
            &Ids::of(Some(&maps), true),
            &Ids::of(Some(&maps), false),
            &given,
        )
        .unwrap();
        assert_eq!(r.units[0].from.as_ref().unwrap().answer, Some("B"));
        assert_eq!(r.units[0].to.as_ref().unwrap().answer, Some("A"));
        assert!(r.moved);
    }
}
