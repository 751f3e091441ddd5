//! The checks that run the corpus's logic: every example evaluated against its expectation,
//! and every rule shown to be reachable by some input.
//!
//! They run after `validate` found nothing (they assume well-formed units), in `build.rs` and
//! `corpus-check`. Each problem names the file, the JSON path and what went wrong; a failed
//! example also says what the evaluator answered and the rules it tested.

use super::evaluate::{evaluate, reachable_rules, Model, UnitStatus};
use super::source::*;
use super::validate::{Problem, Sources};

/// The most input combinations tried per unit when looking for unreachable rules. A unit with
/// more is checked only for rules after an `always` and repeated conditions.
pub const MAX_COMBINATIONS: usize = 100_000;

/// What running the logic found.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// Failed examples and rules shadowed by an `always` or by a repeated condition: the
    /// build stops.
    pub problems: Vec<Problem>,
    /// Rules an exhaustive search over input values never reaches. Today these are fallbacks
    /// written for an input that is not given, which the three-valued evaluation never
    /// reaches (it stops and asks for the input): the build prints them until the corpus says
    /// how to express the missing case.
    pub warnings: Vec<Problem>,
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
            let shadowed = shadowed(unit);
            let list =
                if shadowed.is_empty() {
                    found
                        .warnings
                        .extend(never_reached(model, unit).into_iter().map(|(r, reason)| {
                            Problem {
                                file: file.clone(),
                                path: format!("{path}.rules[{r}]"),
                                reason,
                            }
                        }));
                    continue;
                } else {
                    shadowed
                };
            for (r, reason) in list {
                found.problems.push(Problem {
                    file: file.clone(),
                    path: format!("{path}.rules[{r}]"),
                    reason,
                });
            }
        }
    }
    found.problems.sort();
    found.warnings.sort();
    found
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
/// `evaluate::reachable_rules`); nothing when the unit has too many combinations to try.
pub fn never_reached(model: Model, unit: &DecisionUnit) -> Vec<(usize, String)> {
    let Some(reached) = reachable_rules(model, unit, MAX_COMBINATIONS) else {
        return Vec::new();
    };
    reached
        .iter()
        .enumerate()
        .filter(|(_, r)| !**r)
        .map(|(j, _)| {
            (
                j,
                format!(
                    "rule {j} is never reached: an earlier rule holds for every combination of \
                     input values (a fallback for an input not given is never reached: the unit \
                     stops and asks for it)"
                ),
            )
        })
        .collect()
}
