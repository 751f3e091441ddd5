//! The grounding answer as one markdown block for an assistant's prompt, rendered from the
//! typed answer and bounded by the query's token budget (`max_tokens`).
//!
//! The block is per finding: each present or possible finding of the text with its assertion,
//! the system that governs it, the inputs read from its words, what the evaluator decides
//! (outcome, rule and management, cited) and what it still needs; then, per selected system,
//! its scope and the lines the answer carries; then what the text rules out. Every clinical
//! line is cited `[n, locator]` against the numbered references at the end and flagged when
//! draft. Blocks are added in that order while they fit the budget; what does not fit is named
//! at the end, never silently cut.

use super::answer::{CitedLine, FindingContext, Grounding, SystemContext};
use crate::corpus::evaluate::given_text;
use crate::corpus::source::Verification;
use crate::corpus::text::approx_tokens;
use std::fmt::Write;

/// Missing inputs described per finding or system; the others are named by id.
const MAX_MISSING_SHOWN: usize = 5;
/// Ruled-out findings the block quotes; the others it counts.
const MAX_RULED_OUT_SHOWN: usize = 16;
/// Characters of a finding quoted where a system says which finding its inputs were read from.
const SOURCE_QUOTE_CHARS: usize = 80;

/// The text on one line, cut at `max` characters with an ellipsis.
/// Only the words up to the cut are read: the answer's echo of a 20,000-character report keeps
/// its first 300.
fn one_line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max.saturating_mul(4)) + '…'.len_utf8());
    let mut count = 0;
    for (i, word) in s.split_whitespace().enumerate() {
        let space = if i == 0 { "" } else { " " };
        let n = space.len() + word.chars().count();
        if count + n <= max {
            out.push_str(space);
            out.push_str(word);
            count += n;
        } else {
            out.extend(space.chars().chain(word.chars()).take(max - count));
            out.push('…');
            return out;
        }
    }
    out
}

fn draft_flag(verification: Option<Verification>) -> &'static str {
    if verification == Some(Verification::Verified) {
        ""
    } else {
        " (draft)"
    }
}

/// The numbered references of the block, in the order lines first cite them, with the
/// characters of their rendered lines (see [`References::rendered_chars`]).
#[derive(Clone, Default)]
struct References(Vec<String>, usize);

impl References {
    fn number(&mut self, slug: &str, citation: String) -> usize {
        let text = format!("{citation} ({slug})");
        match self.0.iter().position(|r| *r == text) {
            Some(i) => i + 1,
            None => {
                let n = self.0.len() + 1;
                // "[n] " and the line's end around the reference; n's digits.
                self.1 += n.ilog10() as usize + 1 + "[] \n".len() + text.chars().count();
                self.0.push(text);
                n
            }
        }
    }

    fn render(&self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        let mut out = String::from(REFERENCES_HEADING);
        for (i, r) in self.0.iter().enumerate() {
            out.push_str(&format!("[{}] {}\n", i + 1, r));
        }
        out
    }

    /// The characters of [`References::render`], kept as references are numbered, without
    /// writing it (a block is weighed against the budget as it is built).
    fn rendered_chars(&self) -> usize {
        if self.0.is_empty() {
            return 0;
        }
        REFERENCES_HEADING.len() + self.1
    }
}

const REFERENCES_HEADING: &str = "References:\n";

/// The block as it grows: blocks are added while the budget allows.
struct Block {
    md: String,
    /// How much of `md` has been counted (bytes) and its characters: `md` only grows, so each
    /// weighing counts only what was added since the last.
    counted: (usize, usize),
    refs: References,
    budget: usize,
    left_out: Vec<LeftOut>,
    /// While a block is built: the tokens of `md` before it, and how much of the block has
    /// been counted (bytes, characters). Once the block cannot fit, `full` is set and the rest
    /// of it is not written (its cited lines, and the parts after each check of
    /// [`Block::full`]): it will be left out whatever follows, as a block and the references
    /// only grow. A long report's blocks are mostly left out of a budget of a few thousand
    /// tokens, and writing them was most of the block's cost.
    building: Building,
    /// Whether a block stops being written once it cannot fit (always, but in a test that
    /// compares with writing every block whole).
    stop_early: bool,
    /// Findings past the most grounded per text, named at the end.
    more_findings: usize,
}

