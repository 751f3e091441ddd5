//! The checks that run the corpus's logic: every example evaluated against its expectation,
//! and every rule shown to be reachable by some input.
//!
//! They run after `validate` found nothing (they assume well-formed units), in `build.rs` and
//! `corpus-check`, and every finding refuses the build. Each problem names the file, the JSON
//! path and what went wrong; a failed example also says what the evaluator answered and the
//! rules it tested, and an unreachable rule says which earlier rule takes its place.

use super::evaluate::{evaluate, reachable_rules, Model, Reach, UnitStatus};
use super::load::Sources;
use super::problem::Problem;
use super::source::*;

/// The most input combinations tried per unit when looking for unreachable rules. A unit with
/// more is checked only for rules after an `always` and repeated conditions, and is listed in
/// `Findings::unsearched`.
pub const MAX_COMBINATIONS: usize = 1_000_000;

/// What running the logic found.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// Failed examples and rules no input reaches (shadowed by an `always`, by a repeated
    /// condition, or by earlier rules for every combination of input values): the build stops.
    pub problems: Vec<Problem>,
    /// Units with more than `MAX_COMBINATIONS` input combinations, which the exhaustive search
    /// skipped (`$.decision_units[i]` paths); not a problem, reported by `corpus-check`.
    pub unsearched: Vec<Problem>,
}

/// Runs every example and looks for unreachable rules.
pub fn check(sources: &Sources) -> Findings {
    let mut found = Findings::default();
    for (file, system) in &sources.systems {
        let model = Model::of(system);
        for (u, unit) in system.decision_units.iter().enumerate() {
            let path = format!("$.decision_units[{u}]");
            for (k, example) in unit.examples.iter().enumerate() {
                if let Err(reason) = run_example(model, unit, example) {
                    found.problems.push(Problem {
                        file: file.clone(),
                        path: format!("{path}.examples[{k}]"),
                        reason: format!("unit '{}' example {k}: {reason}", unit.id),
                    });
                }
            }
            let (list, searched) = unreachable(model, unit);
            if !searched {
                found.unsearched.push(Problem {
                    file: file.clone(),
                    path: path.clone(),
                    reason: format!(
                        "unit '{}' has more than {MAX_COMBINATIONS} input combinations: checked \
                         for rules after an `always` and repeated conditions only",
                        unit.id
                    ),
                });
            }
            for (r, reason) in list {
                found.problems.push(Problem {
                    file: file.clone(),
                    path: format!("{path}.rules[{r}]"),
                    reason: format!("unit '{}' {reason}", unit.id),
                });
            }
        }
    }
    found.problems.sort();
    found.unsearched.sort();
    found
}

/// Every rule of `unit` no input can reach, with why, in rule order: those `shadowed` names
/// first, then those the exhaustive search (`never_reached`) finds. The flag is `false` when
/// the unit had too many combinations for the search.
pub fn unreachable(model: Model, unit: &DecisionUnit) -> (Vec<(usize, String)>, bool) {
    let mut list = shadowed(unit);
    let searched = match never_reached(model, unit) {
        Some(found) => {
            for (j, reason) in found {
                if !list.iter().any(|(r, _)| *r == j) {
                    list.push((j, reason));
                }
            }
            true
        }
        None => false,
    };
    list.sort_by_key(|(r, _)| *r);
    (list, searched)
}

