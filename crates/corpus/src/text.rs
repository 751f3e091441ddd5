//! Text normalisation shared by the index (at build time) and queries (at request time).
//!
//! Both sides must cut text into the same terms or nothing matches, so there is exactly one
//! implementation. Case and diacritics are folded, punctuation separates words, and adjacent
//! words are also joined, so "TI-RADS", "TIRADS" and "ti rads" all meet at the term `tirads`.

/// Escapes text for XML element content and attributes.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

/// A rough token count (about four characters a token), to budget an assistant's prompt.
pub fn approx_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Words too common to help ranking in free text.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on",
    "or", "the", "to", "with", "without", "that", "this", "than", "which", "may", "should",
];

/// Folds one character to lower-case ASCII where a plain equivalent exists.
fn fold(c: char) -> Option<char> {
    // Most of a report is ASCII: no case table to look up.
    if c.is_ascii() {
        return c.is_ascii_alphanumeric().then(|| c.to_ascii_lowercase());
    }
    let c = c.to_lowercase().next().unwrap_or(c);
    let plain = match c {
        'a'..='z' | '0'..='9' => c,
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' => 'a',
        'ç' | 'č' | 'ć' => 'c',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ě' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'ī' => 'i',
        'ñ' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' => 'o',
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' => 'u',
        'ý' | 'ÿ' => 'y',
        'ß' => 's',
        'š' | 'ś' => 's',
        'ž' | 'ź' | 'ż' => 'z',
        'ł' => 'l',
        'ř' => 'r',
        'đ' | 'ď' => 'd',
        'ť' => 't',
        _ => return None,
    };
    Some(plain)
}

/// Splits text into folded words: runs of letters and digits. A decimal point between digits
/// is kept ("1.5" stays one word) so thresholds remain searchable.
pub fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::with_capacity(text.len() / 6);
    cut(text, |word, _, _| out.push(Word::from(word)));
    out
}

/// [`words`] joined by single spaces, written into one string (a phrase as the lexicon writes
/// it), without a list of the words.
pub fn joined(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    cut(text, |word, _, _| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    });
    out
}

/// A folded word: lower-case ASCII letters and digits, with a decimal point between digits
/// ("1.5"). It reads, compares, orders and hashes as a `str`. A word of up to
/// [`Word::INLINE`] bytes, nearly every word of a report, is held in place, so cutting a text
/// allocates its list of words and not each word: a whole report is cut into words several
/// times over as it is read, and those allocations were a third of a grounding's instructions
/// natively (less of its time in wasm; README, Performance).
#[derive(Clone)]
pub struct Word(Held);

#[derive(Clone)]
enum Held {
    /// The word's bytes, copied whole from a `&str`, and how many there are.
    Inline {
        len: u8,
        bytes: [u8; Word::INLINE],
    },
    Heap(Box<str>),
}

impl Word {
    /// The longest word held in place, in bytes: a `Word` is then as large as a `String`.
    pub const INLINE: usize = 22;

    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Held::Inline { len, bytes } => {
                let bytes = &bytes[..usize::from(*len)];
                // SAFETY: `Word::from` copied these bytes whole from a `&str`, and nothing
                // writes them after, so they are UTF-8.
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
            Held::Heap(word) => word,
        }
    }
}

/// A word of text already folded ([`words`] makes them); any other text is held as it is.
impl From<&str> for Word {
    fn from(word: &str) -> Word {
        match u8::try_from(word.len()) {
            Ok(len) if word.len() <= Word::INLINE => {
                let mut bytes = [0; Word::INLINE];
                bytes[..word.len()].copy_from_slice(word.as_bytes());
                Word(Held::Inline { len, bytes })
            }
            _ => Word(Held::Heap(word.into())),
        }
    }
}