#[derive(Default)]
struct Building {
    md_tokens: usize,
    counted: (usize, usize),
    full: bool,
    /// The tokens of the answer's end ([`closing`]) were this block and all after it left
    /// out: the most it can take, as only those can still be left out.
    closing_tokens: usize,
}

/// A block of the answer, as the budget names it when it leaves it out.
#[derive(Clone, Copy)]
enum LeftOut {
    /// A finding by its number (from 1).
    Finding(usize),
    /// A system by its place in the answer's systems, and its slug.
    System(usize, &'static str),
    RuledOut,
}

impl Block {
    /// A cited line: `- {prefix}{text} [n, locator]`, flagged when draft.
    fn line(&mut self, out: &mut String, slug: &str, prefix: &str, l: &CitedLine) {
        if self.full(out) {
            return;
        }
        let citation = self.citation(slug, l.citation);
        let n = self.refs.number(slug, citation);
        out.push_str(&format!(
            "- {prefix}{} [{n}, {}]{}\n",
            one_line(l.text, 400),
            one_line(l.locator, 80),
            draft_flag(Some(l.verification)),
        ));
    }

    /// The tokens the block would take with `out` added and the references numbered so far.
    fn tokens_with(&mut self, out: &str) -> usize {
        let (bytes, chars) = self.building.counted;
        let chars = chars + out[bytes..].chars().count();
        self.building.counted = (out.len(), chars);
        self.building.md_tokens + chars.div_ceil(4) + self.refs.rendered_chars().div_ceil(4)
    }

    /// Whether the block with `out` is over the budget, with the block's end as it would be
    /// were this block and every block after it left out.
    fn over(&mut self, out: &str) -> bool {
        self.tokens_with(out) + self.building.closing_tokens > self.budget
    }

    /// Whether the block being built, `out` so far, can no longer fit the budget, so that the
    /// rest of it need not be written.
    fn full(&mut self, out: &str) -> bool {
        if self.stop_early && !self.building.full {
            self.building.full = self.over(out);
        }
        self.building.full
    }

    /// A reference id as its citation string, every author listed, from the system's logic.
    fn citation(&self, slug: &str, id: &str) -> String {
        super::answer::reference(slug, id).unwrap_or_else(|| id.to_string())
    }

