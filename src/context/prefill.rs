//! What a finding states for a system's evaluator inputs: sizes (in the input's unit), age, and
//! enum values the text names unambiguously. Grounding prefills the evaluate link with them and
//! runs the evaluator on them, so what the context says is missing is what the evaluator says.
//!
//! Reading is deliberately conservative: a value is filled only when the text leaves no doubt
//! which input it belongs to. Otherwise the input stays empty and the evaluator asks for it.
//! The words it relies on (measured nouns, lesion nouns, measure words, clause breaks,
//! negations, generic values, age words) are the corpus's lexicon (`corpus/grounding/`).
//!
//! - **Sizes.** Each size ("8 mm", "1.5cm") is tied to the thing it measures, the nearest
//!   measured noun after it ("8 mm solid *nodule*", "4 mm solid *component*") or else before it
//!   ("*nodule* measuring 1.6 cm"). A length input measures the nouns of its label ("Solid
//!   component size" measures a component, "Maximum nodule diameter" a nodule); its last noun
//!   is the one it is about ("Part-solid nodule solid component size" is about the component).
//!   Among inputs measuring the same noun, the qualifiers the text states decide ("part solid"
//!   nodule, "ground glass" nodule), then the system's order. A system with a single length input takes the first size that measures
//!   nothing more specific than a lesion. Each input takes one size and each size fills one
//!   input; cm and mm are converted to the input's unit. A sum ("sum of target lesion
//!   diameters 71 mm") fills no input, and an input about a sum takes no one size.
//! - **Age.** "67-year-old" fills an input in years whose id names the age.
//! - **Enum values.** A value is stated when its id or label occurs as whole words, not
//!   negated ("no", "not", "without", "non" just before), not what an earlier examination
//!   showed (a `prior_words` word just before: "unchanged *from* baseline"), not inside a longer stated value
//!   ("solid" within "part solid"), not one side of a differential ("versus" right before it,
//!   or after it past measured nouns only: "cyst versus solid mass", "solid mass vs cyst"), and
//!   not claimed by two inputs ("baseline" for every nodule
//!   type of Lung-RADS). A value whose words another stated value spells out in full yields to
//!   it ("solid" to "part solid"); an input with two stated values is left empty. A multi
//!   input is filled only where the corpus marks it `listed` (a report lists the echogenic
//!   foci a nodule has): with every value the finding states. Other multi inputs are never
//!   filled: a list of risk factors the finding half states would tell the evaluator the rest
//!   are absent.
//!   Generic values ("other", "none", "present") are never read from text.

use crate::corpus::compiled::Logic;
use crate::corpus::evaluate::{Given, Inputs};
use crate::corpus::source::{Input, InputType, InputValue};
use crate::corpus::text;
use crate::corpus::text::Word;
use crate::knowledge::Lexicon;
use std::collections::BTreeMap;

/// The inputs a finding states, and for each the folded words it was read from (`[start, end)`
/// word indices into the words read), so an answer can point at them in the text.
#[derive(Clone, Debug, Default)]
pub struct Filled {
    pub inputs: Inputs,
    pub from: BTreeMap<String, (usize, usize)>,
    /// The organs the finding states: the inputs about other organs were left out.
    pub organs: Vec<&'static str>,
}

impl Filled {
    fn put(&mut self, id: &str, value: Given, words: (usize, usize)) {
        self.inputs.insert(id.to_string(), value);
        self.from.insert(id.to_string(), words);
    }
}

/// A size stated in the finding.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeMention {
    /// The size in millimetres: of a measurement of several dimensions ("1.8 x 1.4 x 1.2 cm"),
    /// the largest.
    pub mm: f64,
    /// Of a measurement of several dimensions, its first two in millimetres (the long and
    /// short axis a report writes first), for an input that asks for their mean or the short
    /// one.
    pub axes: Option<[f64; 2]>,
    /// The word index of the number.
    pub at: usize,
    /// The word index just past the unit.
    pub end: usize,
}

/// An age stated in a finding: the years and the words `[at, end)` that state it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Age {
    pub years: f64,
    pub at: usize,
    pub end: usize,
    /// The sex a letter written onto the age or right after it states ("78F", "61 y/o F"):
    /// the setting (`lexicon.age_sex_words`) and the word the letter is in.
    pub sex: Option<(&'static str, usize)>,
}

/// Sizes ("8 mm", "8mm", "1.5 cm") and the first age stated ("67-year-old", "67 yo", "Age:
/// 67") in folded words.
pub fn sizes_and_age(lexicon: &Lexicon, words: &[Word]) -> (Vec<SizeMention>, Option<Age>) {
    let mut sizes = Vec::new();
    let mut age = None;
    for (i, w) in words.iter().enumerate() {
        // A size or an age starts with a digit (folded words are letters, digits and decimal
        // points; a word that starts with a letter is no number, not even "inf" or "nan").
        if !w.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let next = words.get(i + 1).map(Word::as_str);
        // A unit written onto the number: "8mm", "1.5cm", "67yo".
        let attached = w
            .find(|c: char| c.is_ascii_alphabetic())
            .filter(|&pos| pos > 0);
        let (number, unit, end) = match attached {
            Some(pos) => (&w[..pos], Some(&w[pos..]), i + 1),
            None => (w.as_str(), next, i + 2),
        };
        // A size followed by a rate word is a rate of change ("3 mm per year"), not a size.
        let rate = |end: usize| {
            words
                .get(end)
                .is_some_and(|w| lexicon.rate_words.contains(&w.as_str()))
        };
        // Dimensions written as one word ("1.8x1.4x1.2cm", "8x6 mm") are one measurement.
        if let Some((dims, written_on)) =
            joined_dimensions(lexicon, number, attached.map(|pos| &w[pos..]))
        {
            let (unit, end) = match written_on {
                Some(unit) => (Some(unit), i + 1),
                None => (next, i + 2),
            };
            if !rate(end) {
                sizes.extend(SizeMention::of(&dims, unit, i, end));
            }
            continue;
        }
        let Ok(value) = number.parse::<f64>() else {
            continue;
        };
        match unit {
            Some("mm" | "cm") if rate(end) => {}
            Some("mm" | "cm") => {
                // The dimensions joined before it ("1.8 x 1.4 x 1.2 cm") are one measurement.
                let (mut at, mut dims) = (i, vec![value]);
                while at >= 2 && lexicon.dimension_joins.contains(&words[at - 1].as_str()) {
                    match plain_number(&words[at - 2]) {
                        Some(v) => {
                            dims.insert(0, v);
                            at -= 2;
                        }
                        None => break,
                    }
                }
                sizes.extend(SizeMention::of(&dims, unit, at, end));
            }
            // The first age stated is the patient's: a report states it first ("71-year-old
            // woman"), and a later one dates an event ("stopped smoking at age 60").
            _ if age.is_some() => {}
            _ => {
                if let Some((end, sex)) = age_end(lexicon, words, i, attached.map(|pos| &w[pos..]))
                {
                    age = Some(Age {
                        years: value,
                        at: i,
                        end,
                        sex,
                    });
                }
            }
        }
    }
    (sizes, age)
}

impl SizeMention {
    /// The measurement of `dims` (one or more numbers) in `unit` (mm or cm) over the words
    /// `[at, end)`.
    fn of(dims: &[f64], unit: Option<&str>, at: usize, end: usize) -> Option<SizeMention> {
        let factor = match unit {
            Some("mm") => 1.0,
            Some("cm") => 10.0,
            _ => return None,
        };
        let largest = dims.iter().copied().fold(f64::NAN, f64::max);
        Some(SizeMention {
            mm: largest * factor,
            axes: match dims {
                [a, b, ..] => Some([a * factor, b * factor]),
                _ => None,
            },
            at,
            end,
        })
    }
}

/// A folded word that is a number and nothing else ("1.8", not "8mm").
fn plain_number(word: &str) -> Option<f64> {
    if word.contains(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    word.parse().ok()
}

/// Dimensions written as one word, cut at its first letter into `number` and `attached`
/// ("1.8" and "x1.4x1.2cm"): the numbers, and the unit written onto the last one, if any. Only
/// when a dimension join of the lexicon ("x") stands between numbers.
fn joined_dimensions<'w>(
    lexicon: &Lexicon,
    number: &str,
    attached: Option<&'w str>,
) -> Option<(Vec<f64>, Option<&'w str>)> {
    let rest = attached?;
    let join = lexicon.dimension_joins.iter().find(|j| {
        rest.starts_with(**j) && rest[j.len()..].starts_with(|c: char| c.is_ascii_digit())
    })?;
    let mut dims = vec![number.parse().ok()?];
    let mut rest = &rest[join.len()..];
    loop {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        dims.push(rest[..digits].parse().ok()?);
        rest = &rest[digits..];
        match rest.strip_prefix(*join) {
            Some(more) if more.starts_with(|c: char| c.is_ascii_digit()) => rest = more,
            _ => break,
        }
    }
    Some((dims, (!rest.is_empty()).then_some(rest)))
}

/// Where the age stated by the number at word `at` ends, if it states one: the number followed
/// by an age phrase of the lexicon ("67-year-old", "67 yo", "67yo"), or led by an age word
/// ("Age: 67", "aged 67 years"). A number of years alone ("stable for 2 years") is no age.
/// `attached`: a unit written onto the number ("yo" of "67yo"), the phrase's first word. With
/// the end comes the sex a letter states, written onto the number ("78F"), right after it
/// ("66 M") or right after the age ("61 y/o F", "Age: 61 F"): the letter's setting and word.
fn age_end(
    lexicon: &Lexicon,
    words: &[Word],
    at: usize,
    attached: Option<&str>,
) -> Option<(usize, Option<(&'static str, usize)>)> {
    let after = || {
        attached
            .into_iter()
            .chain(words[at + 1..].iter().map(Word::as_str))
    };
    let past = |len: usize| at + 1 + len - usize::from(attached.is_some());
    let sex_of = |letter: &str| {
        lexicon
            .age_sex_words
            .iter()
            .find(|[l, _]| *l == letter)
            .map(|[_, sex]| *sex)
    };
    // A letter right after an age stated otherwise: the word at `end`, if it is one.
    let then_sex = |end: usize| match words.get(end).and_then(|w| sex_of(w)) {
        Some(sex) => (end + 1, Some((sex, end))),
        None => (end, None),
    };
    let phrase = lexicon.age_words.iter().find_map(|p| {
        let mut next = after();
        p.split(' ')
            .all(|part| next.next() == Some(part))
            .then(|| p.split(' ').count())
    });
    if let Some(len) = phrase {
        return Some(then_sex(past(len)));
    }
    let led = at > 0 && lexicon.age_lead_words.contains(&words[at - 1].as_str());
    if led && attached.is_none() {
        return Some(then_sex(at + 1));
    }
    // An adult's age with the patient's sex written onto it or after it ("78F", "66 M with
    // chest pain"), unless a device follows, whose French gauge it is ("28F chest tube"). A
    // child's age is written with its unit ("6 wk old F", "12 yo M"), and a small number with
    // a letter is a grade ("Bosniak 2F").
    let mut next = after();
    let sex = next.next().and_then(sex_of);
    let device = next
        .next()
        .is_some_and(|w| lexicon.gauge_words.contains(&w));
    let adult = words[at]
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse::<u32>()
        .is_ok_and(|n| (18..=110).contains(&n));
    let end = past(1);
    match sex {
        Some(sex) if !device && adult => Some((end, Some((sex, end - 1)))),
        _ if led => Some((at + 1, None)),
        _ => None,
    }
}

/// A length input (mm or cm) as sizes are matched to it.
struct LengthInput<'a> {
    input: &'a Input,
    /// The nouns of its label outside parentheses, in order; the last is what it is about.
    nouns: Vec<&'static str>,
    /// The nouns inside parentheses ("Longest diameter (non-nodal lesion)").
    aside: Vec<&'static str>,
    /// The other words of its label that qualify what is measured; a hyphenated compound
    /// ("part-solid", "sub-solid") is one qualifier of several words.
    qualifiers: Vec<Vec<Word>>,
    /// Its label names a sum of several sizes ("Absolute change in sum of diameters"): no one
    /// size the text states fills it.
    sum: bool,
    /// Its label asks for a mean ("mean diameter") or a short axis: of a measurement of
    /// dimensions, the mean of the first two or the smaller of them.
    mean: bool,
    short: bool,
}