impl std::ops::Deref for Word {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Word {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// Words compare, order and hash as their text, so a table of words answers a `&str`.
impl std::borrow::Borrow<str> for Word {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Word {
    fn eq(&self, other: &Word) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Word {}

impl PartialEq<str> for Word {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Word {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Word {
    fn partial_cmp(&self, other: &Word) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Word {
    fn cmp(&self, other: &Word) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Word {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl std::fmt::Display for Word {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for Word {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

/// A folded word and where it stands in the text, in characters: `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub text: Word,
    pub start: usize,
    pub end: usize,
}

/// [`words`], each with its character offsets in `text`.
pub fn spans(text: &str) -> Vec<Span> {
    let mut out = Vec::with_capacity(text.len() / 6);
    cut(text, |word, start, end| {
        out.push(Span {
            text: Word::from(word),
            start,
            end,
        })
    });
    out
}

/// Cuts text into folded words, giving each to `word` with its character offsets `[start,
/// end)`. One pass over the characters, with one of look-ahead for a decimal point; a word is
/// folded into one buffer, so each word handed out is one exact allocation at most.
fn cut(text: &str, word: impl FnMut(&str, usize, usize)) {
    // Most reports are ASCII: a character is then a byte, folded by a table, with no decoding.
    if text.is_ascii() {
        cut_folded(text.bytes().map(char::from), fold_ascii, word)
    } else {
        cut_folded(text.chars(), fold, word)
    }
}

/// [`cut`] over characters, each folded by `fold`.
fn cut_folded(
    chars: impl Iterator<Item = char>,
    fold: impl Fn(char) -> Option<char>,
    mut word: impl FnMut(&str, usize, usize),
) {
    let mut current = String::with_capacity(32);
    let mut start = 0;
    let mut count = 0;
    let mut chars = chars.enumerate().peekable();
    while let Some((i, c)) = chars.next() {
        count = i + 1;
        if let Some(f) = fold(c) {
            if current.is_empty() {
                start = i;
            }
            current.push(f);
            continue;
        }
        // Folded characters are ASCII, so the word's last one is its last byte.
        let decimal = c == '.'
            && current.as_bytes().last().is_some_and(u8::is_ascii_digit)
            && chars.peek().is_some_and(|(_, n)| n.is_ascii_digit());
        if decimal {
            current.push('.');
        } else if !current.is_empty() {
            word(&current, start, i);
            current.clear();
        }
    }
    if !current.is_empty() {
        word(&current, start, count);
    }
}

/// The characters of `text`, in one allocation of the right size (an ASCII text, most
/// reports, is not decoded): a report is read by character offsets, and collecting its
/// characters grew the list several times over, copying it each time.
pub fn char_vec(text: &str) -> Vec<char> {
    if text.is_ascii() {
        text.bytes().map(char::from).collect()
    } else {
        let mut chars = Vec::with_capacity(text.chars().count());
        chars.extend(text.chars());
        chars
    }
}

/// `text` with the characters of the `blanked` ranges made spaces, line breaks kept: the text
/// [`blank`] makes of its characters, without a list of characters for an ASCII text.
pub fn blanked(text: &str, blanked: &[[usize; 2]]) -> String {
    if !text.is_ascii() {
        let mut chars = char_vec(text);
        blank(&mut chars, blanked);
        return chars.into_iter().collect();
    }
    let mut bytes = text.as_bytes().to_vec();
    for range in blanked {
        let end = range[1].min(bytes.len());
        for b in bytes.iter_mut().take(end).skip(range[0]) {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only ASCII bytes were written over ASCII bytes.
    String::from_utf8(bytes).unwrap_or_default()
}

/// Blanks the character ranges `blanked` (`[start, end)`) of a text's characters with spaces,
/// keeping its line breaks, so every offset stays where it was: how a reading of a report
/// leaves out what it does not read. Its words are then those of [`spans_outside`].
pub fn blank(chars: &mut [char], blanked: &[[usize; 2]]) {
    for range in blanked {
        for c in chars.iter_mut().take(range[1]).skip(range[0]) {
            if *c != '\n' {
                *c = ' ';
            }
        }
    }
}

/// The words of a text (`spans`, from [`spans`]) that meet none of the `blanked` character
/// ranges (`[start, end)`, in any order, overlapping or not): the words of the same text with
/// those ranges blanked, when every range starts and ends at a word, as a reading's ruled-out
/// phrases and a report's sections do (a blank is a separator, so the other words are cut as
/// they were). A text is cut once, and each blanked reading of it is a filter.
pub fn spans_outside(spans: &[Span], blanked: &[[usize; 2]]) -> Vec<Span> {
    let mut ranges: Vec<[usize; 2]> = blanked.iter().filter(|r| r[0] < r[1]).copied().collect();
    ranges.sort_unstable();
    let mut out = Vec::with_capacity(spans.len());
    let mut next = 0;
    for span in spans {
        while next < ranges.len() && ranges[next][1] <= span.start {
            next += 1;
        }
        // Ranges are sorted by start; any that meets this word starts before its end.
        let meets = ranges[next..]
            .iter()
            .take_while(|r| r[0] < span.end)
            .any(|r| r[1] > span.start);
        if !meets {
            out.push(span.clone());
        }
    }
    out
}

/// The words of a text that `[from, to)` holds, among the text's words cut once (`words`, in
/// order): for a range that starts and ends between words (a line, a label, a sentence, a
/// clause), the words cutting that piece alone would give, with their offsets in the text.
pub fn within(words: &[Span], from: usize, to: usize) -> &[Span] {
    let first = words.partition_point(|w| w.start < from);
    let past = words.partition_point(|w| w.start < to);
    &words[first..past.max(first)]
}

/// The folded form of each ASCII byte: its lower case for a letter or digit, 0 otherwise.
const ASCII_FOLD: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            table[b] = c.to_ascii_lowercase();
        }
        b += 1;
    }
    table
};

/// [`fold`] of an ASCII character, by the table.
fn fold_ascii(c: char) -> Option<char> {
    let f = ASCII_FOLD[c as usize & 0x7f];
    (f != 0).then_some(char::from(f))
}

/// The terms of a short identifying text (a name, an abbreviation, a code, a query): every word,
/// plus every pair of adjacent words joined, plus the whole text joined when it has up to four
/// words ("lung rads 4b" → `lungrads4b`).
pub fn identity_terms(text: &str) -> Vec<String> {
    identity_terms_of(&words(text))
        .iter()
        .map(Word::to_string)
        .collect()
}

/// [`identity_terms`] of a text already cut into folded words, as words (a joined pair is held
/// in place like any short word, so a long query's terms cost no allocation each).
pub fn identity_terms_of(words: &[Word]) -> Vec<Word> {
    identity_terms_without(words, |_| false)
}

/// [`identity_terms_of`] without the words `silent` holds, alone or joined to one another
/// (a finding's stopwords: "of", "the", "ofthe").
pub fn identity_terms_without(words: &[Word], silent: impl Fn(&str) -> bool) -> Vec<Word> {
    let mut terms: Vec<Word> = Vec::with_capacity(2 * words.len());
    // Each word is asked once; a pair is silent when both of its words are.
    let quiet: Vec<bool> = words.iter().map(|w| silent(w)).collect();
    terms.extend(
        words
            .iter()
            .zip(&quiet)
            .filter(|(_, &q)| !q)
            .map(|(w, _)| w.clone()),
    );
    let mut joined = String::new();
    for (pair, q) in words.windows(2).zip(quiet.windows(2)) {
        if q[0] && q[1] {
            continue;
        }
        joined.clear();
        joined.push_str(&pair[0]);
        joined.push_str(&pair[1]);
        if !silent(&joined) {
            terms.push(Word::from(joined.as_str()));
        }
    }
    if (3..=4).contains(&words.len()) {
        let all = words.concat();
        if !silent(&all) {
            terms.push(Word::from(all.as_str()));
        }
    }
    // Sorted as strings, by a key made once per term: its first eight bytes as one integer
    // (a folded word has no zero byte, so zero-padding keeps the order), the whole terms
    // compared only where those agree. Comparing the words themselves was most of the cost.
    let mut keyed: Vec<(u64, Word)> = terms
        .into_iter()
        .map(|w| {
            let mut head = [0u8; 8];
            let n = w.len().min(8);
            head[..n].copy_from_slice(&w.as_bytes()[..n]);
            (u64::from_be_bytes(head), w)
        })
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    keyed.dedup_by(|a, b| a.1 == b.1);
    keyed.into_iter().map(|(_, w)| w).collect()
}

/// Whether a folded word is one of the stopwords (too common to help ranking).
pub fn is_stopword(word: &str) -> bool {
    // Most words of a report start with a letter no stopword starts with, and are refused on
    // it; the others are compared by length and first byte before their bytes (comparing bytes
    // is a call, in wasm a loop of its own).
    let bytes = word.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    if first >= 128 || STOPWORD_FIRST_BYTES & (1 << (first & 127)) == 0 {
        return false;
    }
    STOPWORDS.iter().any(|s| {
        let s = s.as_bytes();
        s.len() == bytes.len() && s[0] == first && s == bytes
    })
}

/// The first bytes of the stopwords, as bits of an ASCII byte's value.
const STOPWORD_FIRST_BYTES: u128 = {
    let mut bits = 0u128;
    let mut i = 0;
    while i < STOPWORDS.len() {
        bits |= 1 << (STOPWORDS[i].as_bytes()[0] & 127);
        i += 1;
    }
    bits
};

/// The terms of free text (definitions, management): words without stopwords.
pub fn text_terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = words(text)
        .into_iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| w.to_string())
        .collect();
    terms.sort();
    terms.dedup();
    terms
}

/// How often a folded phrase (words joined by single spaces) occurs in `words` as whole words,
/// given `at`, the places each word stands: one lookup of its first word, then the rest
/// compared in place. The matching of every word index.
pub fn phrase_count<'a>(
    words: &[Word],
    at: impl Fn(&str) -> Option<&'a [usize]>,
    phrase: &str,
) -> usize {
    let mut parts = phrase.split(' ');
    let Some(starts) = parts.next().and_then(at) else {
        return 0;
    };
    starts
        .iter()
        .filter(|&&start| {
            parts
                .clone()
                .enumerate()
                .all(|(k, p)| words.get(start + 1 + k).is_some_and(|w| w == p))
        })
        .count()
}

/// Where each distinct word of a text stands (`K`: the word as the table keeps it, borrowed or
/// owned). The places of one word are one run of a single list, so indexing a report's few
/// thousand words allocates a handful of lists, not one per distinct word.
pub struct Places<K> {
    ids: std::collections::HashMap<K, u32, FastHash>,
    /// Per distinct word: its run of `places`, (start, length).
    runs: Vec<(u32, u32)>,
    places: Vec<usize>,
}

impl<K: std::hash::Hash + Eq + std::borrow::Borrow<str>> Places<K> {
    /// The places of `words`, each distinct word kept as `key` makes it.
    pub fn new<'w>(words: &'w [Word], key: impl Fn(&'w Word) -> K) -> Places<K> {
        let mut ids: std::collections::HashMap<K, u32, FastHash> =
            std::collections::HashMap::with_capacity_and_hasher(words.len(), FastHash::default());
        let mut runs: Vec<(u32, u32)> = Vec::new();
        let mut of: Vec<u32> = Vec::with_capacity(words.len());
        for w in words {
            let id = match ids.get(w.as_str()) {
                Some(&id) => id,
                None => {
                    let id = runs.len() as u32;
                    ids.insert(key(w), id);
                    runs.push((0, 0));
                    id
                }
            };
            runs[id as usize].1 += 1;
            of.push(id);
        }
        // Each run starts where the one before ends; its length then counts it as it fills.
        let mut start = 0;
        for run in &mut runs {
            (run.0, start) = (start, start + run.1);
            run.1 = 0;
        }
        let mut places = vec![0; words.len()];
        for (i, &id) in of.iter().enumerate() {
            let run = &mut runs[id as usize];
            places[(run.0 + run.1) as usize] = i;
            run.1 += 1;
        }
        Places { ids, runs, places }
    }