    /// Adds a block built by `build` when it fits the budget; otherwise names it as left out
    /// and forgets the references it numbered. `later` are the blocks still to be weighed.
    fn add(
        &mut self,
        name: LeftOut,
        later: &[LeftOut],
        build: impl FnOnce(&mut Self, &mut String),
    ) -> bool {
        let saved = self.refs.clone();
        let (bytes, chars) = self.counted;
        let md_chars = chars + self.md[bytes..].chars().count();
        self.counted = (self.md.len(), md_chars);
        let mut worst = self.left_out.clone();
        worst.push(name);
        worst.extend_from_slice(later);
        self.building = Building {
            md_tokens: md_chars.div_ceil(4),
            closing_tokens: approx_tokens(&closing(self.budget, self.more_findings, &worst)),
            ..Building::default()
        };
        let mut out = String::new();
        build(self, &mut out);
        if !self.building.full && !self.over(&out) {
            self.md.push_str(&out);
            true
        } else {
            self.refs = saved;
            self.left_out.push(name);
            false
        }
    }
}

/// The markdown block of a grounding answer, within `answer.query.max_tokens`.
pub fn markdown(answer: &Grounding) -> String {
    render(answer, true)
}

/// [`markdown`], with blocks that cannot fit written whole before being left out when
/// `stop_early` is false.
fn render(answer: &Grounding, stop_early: bool) -> String {
    let mut b = Block {
        md: String::new(),
        counted: (0, 0),
        refs: References::default(),
        budget: answer.query.max_tokens,
        left_out: Vec::new(),
        building: Building::default(),
        stop_early,
        more_findings: answer.more_findings,
    };
    b.md.push_str("## radref grounded context\n\n");
    b.md.push_str(&format!("> {}\n\n", answer.notice));
    let grounded: Vec<&FindingContext> = answer
        .findings
        .iter()
        .filter(|f| f.assertion.grounded())
        .collect();
    let ruled: Vec<&FindingContext> = answer
        .findings
        .iter()
        .filter(|f| !f.assertion.grounded())
        .collect();
    if grounded.len() <= 1 && !answer.query.text.trim().is_empty() {
        b.md.push_str(&format!(
            "Finding: {}\n\n",
            one_line(&answer.query.text, 300)
        ));
    } else if !grounded.is_empty() {
        b.md.push_str(&format!(
            "The report's findings: {} grounded (impression first){}.\n\n",
            grounded.len(),
            if ruled.is_empty() {
                String::new()
            } else {
                format!(", {} ruled out by the text", ruled.len())
            }
        ));
    }
    let setting = &answer.setting;
    if !setting.read.is_empty() || setting.age_years.is_some() {
        let mut said: Vec<String> = setting
            .read
            .iter()
            .map(|s| format!("{} (\"{}\")", s.setting.replace('_', " "), s.text))
            .collect();
        if let Some(age) = setting.age_years {
            said.push(format!("{age} years"));
        }
        b.md.push_str(&format!(
            "Setting read from the text, applied to every finding: {}.\n\n",
            said.join("; ")
        ));
    }
    if !answer.withheld_systems.is_empty() {
        let names: Vec<String> = answer
            .withheld_systems
            .iter()
            .map(|w| format!("{} (`{}`, {})", w.name, w.slug, w.status.as_str()))
            .collect();
        b.md.push_str(&format!(
            "Left out because their entries are not current (ask with verified=false to include them): {}.\n\n",
            names.join("; ")
        ));
    }
    if answer.systems.is_empty() {
        b.md.push_str("No system in the corpus matched this text.\n\n");
    }
    // The blocks in the order they are weighed: a report of several findings has one block
    // per finding first, then one per system, then what the text rules out.
    let ruled_out_phrases = &answer.finding.ruled_out;
    let mut plan: Vec<LeftOut> = Vec::new();
    if grounded.len() > 1 {
        plan.extend((1..=grounded.len()).map(LeftOut::Finding));
    }
    plan.extend(
        answer
            .systems
            .iter()
            .enumerate()
            .map(|(i, s)| LeftOut::System(i, s.slug)),
    );
    if !ruled.is_empty() || !ruled_out_phrases.is_empty() {
        plan.push(LeftOut::RuledOut);
    }
    for (k, &part) in plan.iter().enumerate() {
        b.add(part, &plan[k + 1..], |b, out| match part {
            LeftOut::Finding(n) => finding_block(b, out, n, grounded[n - 1]),
            LeftOut::System(i, _) => system_block(b, out, &answer.systems[i], &answer.findings),
            LeftOut::RuledOut => ruled_block(out, &ruled, ruled_out_phrases.len()),
        });
    }
    let mut md = b.md;
    // The systems left out are named, or counted when naming them would not fit: the lines
    // above the blocks (the notice, the setting, the systems withheld) take a small budget's
    // room when nothing else fits.
    let named = ending(b.budget, b.more_findings, &b.left_out, false);
    let refs = b.refs.render();
    let tokens = approx_tokens(&md)
        + approx_tokens(&named)
        + approx_tokens(&refs)
        + approx_tokens(&token_line(b.budget, b.budget));
    if tokens <= b.budget {
        md.push_str(&named);
    } else {
        md.push_str(&ending(b.budget, b.more_findings, &b.left_out, true));
    }
    md.push_str(&refs);
    // The last line counts itself, as the answer's `x-approx-tokens` does: its digits depend
    // on the count, so the count is taken again once they are known.
    let chars = md.chars().count();
    let mut tokens = 0;
    for _ in 0..3 {
        tokens = (chars + token_line(tokens, b.budget).chars().count()).div_ceil(4);
    }
    md.push_str(&token_line(tokens, b.budget));
    md
}

/// The lines after the blocks, before the references: the findings past the most grounded
/// per text, and what the budget left out (its systems counted with `by_count`). Written into
/// one string: the budget weighs it once per block, with every block after it left out.
fn ending(budget: usize, more_findings: usize, left: &[LeftOut], by_count: bool) -> String {
    let mut out = String::new();
    if more_findings > 0 {
        let _ = write!(
            out,
            "{more_findings} more findings were not grounded (the most per text is reached).\n\n"
        );
    }
    if !left.is_empty() {
        let _ = write!(out, "Not shown within the budget of {budget} tokens: ");
        left_out(&mut out, left, by_count);
        out.push_str(". The JSON answer has them all; or ask with a larger max_tokens.\n\n");
    }
    out
}

/// The block's last line: its size in tokens.
fn token_line(tokens: usize, budget: usize) -> String {
    format!("\n<!-- radref context: about {tokens} tokens (budget {budget}) -->\n")
}

/// What the answer ends with besides its references, were `left` left out: [`ending`] and
/// [`token_line`] (counted as at the budget: an answer within it has no more digits).
fn closing(budget: usize, more_findings: usize, left: &[LeftOut]) -> String {
    ending(budget, more_findings, left, false) + &token_line(budget, budget)
}

/// What the budget left out, in a few words, written to `out`: finding numbers (a run of three
/// or more as its first and last, "4-40"), system slugs, or with `by_count` how many systems;
/// the parts separated by "; ".
fn left_out(out: &mut String, blocks: &[LeftOut], by_count: bool) {
    let mut parts = 0;
    let mut part = |out: &mut String| {
        if parts > 0 {
            out.push_str("; ");
        }
        parts += 1;
    };
    let numbers: Vec<usize> = blocks
        .iter()
        .filter_map(|b| match b {
            LeftOut::Finding(n) => Some(*n),
            _ => None,
        })
        .collect();
    if !numbers.is_empty() {
        part(out);
        out.push_str("findings ");
        let mut i = 0;
        while i < numbers.len() {
            let mut j = i;
            while j + 1 < numbers.len() && numbers[j + 1] == numbers[j] + 1 {
                j += 1;
            }
            if i > 0 {
                out.push_str(", ");
            }
            if j >= i + 2 {
                let _ = write!(out, "{}-{}", numbers[i], numbers[j]);
            } else {
                for (k, n) in numbers[i..=j].iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{n}");
                }
            }
            i = j + 1;
        }
    }
    let mut systems = blocks.iter().filter_map(|b| match b {
        LeftOut::System(_, slug) => Some(*slug),
        _ => None,
    });
    if let Some(first) = systems.next() {
        part(out);
        if by_count {
            let _ = write!(out, "{} system(s)", 1 + systems.count());
        } else {
            let _ = write!(out, "the systems `{first}`");
            for slug in systems {
                let _ = write!(out, ", `{slug}`");
            }
        }
    }
    if blocks.iter().any(|b| matches!(b, LeftOut::RuledOut)) {
        part(out);
        out.push_str("the list of what the text rules out");
    }
}