impl<'a> LengthInput<'a> {
    fn of(lexicon: &'static Lexicon, input: &'a Input) -> LengthInput<'a> {
        let mut outside = String::new();
        let mut inside = String::new();
        let mut depth = 0usize;
        for c in input.label.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ if depth > 0 => inside.push(c),
                _ => outside.push(c),
            }
            if c == '(' || c == ')' {
                outside.push(' ');
                inside.push(' ');
            }
        }
        let outside = text::words(&outside);
        let inside = text::words(&inside);
        let nouns: Vec<&'static str> = outside.iter().filter_map(|w| lexicon.measured(w)).collect();
        let aside: Vec<&'static str> = inside.iter().filter_map(|w| lexicon.measured(w)).collect();
        let head = nouns.last().copied();
        // Whether a word of the label, in parentheses or not, is one of `list`.
        let says = |list: &[&str]| {
            outside
                .iter()
                .chain(&inside)
                .any(|w| list.contains(&w.as_str()))
        };
        let sum = says(lexicon.aggregate_words);
        let (mean, short) = (says(lexicon.mean_words), says(lexicon.short_axis_words));
        let qualifiers = input
            .label
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
            .map(text::words)
            .filter(|q| !q.is_empty())
            .filter(|q| !(q.len() == 1 && lexicon.measure_words.contains(&q[0].as_str())))
            .filter(|q| !(q.len() == 1 && lexicon.measured(&q[0]).is_some_and(|n| Some(n) == head)))
            .collect();
        LengthInput {
            input,
            nouns,
            aside,
            qualifiers,
            sum,
            mean,
            short,
        }
    }

    /// How well this input fits a size measuring `noun`: 0 (about it), 1 (names it), 2 (names
    /// it in parentheses), `None` when it does not measure it.
    fn fit(&self, noun: &str) -> Option<u8> {
        if self.nouns.last() == Some(&noun) {
            Some(0)
        } else if self.nouns.contains(&noun) {
            Some(1)
        } else if self.aside.contains(&noun) {
            Some(2)
        } else {
            None
        }
    }

    /// How far the words near a size agree with this input's qualifiers: the words of the
    /// qualifiers they state in full (so "part solid" outweighs "solid", and "solid" alone is
    /// not "sub-solid").
    /// Whether the words near a size say the opposite of one of this input's qualifiers
    /// ("long axis" for a "short axis" input).
    fn contradicted(&self, lexicon: &Lexicon, near: &[Word]) -> bool {
        lexicon.opposite_words.iter().any(|[a, b]| {
            let states = |w: &str| near.iter().any(|n| n.as_str() == w);
            let asks = |w: &str| {
                self.qualifiers
                    .iter()
                    .any(|q| q.len() == 1 && q[0].as_str() == w)
            };
            (states(a) && asks(b)) || (states(b) && asks(a))
        })
    }

    fn agreement(&self, near: &[Word]) -> usize {
        self.qualifiers
            .iter()
            .filter(|q| near.windows(q.len()).any(|w| w == &q[..]))
            .map(Vec::len)
            .sum()
    }

    fn value(&self, size: &SizeMention) -> Option<f64> {
        let mm = match size.axes {
            Some([a, b]) if self.mean => (a + b) / 2.0,
            Some([a, b]) if self.short => a.min(b),
            _ => size.mm,
        };
        let v = match self.input.unit.as_deref() {
            Some("cm") => mm / 10.0,
            _ => mm,
        };
        // Rounded to a tenth of the unit's smallest step, so 1.2 cm reads 12 mm, not 12.000001.
        let v = (v * 1e6).round() / 1e6;
        let low = self.input.min.is_some_and(|m| v < m);
        let high = self.input.max.is_some_and(|m| v > m);
        (!low && !high).then_some(v)
    }
}

/// What a size measures: the nearest measured noun in the four words after it (stopping at
/// another number or a clause break), else in the three before it (stopping at a number),
/// with the words that qualify it.
fn measures(
    lexicon: &'static Lexicon,
    words: &[Word],
    size: &SizeMention,
) -> (Option<&'static str>, Vec<Word>) {
    let is_number = |w: &Word| w.starts_with(|c: char| c.is_ascii_digit());
    // A noun written after what it is of measures what the pair names (a measured noun's
    // two-word phrase): "abdominal aortic aneurysm measuring 3.6 cm" is the aorta's diameter,
    // "1.6 cm cystic lesion" a cyst's.
    let pair = |at: usize, w: &Word, from: usize| {
        at.checked_sub(1)
            .filter(|&p| p >= from)
            .and_then(|p| lexicon.measured(&format!("{} {w}", words[p])))
    };
    let from = size.end.min(words.len());
    let after = &words[from..(size.end + NOUN_REACH_AFTER).min(words.len())];
    let mut near = Vec::new();
    for (k, w) in after.iter().enumerate() {
        if is_number(w) || lexicon.clause_breaks.contains(&w.as_str()) {
            break;
        }
        if let Some(n) = lexicon.measured(w) {
            return (Some(pair(from + k, w, from).unwrap_or(n)), near);
        }
        near.push(w.clone());
    }
    let before = &words[size.at.saturating_sub(NOUN_REACH_BEFORE)..size.at];
    for (k, w) in before.iter().enumerate().rev() {
        if is_number(w) {
            break;
        }
        if let Some(n) = lexicon.measured(w) {
            let at = size.at.saturating_sub(NOUN_REACH_BEFORE) + k;
            let n = pair(at, w, 0).unwrap_or(n);
            // What qualifies it: the words before it, and those between it and the size
            // ("aortic *root* 3.6 cm").
            let start = at.saturating_sub(3);
            let qualifiers = words[start..at]
                .iter()
                .chain(&words[at + 1..size.at])
                .cloned()
                .collect();
            return (Some(n), qualifiers);
        }
    }
    (None, Vec::new())
}

/// How many words after a size its measured noun is looked for: a chest report's "9 mm solid
/// right upper lobe nodule" names its noun five words on, "4 mm ground glass left upper lobe
/// nodule" six.
const NOUN_REACH_AFTER: usize = 6;

/// How many words before a size its measured noun is looked for (the nearest first, never
/// past another number): "the solid nodule in the right upper lobe measures 9 mm" names it
/// seven words back.
const NOUN_REACH_BEFORE: usize = 8;

/// How many words before a size a `prior_words` word makes it an earlier size ("previously
/// measuring 6 mm").
const PRIOR_REACH: usize = 2;

/// Fills the length inputs of a system from the sizes of a finding.
fn fill_sizes(
    lexicon: &'static Lexicon,
    lengths: &[&LengthInput],
    words: &[Word],
    sizes: &[SizeMention],
    out: &mut Filled,
) {
    let mut filled = vec![false; lengths.len()];
    // A sum of sizes ("sum of target lesion diameters 71 mm") measures no one thing: it fills
    // no length input, nor the single input's fallback below.
    let aggregate = |size: &SizeMention, near: &[Word]| {
        words[size.at.saturating_sub(3)..size.at]
            .iter()
            .chain(near)
            .any(|w| lexicon.aggregate_words.contains(&w.as_str()))
    };
    let mut read: Vec<(Option<&'static str>, Vec<Word>)> =
        sizes.iter().map(|s| measures(lexicon, words, s)).collect();
    let sums: Vec<bool> = sizes
        .iter()
        .zip(&read)
        .map(|(s, (_, near))| aggregate(s, near))
        .collect();
    // The finding's current sizes are read before its earlier ones ("grown from 6 mm to 9 mm",
    // "9 mm, previously 6 mm"), each in the text's order: the first size that fits an input
    // fills it.
    let prior = |size: &SizeMention| {
        words[size.at.saturating_sub(PRIOR_REACH)..size.at]
            .iter()
            .any(|w| lexicon.prior_words.contains(&w.as_str()))
    };
    let earlier: Vec<bool> = sizes.iter().map(prior).collect();
    // A current size that names no noun of its own, written right after an earlier size
    // ("grown from 6 mm to 9 mm", "previously 6 mm, now 9 mm"), measures what that one does.
    for i in 1..sizes.len() {
        let j = i - 1;
        let next_to = sizes[i].at.saturating_sub(sizes[j].end) <= PRIOR_REACH;
        if !earlier[i] && earlier[j] && next_to && read[i].0.is_none() {
            read[i] = read[j].clone();
        }
    }
    let order: Vec<usize> = (0..sizes.len())
        .filter(|&i| !earlier[i])
        .chain((0..sizes.len()).filter(|&i| earlier[i]))
        .collect();
    for &i in &order {
        let (size, (noun, near)) = (&sizes[i], &read[i]);
        if let Some(noun) = noun.filter(|_| !sums[i]) {
            let best = lengths
                .iter()
                .enumerate()
                .filter(|(_, l)| !l.contradicted(lexicon, near))
                .filter_map(|(k, l)| l.fit(noun).map(|f| (k, f, l.agreement(near))))
                .min_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
            if let Some((k, _, _)) = best {
                if !filled[k] {
                    if let Some(v) = lengths[k].value(size) {
                        out.put(&lengths[k].input.id, Given::Number(v), (size.at, size.end));
                        filled[k] = true;
                    }
                }
            }
        }
    }
    // A system with one length input about a lesion: the first size of a lesion, or of
    // nothing named, when no size named what it measures.
    if let [only] = lengths {
        let about_lesion = only
            .nouns
            .last()
            .is_none_or(|n| lexicon.lesion_nouns.contains(n));
        if !filled[0] && about_lesion {
            let first = order
                .iter()
                .filter(|&&i| !sums[i])
                .find(|&&i| read[i].0.is_none_or(|n| lexicon.lesion_nouns.contains(&n)))
                .map(|&i| &sizes[i]);
            if let Some(s) = first {
                if let Some(v) = only.value(s) {
                    out.put(&only.input.id, Given::Number(v), (s.at, s.end));
                }
            }
        }
    }
}

/// A phrase of an enum value found in the finding.
struct Stated<'a> {
    input: &'a str,
    value: &'a str,
    start: usize,
    end: usize,
}

/// The two alternatives of a value label that offers a word or another ("Hyperechoic or
/// isoechoic", "Lobulated or irregular", "Cystic or almost completely cystic"): a report writes
/// one of them. Only a label of one "or", without punctuation or digits, whose first side is one
/// word and second at most three: a longer label's "or" joins parts of a description ("Uptake
/// at or below mediastinum").
fn label_alternatives(label: &str) -> Option<[&str; 2]> {
    let plain = label
        .chars()
        .all(|c| c.is_alphabetic() || c == ' ' || c == '-');
    let (first, second) = label.split_once(" or ")?;
    let one_or = !second.contains(" or ");
    let short = first.split(' ').count() == 1 && second.split(' ').count() <= 3;
    (plain && one_or && short).then_some([first, second])
}

/// The other name a value label gives in a closing parenthesis of one word ("Reproductive age
/// (premenopausal)", "Pure ground-glass (nonsolid)", "Abnormal (thinned)").
fn label_other_name(label: &str) -> Option<&str> {
    let inner = label.strip_suffix(')')?.rsplit_once('(')?.1;
    (!inner.is_empty() && !inner.contains(' ')).then_some(inner)
}

/// The phrases a value may be written as: its id with spaces, its label, each of its label's
/// alternatives ([`label_alternatives`]) and its other name ([`label_other_name`]), when
/// specific.
fn phrases(lexicon: &Lexicon, value: &str, label: &str) -> Vec<Vec<Word>> {
    let mut out: Vec<Vec<Word>> = Vec::new();
    let alternatives = label_alternatives(label)
        .into_iter()
        .flatten()
        .chain(label_other_name(label))
        .map(text::words);
    for p in [text::words(&value.replace('_', " ")), text::words(label)]
        .into_iter()
        .chain(alternatives)
    {
        let joined = p.join(" ");
        let chars: usize = p.iter().map(|w| w.len()).sum();
        let has_digit = joined.chars().any(|c| c.is_ascii_digit());
        let has_letter = joined.chars().any(|c| c.is_ascii_alphabetic());
        let specific = has_letter
            && (chars >= 4 || has_digit || lexicon.short_values.contains(&joined.as_str()));
        if specific && !lexicon.generic_values.contains(&joined.as_str()) && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

thread_local! {
    /// The phrases each enum value may be written as: values are the corpus's, cut into words
    /// once per isolate instead of once per finding and system.
    static VALUE_PHRASES: super::Derived<Vec<Vec<Word>>> = Default::default();
    /// The organs each input's label names, read once per isolate instead of once per finding.
    static LABEL_ORGANS: super::Derived<Vec<&'static str>> = Default::default();
    /// What each input's label names ([`label_heads`]), cut once per isolate instead of once
    /// per evaluation of a finding that rules something out.
    static LABEL_HEADS: super::Derived<Vec<Vec<Word>>> = Default::default();
    /// Each length input as sizes are matched to it ([`LengthInput::of`]), made once per
    /// isolate instead of once per evaluation.
    static LENGTH_INPUTS: super::Derived<LengthInput<'static>> = Default::default();
    /// The words of each number input's label before any parenthesis or comma, which
    /// [`fill_named_numbers`] looks for, cut once per isolate.
    static LABEL_NAMES: super::Derived<Vec<Word>> = Default::default();
    /// The phrases each input is named by ([`named_by`]), cut once per isolate.
    static NAMED_BY: super::Derived<Vec<Vec<Word>>> = Default::default();
    /// The organs each input's label name states ([`name_concerns`]), read once per isolate.
    static NAME_ORGANS: super::Derived<Vec<&'static str>> = Default::default();
}

/// [`LengthInput::of`] an input of the corpus, kept for the isolate's life.
fn length_input(lexicon: &'static Lexicon, input: &'static Input) -> &'static LengthInput<'static> {
    super::derived(
        &LENGTH_INPUTS,
        (super::at(lexicon), super::at(input)),
        || LengthInput::of(lexicon, input),
    )
}

/// The words of an input's label before any parenthesis or comma ("Coronary artery calcium
/// score" of "Coronary artery calcium score (Agatston)"), kept for the isolate's life.
fn label_name(lexicon: &'static Lexicon, input: &'static Input) -> &'static [Word] {
    super::derived::<Vec<Word>>(&LABEL_NAMES, (super::at(lexicon), super::at(input)), || {
        text::words(input.label.split(['(', ',']).next().unwrap_or_default())
    })
}

/// What an input's label is about: its name ([`label_name`]) without its last word, which
/// names the attribute ("solid nodule" of "Solid nodule timepoint"); empty for a label of one
/// word.
fn label_subject(lexicon: &'static Lexicon, input: &'static Input) -> &'static [Word] {
    let name = label_name(lexicon, input);
    &name[..name.len().saturating_sub(1)]
}