    /// Where `word` stands, in order.
    pub fn of(&self, word: &str) -> Option<&[usize]> {
        self.ids.get(word).map(|&id| {
            let (start, len) = self.runs[id as usize];
            &self.places[start as usize..(start + len) as usize]
        })
    }
}

/// Where each word of a text occurs, so that finding a phrase looks only at the places its
/// first word is, instead of walking the whole text once per phrase.
pub struct WordIndex<'w> {
    words: &'w [Word],
    at: Places<&'w str>,
}

/// The hasher of the word and phrase tables built while reading text: words are short and
/// hashed many times, and its keys are fixed, so wasm needs no random source.
pub type FastHash = foldhash::fast::FixedState;

impl<'w> WordIndex<'w> {
    /// Indexes folded words (from [`words`]).
    pub fn new(words: &'w [Word]) -> WordIndex<'w> {
        WordIndex {
            words,
            at: Places::new(words, Word::as_str),
        }
    }

    /// The words indexed.
    pub fn words(&self) -> &'w [Word] {
        self.words
    }

    /// How often a folded phrase (words joined by single spaces) occurs, as whole words.
    pub fn count(&self, phrase: &str) -> usize {
        phrase_count(self.words, |w| self.at.of(w), phrase)
    }

    /// Whether a folded phrase occurs, as whole words.
    pub fn has(&self, phrase: &str) -> bool {
        self.count(phrase) > 0
    }