/// One finding: its words, assertion and section, its governing system, what was read from
/// it, what the evaluator decides (cited) and still needs.
fn finding_block(b: &mut Block, out: &mut String, n: usize, f: &FindingContext) {
    let section = f.section.map(|s| format!("{s:?}").to_lowercase());
    let mut about = vec![f.assertion.as_str().to_string()];
    if let Some(t) = &f.trigger {
        about[0] = format!("{} (\"{}\")", f.assertion.as_str(), t.text);
    }
    if let Some(s) = section {
        about.push(s);
    }
    out.push_str(&format!(
        "### Finding {n}: \"{}\" ({})\n",
        one_line(&f.text, 200),
        about.join(", ")
    ));
    let Some(first) = f.systems.first() else {
        out.push_str("No system in the corpus governs it.\n\n");
        return;
    };
    let others: Vec<String> = f.systems[1..]
        .iter()
        .map(|s| format!("`{}`", s.slug))
        .collect();
    out.push_str(&format!(
        "Governed by {} (`{}`){}.\n",
        first.name,
        first.slug,
        if others.is_empty() {
            String::new()
        } else {
            format!("; also {}", others.join(", "))
        }
    ));
    if b.full(out) {
        return;
    }
    for why in &first.because {
        if let Some(line) = &why.line {
            let verb = if why.factor > 1.0 {
                "favoured"
            } else {
                "disfavoured"
            };
            let citation = b.citation(line.system, line.citation);
            let n = b.refs.number(line.system, citation);
            out.push_str(&format!(
                "- {verb} by {} (×{}): {} [{n}, {}]\n",
                why.cue,
                why.factor,
                one_line(line.text, 300),
                one_line(line.locator, 80)
            ));
        }
    }
    if !f.inputs.is_empty() {
        let read: Vec<String> = f
            .inputs
            .iter()
            .map(|i| format!("`{}` = {} (\"{}\")", i.id, given_text(&i.value), i.text))
            .collect();
        out.push_str(&format!("- Read from the text: {}.\n", read.join("; ")));
    }
    if b.full(out) {
        return;
    }
    if let Some(e) = &f.evaluation {
        for d in &e.decided {
            out.push_str(&format!(
                "- Decided, {}: **{}**{}.\n",
                d.title,
                d.answer,
                draft_flag(d.verification)
            ));
            if let Some(rule) = &d.rule {
                b.line(out, e.slug, "Rule: ", rule);
            }
            if let Some(o) = &d.outcome {
                for m in &o.management {
                    b.line(out, e.slug, &format!("{} management: ", o.code), m);
                }
            }
        }
        if b.full(out) {
            return;
        }
        missing_line(out, &f.missing);
        out.push_str(&format!("- Evaluate: {}\n", e.link));
    }
    out.push('\n');
}