/// Evaluates one example; `Err` says how the answer differs from the expectation.
pub fn run_example(model: Model, unit: &DecisionUnit, example: &Example) -> Result<(), String> {
    let inputs = model
        .inputs_from_json(&example.inputs)
        .map_err(|e| e.to_string())?;
    let evaluation = evaluate(model, &inputs, Some(std::slice::from_ref(&unit.id)))
        .map_err(|e| e.to_string())?;
    let got = evaluation
        .unit(&unit.id)
        .ok_or_else(|| format!("unit '{}' was not evaluated", unit.id))?;
    let expect = &example.expect;
    let shown = || {
        let mut s = got.status.as_str().to_string();
        if let Some(o) = got.outcome {
            s.push_str(&format!(" outcome '{}'", o.code));
        }
        if let Some(r) = got.result {
            s.push_str(&format!(" result '{r}'"));
        }
        if let Some(rule) = &got.rule {
            s.push_str(&format!(" at rule {}", rule.index.unwrap_or_default()));
        }
        if !got.missing.is_empty() {
            let ids: Vec<&str> = got.missing.iter().map(|i| i.id.as_str()).collect();
            s.push_str(&format!(" missing [{}]", ids.join(", ")));
        }
        if let Some(reason) = &got.reason {
            s.push_str(&format!(" ({reason})"));
        }
        format!("{s}; trace: {}", got.trace_text())
    };
    let ok = match &expect.needs {
        Some(needs) => {
            let mut want: Vec<&str> = needs.iter().map(String::as_str).collect();
            let mut have: Vec<&str> = got.missing.iter().map(|i| i.id.as_str()).collect();
            want.sort_unstable();
            have.sort_unstable();
            got.status == UnitStatus::NeedsInputs && want == have
        }
        None => {
            got.status == UnitStatus::Decided
                && expect
                    .outcome
                    .as_ref()
                    .is_none_or(|o| got.outcome.is_some_and(|g| g.code == *o))
                && expect
                    .result
                    .as_ref()
                    .is_none_or(|r| got.result == Some(r.as_str()))
        }
    };
    if ok {
        return Ok(());
    }
    let mut want = Vec::new();
    if let Some(o) = &expect.outcome {
        want.push(format!("outcome '{o}'"));
    }
    if let Some(r) = &expect.result {
        want.push(format!("result '{r}'"));
    }
    if let Some(n) = &expect.needs {
        want.push(format!("needs_inputs [{}]", n.join(", ")));
    }
    Err(format!("expected {}, got {}", want.join(" and "), shown()))
}

/// Rules shadowed by an earlier `always` or by an earlier rule with the same condition.
pub fn shadowed(unit: &DecisionUnit) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (j, rule) in unit.rules.iter().enumerate() {
        let earlier = &unit.rules[..j];
        if let Some(i) = earlier
            .iter()
            .position(|r| matches!(&r.when, Condition::Always(a) if a.always))
        {
            out.push((
                j,
                format!("rule {j} is never reached: rule {i} always holds"),
            ));
        } else if let Some(i) = earlier.iter().position(|r| r.when == rule.when) {
            out.push((
                j,
                format!(
                    "rule {j} is never reached: rule {i} has the same condition and is tested first"
                ),
            ));
        }
    }
    out
}

/// Rules that no combination of input values makes the deciding rule (see
/// `evaluate::reachable_rules`), each with why; `None` when the unit has too many
/// combinations to try.
pub fn never_reached(model: Model, unit: &DecisionUnit) -> Option<Vec<(usize, String)>> {
    let reach = reachable_rules(model, unit, MAX_COMBINATIONS)?;
    Some(
        reach
            .iter()
            .enumerate()
            .filter_map(|(j, r)| match r {
                Reach::Reached => None,
                Reach::Never { before } if before.is_empty() => Some((
                    j,
                    format!(
                        "rule {j} is never reached: its condition holds for no combination of \
                         input values (contradictory bounds or values)"
                    ),
                )),
                Reach::Never { before } => {
                    let list: Vec<String> = before.iter().map(usize::to_string).collect();
                    Some((
                        j,
                        format!(
                            "rule {j} is never reached: wherever its condition holds, earlier \
                             rule{} {} decide{} first. A rule meant for an input that is not \
                             given never decides: the unit stops and asks for that input. Give \
                             that case an input of its own (e.g. a boolean 'DCE performed') and \
                             gate the rules on it, or remove the rule and record it in `gaps`",
                            if list.len() == 1 { "" } else { "s" },
                            list.join(", "),
                            if list.len() == 1 { "s" } else { "" },
                        ),
                    ))
                }
            })
            .collect(),
    )
}