    /// Where the phrase (folded words) starts, in order.
    pub fn starts<'a>(&'a self, phrase: &'a [Word]) -> impl Iterator<Item = usize> + 'a {
        let first = phrase.first().and_then(|w| self.at.of(w.as_str()));
        first.into_iter().flatten().copied().filter(move |&p| {
            self.words
                .get(p..p + phrase.len())
                .is_some_and(|w| w == phrase)
        })
    }
}

/// A table keyed by words (the first words of phrases, names, nouns) that turns most words it
/// does not hold away without hashing them. A report is read for several such tables at every
/// word, and nearly every word is in none of them: a bit per (length, first, middle and last
/// byte) class of the keys, 4,096 of them, answers "not here" in a few integer operations,
/// where hashing the word and probing the table cost several times as much (README,
/// Performance). A word the bits let through is looked up as in any table.
pub struct WordTable<K, V> {
    map: std::collections::HashMap<K, V, FastHash>,
    bits: Box<[u64; WORD_CLASS_BLOCKS]>,
}

/// The blocks of 64 bits of a [`WordTable`]'s classes.
const WORD_CLASS_BLOCKS: usize = 64;

impl<K, V> WordTable<K, V> {
    /// The class of a word: its bit.
    #[inline]
    fn bit(word: &[u8]) -> (usize, u64) {
        let n = word.len();
        let (first, middle, last) = match word {
            [] => (0, 0, 0),
            _ => (word[0], word[n / 2], word[n - 1]),
        };
        let mixed = (n as u32).wrapping_mul(0x9e37_79b1)
            ^ u32::from(first).wrapping_mul(0x85eb_ca77)
            ^ u32::from(middle).wrapping_mul(0xc2b2_ae3d)
            ^ u32::from(last).wrapping_mul(0x27d4_eb2f);
        let slot = (mixed >> 20) as usize;
        (slot / 64, 1 << (slot % 64))
    }
}

impl<K: std::borrow::Borrow<str> + std::hash::Hash + Eq, V> WordTable<K, V> {
    /// The value of `word`, if the table holds it.
    #[inline]
    pub fn get(&self, word: &str) -> Option<&V> {
        let (block, bit) = Self::bit(word.as_bytes());
        if self.bits[block] & bit == 0 {
            return None;
        }
        self.map.get(word)
    }
}

impl<K: std::borrow::Borrow<str> + std::hash::Hash + Eq, V>
    From<std::collections::HashMap<K, V, FastHash>> for WordTable<K, V>
{
    fn from(map: std::collections::HashMap<K, V, FastHash>) -> WordTable<K, V> {
        let mut bits = Box::new([0u64; WORD_CLASS_BLOCKS]);
        for key in map.keys() {
            let (block, bit) = Self::bit(key.borrow().as_bytes());
            bits[block] |= bit;
        }
        WordTable { map, bits }
    }
}

impl<K: std::borrow::Borrow<str> + std::hash::Hash + Eq, V> FromIterator<(K, V)>
    for WordTable<K, V>
{
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> WordTable<K, V> {
        pairs
            .into_iter()
            .collect::<std::collections::HashMap<K, V, FastHash>>()
            .into()
    }
}

impl<K: std::borrow::Borrow<str> + std::hash::Hash + Eq, V> Default for WordTable<K, V> {
    fn default() -> WordTable<K, V> {
        std::collections::HashMap::default().into()
    }
}

impl<K: std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for WordTable<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.map.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_table_answers_its_keys_and_nothing_else() {
        // Many keys, so that the classes' bits are crowded and words the bits let through
        // must still be told apart by the table itself.
        let keys: Vec<String> = (0..600).map(|i| format!("w{i}x")).collect();
        let table: WordTable<&str, usize> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_str(), i))
            .collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(table.get(k), Some(&i), "{k}");
        }
        for other in ["", "w", "x", "w0", "w600x", "w1xx", "kidney", "w12y"] {
            assert_eq!(table.get(other), None, "{other}");
        }
    }