/// The inputs an evaluator still needs: the first few with what they take, the rest by id.
fn missing_line(out: &mut String, inputs: &[super::answer::MissingInput]) {
    let mut missing: Vec<String> = inputs
        .iter()
        .take(MAX_MISSING_SHOWN)
        .map(|i| {
            let mut what = i.kind.as_str().to_string();
            if let Some(unit) = i.unit {
                what.push_str(&format!(", {unit}"));
            }
            // The values are listed when they are few and short (measured before joining: a
            // list can be long).
            let listed_len = i.values.iter().map(|v| v.len()).sum::<usize>()
                + " | ".len() * i.values.len().saturating_sub(1);
            if !i.values.is_empty() && listed_len <= 80 {
                what.push_str(&format!(": {}", i.values.join(" | ")));
            }
            format!("`{}` ({}; {what})", i.id, one_line(i.label, 60))
        })
        .collect();
    if inputs.len() > MAX_MISSING_SHOWN {
        let rest: Vec<&str> = inputs[MAX_MISSING_SHOWN..].iter().map(|i| i.id).collect();
        missing.push(format!("and {}", rest.join(", ")));
    }
    if !missing.is_empty() {
        out.push_str(&format!(
            "- The evaluator still needs: {}.\n",
            missing.join("; ")
        ));
    }
}

/// One selected system: why it was selected, its scope, the outcomes and rules the answer
/// carries, and the evaluator's part.
fn system_block(
    b: &mut Block,
    out: &mut String,
    system: &SystemContext,
    findings: &[FindingContext],
) {
    out.push_str(&format!(
        "### {} ({}, {}; `{}`)\n",
        system.name,
        system.family.as_str(),
        system.status.as_str(),
        system.slug,
    ));
    if !system.why.reasons.is_empty() {
        out.push_str(&format!(
            "Selected for: {}.\n",
            system.why.reasons.join("; ")
        ));
    }
    let slug = system.slug;
    for l in &system.scope {
        b.line(out, slug, "Scope: ", l);
    }
    for o in &system.outcomes {
        let code = o.code;
        if let Some(l) = &o.definition {
            b.line(out, slug, &format!("{code}: "), l);
        }
        if let Some(l) = &o.risk {
            b.line(out, slug, &format!("{code} risk: "), l);
        }
        for m in &o.management {
            b.line(out, slug, &format!("{code} management: "), m);
        }
    }
    for u in &system.decision_units {
        for r in &u.rules {
            b.line(out, slug, "Rule: ", &r.line);
        }
    }
    for d in &system.decided {
        out.push_str(&format!(
            "- Decided from the text, {}: {}{}.\n",
            d.title,
            d.answer,
            draft_flag(d.verification),
        ));
    }
    if b.full(out) {
        return;
    }
    missing_line(out, &system.missing_inputs);
    // A report's system is filled in from the finding it was read on, quoted.
    let source = system
        .prefilled_from
        .and_then(|span| findings.iter().find(|f| f.span == span));
    let note = match source {
        _ if system.prefilled.is_empty() => String::new(),
        Some(f) => format!(
            " (what the finding \"{}\" states is filled in)",
            one_line(&f.text, SOURCE_QUOTE_CHARS)
        ),
        None => " (what the text states is filled in)".to_string(),
    };
    out.push_str(&format!("- Evaluate{note}: {}\n", system.links.evaluate));
    out.push_str(&format!("- The whole system: {}\n", system.links.system));
    if let Some(note) = &system.withheld_note {
        out.push_str(&format!("- {note}.\n"));
    }
    out.push('\n');
}