/// [`phrases`] of a value of the corpus, kept for the isolate's life.
fn value_phrases(lexicon: &'static Lexicon, value: &'static InputValue) -> &'static [Vec<Word>] {
    super::derived::<Vec<Vec<Word>>>(
        &VALUE_PHRASES,
        (super::at(lexicon), super::at(value)),
        || phrases(lexicon, &value.value, &value.label),
    )
}

/// Whether the value at words `[start, end)` is one side of a differential: an alternative
/// word ("versus") stands right before it ("cyst versus *solid*"), or after it with only
/// measured nouns between ("*solid* mass versus cyst"). Not further: the words read may run
/// from one sentence into the next, and "*infectious* (aspiration vs bronchiolitis)" sets
/// another differential beside it.
fn beside_an_alternative(
    lexicon: &'static Lexicon,
    words: &[Word],
    start: usize,
    end: usize,
) -> bool {
    let alternative = |w: &Word| lexicon.alternative_words.contains(&w.as_str());
    start.checked_sub(1).is_some_and(|i| alternative(&words[i]))
        || words[end..]
            .iter()
            .find(|w| lexicon.measured(w.as_str()).is_none())
            .is_some_and(alternative)
}

/// Fills the enum inputs whose value the finding states unambiguously, and the listed multi
/// inputs (`listed`: a nodule's echogenic foci) with every value it states.
fn fill_enums(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    index: &text::WordIndex,
    organs: &[&str],
    out: &mut Filled,
) {
    let words = index.words();
    let mut stated: Vec<Stated> = Vec::new();
    let enums = || {
        logic
            .inputs
            .iter()
            .filter(|i| i.kind == InputType::Enum || (i.kind == InputType::Multi && i.listed))
            .filter(|i| concerns(lexicon, i, organs))
    };
    for input in enums() {
        for v in &input.values {
            for phrase in value_phrases(lexicon, v) {
                for start in index.starts(phrase) {
                    // Not negated, nor what an earlier examination showed ("unchanged
                    // *from* baseline", "*previously* isoechoic").
                    let before = start.checked_sub(1).map(|b| words[b].as_str());
                    let negated = before.is_some_and(|w| lexicon.negations.contains(&w));
                    let earlier = before.is_some_and(|w| lexicon.prior_words.contains(&w));
                    let end = start + phrase.len();
                    if !negated && !earlier && !beside_an_alternative(lexicon, words, start, end) {
                        stated.push(Stated {
                            input: &input.id,
                            value: &v.value,
                            start,
                            end,
                        });
                    }
                }
            }
        }
    }
    // A value several inputs share ("baseline" is the timepoint of every Lung-RADS nodule
    // type) goes to the one input whose label the finding names, if one does ("Baseline 7 mm
    // part-solid nodule": the part-solid nodule's timepoint, not the solid one's).
    let named = |s: &Stated| {
        let sharing: Vec<&str> = stated
            .iter()
            .filter(|o| o.start == s.start && o.end == s.end)
            .map(|o| o.input)
            .collect();
        let inputs = || enums().filter(|i| sharing.contains(&i.id.as_str()));
        let places: Vec<(&str, usize, usize)> = inputs()
            .filter_map(|i| {
                let subject = label_subject(lexicon, i);
                let at = index.starts(subject).next()?;
                Some((i.id.as_str(), at, at + subject.len()))
            })
            .collect();
        // A label named only within another's words ("solid nodule" of "part solid nodule")
        // is not named.
        let named: Vec<&str> = places
            .iter()
            .filter(|(_, a, b)| {
                !places
                    .iter()
                    .any(|(_, c, d)| c <= a && d >= b && d - c > b - a)
            })
            .map(|p| p.0)
            .collect();
        named == [s.input]
    };
    let kept: Vec<&Stated> = stated
        .iter()
        .filter(|s| {
            !stated.iter().any(|o| {
                let longer =
                    o.start <= s.start && o.end >= s.end && o.end - o.start > s.end - s.start;
                let shared = o.start == s.start && o.end == s.end && o.input != s.input;
                longer || (shared && !named(s))
            })
        })
        .collect();
    let phrase_of = |s: &Stated| &words[s.start..s.end];
    for input in enums() {
        let own: Vec<&&Stated> = kept.iter().filter(|s| s.input == input.id).collect();
        // A value stated only in words another stated value spells out in full ("solid" of a
        // "part solid" nodule, then of its "solid component") yields to that value.
        let mut values: Vec<(&str, usize, usize)> = own
            .iter()
            .filter(|s| {
                !own.iter().any(|o| {
                    o.value != s.value
                        && o.end - o.start > s.end - s.start
                        && phrase_of(o)
                            .windows(s.end - s.start)
                            .any(|w| w == phrase_of(s))
                })
            })
            .map(|s| (s.value, s.start, s.end))
            .collect();
        // The first place the value is stated is where it was read from.
        values.sort_unstable_by_key(|v| (v.0, v.1));
        values.dedup_by_key(|v| v.0);
        if input.kind == InputType::Multi {
            // A listed multi input: every value stated, in the input's order, read from the
            // words that run from the first to the last.
            let Some(start) = values.iter().map(|v| v.1).min() else {
                continue;
            };
            let end = values.iter().map(|v| v.2).max().unwrap_or(start);
            let chosen = input
                .values
                .iter()
                .filter(|v| values.iter().any(|s| s.0 == v.value))
                .map(|v| v.value.clone())
                .collect();
            out.put(&input.id, Given::Choices(chosen), (start, end));
        } else if let [(value, start, end)] = values[..] {
            out.put(&input.id, Given::Choice(value.to_string()), (start, end));
        }
    }
}

/// Each place the finding names a label (`name`, its words), with where the value after it
/// starts: past up to two `value_links` ("alpha angle *of* 64", "DWI score *is* 4").
fn values_after(lexicon: &Lexicon, index: &text::WordIndex, name: &[Word]) -> Vec<(usize, usize)> {
    let words = index.words();
    index
        .starts(name)
        .map(|start| {
            let mut at = start + name.len();
            for _ in 0..2 {
                if words
                    .get(at)
                    .is_some_and(|w| lexicon.value_links.contains(&w.as_str()))
                {
                    at += 1;
                }
            }
            (start, at)
        })
        .collect()
}

/// Fills an enum input that the finding names by its label and follows with one of its values
/// ("DCE positive", "DWI score 4", "T2W score: 3"): the words of the label before any
/// parenthesis or comma, up to two `value_links`, then a value as its id or as the head of its
/// label (before a colon: "4" of "4: focal and marked on both ..."). Read so, a value too
/// short or too generic to be read alone ("4", "positive") is stated; a label named with two
/// different values fills nothing.
fn fill_named_values(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    index: &text::WordIndex,
    organs: &[&str],
    out: &mut Filled,
) {
    let words = index.words();
    for input in logic.inputs.iter().filter(|i| i.kind == InputType::Enum) {
        if out.inputs.contains_key(&input.id) {
            continue;
        }
        let name = label_name(lexicon, input);
        if name.is_empty() {
            continue;
        }
        let named_at = values_after(lexicon, index, name);
        if named_at.is_empty() || !name_concerns(lexicon, input, organs) {
            continue;
        }
        let mut stated: Vec<(&str, usize, usize)> = Vec::new();
        for (start, at) in named_at {
            let value = input.values.iter().find_map(|v| {
                let head = v.label.split_once(':').map(|(h, _)| h);
                [Some(v.value.replace('_', " ")), head.map(str::to_string)]
                    .into_iter()
                    .flatten()
                    .map(|p| text::words(&p))
                    .filter(|p| !p.is_empty())
                    .find(|p| words.get(at..at + p.len()) == Some(&p[..]))
                    .map(|p| (v.value.as_str(), start, at + p.len()))
            });
            stated.extend(value);
        }
        stated.dedup_by(|a, b| a.0 == b.0);
        if let [(value, start, end)] = stated[..] {
            out.put(&input.id, Given::Choice(value.to_string()), (start, end));
        }
    }
}

/// The word a value's label begins with when the value stands for none of the input's
/// findings ("None or large comet-tail artifacts", "None of these").
const NONE_WORD: &str = "none";

/// What an input's label names, as the ends of it a report writes: the label without an
/// organ's prefix ("Kidney: ") and from its first `label_breaks` word on, then each run of its
/// last two or more words that does not begin with a stopword ("Other worrisome features":
/// "other worrisome features", "worrisome features").
fn label_heads(lexicon: &'static Lexicon, input: &'static Input) -> &'static [Vec<Word>] {
    super::derived::<Vec<Vec<Word>>>(&LABEL_HEADS, (super::at(lexicon), super::at(input)), || {
        let label = &input.label;
        let named = label
            .rsplit_once(':')
            .map_or(label.as_str(), |(_, rest)| rest);
        let words: Vec<Word> = text::words(named)
            .into_iter()
            .take_while(|w| !lexicon.label_breaks.contains(&w.as_str()))
            .collect();
        (0..words.len().saturating_sub(1))
            .filter(|&k| !text::is_stopword(&words[k]))
            .map(|k| words[k..].to_vec())
            .collect()
    })
}

/// The inputs of `logic` that a phrase the finding rules out rules out whole: the phrase (its
/// folded words after its trigger: "no *echogenic foci*", "without *worrisome features*", "no
/// *enhancing nodule*") begins with what the input's label names ([`label_heads`]). A boolean
/// is then false; a multi input is given its value labelled "None ..." alone where it has one
/// (TI-RADS "None or large comet-tail artifacts"), otherwise no value: none of them is there.
/// With each, the place in `ruled_out` of the phrase that ruled it out and how many of its
/// words name the input. Inputs about other organs than the finding's are left.
pub fn ruled_out_inputs(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    organs: &[&str],
    ruled_out: &[&[Word]],
) -> Vec<(&'static str, Given, (usize, usize))> {
    let mut out = Vec::new();
    if ruled_out.is_empty() {
        return out;
    }
    for input in &logic.inputs {
        let ruled = matches!(input.kind, InputType::Multi | InputType::Boolean);
        if !ruled || !concerns(lexicon, input, organs) {
            continue;
        }
        let heads = label_heads(lexicon, input);
        let Some(found) = ruled_out.iter().enumerate().find_map(|(k, phrase)| {
            let head = heads.iter().find(|h| phrase.starts_with(h))?;
            Some((k, head.len()))
        }) else {
            continue;
        };
        let given = if input.kind == InputType::Boolean {
            Given::Flag(false)
        } else {
            let none = input.values.iter().find(|v| {
                text::words(&v.label)
                    .first()
                    .is_some_and(|w| w == NONE_WORD)
            });
            Given::Choices(none.map(|v| vec![v.value.clone()]).unwrap_or_default())
        };
        out.push((input.id.as_str(), given, found));
    }
    out
}

/// The inputs of `logic` that the finding states.
pub fn prefill(lexicon: &'static Lexicon, logic: &'static Logic, finding_text: &str) -> Inputs {
    let words = text::words(finding_text);
    prefill_words(lexicon, logic, &text::WordIndex::new(&words)).inputs
}