    #[test]
    fn a_text_is_blanked_as_its_characters_are() {
        for text in [
            "No nodules.\nLiver: 2 cm cyst. Kidneys: normal.",
            "Pas de nodule.\nFoie : kyste de 2 cm, stable. Reins : normaux (ø).",
            "",
        ] {
            let chars: Vec<char> = text.chars().collect();
            assert_eq!(char_vec(text), chars);
            for ranges in [vec![], vec![[0, 3]], vec![[3, 20], [0, 2]], vec![[10, 500]]] {
                let mut expected = chars.clone();
                blank(&mut expected, &ranges);
                let expected: String = expected.into_iter().collect();
                assert_eq!(blanked(text, &ranges), expected, "{text:?} {ranges:?}");
            }
        }
    }

    #[test]
    fn places_list_each_word_where_it_stands_in_order() {
        let text = words("the cyst and the nodule, the cyst again");
        let places = Places::new(&text, Word::as_str);
        assert_eq!(places.of("the"), Some(&[0, 3, 5][..]));
        assert_eq!(places.of("cyst"), Some(&[1, 6][..]));
        assert_eq!(places.of("again"), Some(&[7][..]));
        assert_eq!(places.of("mass"), None);
        let owned = Places::new(&text, Word::clone);
        for w in &text {
            assert_eq!(owned.of(w), places.of(w));
        }
        assert_eq!(Places::new(&[], Word::as_str).of("the"), None);
        let index = WordIndex::new(&text);
        assert_eq!(index.count("the cyst"), 2);
        assert_eq!(index.starts(&words("the cyst")).collect::<Vec<_>>(), [0, 5]);
    }