/// What the text rules out: its ruled-out findings quoted with their triggers (they pull in no
/// system), or, for a text without findings, the count of its ruled-out phrases.
fn ruled_block(out: &mut String, ruled: &[&FindingContext], phrases: usize) {
    if ruled.is_empty() {
        out.push_str(&format!(
            "Ruled out by the text, so not grounded: {phrases} phrase(s) (listed in the JSON answer's finding.ruled_out).\n\n"
        ));
        return;
    }
    let shown: Vec<String> = ruled
        .iter()
        .take(MAX_RULED_OUT_SHOWN)
        .map(|f| {
            let trigger = f
                .trigger
                .as_ref()
                .map(|t| format!(": \"{}\"", t.text))
                .unwrap_or_default();
            format!(
                "\"{}\" ({}{trigger})",
                one_line(&f.text, 80),
                f.assertion.as_str()
            )
        })
        .collect();
    let more = ruled.len().saturating_sub(MAX_RULED_OUT_SHOWN);
    let more = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    out.push_str(&format!(
        "Ruled out by the text, so not grounded: {}{more}.\n\n",
        shown.join("; ")
    ));
}

#[cfg(test)]
mod tests {
    use super::one_line;
    use crate::context::{ground, ContextQuery, MAX_MAX_TOKENS, MIN_MAX_TOKENS};
    use crate::knowledge::KNOWLEDGE;

    /// What the budget left out is written in a few words: findings as runs of three or more
    /// ("6-8") and single numbers, the systems by slug or counted, the list of what the text
    /// rules out; the parts in that order, whatever order the blocks were left out in.
    #[test]
    fn what_was_left_out_is_written_as_runs_slugs_or_a_count() {
        use super::LeftOut::{Finding, RuledOut, System};
        let left = [
            Finding(2),
            Finding(3),
            System(0, "bosniak-v2019"),
            Finding(6),
            Finding(7),
            Finding(8),
            RuledOut,
            Finding(10),
            System(4, "aast-ois-2018"),
        ];
        let written = |by_count: bool| {
            let mut out = String::new();
            super::left_out(&mut out, &left, by_count);
            out
        };
        assert_eq!(
            written(false),
            "findings 2, 3, 6-8, 10; the systems `bosniak-v2019`, `aast-ois-2018`; \
             the list of what the text rules out"
        );
        assert_eq!(
            written(true),
            "findings 2, 3, 6-8, 10; 2 system(s); the list of what the text rules out"
        );
        let mut out = String::new();
        super::left_out(&mut out, &[System(1, "fleischner-2017")], false);
        assert_eq!(out, "the systems `fleischner-2017`");
        let ending = super::ending(900, 4, &[Finding(1), Finding(2), Finding(3)], false);
        assert_eq!(
            ending,
            "4 more findings were not grounded (the most per text is reached).\n\n\
             Not shown within the budget of 900 tokens: findings 1-3. The JSON answer has them \
             all; or ask with a larger max_tokens.\n\n"
        );
        assert_eq!(super::ending(900, 0, &[], false), "");
    }