/// The organs (lexicon names) that folded words state, as grounding reads them.
pub fn organs_of(lexicon: &'static Lexicon, index: &text::WordIndex) -> Vec<&'static str> {
    super::stated_organs(lexicon, index.words(), |p| index.count(p))
}

/// The organs an input's label names ("Spleen: parenchymal laceration depth": spleen).
fn label_organs(lexicon: &'static Lexicon, input: &'static Input) -> &'static [&'static str] {
    super::derived::<Vec<&'static str>>(
        &LABEL_ORGANS,
        (super::at(lexicon), super::at(input)),
        || {
            // An organ the label names only to negate it ("non-nodal lesion") is not the input's
            // organ.
            let words = text::words(&input.label);
            let label: Vec<Word> = (0..words.len())
                .filter(|&k| k == 0 || !lexicon.negations.contains(&words[k - 1].as_str()))
                .map(|k| words[k].clone())
                .collect();
            organs_of(lexicon, &text::WordIndex::new(&label))
        },
    )
}

/// Whether the prefill reads an input of this kind from the words a text states: numbers and
/// enum values. A multi input is not read from the values a text names (a partial list would
/// tell the evaluator the rest are absent), only where the text rules it out whole
/// ([`ruled_out_inputs`]); a boolean only there too (false).
pub fn reads(input: &Input) -> bool {
    matches!(input.kind, InputType::Number | InputType::Enum)
}

/// Whether an input concerns a finding about `organs`: an input whose label names organs
/// ("Spleen: parenchymal laceration depth") concerns only findings about one of them, or
/// findings that name no organ.
pub fn concerns(lexicon: &'static Lexicon, input: &'static Input, organs: &[&str]) -> bool {
    about_one_of(label_organs(lexicon, input), organs)
}

/// Whether what an input's label names (`named`) is about one of a finding's `organs`: always
/// when either names none.
fn about_one_of(named: &[&str], organs: &[&str]) -> bool {
    organs.is_empty() || named.is_empty() || named.iter().any(|o| organs.contains(o))
}

/// [`prefill`] for a finding already read into indexed words (grounding reads it once for all
/// the systems it selects). An input about another organ than the finding's is left empty (a
/// liver laceration's depth is not the spleen's).
pub fn prefill_words(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    index: &text::WordIndex,
) -> Filled {
    prefill_signed(lexicon, logic, &Reading::of(lexicon, index), None, false)
}

/// What a text states whatever the system: its sizes, the patient's age and its organs, read
/// once for all the systems a text is prefilled for (an answer prefills each system it offers
/// from the same text).
pub struct Reading<'i, 'w> {
    index: &'i text::WordIndex<'w>,
    sizes: Vec<SizeMention>,
    age: Option<Age>,
    organs: Vec<&'static str>,
}

impl<'i, 'w> Reading<'i, 'w> {
    /// The words `[at, end)` that state the patient's age, if the text states one.
    pub fn age_words(&self) -> Option<(usize, usize)> {
        self.age.map(|a| (a.at, a.end))
    }

    pub fn of(lexicon: &'static Lexicon, index: &'i text::WordIndex<'w>) -> Reading<'i, 'w> {
        let (sizes, age) = sizes_and_age(lexicon, index.words());
        Reading::read(index, sizes, age, organs_of(lexicon, index))
    }

    /// The reading of `index` whose sizes, age and organs were read already (by
    /// [`sizes_and_age`] and [`organs_of`] of the same words).
    pub fn read(
        index: &'i text::WordIndex<'w>,
        sizes: Vec<SizeMention>,
        age: Option<Age>,
        organs: Vec<&'static str>,
    ) -> Reading<'i, 'w> {
        Reading {
            index,
            sizes,
            age,
            organs,
        }
    }
}

/// [`prefill_words`], and, when the signs written before each word are known (`signs`, one
/// per word), the attenuation in HU. Folded words drop the sign, and "-15 HU" read as 15 would
/// turn a fat-containing mass into a soft-tissue one, so an attenuation is read only where the
/// characters were seen. A size that is a bound ("> 3 cm", "over 1 cm": a comparison sign
/// before it, or a bound word of the lexicon) fills no input: the exact size is not stated.
/// `unenhanced`: the report describes an examination without contrast (an attenuation it
/// states is an unenhanced one, [`super::report::Examination`]).
pub fn prefill_signed(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    reading: &Reading,
    signs: Option<&[Sign]>,
    unenhanced: bool,
) -> Filled {
    let index = reading.index;
    let words = index.words();
    let bounded = |s: &&SizeMention| {
        let sign = signs
            .and_then(|signs| signs.get(s.at))
            .is_some_and(|s| s.bound);
        let word =
            s.at.checked_sub(1)
                .is_some_and(|p| lexicon.bound_words.contains(&words[p].as_str()));
        sign || word
    };
    let measured: Vec<SizeMention> = reading
        .sizes
        .iter()
        .filter(|s| !bounded(s))
        .cloned()
        .collect();
    let (sizes, age, organs) = (&measured, reading.age, &reading.organs);
    let mut out = Filled {
        organs: organs.clone(),
        ..Filled::default()
    };
    let lengths: Vec<&LengthInput> = logic
        .inputs
        .iter()
        .filter(|i| concerns(lexicon, i, organs))
        .filter(|i| i.kind == InputType::Number && i.derived_from.is_none())
        .filter(|i| matches!(i.unit.as_deref(), Some("mm") | Some("cm")))
        .map(|i| length_input(lexicon, i))
        .filter(|l| !l.sum)
        .collect();
    fill_sizes(lexicon, &lengths, words, sizes, &mut out);
    if let Some(Age {
        years: age,
        at,
        end,
        ..
    }) = age
    {
        let years = logic.inputs.iter().find(|i| {
            i.kind == InputType::Number
                && i.unit.as_deref() == Some("years")
                && i.id.split('_').any(|w| w == "age")
        });
        if let Some(i) = years {
            let ok = i.min.is_none_or(|m| age >= m) && i.max.is_none_or(|m| age <= m);
            if ok {
                out.put(&i.id, Given::Number(age), (at, end));
            }
        }
    }
    if let Some(signs) = signs {
        fill_attenuation(lexicon, logic, index, signs, unenhanced, organs, &mut out);
    }
    fill_named_numbers(lexicon, logic, index, organs, &mut out);
    fill_percentages(lexicon, logic, index, signs, organs, &mut out);
    if let Some(signs) = signs {
        fill_named_flags(lexicon, logic, index, signs, organs, &mut out);
    }
    fill_enums(lexicon, logic, index, organs, &mut out);
    fill_named_values(lexicon, logic, index, organs, &mut out);
    out
}

/// The units read by rules of their own: lengths (the sizes), years (the age) and Hounsfield
/// units (the attenuation).
const UNITS_READ_APART: [&str; 4] = ["mm", "cm", "years", "HU"];

/// Fills a number input of another unit that the finding names by its label and follows with
/// its number ("alpha angle 64 degrees", "coronary artery calcium score of 412"): the words of
/// the label before any parenthesis or comma, at least two of them, then up to two
/// `value_links` ("is", "of", "measuring"), then a number within the input's range. A label
/// named with two different numbers fills nothing.
fn fill_named_numbers(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    index: &text::WordIndex,
    organs: &[&str],
    out: &mut Filled,
) {
    let words = index.words();
    let inputs = logic.inputs.iter().filter(|i| {
        i.kind == InputType::Number
            && i.derived_from.is_none()
            && !i
                .unit
                .as_deref()
                .is_some_and(|u| UNITS_READ_APART.contains(&u))
    });
    for input in inputs {
        if out.inputs.contains_key(&input.id) {
            continue;
        }
        let name = label_name(lexicon, input);
        if name.len() < 2 {
            continue;
        }
        // Where the finding names the label, looked up before the organs: most labels are
        // nowhere in the finding.
        let named_at = values_after(lexicon, index, name);
        if named_at.is_empty() || !concerns(lexicon, input, organs) {
            continue;
        }
        let mut stated: Vec<(f64, usize, usize)> = Vec::new();
        for (start, at) in named_at {
            let Some(word) = words.get(at) else { continue };
            // A unit written onto the number ("64deg") is the unit's, not the number's.
            let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            let Ok(value) = digits.parse::<f64>() else {
                continue;
            };
            let within =
                input.min.is_none_or(|m| value >= m) && input.max.is_none_or(|m| value <= m);
            if within {
                stated.push((value, start, at + 1));
            }
        }
        stated.dedup_by(|a, b| a.0 == b.0);
        if let [(value, start, end)] = stated[..] {
            out.put(&input.id, Given::Number(value), (start, end));
        }
    }
}

/// How many words may stand between a percentage and the phrase that names what it measures
/// ("30% anterolisthesis", "anterolisthesis of L4 on L5 by 30%").
const PERCENT_REACH: usize = 6;

/// Fills a percentage input (unit `%`) that the corpus names by report phrases (`named_by`)
/// from a percentage the finding writes near one of them: a number with a `%` after it or a
/// `percent_words` word ("30% anterolisthesis", "absolute washout of 65%", "a slip of 40
/// percent"), given to the input whose phrase stands nearest, within [`PERCENT_REACH`] words
/// before or after it. A bound ("<10%"), a range ("25-49%", "25 to 49%"), a percentage as
/// near to two inputs' phrases, or one input given two different percentages, fills nothing.
fn fill_percentages(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    index: &text::WordIndex,
    signs: Option<&[Sign]>,
    organs: &[&str],
    out: &mut Filled,
) {
    let inputs: Vec<&Input> = logic
        .inputs
        .iter()
        .filter(|i| i.kind == InputType::Number && !i.named_by.is_empty())
        .filter(|i| i.derived_from.is_none() && !out.inputs.contains_key(&i.id))
        .collect();
    if inputs.is_empty() {
        return;
    }
    let words = index.words();
    let sign_of = |i: usize| signs.and_then(|s| s.get(i)).copied().unwrap_or_default();
    // Each percentage: its value and the words it takes (the number, and a percent word).
    let stated: Vec<(f64, usize, usize)> = words
        .iter()
        .enumerate()
        .filter_map(|(i, w)| {
            let value = plain_number(w.as_str())?;
            let sign = sign_of(i);
            let word = words
                .get(i + 1)
                .is_some_and(|n| lexicon.percent_words.contains(&n.as_str()));
            let to_range =
                i >= 2 && words[i - 1] == "to" && plain_number(words[i - 2].as_str()).is_some();
            if !(sign.percent > 0 || word) || sign.bound || sign.range_end || to_range {
                return None;
            }
            Some((value, i, if word { i + 2 } else { i + 1 }))
        })
        .collect();
    if stated.is_empty() {
        return;
    }
    let inputs: Vec<&Input> = inputs
        .into_iter()
        .filter(|i| name_concerns(lexicon, i, organs))
        .collect();
    // Where each input's phrases stand: (input, start, end).
    let mut named: Vec<(usize, usize, usize)> = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        for phrase in named_by(lexicon, input) {
            named.extend(index.starts(phrase).map(|at| (k, at, at + phrase.len())));
        }
    }
    let mut given: Vec<(usize, f64, usize, usize)> = Vec::new();
    for &(value, at, end) in &stated {
        // Words between, then the side: of a phrase before and one after as near, the one
        // before names it ("absolute washout of 65% and relative washout of 45%").
        let gap = |&(_, start, stop): &(usize, usize, usize)| {
            if stop <= at {
                Some((at - stop, 0))
            } else if start >= end {
                Some((start - end, 1))
            } else {
                None
            }
        };
        let Some(nearest) = named.iter().filter_map(gap).min() else {
            continue;
        };
        let mut closest = named.iter().filter(|n| gap(n) == Some(nearest));
        let Some(&(k, start, stop)) = closest.next() else {
            continue;
        };
        if nearest.0 > PERCENT_REACH || closest.any(|n| n.0 != k) {
            continue;
        }
        let input = inputs[k];
        let within = input.min.is_none_or(|m| value >= m) && input.max.is_none_or(|m| value <= m);
        if within {
            given.push((k, value, start.min(at), stop.max(end)));
        }
    }
    for (k, input) in inputs.iter().enumerate() {
        let mut values = given.iter().filter(|g| g.0 == k);
        let Some(&(_, value, start, end)) = values.next() else {
            continue;
        };
        if values.all(|g| g.1 == value) {
            out.put(&input.id, Given::Number(value), (start, end));
        }
    }
}