    #[test]
    fn ascii_text_is_cut_as_any_text_is() {
        let samples = [
            "Right lobe: 1.8 cm solid nodule (TR4). LR-5, 2.3x1.1 cm; Bosniak IIF.",
            "  trailing 3.  and 4.5.6 mm, -15 HU, v1.2a end.",
            "a.b 1.a .5 5. x",
            "1..2 3.4.5 7.x9 ab1.2cd 0.5. 9.",
            "",
        ];
        for text in samples {
            let (mut ascii, mut chars) = (Vec::new(), Vec::new());
            cut_folded(text.bytes().map(char::from), fold_ascii, |w, a, b| {
                ascii.push((w.to_string(), a, b))
            });
            cut_folded(text.chars(), fold, |w, a, b| {
                chars.push((w.to_string(), a, b))
            });
            assert_eq!(ascii, chars, "{text}");
        }
    }

    #[test]
    fn spellings_of_tirads_meet() {
        for spelling in ["TI-RADS", "TIRADS", "ti rads", "Ti–Rads"] {
            assert!(
                identity_terms(spelling).contains(&"tirads".to_string()),
                "{spelling}"
            );
        }
    }

    #[test]
    fn diacritics_and_case_fold() {
        assert_eq!(words("González Müller"), vec!["gonzalez", "muller"]);
    }

