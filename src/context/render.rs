//! The grounding answer as one markdown block for an assistant's prompt, rendered from the
//! typed answer: per system the reasons it was selected, its cited lines `[n, locator]`
//! (flagged when draft), what the finding alone decides, what the evaluator still needs and the
//! link that evaluates it; then the numbered references and a token estimate.

use super::answer::{CitedLine, Grounding, SystemContext};
use crate::corpus::source::Verification;
use crate::corpus::text::approx_tokens;

/// Missing inputs the block describes; the others it names by id.
const MAX_MISSING_SHOWN: usize = 5;
/// Ruled-out phrases the block quotes; the others it counts.
const MAX_RULED_OUT_SHOWN: usize = 12;

/// The text on one line, cut at `max` characters with an ellipsis.
fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    }
}

fn draft_flag(verification: Option<Verification>) -> &'static str {
    if verification == Some(Verification::Verified) {
        ""
    } else {
        " (draft)"
    }
}

/// The numbered references of the block, in the order lines first cite them.
#[derive(Default)]
struct References(Vec<String>);

impl References {
    fn number(&mut self, system: &SystemContext, id: &str) -> usize {
        let text = format!(
            "{} ({})",
            system.references.get(id).map_or(id, String::as_str),
            system.slug
        );
        match self.0.iter().position(|r| *r == text) {
            Some(i) => i + 1,
            None => {
                self.0.push(text);
                self.0.len()
            }
        }
    }
}

/// The markdown block of a grounding answer.
pub fn markdown(answer: &Grounding) -> String {
    let notice = answer.notice;
    let mut md = String::new();
    let mut refs = References::default();
    md.push_str("## radref grounded context\n\n");
    md.push_str(&format!("> {notice}\n\n"));
    if !answer.query.text.trim().is_empty() {
        md.push_str(&format!(
            "Finding: {}\n\n",
            one_line(&answer.query.text, 600)
        ));
    }
    let ruled = &answer.finding.ruled_out;
    if !ruled.is_empty() {
        let shown: Vec<String> = ruled
            .iter()
            .take(MAX_RULED_OUT_SHOWN)
            .map(|r| {
                format!(
                    "\"{}\" ({}: \"{}\")",
                    one_line(&r.text, 60),
                    r.assertion.as_str(),
                    r.trigger
                )
            })
            .collect();
        let more = ruled.len().saturating_sub(MAX_RULED_OUT_SHOWN);
        let more = if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        };
        md.push_str(&format!(
            "Ruled out by the text, so not grounded: {}{more}.\n\n",
            shown.join("; ")
        ));
    }
    if answer.findings.len() > 1 {
        md.push_str("Findings, each with the systems that govern it:\n");
        for f in &answer.findings {
            let systems: Vec<String> = f.systems.iter().map(|s| format!("`{}`", s.slug)).collect();
            let hedge = match &f.trigger {
                Some(t) => format!(" ({}: \"{}\")", f.assertion.as_str(), t.text),
                None => String::new(),
            };
            md.push_str(&format!(
                "- \"{}\"{hedge}: {}\n",
                one_line(&f.text, 160),
                if systems.is_empty() {
                    "no system".to_string()
                } else {
                    systems.join(", ")
                }
            ));
        }
        if answer.more_findings > 0 {
            md.push_str(&format!(
                "- and {} more findings, not grounded (the most per text is reached)\n",
                answer.more_findings
            ));
        }
        md.push('\n');
    }
    if !answer.withheld_systems.is_empty() {
        md.push_str("Left out because their entries are not current (ask with verified=false to include them): ");
        let names: Vec<String> = answer
            .withheld_systems
            .iter()
            .map(|w| format!("{} (`{}`, {})", w.name, w.slug, w.status.as_str()))
            .collect();
        md.push_str(&names.join("; "));
        md.push_str(".\n\n");
    }
    if answer.systems.is_empty() {
        md.push_str("No system in the corpus matched this finding.\n");
    }
    for system in &answer.systems {
        md.push_str(&format!(
            "### {} ({}, {}; `{}`)\n",
            system.name,
            system.family.as_str(),
            system.status.as_str(),
            system.slug,
        ));
        if !system.why.reasons.is_empty() {
            md.push_str(&format!(
                "Selected for: {}.\n",
                system.why.reasons.join("; ")
            ));
        }
        let mut line = |md: &mut String, prefix: &str, l: &CitedLine| {
            let n = refs.number(system, l.citation);
            md.push_str(&format!(
                "- {prefix}{} [{n}, {}]{}\n",
                one_line(l.text, 400),
                one_line(l.locator, 80),
                draft_flag(Some(l.verification)),
            ));
        };
        for l in &system.scope {
            line(&mut md, "Scope: ", l);
        }
        for o in &system.outcomes {
            let code = o.code;
            if let Some(l) = &o.definition {
                line(&mut md, &format!("{code}: "), l);
            }
            if let Some(l) = &o.risk {
                line(&mut md, &format!("{code} risk: "), l);
            }
            for m in &o.management {
                line(&mut md, &format!("{code} management: "), m);
            }
        }
        for u in &system.decision_units {
            for r in &u.rules {
                line(&mut md, "Rule: ", &r.line);
            }
        }
        evaluator_lines(&mut md, system);
        if let Some(note) = &system.withheld_note {
            md.push_str(&format!("- {note}.\n"));
        }
        md.push('\n');
    }
    if !refs.0.is_empty() {
        md.push_str("References:\n");
        for (i, r) in refs.0.iter().enumerate() {
            md.push_str(&format!("[{}] {}\n", i + 1, r));
        }
    }
    let tokens = approx_tokens(&md);
    md.push_str(&format!(
        "\n<!-- radref context: about {tokens} tokens -->\n"
    ));
    md
}

/// The evaluator's part of a system's block: what the finding alone decides, what the
/// evaluator still needs (ids as it takes them) and the link that evaluates the finding.
fn evaluator_lines(md: &mut String, system: &SystemContext) {
    for d in &system.decided {
        md.push_str(&format!(
            "- Decided from the finding alone, {}: {}{}.\n",
            d.title,
            d.answer,
            draft_flag(d.verification),
        ));
    }
    let inputs = &system.missing_inputs;
    // The first few with what they take; the rest by id, to keep the block short.
    let mut missing: Vec<String> = inputs
        .iter()
        .take(MAX_MISSING_SHOWN)
        .map(|i| {
            let mut what = i.kind.as_str().to_string();
            if let Some(unit) = i.unit {
                what.push_str(&format!(", {unit}"));
            }
            let listed = i.values.join(" | ");
            if !i.values.is_empty() && listed.len() <= 80 {
                what.push_str(&format!(": {listed}"));
            }
            format!("`{}` ({}; {what})", i.id, one_line(i.label, 60))
        })
        .collect();
    if inputs.len() > MAX_MISSING_SHOWN {
        let rest: Vec<&str> = inputs[MAX_MISSING_SHOWN..].iter().map(|i| i.id).collect();
        missing.push(format!("and {}", rest.join(", ")));
    }
    if !missing.is_empty() {
        md.push_str(&format!(
            "- The evaluator still needs: {}.\n",
            missing.join("; ")
        ));
    }
    let note = if system.prefilled.is_empty() {
        ""
    } else {
        " (what the finding states is filled in)"
    };
    md.push_str(&format!("- Evaluate{note}: {}\n", system.links.evaluate));
}