    /// The answer keeps to its budget, and a block is shown whole or not at all, whatever the
    /// budget: for two long reports, each answer is within its `max_tokens` (its end, what
    /// was left out, named or counted), and each block shown at a tight budget is the same
    /// block as with room for everything (its reference numbers aside); blocks after one left
    /// out are still weighed. A block stops being written once it cannot fit: the answer is
    /// the same as when every block is written whole before it is weighed, so a check that
    /// stopped too early would show here as a block cut short or one left out that fits.
    #[test]
    fn a_block_is_shown_whole_or_left_out_at_every_budget() {
        for text in [
            include_str!("../../benches/reports/6-ct-trauma-whole-body.txt"),
            include_str!("../../benches/reports/5-ct-chest-abdomen-pelvis.txt"),
        ] {
            blocks_at_every_budget(text);
        }
    }

    fn blocks_at_every_budget(text: &str) {
        let mut query =
            ContextQuery::new(Some(text.to_string()), None, None, None, None, None).unwrap();
        let answer = |query: &ContextQuery| super::markdown(&ground(&KNOWLEDGE, query));
        // The blocks of an answer ("### " to the next), each with its reference numbers
        // blanked ("[3, " as "[n, ").
        let blocks = |md: &str| -> Vec<String> {
            let body = md.split("References:\n").next().unwrap_or(md);
            body.split("\n### ")
                .skip(1)
                .map(|b| {
                    let b = b.split("\n\n").next().unwrap_or(b).trim_end();
                    let mut out = String::new();
                    let mut rest = b;
                    while let Some(at) = rest.find(" [") {
                        out.push_str(&rest[..at + 2]);
                        rest = &rest[at + 2..];
                        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                        if digits > 0 && rest[digits..].starts_with(", ") {
                            out.push('n');
                            rest = &rest[digits..];
                        }
                    }
                    out.push_str(rest);
                    out
                })
                .collect()
        };
        query.max_tokens = MAX_MAX_TOKENS;
        let whole = blocks(&answer(&query));
        assert!(whole.len() > 30, "{} blocks", whole.len());
        let mut shown_after_a_gap = 0;
        for budget in (MIN_MAX_TOKENS..=6_000).step_by(250) {
            query.max_tokens = budget;
            let grounding = ground(&KNOWLEDGE, &query);
            let md = super::markdown(&grounding);
            assert_eq!(md, super::render(&grounding, false), "at {budget}");
            let tokens = crate::corpus::text::approx_tokens(&md);
            assert!(tokens <= budget, "{tokens} tokens at {budget}:\n{md}");
            // The last line states the count, itself included.
            assert!(
                md.ends_with(&format!("about {tokens} tokens (budget {budget}) -->\n")),
                "{tokens}: {md}"
            );
            let shown = blocks(&md);
            // The lines above the blocks may leave no room for one at the smallest budgets.
            assert!(budget < 1_000 || !shown.is_empty(), "at {budget}");
            let mut at = 0;
            for block in &shown {
                let found = whole[at..].iter().position(|w| w == block);
                let Some(found) = found else {
                    panic!("at {budget}, a block not shown whole:\n{block}");
                };
                if found > 0 {
                    shown_after_a_gap += 1;
                }
                at += found + 1;
            }
        }
        assert!(shown_after_a_gap > 0, "no block fitted after one left out");
    }

    #[test]
    fn one_line_flattens_and_cuts() {
        // What it must equal: the words joined by single spaces, cut at `max` characters with
        // an ellipsis.
        let whole = |s: &str, max: usize| {
            let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
            if flat.chars().count() <= max {
                flat
            } else {
                format!("{}…", flat.chars().take(max).collect::<String>())
            }
        };
        let texts = [
            "",
            "   ",
            "a",
            "  Lungs:\n  no   nodules.\t",
            "Größe 1,5 cm — hypoechoic, ≥ 70%",
            "one two three four five six",
        ];
        for text in texts {
            for max in 0..40 {
                assert_eq!(one_line(text, max), whole(text, max), "{text:?} at {max}");
            }
        }
        assert_eq!(one_line("one  two\nthree", 7), "one two…");
        assert_eq!(one_line("one  two\nthree", 13), "one two three");
    }
}