    #[test]
    fn decimals_stay_whole_and_punctuation_splits() {
        assert_eq!(
            words("PI-RADS v2.1, 1.5 cm."),
            vec!["pi", "rads", "v2.1", "1.5", "cm"]
        );
    }

    #[test]
    fn short_phrases_join_whole() {
        let terms = identity_terms("Lung-RADS 4B");
        assert!(terms.contains(&"lungrads".to_string()));
        assert!(terms.contains(&"rads4b".to_string()));
        assert!(terms.contains(&"lungrads4b".to_string()));
    }

    /// A text's words joined are its words, cut as [`words`] cuts them, with single spaces.
    #[test]
    fn joined_words_are_the_words_with_single_spaces() {
        for text in [
            "",
            "  CLINICAL   HISTORY ",
            "Findings",
            "1.5 cm, 2. nodule -- x3.",
            "Échographie: thyroïde (lobe droit)",
            "LI-RADS 5 / LR-TIV",
        ] {
            assert_eq!(joined(text), words(text).join(" "), "{text:?}");
        }
        assert_eq!(joined("  CLINICAL   HISTORY "), "clinical history");
    }

    #[test]
    fn a_word_index_finds_phrases() {
        let w = words("Part-solid nodule, solid component; part of it");
        let index = WordIndex::new(&w);
        let phrase = words("part solid");
        assert_eq!(index.starts(&phrase).collect::<Vec<_>>(), vec![0]);
        let solid = words("solid");
        assert_eq!(index.starts(&solid).collect::<Vec<_>>(), vec![1, 3]);
        let tail = words("it again");
        assert_eq!(index.starts(&tail).count(), 0);
    }

    #[test]
    fn a_word_reads_compares_and_orders_as_its_text_held_in_place_or_not() {
        use std::collections::{BTreeSet, HashMap};
        let long = "pneumoperitoneumpneumoperitoneum";
        let texts = [
            "",
            "a",
            "1.5",
            "abcdefghijklmnopqrstuv",
            "abcdefghijklmnopqrstuvw",
            long,
        ];
        assert_eq!(texts[3].len(), Word::INLINE);
        for text in texts {
            let word = Word::from(text);
            assert_eq!(word.as_str(), text);
            assert_eq!(word.len(), text.len());
            assert!(word == text);
            assert_eq!(word.to_string(), text);
            assert_eq!(format!("{word:?}"), format!("{text:?}"));
        }
        // Ordering and equality follow the text across the two ways a word is held.
        let held: BTreeSet<Word> = texts.iter().map(|&t| Word::from(t)).collect();
        let plain: BTreeSet<&str> = texts.into_iter().collect();
        assert!(held.iter().map(Word::as_str).eq(plain.iter().copied()));
        // A table of words answers a `&str`.
        let at: HashMap<Word, usize> = texts.iter().map(|&t| (Word::from(t), t.len())).collect();
        assert_eq!(at.get(long), Some(&long.len()));
        assert_eq!(
            [Word::from("lung"), Word::from("rads")].join(" "),
            "lung rads"
        );
        assert_eq!(words(&format!("A {long}."))[1].as_str(), long);
        assert_eq!(std::mem::size_of::<Word>(), std::mem::size_of::<String>());
    }

    #[test]
    fn stopwords_leave_free_text() {
        assert_eq!(text_terms("the size of the nodule"), vec!["nodule", "size"]);
    }

    #[test]
    fn stopwords_are_exactly_the_list() {
        // Every stopword, each with a byte more, a byte less and its last byte changed, and
        // words no stopword starts like: the quick refusals agree with the list.
        let mut words: Vec<String> = vec!["".into(), "é".into(), "2".into(), "nodule".into()];
        for s in STOPWORDS {
            words.push(s.to_string());
            words.push(format!("{s}s"));
            words.push(s[..s.len() - 1].to_string());
            words.push(format!("{}z", &s[..s.len() - 1]));
        }
        for w in &words {
            assert_eq!(is_stopword(w), STOPWORDS.contains(&w.as_str()), "{w:?}");
        }
        assert!(is_stopword("without") && is_stopword("a") && !is_stopword("am"));
    }
}