/// Whether an input's label names, before its parenthesis or comma, one of `organs` or no
/// organ at all ("Spleen: shattered spleen" is the spleen's; a percentage's label may say how
/// it is measured after that, "% of the lower vertebral body's length").
fn name_concerns(lexicon: &'static Lexicon, input: &'static Input, organs: &[&str]) -> bool {
    let named = super::derived::<Vec<&'static str>>(
        &NAME_ORGANS,
        (super::at(lexicon), super::at(input)),
        || organs_of(lexicon, &text::WordIndex::new(label_name(lexicon, input))),
    );
    about_one_of(named, organs)
}

/// Fills a boolean input the corpus names by report phrases (`named_by`) true where the
/// finding states one of them: not ruled out (those words are not read), and no word of it
/// hedged ("*possible* enhancing nodule", "tumour in vein *cannot be excluded*"), so read only
/// where the reader knows the text's hedges (`signs`). "Cystic renal mass with an enhancing
/// nodule" gives Bosniak's `enhancing_nodule` true.
fn fill_named_flags(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    index: &text::WordIndex,
    signs: &[Sign],
    organs: &[&str],
    out: &mut Filled,
) {
    let inputs = logic.inputs.iter().filter(|i| {
        i.kind == InputType::Boolean && !i.named_by.is_empty() && i.derived_from.is_none()
    });
    for input in inputs {
        if out.inputs.contains_key(&input.id) {
            continue;
        }
        let stated = named_by(lexicon, input).iter().find_map(|phrase| {
            index
                .starts(phrase)
                .map(|at| (at, at + phrase.len()))
                .find(|&(at, end)| {
                    !signs
                        .get(at..end)
                        .is_some_and(|s| s.iter().any(|s| s.hedged))
                })
        });
        if let Some(span) = stated {
            if name_concerns(lexicon, input, organs) {
                out.put(&input.id, Given::Flag(true), span);
            }
        }
    }
}

/// The folded phrases an input is named by in reports (`named_by`), kept for the isolate's life.
fn named_by(lexicon: &'static Lexicon, input: &'static Input) -> &'static [Vec<Word>] {
    super::derived::<Vec<Vec<Word>>>(&NAMED_BY, (super::at(lexicon), super::at(input)), || {
        input.named_by.iter().map(|p| text::words(p)).collect()
    })
}

/// Fills an attenuation input (unit HU) from the one attenuation the finding states ("12 HU",
/// "-15 HU", "45 Hounsfield units") when the words of its label that say when it is measured
/// ("unenhanced", "non contrast") are all in the finding, or, those that say it is measured
/// without contrast (`unenhanced_label_words`), in an examination without contrast
/// (`unenhanced`): a portal venous attenuation is not an unenhanced one. Two inputs that fit
/// fill nothing; of several attenuations, each input takes the one of its phase
/// ([`fill_phase_attenuations`]).
fn fill_attenuation(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    index: &text::WordIndex,
    signs: &[Sign],
    unenhanced: bool,
    organs: &[&str],
    out: &mut Filled,
) {
    let words = index.words();
    let stated: Vec<(f64, usize)> = words
        .windows(2)
        .enumerate()
        .filter(|(_, w)| lexicon.hu_words.contains(&w[1].as_str()))
        .filter_map(|(i, w)| {
            let value = w[0].parse::<f64>().ok()?;
            let sign = if signs.get(i).is_some_and(|s| s.minus) {
                -1.0
            } else {
                1.0
            };
            Some((sign * value, i))
        })
        .collect();
    if stated.len() > 1 {
        fill_phase_attenuations(lexicon, logic, index, &stated, organs, out);
        return;
    }
    let [(value, at)] = stated[..] else {
        return;
    };
    let fits: Vec<&Input> = logic
        .inputs
        .iter()
        .filter(|i| i.kind == InputType::Number && i.derived_from.is_none())
        .filter(|i| {
            i.unit
                .as_deref()
                .is_some_and(|u| u.eq_ignore_ascii_case("hu"))
        })
        .filter(|i| concerns(lexicon, i, organs))
        .filter(|i| {
            text::words(&i.label)
                .iter()
                .filter(|w| !lexicon.attenuation_words.contains(&w.as_str()))
                .all(|w| {
                    index.has(w)
                        || unenhanced && lexicon.unenhanced_label_words.contains(&w.as_str())
                })
        })
        .collect();
    if let [input] = fits[..] {
        let ok = input.min.is_none_or(|m| value >= m) && input.max.is_none_or(|m| value <= m);
        if ok {
            out.put(&input.id, Given::Number(value), (at, at + 2));
        }
    }
}

/// How many words before an attenuation ("unenhanced attenuation of 28 HU") or after its unit
/// ("28 HU unenhanced", "28 HU on unenhanced images") may say which measurement it is.
const PHASE_REACH: usize = 3;

/// [`fill_attenuation`] for a finding that states several attenuations, one per phase ("28 HU
/// unenhanced, 95 HU portal venous, 45 HU delayed"): an input takes the one attenuation whose
/// nearby words (within [`PHASE_REACH`], not past another attenuation) hold every word of its
/// label that is not an attenuation word; a label word that says the measurement is
/// unenhanced ("non", "contrast") is held by any `unenhanced_phrases` phrase there ("28 HU
/// unenhanced" is ESE's "Non-contrast CT attenuation"). An input two attenuations fit, or none,
/// is left.
fn fill_phase_attenuations(
    lexicon: &'static Lexicon,
    logic: &'static Logic,
    index: &text::WordIndex,
    stated: &[(f64, usize)],
    organs: &[&str],
    out: &mut Filled,
) {
    let words = index.words();
    let inputs: Vec<&Input> = logic
        .inputs
        .iter()
        .filter(|i| {
            i.kind == InputType::Number
                && i.derived_from.is_none()
                && i.unit
                    .as_deref()
                    .is_some_and(|u| u.eq_ignore_ascii_case("hu"))
                && !out.inputs.contains_key(&i.id)
        })
        .filter(|i| concerns(lexicon, i, organs))
        .collect();
    for input in inputs {
        let label: Vec<Word> = text::words(&input.label)
            .into_iter()
            .filter(|w| !lexicon.attenuation_words.contains(&w.as_str()))
            .collect();
        if label.is_empty() {
            continue;
        }
        // The words a report writes after each attenuation ("28 HU unenhanced, 95 HU portal
        // venous"), up to the next one; where none after fits, those before it ("unenhanced 28
        // HU, portal venous 95 HU"), back to the previous one.
        let holds = |near: &[Word]| {
            let unenhanced = lexicon.unenhanced_phrases.iter().any(|p| {
                let p = text::words(p);
                near.windows(p.len()).any(|w| w == &p[..])
            });
            label.iter().all(|w| {
                near.contains(w)
                    || unenhanced && lexicon.unenhanced_label_words.contains(&w.as_str())
            })
        };
        let after = |k: usize, at: usize| {
            let next = stated.get(k + 1).map_or(words.len(), |n| n.1);
            ((at + 2).min(next), (at + 2 + PHASE_REACH).min(next))
        };
        let before = |k: usize, at: usize| {
            let previous = k.checked_sub(1).map_or(0, |p| stated[p].1 + 2);
            (at.saturating_sub(PHASE_REACH).max(previous).min(at), at)
        };
        let fits = |side: &dyn Fn(usize, usize) -> (usize, usize)| -> Vec<(f64, usize)> {
            stated
                .iter()
                .enumerate()
                .filter(|&(k, &(_, at))| {
                    let (from, to) = side(k, at);
                    holds(&words[from..to])
                })
                .map(|(_, &s)| s)
                .collect()
        };
        let mut fitting = fits(&after);
        if fitting.is_empty() {
            fitting = fits(&before);
        }
        if let [(value, at)] = fitting[..] {
            let ok = input.min.is_none_or(|m| value >= m) && input.max.is_none_or(|m| value <= m);
            if ok {
                out.put(&input.id, Given::Number(value), (at, at + 2));
            }
        }
    }
}

/// The signs folded words drop, written right before a word: a minus ("-15 HU") and a
/// comparison ("> 3 cm", "\u{2265}1.5 cm"), which makes a number a bound rather than a
/// measurement.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sign {
    pub minus: bool,
    pub bound: bool,
    /// A `%` written right after the word ("30%", "30 %"): the characters from the word's end
    /// to past it (1 or 2; 0 for none).
    pub percent: u8,
    /// The word ends a range written with a dash ("49" of "25-49%").
    pub range_end: bool,
    /// The word is in a phrase the text hedges, or its trigger ("*possible* enhancing
    /// nodule"): set by the reader of a report, which knows its assertions.
    pub hedged: bool,
}

/// The comparison signs that make the number after them a bound.
const BOUND_SIGNS: [char; 6] = ['<', '>', '\u{2264}', '\u{2265}', '\u{2A7D}', '\u{2A7E}'];

/// For each word of a text, the signs written right before it.
pub fn signs(spans: &[text::Span], chars: &[char]) -> Vec<Sign> {
    spans
        .iter()
        .map(|w| {
            let before = w.start.checked_sub(1).and_then(|i| chars.get(i));
            let sign = matches!(before, Some('-') | Some('\u{2212}'));
            // "3-5 HU" is a range, not a negative five: the sign stands after a space or an
            // opening bracket, or at the start.
            let lead = w
                .start
                .checked_sub(2)
                .and_then(|i| chars.get(i))
                .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '[' | ',' | ':' | '='));
            // A comparison may stand apart from its number ("> 3 cm").
            // Written with two characters too: "<= 10 cm", ">= 3 cm" ("=<", "=>" as well).
            let mut before_number = chars[..w.start.min(chars.len())]
                .iter()
                .rev()
                .filter(|c| **c != ' ');
            let bound = match (before_number.next(), before_number.next()) {
                (Some('='), Some(c)) => BOUND_SIGNS.contains(c),
                (Some(c), _) => BOUND_SIGNS.contains(c),
                _ => false,
            };
            let after = |k: usize| chars.get(w.end + k).copied();
            let percent = match (after(0), after(1)) {
                (Some('%'), _) => 1,
                (Some(' '), Some('%')) => 2,
                _ => 0,
            };
            let range_end = matches!(before, Some('-') | Some('\u{2013}'))
                && w.start
                    .checked_sub(2)
                    .and_then(|i| chars.get(i))
                    .is_some_and(char::is_ascii_digit);
            Sign {
                minus: sign && lead,
                bound,
                percent,
                range_end,
                hedged: false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::compiled::{logic, SYSTEMS};
    use crate::knowledge::LEXICON;

    fn read(slug: &str, text: &str) -> Inputs {
        let index = SYSTEMS.iter().position(|s| s.slug == slug).unwrap();
        prefill(&LEXICON, logic(index).unwrap(), text)
    }

    /// The inputs of a system that the negated phrases (as ConText gives them, the words after
    /// the trigger) rule out whole, for a finding about `organs`.
    fn ruled_out(slug: &str, organs: &[&str], phrases: &[&str]) -> Vec<(String, Given)> {
        let index = SYSTEMS.iter().position(|s| s.slug == slug).unwrap();
        let phrases: Vec<Vec<Word>> = phrases.iter().map(|p| text::words(p)).collect();
        let phrases: Vec<&[Word]> = phrases.iter().map(|p| &p[..]).collect();
        ruled_out_inputs(&LEXICON, logic(index).unwrap(), organs, &phrases)
            .into_iter()
            .map(|(id, given, _)| (id.to_string(), given))
            .collect()
    }

    #[test]
    fn a_boolean_input_the_finding_rules_out_is_false() {
        // "without enhancing nodule or calcification": Bosniak's "Enhancing nodule" is false;
        // its "Calcification present" is not named by the phrase's first words, and stays
        // unread.
        assert_eq!(
            ruled_out("bosniak-v2019", &[], &["enhancing nodule or calcification"]),
            [("enhancing_nodule".to_string(), Given::Flag(false))]
        );
        // The label up to its first label break: Lugano's "New lesion on CT".
        assert_eq!(
            ruled_out("lugano-2014", &[], &["new lesion"]),
            [("ct_new_lesion".to_string(), Given::Flag(false))]
        );
        assert!(ruled_out("bosniak-v2019", &[], &["nodule"]).is_empty());
    }

    #[test]
    fn a_multi_input_the_finding_rules_out_whole_has_none_of_its_values() {
        // "no echogenic foci (0)": TI-RADS's value for none of them.
        assert_eq!(
            ruled_out("acr-ti-rads-2017", &[], &["echogenic foci (0"]),
            [(
                "echogenic_foci".to_string(),
                Given::Choices(vec!["none_or_large_comet_tail".to_string()])
            )]
        );
        // "without worrisome features": the label's "Other worrisome features" ends so; no
        // value of the input is there.
        assert_eq!(
            ruled_out("kyoto-ipmn-2024", &["pancreas"], &["worrisome features"]),
            [("wf_other".to_string(), Given::Choices(Vec::new()))]
        );
        // The label names what it asks about up to its first label break: "Clinical risk
        // factors for thyroid cancer" is ruled out by "no risk factors", not by "no thyroid
        // cancer".
        assert_eq!(
            ruled_out("acr-if-thyroid-2015", &[], &["risk factors"]),
            [(
                "clinical_risk_factors".to_string(),
                Given::Choices(Vec::new())
            )]
        );
        assert!(ruled_out("acr-if-thyroid-2015", &[], &["thyroid cancer"]).is_empty());
        // The phrase must begin with the label's words, two of them at least.
        assert!(ruled_out("acr-ti-rads-2017", &[], &["foci"]).is_empty());
        assert!(ruled_out("acr-ti-rads-2017", &[], &["suspicious echogenic foci"]).is_empty());
        assert!(ruled_out("kyoto-ipmn-2024", &["pancreas"], &["features"]).is_empty());
        // An input about another organ than the finding's is left ("Kidney: other CT findings").
        assert!(ruled_out("aast-ois-2018", &["spleen"], &["other ct findings"]).is_empty());
        assert_eq!(
            ruled_out("aast-ois-2018", &["kidney"], &["other ct findings"]),
            [("kidney_findings".to_string(), Given::Choices(Vec::new()))]
        );
    }

    fn number(inputs: &Inputs, id: &str) -> Option<f64> {
        match inputs.get(id) {
            Some(Given::Number(x)) => Some(*x),
            _ => None,
        }
    }

    fn choice<'a>(inputs: &'a Inputs, id: &str) -> Option<&'a str> {
        match inputs.get(id) {
            Some(Given::Choice(v)) => Some(v),
            _ => None,
        }
    }

    /// An age is a number with an age phrase after it or an age word before it, and the first
    /// one stated: a number of years alone dates something ("CT 3 years ago").
    #[test]
    fn the_age_is_the_first_stated_and_a_span_of_years_is_none() {
        let age = |text: &str| {
            sizes_and_age(&LEXICON, &text::words(text))
                .1
                .map(|a| a.years)
        };
        assert_eq!(
            age("71-year-old woman. Stable since the CT 3 years ago."),
            Some(71.0)
        );
        assert_eq!(
            age("Compared with CT from 3 years ago; 64 yo male."),
            Some(64.0)
        );
        assert_eq!(age("64yo F"), Some(64.0));
        assert_eq!(age("64 y/o female"), Some(64.0));
        assert_eq!(age("Age: 58 years. Follow-up in 2 years."), Some(58.0));
        assert_eq!(age("aged 70"), Some(70.0));
        assert_eq!(age("55 years of age"), Some(55.0));
        assert_eq!(age("A 3-year-old boy"), Some(3.0));
        assert_eq!(age("Stable for 2 years; a 6 mm nodule."), None);
        assert_eq!(age("Follow-up ultrasound in 2 years is suggested."), None);
        assert_eq!(age("61-year-old, stopped smoking at age 50"), Some(61.0));
        // An adult's age with the patient's sex written onto it or after it.
        assert_eq!(age("78F, acute onset left hemiparesis"), Some(78.0));
        assert_eq!(
            age("CLINICAL: 72 M with left lower quadrant pain"),
            Some(72.0)
        );
        // Not a device's French gauge, nor a grade.
        assert_eq!(age("Right 28F chest tube in place"), None);
        assert_eq!(age("8 F sheath in the right femoral artery"), None);
        assert_eq!(age("Bosniak 2F cyst of the left kidney"), None);
        // A word that only spells a number Rust would parse ("inf" for inferior, "nan") is
        // neither an age nor a size.
        assert_eq!(age("Age: nan. Aged inf years"), None);
        assert!(sizes_and_age(&LEXICON, &text::words("inf mm, nan cm"))
            .0
            .is_empty());
        // The words of the age end where its phrase does.
        let words = text::words("a 64 year old man");
        let found = sizes_and_age(&LEXICON, &words).1.unwrap();
        assert_eq!((found.at, found.end), (1, 4));
        assert_eq!(found.sex, None);
    }

    #[test]
    fn a_sex_letter_onto_or_after_an_age_states_the_sex_and_nowhere_else() {
        let sex = |text: &str| {
            let words = text::words(text);
            sizes_and_age(&LEXICON, &words)
                .1
                .and_then(|a| a.sex)
                .map(|(sex, at)| (sex, words[at].to_string()))
        };
        let female = |w: &str| Some(("female", w.to_string()));
        let male = |w: &str| Some(("male", w.to_string()));
        assert_eq!(sex("78F, acute onset left hemiparesis"), female("78f"));
        assert_eq!(
            sex("CLINICAL: 72 M with left lower quadrant pain"),
            male("m")
        );
        assert_eq!(sex("History: 61 y/o F with a thyroid nodule"), female("f"));
        assert_eq!(sex("61 yo M, smoker"), male("m"));
        assert_eq!(sex("44-year-old F"), female("f"));
        assert_eq!(sex("Age: 61 F"), female("f"));
        assert_eq!(sex("aged 78F"), female("78f"));
        // The age's words take the letter in.
        let words = text::words("61 y/o F with cough");
        let found = sizes_and_age(&LEXICON, &words).1.unwrap();
        assert_eq!((found.years, found.at, found.end), (61.0, 0, 4));
        // No letter, a letter elsewhere, a device's gauge, a grade: no sex.
        assert_eq!(sex("64 year old man"), None);
        assert_eq!(sex("61 y/o with a lesion in segment F"), None);
        assert_eq!(sex("Right 28F chest tube in place"), None);
        assert_eq!(sex("Bosniak 2F cyst of the left kidney"), None);
        assert_eq!(sex("Level F: 61 y/o"), None);
    }

    /// A measurement of several dimensions is one size: its largest dimension, or for an input
    /// that asks for a mean or a short axis, the mean or the smaller of the first two.
    #[test]
    fn dimensions_are_one_measurement() {
        // (system, text, input, the value read)
        let cases = [
            (
                "acr-ti-rads-2017",
                "Right lobe solid nodule, 1.8 x 1.4 x 1.2 cm.",
                "max_diameter_mm",
                Some(18.0),
            ),
            (
                "acr-ti-rads-2017",
                "Left lobe nodule 12 by 10 by 13 mm, spongiform.",
                "max_diameter_mm",
                Some(13.0),
            ),
            (
                "acr-ti-rads-2017",
                "Right lobe nodule 1.8x1.4x1.2cm, solid.",
                "max_diameter_mm",
                Some(18.0),
            ),
            (
                "acr-ti-rads-2017",
                "Right lobe nodule 8x6 mm, solid.",
                "max_diameter_mm",
                Some(8.0),
            ),
            // Fleischner's size is the average diameter; Lung-RADS's the mean.
            (
                "fleischner-2017",
                "8 x 5 mm solid nodule in the right upper lobe.",
                "size_mm",
                Some(6.5),
            ),
            (
                "acr-lung-rads-v2022",
                "7 x 5 mm solid nodule in the left upper lobe.",
                "solid_mean_mm",
                Some(6.0),
            ),
            // RECIST's lymph node short axis is the smaller.
            (
                "recist-1-1",
                "Enlarged portocaval lymph node 15 x 9 mm.",
                "node_short_axis_mm",
                Some(9.0),
            ),
            // One dimension is as written.
            (
                "acr-ti-rads-2017",
                "Right lobe nodule 1.8 cm, solid.",
                "max_diameter_mm",
                Some(18.0),
            ),
            // A cystic lesion is a cyst.
            (
                "acr-if-pancreatic-cyst-2017",
                "1.6 x 1.3 cm cystic lesion in the pancreatic body.",
                "cyst_size_cm",
                Some(1.6),
            ),
            // A rate of change is no size.
            (
                "acr-if-adrenal-2017",
                "A growth of less than 3 mm per year indicates a benign nodule.",
                "size_cm",
                None,
            ),
        ];
        for (slug, text, id, want) in cases {
            let f = read(slug, text);
            assert_eq!(number(&f, id), want, "{text}: {f:?}");
        }
        // Numbers not joined are sizes of their own.
        let sizes = sizes_and_age(
            &LEXICON,
            &text::words("Nodules of 4 and 6 mm; 3 x 2 cm mass"),
        );
        let mm: Vec<f64> = sizes.0.iter().map(|s| s.mm).collect();
        assert_eq!(mm, vec![6.0, 30.0]);
        assert_eq!(sizes.0[1].axes, Some([30.0, 20.0]));
    }

    /// An AAA's size is the aortic diameter, not an iliac or visceral artery aneurysm's
    /// (`lexicon.json`: "aaa" and, before a size, "aortic aneurysm" are phrases of the
    /// measured noun aorta).
    #[test]
    fn an_aaa_is_measured_as_the_aorta() {
        let f = read(
            "acr-if-vascular-2013",
            "Infrarenal AAA, 3.6 cm, increased from 3.3 cm in 2021.",
        );
        assert_eq!(number(&f, "aortic_diameter_cm"), Some(3.6), "{f:?}");
        assert_eq!(number(&f, "iliac_diameter_cm"), None, "{f:?}");
        let f = read(
            "acr-if-vascular-2013",
            "Infrarenal abdominal aortic aneurysm measuring 3.6 cm in maximal diameter.",
        );
        assert_eq!(number(&f, "aortic_diameter_cm"), Some(3.6), "{f:?}");
        let f = read(
            "acr-if-vascular-2013",
            "Right common iliac artery aneurysm, 3.3 cm.",
        );
        assert_eq!(number(&f, "iliac_diameter_cm"), Some(3.3), "{f:?}");
    }

    /// A thoracic aorta's size is not the abdominal aorta's (`opposite_words`).
    #[test]
    fn a_thoracic_aorta_is_not_the_abdominal_aorta() {
        for text in [
            "Mild dilatation of the ascending aorta at 4.1 cm.",
            "Aortic root 3.6 cm and ascending aorta 3.7 cm.",
            "Thoracic aortic aneurysm measuring 4.8 cm.",
        ] {
            let f = read("acr-if-vascular-2013", text);
            assert_eq!(number(&f, "aortic_diameter_cm"), None, "{text}: {f:?}");
        }
        let f = read(
            "acr-if-vascular-2013",
            "Infrarenal abdominal aorta 2.7 cm, ectatic.",
        );
        assert_eq!(number(&f, "aortic_diameter_cm"), Some(2.7), "{f:?}");
    }

    /// A number input of another unit is read where the finding names it by its label.
    #[test]
    fn a_number_named_by_its_label_is_read() {
        let f = read(
            "graf-hip-us-1980",
            "Left hip: alpha angle 48 degrees, beta angle is 80 degrees, decentred.",
        );
        assert_eq!(number(&f, "alpha_deg"), Some(48.0));
        assert_eq!(number(&f, "beta_deg"), Some(80.0));
        // Two different numbers for one name (both hips on one line): neither is read.
        let f = read(
            "graf-hip-us-1980",
            "Alpha angle 64 degrees on the right and alpha angle 48 degrees on the left.",
        );
        assert_eq!(number(&f, "alpha_deg"), None);
        // Out of the input's range, or no number after the name: not read.
        let f = read(
            "graf-hip-us-1980",
            "Alpha angle 140, beta angle not measured.",
        );
        assert_eq!(number(&f, "alpha_deg"), None);
        assert_eq!(number(&f, "beta_deg"), None);
    }

    #[test]
    fn sizes_go_to_what_they_measure() {
        let f = read(
            "fleischner-2017",
            "12 mm part-solid nodule with a 4 mm solid component in a 61-year-old",
        );
        assert_eq!(number(&f, "size_mm"), Some(12.0));
        assert_eq!(number(&f, "solid_component_mm"), Some(4.0));
        assert_eq!(number(&f, "age_years"), Some(61.0));
        assert_eq!(choice(&f, "nodule_type"), Some("part_solid"));
        let f = read(
            "fleischner-2017",
            "Incidental 8 mm solid nodule, 1.2cm node",
        );
        assert_eq!(number(&f, "size_mm"), Some(8.0));
        assert_eq!(
            f.get("solid_component_mm"),
            None,
            "the node is not a component"
        );
        assert_eq!(choice(&f, "nodule_type"), Some("solid"));
        let l = read(
            "acr-lung-rads-v2022",
            "Screening CT shows a 16 mm part solid nodule with 9 mm solid component",
        );
        assert_eq!(number(&l, "ps_total_mm"), Some(16.0));
        assert_eq!(number(&l, "ps_solid_mm"), Some(9.0));
        assert_eq!(l.get("solid_mean_mm"), None);
        let l = read("acr-lung-rads-v2022", "9 mm ground glass nodule");
        assert_eq!(number(&l, "ggn_mean_mm"), Some(9.0));
        let l = read("acr-lung-rads-v2022", "7 mm solid nodule");
        assert_eq!(number(&l, "solid_mean_mm"), Some(7.0));
        // A solid nodule is not a sub-solid one.
        let b = read("bts-pulmonary-nodules-2015", "8 mm solid nodule");
        assert_eq!(number(&b, "max_diameter_mm"), Some(8.0));
        assert_eq!(b.get("ssn_size_mm"), None);
        let b = read("bts-pulmonary-nodules-2015", "12 mm sub-solid nodule");
        assert_eq!(number(&b, "ssn_size_mm"), Some(12.0));
        // A size stops at a clause: the cyst's size is not the duct's.
        let k = read("kyoto-ipmn-2024", "Branch duct IPMN 25 mm with MPD 6 mm");
        assert_eq!(number(&k, "cyst_size_mm"), Some(25.0));
        assert_eq!(number(&k, "mpd_mm"), Some(6.0));
    }

    /// [`prefill_signed`] over a text whose characters are known.
    fn read_signed(slug: &str, text: &str) -> Inputs {
        read_hedged(slug, text, &[])
    }

    /// [`read_signed`] with the words of `hedged` (text as written) marked hedged, as the
    /// reader of a report marks them.
    fn read_hedged(slug: &str, text: &str, hedged: &[&str]) -> Inputs {
        let index = SYSTEMS.iter().position(|s| s.slug == slug).unwrap();
        let spans = text::spans(text);
        let chars: Vec<char> = text.chars().collect();
        let words: Vec<Word> = spans.iter().map(|w| w.text.clone()).collect();
        let mut signs = signs(&spans, &chars);
        for phrase in hedged {
            let from = text.find(phrase).unwrap();
            let (from, to) = (
                text[..from].chars().count(),
                text[..from + phrase.len()].chars().count(),
            );
            for (sign, w) in signs.iter_mut().zip(&spans) {
                sign.hedged |= w.start >= from && w.end <= to;
            }
        }
        let index_of_words = text::WordIndex::new(&words);
        prefill_signed(
            &LEXICON,
            logic(index).unwrap(),
            &Reading::of(&LEXICON, &index_of_words),
            Some(&signs),
            false,
        )
        .inputs
    }

    /// A bound is no measurement: a comparison sign or a bound word before a size leaves its
    /// input to be given.
    #[test]
    fn a_bound_fills_no_size() {
        let depth = |inputs: &Inputs| number(inputs, "liver_laceration_depth_cm");
        let f = read_signed(
            "aast-ois-2018",
            "Liver laceration (depth > 3 cm) of segment 6.",
        );
        assert_eq!(depth(&f), None, "{f:?}");
        let f = read_signed(
            "aast-ois-2018",
            "Liver laceration (depth \u{2265}3 cm) of segment 6.",
        );
        assert_eq!(depth(&f), None, "{f:?}");
        let f = read_signed(
            "aast-ois-2018",
            "Liver laceration (depth >= 3 cm) of segment 6.",
        );
        assert_eq!(depth(&f), None, "{f:?}");
        let f = read_signed(
            "aast-ois-2018",
            "Liver laceration (depth <= 3 cm, =< 3 cm) of segment 6.",
        );
        assert_eq!(depth(&f), None, "{f:?}");
        let f = read_signed(
            "aast-ois-2018",
            "Liver laceration 4.5 cm deep in segment 6.",
        );
        assert_eq!(depth(&f), Some(4.5), "{f:?}");
        let f = read(
            "ese-adrenal-incidentaloma-2023",
            "Advised, as the adrenal nodule is over 1 cm.",
        );
        assert_eq!(number(&f, "size_cm"), None, "{f:?}");
    }

    /// A size's noun may come several words after it ("9 mm solid right upper lobe nodule") or
    /// before it ("the solid nodule in the right upper lobe measures 9 mm"); of a current and
    /// an earlier size, the current one is read, whichever comes first.
    #[test]
    fn the_current_size_is_read_and_its_noun_found_where_reports_write_it() {
        let size = |text: &str| number(&read("fleischner-2017", text), "size_mm");
        let cases = [
            ("9 mm solid right upper lobe nodule", Some(9.0)),
            ("4 mm ground glass left upper lobe nodule", Some(4.0)),
            (
                "The solid nodule in the right upper lobe measures 9 mm.",
                Some(9.0),
            ),
            (
                "Right upper lobe solid nodule, grown from 6 mm to 9 mm.",
                Some(9.0),
            ),
            (
                "Growing 9 mm solid right upper lobe nodule, previously 6 mm.",
                Some(9.0),
            ),
            (
                "The solid nodule measures 9 mm (previously 6 mm).",
                Some(9.0),
            ),
            (
                "Solid nodule, previously measuring 6 mm, now 9 mm.",
                Some(9.0),
            ),
            // An earlier size alone is still the size the finding states.
            ("Solid nodule, previously 6 mm.", Some(6.0)),
        ];
        for (text, expected) in cases {
            assert_eq!(size(text), expected, "{text}");
        }
        let ti_rads = read(
            "acr-ti-rads-2017",
            "Right thyroid nodule, TR4, increased from 1.1 cm to 1.6 cm.",
        );
        assert_eq!(number(&ti_rads, "max_diameter_mm"), Some(16.0));
        // A ground-glass opacity written as GGO is measured as a nodule.
        let bts = read(
            "bts-pulmonary-nodules-2015",
            "8 mm GGO in the left lower lobe.",
        );
        assert_eq!(number(&bts, "max_diameter_mm"), Some(8.0));
    }

    /// A value whose label offers a word or another is stated by either ("isoechoic" is
    /// TI-RADS's "Hyperechoic or isoechoic", "irregular" its "Lobulated or irregular"), and by
    /// the other name a closing parenthesis gives ("Reproductive age (premenopausal)"); a
    /// longer label's "or" is part of a description, not two names of the value.
    #[test]
    fn either_name_a_value_label_offers_states_the_value() {
        let f = read(
            "acr-ti-rads-2017",
            "Solid, isoechoic, wider-than-tall nodule with irregular margins, 1.2 cm.",
        );
        assert_eq!(choice(&f, "echogenicity"), Some("hyper_or_isoechoic"));
        assert_eq!(choice(&f, "margin"), Some("lobulated_or_irregular"));
        // An isoechoic nodule with a hypoechoic halo states two echogenicities: neither is
        // read (the halo's used to be).
        let f = read(
            "acr-ti-rads-2017",
            "Solid, isoechoic nodule with a thin hypoechoic halo, 2.3 cm.",
        );
        assert_eq!(choice(&f, "echogenicity"), None, "{f:?}");
        assert_eq!(
            label_alternatives("Hyperechoic or isoechoic"),
            Some(["Hyperechoic", "isoechoic"])
        );
        assert_eq!(
            label_alternatives("Cystic or almost completely cystic"),
            Some(["Cystic", "almost completely cystic"])
        );
        // A label's closing parenthesis of one word is another name of the value.
        let f = read(
            "sru-adnexal-cysts-2010",
            "3.1 cm simple right ovarian cyst in this premenopausal patient.",
        );
        assert_eq!(choice(&f, "menopausal_status"), Some("reproductive_age"));
        assert_eq!(
            label_other_name("Reproductive age (premenopausal)"),
            Some("premenopausal")
        );
        for label in [
            "Premenopausal (including perimenopausal)",
            "Peripheral (rim) calcifications",
            "Smooth",
        ] {
            assert_eq!(label_other_name(label), None, "{label}");
        }
        for description in [
            "Uptake at or below mediastinum",
            "Sub-solid (pure ground-glass or part-solid)",
            "Postmenopausal, early or late not stated",
            "30% or less",
            "Two or more nodal groups on the same side of the diaphragm",
        ] {
            assert_eq!(label_alternatives(description), None, "{description}");
        }
    }

    #[test]
    fn an_attenuation_fills_the_input_measured_as_the_finding_says() {
        let a = read_signed(
            "acr-if-adrenal-2017",
            "1.6 cm left adrenal nodule, 8 HU on unenhanced CT",
        );
        assert_eq!(number(&a, "unenhanced_hu"), Some(8.0));
        let e = read_signed(
            "ese-adrenal-incidentaloma-2023",
            "adrenal nodule of 12 Hounsfield units on non-contrast CT",
        );
        assert_eq!(number(&e, "unenhanced_hu"), Some(12.0));
        // The sign is kept: a fat-containing nodule is not a soft-tissue one.
        let a = read_signed(
            "acr-if-adrenal-2017",
            "adrenal nodule, -15 HU on unenhanced CT",
        );
        assert_eq!(number(&a, "unenhanced_hu"), Some(-15.0));
        // A portal venous attenuation is not an unenhanced one.
        let a = read_signed(
            "acr-if-adrenal-2017",
            "14 mm adrenal nodule, 45 HU in the portal venous phase",
        );
        assert_eq!(a.get("unenhanced_hu"), None);
        // Two attenuations stated: the one its phase stands by, else neither.
        let a = read_signed(
            "acr-if-adrenal-2017",
            "unenhanced 8 HU, delayed 20 HU adrenal nodule",
        );
        assert_eq!(number(&a, "unenhanced_hu"), Some(8.0));
        let a = read_signed("acr-if-adrenal-2017", "8 HU and 20 HU adrenal nodule");
        assert_eq!(a.get("unenhanced_hu"), None);
        // Without the characters, no attenuation is read at all.
        let a = read(
            "acr-if-adrenal-2017",
            "adrenal nodule, -15 HU on unenhanced CT",
        );
        assert_eq!(a.get("unenhanced_hu"), None);
    }

    #[test]
    fn an_input_about_another_organ_is_left_empty() {
        // AAST grades three organs: a liver laceration's depth is the liver's, not the spleen's.
        let a = read(
            "aast-ois-2018",
            "4.5 cm deep parenchymal laceration of the liver",
        );
        assert_eq!(number(&a, "liver_laceration_depth_cm"), Some(4.5));
        assert_eq!(a.get("spleen_laceration_depth_cm"), None);
        let a = read(
            "aast-ois-2018",
            "Right kidney: 0.8 cm deep cortical laceration",
        );
        assert_eq!(number(&a, "kidney_laceration_depth_cm"), Some(0.8));
        assert_eq!(a.get("spleen_laceration_depth_cm"), None);
    }

    #[test]
    fn sizes_are_given_in_the_unit_of_the_input() {
        let t = read("acr-ti-rads-2017", "TI-RADS TR4 nodule measuring 1.6 cm");
        assert_eq!(number(&t, "max_diameter_mm"), Some(16.0));
        assert_eq!(choice(&t, "tr_level"), Some("TR4"));
        let r = read("acr-if-renal-2018", "Incidental 25 mm solid renal mass");
        assert_eq!(number(&r, "size_cm"), Some(2.5));
        let p = read("acr-if-pancreatic-cyst-2017", "Branch duct IPMN 25 mm");
        assert_eq!(number(&p, "cyst_size_cm"), Some(2.5), "{p:?}");
        let r = read("acr-if-renal-2018", "incidental 1.2 cm renal lesion");
        assert_eq!(number(&r, "size_cm"), Some(1.2));
    }

    #[test]
    fn a_single_size_input_takes_a_size_that_names_no_noun() {
        let t = read(
            "acr-ti-rads-2017",
            "thyroid nodule on ultrasound, solid, hypoechoic, taller-than-wide, 14 mm",
        );
        assert_eq!(number(&t, "max_diameter_mm"), Some(14.0));
        assert_eq!(choice(&t, "composition"), Some("solid"));
        assert_eq!(choice(&t, "echogenicity"), Some("hypoechoic"));
        assert_eq!(choice(&t, "shape"), Some("taller_than_wide"));
        // Bosniak's only length is a wall or septum: a mass's size is not one.
        let b = read(
            "bosniak-v2019",
            "2 cm cystic renal mass with a 3 mm enhancing septum",
        );
        assert_eq!(number(&b, "max_enhancing_thickness_mm"), Some(3.0));
        let b = read("bosniak-v2019", "2 cm cystic renal mass");
        assert_eq!(b.get("max_enhancing_thickness_mm"), None);
    }

    #[test]
    fn enum_values_need_the_text_to_be_unambiguous() {
        let t = read("acr-ti-rads-2017", "very hypoechoic solid nodule");
        assert_eq!(choice(&t, "echogenicity"), Some("very_hypoechoic"));
        // Two echogenicities stated: none is chosen.
        let t = read("acr-ti-rads-2017", "hypoechoic and anechoic parts");
        assert_eq!(t.get("echogenicity"), None);
        // A negated value is not stated.
        let f = read("fleischner-2017", "nodule, not solid");
        assert_eq!(f.get("nodule_type"), None);
        // "baseline" fits every Lung-RADS nodule type's timepoint: it goes to the one type the
        // finding names, and to none when it names no type or two.
        let l = read(
            "acr-lung-rads-v2022",
            "Baseline screening: 7 mm solid nodule",
        );
        assert_eq!(number(&l, "solid_mean_mm"), Some(7.0));
        assert_eq!(choice(&l, "solid_status"), Some("baseline"));
        // "new" is read although it is short (lexicon `short_values`), and goes to the type
        // named; negated, it is not read.
        let l = read("acr-lung-rads-v2022", "New 5 mm solid nodule in the LUL");
        assert_eq!(choice(&l, "solid_status"), Some("new"));
        let l = read("acr-lung-rads-v2022", "No new solid nodule");
        assert_eq!(l.get("solid_status"), None);
        let a = read("acr-if-adrenal-2017", "New 2.3 cm left adrenal nodule");
        assert_eq!(choice(&a, "prior_imaging"), Some("new_or_enlarging"));
        // A value an earlier examination showed is not this one's.
        let l = read(
            "acr-lung-rads-v2022",
            "Stable 5.2 mm solid nodule, unchanged from baseline",
        );
        assert_eq!(l.get("solid_status"), None);
        // "solid nodule" within "part solid nodule" names the part-solid type only.
        let l = read(
            "acr-lung-rads-v2022",
            "Baseline 7 mm part-solid nodule with a 3 mm solid component",
        );
        assert_eq!(choice(&l, "ps_status"), Some("baseline"));
        assert_eq!(l.get("solid_status"), None);
        let l = read(
            "acr-lung-rads-v2022",
            "Baseline screening, no nodules named",
        );
        assert!(["solid_status", "ps_status", "ggn_status"]
            .iter()
            .all(|id| !l.contains_key(*id)));
        let l = read(
            "acr-lung-rads-v2022",
            "Baseline 6 mm solid nodule and a juxtapleural nodule",
        );
        assert_eq!(l.get("solid_status"), None);
        assert_eq!(l.get("jp_status"), None);
        // A multi input the corpus does not mark listed is left to the client.
        let f = read("fleischner-2017", "screening CT, known cancer");
        assert_eq!(f.get("exclusions"), None);
    }

    #[test]
    fn a_sum_of_sizes_fills_no_length() {
        let slug = "recist-1-1";
        let r = read(
            slug,
            "Continued partial response: sum of target lesion diameters 71 mm, a decrease of 31.7% from the baseline",
        );
        assert_eq!(r.get("longest_diameter_mm"), None);
        let r = read(
            slug,
            "Target lesion 1, segment 6 liver metastasis: 24 mm (baseline 38 mm)",
        );
        // Its label names a lesion that is "non-nodal": a lymph node is not its organ, so a
        // liver lesion's size fills it; the sum's own inputs take no one size.
        assert_eq!(number(&r, "longest_diameter_mm"), Some(24.0), "{r:?}");
        assert_eq!(r.get("sum_abs_change_nadir_mm"), None);
        // The single length input's fallback takes no sum either.
        let t = read(
            "acr-ti-rads-2017",
            "combined 14 mm, solid hypoechoic thyroid nodules",
        );
        assert_eq!(t.get("max_diameter_mm"), None);
        let t = read("acr-ti-rads-2017", "solid hypoechoic thyroid nodule, 14 mm");
        assert_eq!(number(&t, "max_diameter_mm"), Some(14.0));
    }

    #[test]
    fn a_size_taken_the_opposite_way_fills_no_input() {
        let slug = "recist-1-1";
        let r = read(slug, "Long axis: 38 mm / 31 mm / 34 mm");
        assert_eq!(r.get("node_short_axis_mm"), None, "{r:?}");
        let r = read(slug, "Short axis: 17 mm / 14 mm / 19 mm");
        assert_eq!(number(&r, "node_short_axis_mm"), Some(17.0), "{r:?}");
    }

    #[test]
    fn neither_side_of_a_differential_is_read_as_a_fact() {
        let slug = "acr-if-renal-2018";
        let r = read(
            slug,
            "2.1 cm homogeneous right renal lesion: solid renal mass",
        );
        assert_eq!(choice(&r, "wo_w_category"), Some("solid"));
        for text in [
            "2.1 cm homogeneous right renal lesion: hyperattenuating cyst versus solid mass",
            "2.1 cm right renal lesion, solid mass vs. hyperdense cyst",
            "2.1 cm right renal lesion, cystic versus solid",
        ] {
            let r = read(slug, text);
            assert_eq!(r.get("wo_w_category"), None, "{text}");
        }
        // A differential further along the sentence leaves the value stated before it.
        let r = read(
            slug,
            "2.1 cm solid renal mass in the lower pole, oncocytoma versus renal cell carcinoma",
        );
        assert_eq!(choice(&r, "wo_w_category"), Some("solid"));
        // A differential inside the value's own statement is another one.
        let l = read(
            "acr-lung-rads-v2022",
            "few clustered tree-in-bud opacities, new, likely infectious/inflammatory (aspiration vs bronchiolitis)",
        );
        assert_eq!(
            choice(&l, "exam_incomplete"),
            Some("infectious_inflammatory")
        );
    }

    /// A percentage is read for the input the corpus names by a phrase next to it
    /// (`named_by`): written with `%` or a percent word, before or after the phrase; a bound,
    /// a range, or a percentage as near to two inputs' phrases reads nothing.
    #[test]
    fn a_percentage_goes_to_the_input_a_phrase_beside_it_names() {
        let slip = |text: &str| number(&read_signed("meyerding-1932", text), "slip_percent");
        assert_eq!(slip("30% anterolisthesis of L4 on L5."), Some(30.0));
        assert_eq!(
            slip("Grade 1 (25 %) anterolisthesis of L4 on L5."),
            Some(25.0)
        );
        assert_eq!(
            slip("Spondylolisthesis of L5 on S1, slip of 40 percent."),
            Some(40.0)
        );
        assert_eq!(
            slip("Anterolisthesis of L4 on L5 by approximately 20%."),
            Some(20.0)
        );
        // Without a percent sign or word, a number is not a percentage ("4 mm").
        assert_eq!(slip("Anterolisthesis of L4 on L5 by 4 mm."), None);
        assert_eq!(slip("Anterolisthesis of L4 on L5 measuring 4."), None);
        // A bound, a range, two different percentages: nothing.
        assert_eq!(slip("Anterolisthesis of L4 on L5, less than <25%."), None);
        assert_eq!(slip("Anterolisthesis of L4 on L5 of 25-49%."), None);
        assert_eq!(
            slip("Anterolisthesis of L4 on L5 of 25 to 49 percent."),
            None
        );
        assert_eq!(
            slip("20% anterolisthesis of L3 on L4 and 35% anterolisthesis of L4 on L5."),
            None
        );
        // Too far from the phrase.
        assert_eq!(
            slip("Anterolisthesis of L4 on L5. The disc space is narrowed and the canal is 60% of its normal width."),
            None
        );
        // Each percentage to the phrase nearest it; "washout 65%" alone names neither; the
        // organ picks between two inputs named alike.
        let both = "Left adrenal nodule with absolute washout of 65% and relative washout of 45%.";
        let spleen = "Splenic subcapsular hematoma covering approximately 30% of the surface area.";
        for (slug, text, id, value) in [
            (
                "acr-if-adrenal-2017",
                both,
                "absolute_washout_pct",
                Some(65.0),
            ),
            (
                "acr-if-adrenal-2017",
                both,
                "relative_washout_pct",
                Some(45.0),
            ),
            (
                "acr-if-adrenal-2017",
                "Left adrenal nodule, washout 65%.",
                "absolute_washout_pct",
                None,
            ),
            (
                "acr-if-adrenal-2017",
                "Left adrenal nodule, washout 65%.",
                "relative_washout_pct",
                None,
            ),
            (
                "aast-ois-2018",
                spleen,
                "spleen_subcapsular_hematoma_pct",
                Some(30.0),
            ),
            (
                "aast-ois-2018",
                spleen,
                "liver_subcapsular_hematoma_pct",
                None,
            ),
        ] {
            let read = read_signed(slug, text);
            assert_eq!(number(&read, id), value, "{text}: {read:?}");
        }
    }

    /// A boolean input the corpus names by report phrases (`named_by`) is true where the
    /// finding states one of them, unhedged, about the input's organ.
    #[test]
    fn a_named_flag_is_true_where_the_finding_states_it_unhedged() {
        let nodule = |inputs: &Inputs| inputs.get("enhancing_nodule").cloned();
        let text = "Left renal cystic mass with thin septa and an enhancing mural nodule.";
        assert_eq!(
            nodule(&read_signed("bosniak-v2019", text)),
            Some(Given::Flag(true))
        );
        // Hedged, it states nothing.
        let f = read_hedged("bosniak-v2019", text, &["an enhancing mural nodule"]);
        assert_eq!(nodule(&f), None, "{f:?}");
        let text = "Left renal cystic mass; an enhancing nodule cannot be excluded.";
        let f = read_hedged(
            "bosniak-v2019",
            text,
            &["an enhancing nodule", "cannot be excluded"],
        );
        assert_eq!(nodule(&f), None, "{f:?}");
        // Without the characters (no signs), no flag is read: its hedges are not known.
        assert_eq!(
            nodule(&read(
                "bosniak-v2019",
                "Cystic mass with an enhancing nodule."
            )),
            None
        );
        // The organ the label names picks the input: a liver's capsular tear is not the
        // spleen's.
        let f = read_signed("aast-ois-2018", "Splenic laceration with a capsular tear.");
        assert_eq!(
            f.get("spleen_capsular_tear"),
            Some(&Given::Flag(true)),
            "{f:?}"
        );
        let f = read_signed("aast-ois-2018", "Liver laceration with a capsular tear.");
        assert_eq!(f.get("spleen_capsular_tear"), None, "{f:?}");
        let f = read_signed(
            "modified-fisher-2006",
            "Diffuse thick subarachnoid hemorrhage with intraventricular hemorrhage.",
        );
        assert_eq!(f.get("ivh_present"), Some(&Given::Flag(true)), "{f:?}");
    }

    /// An enum input named by its label and followed by a value reads that value, even one
    /// too short or too generic to be read alone.
    #[test]
    fn a_label_followed_by_its_value_states_it() {
        let f = read(
            "pi-rads-v2-1-2019",
            "Left peripheral zone 1.3 cm lesion, DWI score 4, DCE positive.",
        );
        assert_eq!(choice(&f, "dwi_score"), Some("4"), "{f:?}");
        assert_eq!(choice(&f, "dce"), Some("positive"), "{f:?}");
        let f = read("pi-rads-v2-1-2019", "Transition zone nodule, T2W score: 3.");
        assert_eq!(choice(&f, "t2w_tz_score"), Some("3"), "{f:?}");
        // Not named, a bare score or "positive" is nothing; named with two values, nothing.
        let f = read(
            "pi-rads-v2-1-2019",
            "Left peripheral zone lesion 4, positive.",
        );
        assert_eq!(choice(&f, "dwi_score"), None, "{f:?}");
        assert_eq!(choice(&f, "dce"), None, "{f:?}");
        let f = read(
            "pi-rads-v2-1-2019",
            "DWI score 4 on one read and DWI score 5 on another.",
        );
        assert_eq!(choice(&f, "dwi_score"), None, "{f:?}");
    }

    /// Of several attenuations, one per phase, the unenhanced input takes the one its words
    /// stand by: after each ("28 HU unenhanced, 95 HU portal venous"), else before each
    /// ("unenhanced 8 HU, portal venous 60 HU").
    #[test]
    fn of_several_attenuations_each_input_takes_its_phase() {
        let hu = |slug: &str, text: &str| number(&read_signed(slug, text), "unenhanced_hu");
        let after =
            "2.2 cm left adrenal nodule, 28 HU unenhanced, 95 HU portal venous, 45 HU delayed.";
        assert_eq!(hu("acr-if-adrenal-2017", after), Some(28.0));
        // ESE's "Non-contrast CT attenuation" is held by any unenhanced phrase.
        assert_eq!(hu("ese-adrenal-incidentaloma-2023", after), Some(28.0));
        let before = "Left adrenal nodule: unenhanced 8 HU, portal venous 60 HU, delayed 30 HU.";
        assert_eq!(hu("acr-if-adrenal-2017", before), Some(8.0));
        // No phase named, or two unenhanced values: nothing.
        assert_eq!(
            hu("acr-if-adrenal-2017", "Adrenal nodule of 28 HU and 95 HU."),
            None
        );
        assert_eq!(
            hu(
                "acr-if-adrenal-2017",
                "Adrenal nodules: 12 HU unenhanced and 30 HU unenhanced."
            ),
            None
        );
    }
}
