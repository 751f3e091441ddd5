//! Template HTML: an allowlist sanitizer, and the plain-text rendering stored as `content_text`.
//!
//! Report templates are shown in browsers, so what is stored must be safe to render: only
//! formatting elements and the structure and fields of an IHE MRRT template body (sections,
//! headers, labels, inputs, selections, text areas) survive, each with the few attributes of
//! [`ATTRIBUTES`] and values of the form it names; script, style and similar elements are
//! dropped with their content; everything else is escaped text. No attribute that can hold a
//! URL, a style or an event handler is ever kept. The sanitizer re-emits what it keeps, so its
//! output is well formed whatever the input was, and [`to_xhtml`] writes the same tree as XML.

/// Elements kept (without attributes, except `colspan`/`rowspan` on cells).
const ALLOWED: &[&str] = &[
    "p",
    "br",
    "b",
    "strong",
    "i",
    "em",
    "u",
    "s",
    "sub",
    "sup",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "th",
    "td",
    "div",
    "span",
    "blockquote",
    "hr",
    "pre",
    "code",
    "section",
    "header",
    "label",
    "input",
    "select",
    "option",
    "textarea",
];
/// Elements dropped together with everything inside them.
const DROPPED_WITH_CONTENT: &[&str] = &[
    "script", "style", "iframe", "object", "embed", "noscript", "template", "svg", "math", "head",
    "title", "xmp", "noembed", "noframes",
];
/// Elements whose content is text up to their own end tag, as browsers read them: nothing
/// inside them is a tag.
const RAW_TEXT: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript",
];
/// Elements without content.
const VOID: &[&str] = &["br", "hr", "input"];

/// What an attribute's value may be; a value of another form drops the attribute.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// A table span: one to three digits.
    Span,
    /// An element id (or a label's `for`): 1 to 64 of `A-Z a-z 0-9 _ . : -`.
    Id,
    /// Class names: up to 100 of `A-Z a-z 0-9 _ -` and spaces.
    Class,
    /// A number bound or step: up to 24 of `0-9 . e E + -`, or empty.
    Number,
    /// Present or not; written as `name="name"`.
    Flag,
    /// An input's type: text, number, date, time or checkbox (written in lower case).
    InputType,
    /// Plain text of up to [`MAX_ATTRIBUTE_CHARS`] characters (character references decoded).
    Text,
}

/// The longest text attribute value kept, in characters.
pub const MAX_ATTRIBUTE_CHARS: usize = 500;

/// The MRRT field attributes an input, selection or text area keeps, and radref's binding of
/// a field to an evaluator input.
const FIELD_DATA: &[(&str, Form)] = &[
    ("data-field-type", Form::Text),
    ("data-field-units", Form::Text),
    ("data-field-merge-flag", Form::Text),
    ("data-field-verbal-trigger", Form::Text),
    ("data-field-completion-action", Form::Text),
    ("data-radref-system", Form::Text),
    ("data-radref-input", Form::Text),
];

/// The attributes each element keeps, in the order they are written. Elements not listed
/// keep none.
const ATTRIBUTES: &[(&str, &[(&str, Form)])] = &[
    ("td", &[("colspan", Form::Span), ("rowspan", Form::Span)]),
    ("th", &[("colspan", Form::Span), ("rowspan", Form::Span)]),
    (
        "section",
        &[
            ("id", Form::Id),
            ("class", Form::Class),
            ("data-section-name", Form::Text),
        ],
    ),
    ("header", &[("class", Form::Class)]),
    ("label", &[("for", Form::Id)]),
    (
        "input",
        &[
            ("id", Form::Id),
            ("type", Form::InputType),
            ("name", Form::Text),
            ("value", Form::Text),
            ("min", Form::Number),
            ("max", Form::Number),
            ("step", Form::Number),
            ("placeholder", Form::Text),
            ("checked", Form::Flag),
        ],
    ),
    (
        "select",
        &[
            ("id", Form::Id),
            ("name", Form::Text),
            ("multiple", Form::Flag),
        ],
    ),
    (
        "option",
        &[
            ("id", Form::Id),
            ("value", Form::Text),
            ("selected", Form::Flag),
        ],
    ),
    (
        "textarea",
        &[
            ("id", Form::Id),
            ("name", Form::Text),
            ("rows", Form::Span),
            ("cols", Form::Span),
            ("placeholder", Form::Text),
        ],
    ),
];

/// The input types kept.
const INPUT_TYPES: &[&str] = &["text", "number", "date", "time", "checkbox"];

/// Whether an element takes the MRRT field attributes ([`FIELD_DATA`]).
fn is_field(element: &str) -> bool {
    matches!(element, "input" | "select" | "textarea")
}

/// The value to write for an attribute of this form, or `None` to drop the attribute.
fn kept_value(form: Form, name: &str, raw: &str) -> Option<String> {
    let all = |max: usize, ok: fn(char) -> bool| raw.chars().count() <= max && raw.chars().all(ok);
    match form {
        Form::Span => ((1..=3).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_digit()))
            .then(|| raw.to_string()),
        Form::Id => (!raw.is_empty()
            && all(64, |c| {
                c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')
            }))
        .then(|| raw.to_string()),
        Form::Class => all(100, |c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ')
        })
        .then(|| raw.to_string()),
        Form::Number => all(24, |c| {
            c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')
        })
        .then(|| raw.to_string()),
        Form::Flag => Some(name.to_string()),
        Form::InputType => {
            let t = raw.to_ascii_lowercase();
            INPUT_TYPES.contains(&t.as_str()).then_some(t)
        }
        Form::Text => {
            let text = decode_entities(raw);
            (text.chars().count() <= MAX_ATTRIBUTE_CHARS).then_some(text)
        }
    }
}

/// The attributes `element` keeps from `attrs`, in [`ATTRIBUTES`] order, values checked and
/// decoded (not yet escaped). The first of a repeated attribute counts, as in browsers.
pub fn kept_attributes(element: &str, attrs: &[(String, String)]) -> Vec<(&'static str, String)> {
    let own = ATTRIBUTES
        .iter()
        .find(|(e, _)| *e == element)
        .map_or(&[][..], |(_, list)| *list);
    let data = if is_field(element) { FIELD_DATA } else { &[] };
    own.iter()
        .chain(data)
        .filter_map(|(name, form)| {
            let (_, raw) = attrs.iter().find(|(a, _)| a == name)?;
            Some((*name, kept_value(*form, name, raw)?))
        })
        .collect()
}
/// Elements that end a line in the plain-text rendering.
const BLOCK: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "table",
    "blockquote",
    "hr",
    "pre",
    "section",
    "header",
];

/// A piece of HTML input.
#[derive(Debug, PartialEq)]
pub enum Token {
    Text(String),
    Open {
        name: String,
        attrs: Vec<(String, String)>,
    },
    Close(String),
}

/// Splits HTML into text and tags. Comments, doctypes and processing instructions vanish;
/// a `<` that does not start a tag is text.
pub fn tokenize(input: &str) -> Vec<Token> {
    let bytes = input.as_bytes();
    let mut tokens = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < input.len() {
        if bytes[i] != b'<' {
            let next = input[i..].find('<').map_or(input.len(), |p| i + p);
            text.push_str(&input[i..next]);
            i = next;
            continue;
        }
        let rest = &input[i..];
        if rest.starts_with("<!--") {
            i += rest.find("-->").map_or(rest.len(), |p| p + 3);
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            i += rest.find('>').map_or(rest.len(), |p| p + 1);
            continue;
        }
        let closing = rest.starts_with("</");
        let name_start = if closing { 2 } else { 1 };
        let name_len = rest[name_start..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len() - name_start);
        if name_len == 0 || !rest.as_bytes()[name_start].is_ascii_alphabetic() {
            text.push('<');
            i += 1;
            continue;
        }
        let name = rest[name_start..name_start + name_len].to_ascii_lowercase();
        let Some(end) = tag_end(&rest[name_start + name_len..]) else {
            // An unterminated tag: the rest of the input is not shown.
            break;
        };
        let attr_text = &rest[name_start + name_len..name_start + name_len + end];
        if !text.is_empty() {
            tokens.push(Token::Text(std::mem::take(&mut text)));
        }
        i += name_start + name_len + end + 1;
        if closing {
            tokens.push(Token::Close(name));
            continue;
        }
        let raw = RAW_TEXT.contains(&name.as_str());
        tokens.push(Token::Open {
            attrs: attributes(attr_text),
            name: name.clone(),
        });
        if raw {
            // Everything up to the element's own end tag is its text.
            let (content, close) = raw_text(&input[i..], &name);
            if !content.is_empty() {
                tokens.push(Token::Text(content.to_string()));
            }
            i += content.len();
            match close {
                Some(len) => {
                    tokens.push(Token::Close(name));
                    i += len;
                }
                None => break,
            }
        }
    }
    if !text.is_empty() {
        tokens.push(Token::Text(text));
    }
    tokens
}

/// The text of a raw-text element `name` at the start of `s`, and the length of its end tag
/// when there is one (`</name` in any case, then whitespace, `/` or `>`, up to its `>`).
fn raw_text<'a>(s: &'a str, name: &str) -> (&'a str, Option<usize>) {
    let bytes = s.as_bytes();
    let mut from = 0;
    while let Some(p) = s[from..].find("</").map(|p| from + p) {
        work::add(1);
        let after = p + 2 + name.len();
        let matches = bytes.len() >= after
            && bytes[p + 2..after].eq_ignore_ascii_case(name.as_bytes())
            && bytes
                .get(after)
                .is_none_or(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'));
        if matches {
            let close = tag_end(&s[after..]).map(|e| after - p + e + 1);
            return (&s[..p], Some(close.unwrap_or(s.len() - p)));
        }
        from = p + 2;
    }
    (s, None)
}

/// The tokens a reader would see: elements of [`DROPPED_WITH_CONTENT`] vanish with everything
/// inside them.
pub fn visible(input: &str) -> impl Iterator<Item = Token> {
    let mut skipping: Option<String> = None;
    tokenize(input).into_iter().filter(move |token| {
        if let Some(until) = &skipping {
            if matches!(token, Token::Close(name) if name == until) {
                skipping = None;
            }
            return false;
        }
        if let Token::Open { name, .. } = token {
            if DROPPED_WITH_CONTENT.contains(&name.as_str()) {
                skipping = Some(name.clone());
                return false;
            }
        }
        true
    })
}

/// The offset of the `>` that ends a tag, skipping quoted attribute values.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"') | (None, '\'') => quote = Some(c),
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// Parses `name="value" name2=value2 flag` into pairs (names lower-cased).
fn attributes(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        while i < chars.len() && (chars[i].is_whitespace() || chars[i] == '/') {
            i += 1;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '=' && chars[i] != '/' {
            i += 1;
        }
        if start == i {
            i += 1;
            continue;
        }
        let name: String = chars[start..i]
            .iter()
            .collect::<String>()
            .to_ascii_lowercase();
        let mut value = String::new();
        if i < chars.len() && chars[i] == '=' {
            i += 1;
            if i < chars.len() && (chars[i] == '"' || chars[i] == '\'') {
                let q = chars[i];
                i += 1;
                while i < chars.len() && chars[i] != q {
                    value.push(chars[i]);
                    i += 1;
                }
                i += 1;
            } else {
                while i < chars.len() && !chars[i].is_whitespace() {
                    value.push(chars[i]);
                    i += 1;
                }
            }
        }
        out.push((name, value));
    }
    out
}

/// Escapes text for HTML (and XML). Control characters other than tab, line feed and carriage
/// return, which XML cannot hold and browsers do not show, are dropped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() && (c as u32) < 0x20 => {}
            '\u{fffe}' | '\u{ffff}' => {}
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The furthest the `;` of a character reference may sit from its `&`, in bytes. The longest
/// reference templates use (`&#x10FFFF;`) fits well inside; the browser twin
/// (`public/js/sanitize.js`) has the same bound.
const MAX_ENTITY_END: usize = 12;

/// Decodes the named and numeric character references templates use.
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        // Only the bytes that may hold the `;` are looked at. Searching the whole rest for it
        // and then rejecting a far `;` made text of many `&` quadratic.
        let window = &rest.as_bytes()[1..rest.len().min(MAX_ENTITY_END + 1)];
        work::add(window.len());
        let end = window.iter().position(|&b| b == b';').map(|p| p + 1);
        let decoded = end.and_then(|end| {
            let entity = &rest[1..end];
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ => {
                    let num = entity.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code)
                }
            }?;
            Some((c, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The elements left open in the output, innermost last, as indices into [`ALLOWED`].
///
/// How many of each name are open is kept beside the stack, so a close tag that matches no open
/// element is dismissed at once. Walking the stack for it instead made input such as
/// `<b></i><b></i>…` quadratic. A close tag that does match pops every element it walks past,
/// so each element is walked over at most once in all.
struct OpenElements {
    stack: Vec<usize>,
    counts: [usize; ALLOWED.len()],
}

impl OpenElements {
    fn new() -> OpenElements {
        OpenElements {
            stack: Vec::new(),
            counts: [0; ALLOWED.len()],
        }
    }

    fn push(&mut self, element: usize) {
        self.counts[element] += 1;
        self.stack.push(element);
    }

    /// Closes the innermost open `name` and everything opened inside it, writing their close
    /// tags; does nothing when no `name` is open.
    fn close(&mut self, name: &str, out: &mut String) {
        let Some(element) = ALLOWED.iter().position(|a| *a == name) else {
            return;
        };
        if self.counts[element] == 0 {
            return;
        }
        while let Some(top) = self.stack.pop() {
            work::add(1);
            self.counts[top] -= 1;
            close_tag(ALLOWED[top], out);
            if top == element {
                break;
            }
        }
    }

    /// Closes everything still open, innermost first.
    fn close_all(&mut self, out: &mut String) {
        while let Some(top) = self.stack.pop() {
            self.counts[top] -= 1;
            close_tag(ALLOWED[top], out);
        }
    }
}

fn close_tag(name: &str, out: &mut String) {
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

/// How kept elements are written.
#[derive(Clone, Copy, PartialEq)]
enum Syntax {
    /// HTML: void elements as `<br>`.
    Html,
    /// XHTML, for an MRRT document that XML tools read: void elements as `<br/>`.
    Xhtml,
}

fn write(input: &str, syntax: Syntax) -> String {
    let mut out = String::with_capacity(input.len());
    let mut open = OpenElements::new();
    for token in visible(input) {
        match token {
            Token::Text(t) => out.push_str(&escape(&decode_entities(&t))),
            Token::Open { name, attrs } => {
                if let Some(element) = ALLOWED.iter().position(|a| *a == name) {
                    out.push('<');
                    out.push_str(&name);
                    for (attr, value) in kept_attributes(&name, &attrs) {
                        out.push(' ');
                        out.push_str(attr);
                        out.push_str("=\"");
                        out.push_str(&escape(&value));
                        out.push('"');
                    }
                    if VOID.contains(&name.as_str()) {
                        out.push_str(if syntax == Syntax::Xhtml { "/>" } else { ">" });
                    } else {
                        out.push('>');
                        open.push(element);
                    }
                }
            }
            Token::Close(name) => open.close(&name, &mut out),
        }
    }
    open.close_all(&mut out);
    out
}

/// The safe HTML to store for a template's `content`.
pub fn sanitize(input: &str) -> String {
    write(input, Syntax::Html)
}

/// Sanitised HTML written as XHTML (void elements closed), for an MRRT export. Sanitising is
/// idempotent, so stored content comes out as the same tree.
pub fn to_xhtml(input: &str) -> String {
    write(input, Syntax::Xhtml)
}

/// The value of attribute `name` of an element, if it has one.
pub fn attribute<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(a, _)| a == name)
        .map(|(_, v)| v.as_str())
}

/// The plain text of template HTML: tags dropped, block elements as line breaks, entities
/// decoded, runs of spaces collapsed and empty lines removed. A field shows what it holds: an
/// input its value (`___` when empty, `[x]` or `[ ]` for a checkbox), a selection its selected
/// options (`___` when none), a text area its text.
pub fn to_text(html: &str) -> String {
    let mut raw = String::new();
    // Inside a selection: the text of its selected options, and whether an option being read
    // is selected.
    let mut selection: Option<(Vec<String>, bool)> = None;
    for token in visible(html) {
        match token {
            Token::Text(t) => match &mut selection {
                Some((chosen, true)) => {
                    if let Some(last) = chosen.last_mut() {
                        last.push_str(&decode_entities(&t));
                    }
                }
                Some(_) => {}
                None => raw.push_str(&decode_entities(&t)),
            },
            Token::Open { name, attrs } => match name.as_str() {
                "select" => selection = Some((Vec::new(), false)),
                "option" => {
                    if let Some((chosen, reading)) = &mut selection {
                        *reading = attribute(&attrs, "selected").is_some();
                        if *reading {
                            chosen.push(String::new());
                        }
                    }
                }
                "input" => {
                    let value = attribute(&attrs, "value").map(decode_entities);
                    let shown = match attribute(&attrs, "type") {
                        Some(t) if t.eq_ignore_ascii_case("checkbox") => {
                            if attribute(&attrs, "checked").is_some() {
                                "[x]".to_string()
                            } else {
                                "[ ]".to_string()
                            }
                        }
                        _ => value
                            .filter(|v| !v.trim().is_empty())
                            .unwrap_or_else(|| "___".to_string()),
                    };
                    raw.push(' ');
                    raw.push_str(&shown);
                    raw.push(' ');
                }
                _ => block_break(&name, &mut raw),
            },
            Token::Close(name) => {
                if name == "select" {
                    if let Some((chosen, _)) = selection.take() {
                        let chosen: Vec<String> = chosen
                            .iter()
                            .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
                            .filter(|c| !c.is_empty())
                            .collect();
                        raw.push(' ');
                        raw.push_str(&if chosen.is_empty() {
                            "___".to_string()
                        } else {
                            chosen.join(", ")
                        });
                        raw.push(' ');
                    }
                } else if name == "option" {
                    if let Some((_, reading)) = &mut selection {
                        *reading = false;
                    }
                } else {
                    block_break(&name, &mut raw);
                }
            }
        }
    }
    raw.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A line break for a block element, a space for a table cell.
fn block_break(name: &str, raw: &mut String) {
    if BLOCK.contains(&name) {
        raw.push('\n');
    } else if name == "td" || name == "th" {
        raw.push(' ');
    }
}

/// A count of the sanitiser's inner steps (bytes looked ahead, open elements walked), kept in
/// tests only: they check that the work grows linearly with the input without timing anything.
/// In other builds `add` is empty and compiles away.
mod work {
    #[cfg(test)]
    thread_local! {
        static STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    #[cfg(test)]
    pub fn add(n: usize) {
        STEPS.with(|s| s.set(s.get() + n));
    }

    #[cfg(not(test))]
    #[inline(always)]
    pub fn add(_: usize) {}

    /// The steps taken by `f` on this thread.
    #[cfg(test)]
    pub fn of<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let before = STEPS.with(|s| s.get());
        let value = f();
        (value, STEPS.with(|s| s.get()) - before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_handlers_and_urls_are_removed() {
        let cases = [
            ("<p>Hi<script>alert(1)</script></p>", "<p>Hi</p>"),
            ("<img src=x onerror=alert(1)>text", "text"),
            ("<p onclick=\"alert(1)\">a</p>", "<p>a</p>"),
            ("<a href=\"javascript:alert(1)\">link</a>", "link"),
            ("<style>p{}</style><b>x</b>", "<b>x</b>"),
            ("<svg><script>alert(1)</script></svg>ok", "ok"),
            ("<iframe src=//evil></iframe>ok", "ok"),
            ("<scr<script>ipt>alert(1)</script>", "ipt&gt;alert(1)"),
            ("1 < 2 & 3 > 2", "1 &lt; 2 &amp; 3 &gt; 2"),
            ("<p>unclosed <b>bold", "<p>unclosed <b>bold</b></p>"),
            (
                "<td colspan=\"2\" style=\"x\">c</td>",
                "<td colspan=\"2\">c</td>",
            ),
            ("<td rowspan=\"2 onmouseover=x\">c</td>", "<td>c</td>"),
            ("<!-- <script>alert(1)</script> -->ok", "ok"),
        ];
        for (input, expected) in cases {
            assert_eq!(sanitize(input), expected, "{input}");
        }
    }

    #[test]
    fn template_fields_keep_their_checked_attributes_and_nothing_active() {
        let cases = [
            (
                "<section id=\"f\" class=\"level1\" data-section-name=\"Findings\" onclick=\"x()\" style=\"x\"><header class=\"level1\">Findings</header></section>",
                "<section id=\"f\" class=\"level1\" data-section-name=\"Findings\"><header class=\"level1\">Findings</header></section>",
            ),
            (
                "<label for=\"n\">Size</label><INPUT TYPE=NUMBER id=n name=\"size\" value=\"a &amp; b\" min=\"\" onfocus=\"x()\" data-field-units=\"mm\" data-evil=\"1\" checked/>",
                "<label for=\"n\">Size</label><input id=\"n\" type=\"number\" name=\"size\" value=\"a &amp; b\" min=\"\" checked=\"checked\" data-field-units=\"mm\">",
            ),
            // Types that submit, upload or load an image are not kept.
            ("<input type=\"image\" src=\"x\" formaction=\"javascript:x\">", "<input>"),
            ("<input id=\"bad id\" value=\"x\">", "<input value=\"x\">"),
            (
                "<select id=s multiple><option value=a selected>A</option><option>B</option></select>",
                "<select id=\"s\" multiple=\"multiple\"><option value=\"a\" selected=\"selected\">A</option><option>B</option></select>",
            ),
            // A text area's content is text, as browsers read it.
            (
                "<textarea id=t><p>not markup</p></TEXTAREA ><p>after</p>",
                "<textarea id=\"t\">&lt;p&gt;not markup&lt;/p&gt;</textarea><p>after</p>",
            ),
            ("<textarea></textareax></textarea>", "<textarea>&lt;/textareax&gt;</textarea>"),
            ("<title><b>x</title><p>y</p>", "<p>y</p>"),
            ("<style></style ><img src=x onerror=alert(1)>", ""),
            ("a\u{0}b\u{7}c\td", "abc\td"),
            (
                "<input value=\"&quot;><script>alert(1)</script>\">",
                "<input value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\">",
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(sanitize(input), expected, "{input}");
            assert_eq!(sanitize(expected), expected, "not idempotent: {expected}");
        }
        assert_eq!(
            to_xhtml("<p>a<br>b<input id=x></p><hr>"),
            "<p>a<br/>b<input id=\"x\"/></p><hr/>"
        );
    }

    #[test]
    fn fields_show_what_they_hold_in_the_text() {
        let html = "<section><header>Nodule</header><p><label for=s>Size</label> <input id=s type=number value=12> mm <input id=e type=number> <input type=checkbox checked> <input type=checkbox></p><p><select><option value=a>first</option><option selected>second</option><option selected>third</option></select> <select><option>x</option></select></p><textarea>Free text.</textarea></section>";
        assert_eq!(
            to_text(html),
            "Nodule\nSize 12 mm ___ [x] [ ]\nsecond, third ___\nFree text."
        );
    }

    #[test]
    fn sanitized_output_has_no_active_content() {
        let nasty = "<div><ScRiPt>x</sCrIpT><a HREF=JaVaScRiPt:x>y</a><p style=\"background:url(javascript:x)\">z</p></div>";
        let out = sanitize(nasty).to_ascii_lowercase();
        for bad in ["<script", "javascript:", "style=", "href", "onerror", "<a"] {
            assert!(!out.contains(bad), "{bad} in {out}");
        }
    }

    #[test]
    fn text_keeps_lines_and_decodes_entities() {
        let html = "<h2>FINDINGS</h2><p>Liver: normal&nbsp;size.</p><ul><li>No mass &amp; no duct dilatation</li><li>Spleen 10&#160;cm</li></ul><p>IMPRESSION<br>Normal.</p>";
        assert_eq!(
            to_text(html),
            "FINDINGS\nLiver: normal size.\nNo mass & no duct dilatation\nSpleen 10 cm\nIMPRESSION\nNormal."
        );
        assert_eq!(to_text("<p>a</p><script>x</script><p>b</p>"), "a\nb");
        assert_eq!(
            decode_entities("&lt;&#x41;&#66;&unknown;&"),
            "<AB&unknown;&"
        );
    }

    #[test]
    fn the_worst_cases_come_out_whole() {
        let ampersands = "&".repeat(100_000);
        assert_eq!(sanitize(&ampersands), "&amp;".repeat(100_000));
        let mismatched = "<b></i>".repeat(14_000);
        assert_eq!(
            sanitize(&mismatched),
            format!("{}{}", "<b>".repeat(14_000), "</b>".repeat(14_000))
        );
        // A `;` just inside and just beyond the look-ahead.
        assert_eq!(decode_entities("&#0000000065;"), "A");
        assert_eq!(decode_entities("&#00000000065;"), "&#00000000065;");
        assert_eq!(decode_entities("&&#65;&"), "&A&");
    }

    /// The sanitiser's work, counted in steps, is proportional to the input on the inputs that
    /// used to be quadratic: doubling the input at most doubles the work.
    #[test]
    fn work_grows_linearly_with_the_input() {
        for unit in [
            "&",
            "&#",
            "<b></i>",
            "<i><b></i>",
            "a&b;<p></i></b>&amp",
            "<textarea></textare",
            "<title></x>",
            "<textarea>a</textarea>",
        ] {
            let steps = |n: usize| work::of(|| sanitize(&unit.repeat(n))).1;
            let (small, large) = (steps(10_000), steps(20_000));
            assert!(
                large <= 2 * small + 256,
                "{unit:?}: {small} steps for 10,000, {large} for 20,000"
            );
            assert!(
                small <= 16 * 10_000 * unit.len(),
                "{unit:?}: {small} steps for 10,000"
            );
        }
    }

    #[test]
    fn a_close_tag_walks_only_what_it_closes() {
        let mut open = OpenElements::new();
        let b = ALLOWED.iter().position(|a| *a == "b").unwrap();
        let i = ALLOWED.iter().position(|a| *a == "i").unwrap();
        open.push(i);
        for _ in 0..1000 {
            open.push(b);
        }
        let mut out = String::new();
        // No `u` is open: nothing is walked, nothing closed.
        let ((), steps) = work::of(|| open.close("u", &mut out));
        assert_eq!((steps, out.as_str(), open.stack.len()), (0, "", 1001));
        // The innermost `b` is on top.
        let ((), steps) = work::of(|| open.close("b", &mut out));
        assert_eq!((steps, out.as_str(), open.stack.len()), (1, "</b>", 1000));
        // The `i` at the bottom closes everything opened inside it, each walked once.
        out.clear();
        let ((), steps) = work::of(|| open.close("i", &mut out));
        assert_eq!(steps, 1000);
        assert_eq!(out, format!("{}</i>", "</b>".repeat(999)));
        assert!(open.stack.is_empty() && open.counts.iter().all(|c| *c == 0));
    }

    /// The sanitiser as it was before its look-ahead and its close tags were bounded: the
    /// bounded one must give the same output for every input.
    fn direct_sanitize(input: &str) -> String {
        fn direct_decode(s: &str) -> String {
            let mut out = String::new();
            let mut rest = s;
            while let Some(pos) = rest.find('&') {
                out.push_str(&rest[..pos]);
                rest = &rest[pos..];
                let end = rest[1..].find(';').map(|p| p + 1).filter(|p| *p <= 12);
                let entity = end.map(|end| (end, &rest[1..end]));
                let decoded = entity.and_then(|(end, entity)| {
                    let c = match entity {
                        "amp" => Some('&'),
                        "lt" => Some('<'),
                        "gt" => Some('>'),
                        "quot" => Some('"'),
                        "apos" => Some('\''),
                        "nbsp" => Some(' '),
                        _ => {
                            let num = entity.strip_prefix('#')?;
                            let code = match num.strip_prefix(['x', 'X']) {
                                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                                None => num.parse().ok()?,
                            };
                            char::from_u32(code)
                        }
                    }?;
                    Some((c, end + 1))
                });
                match decoded {
                    Some((c, len)) => {
                        out.push(c);
                        rest = &rest[len..];
                    }
                    None => {
                        out.push('&');
                        rest = &rest[1..];
                    }
                }
            }
            out.push_str(rest);
            out
        }
        let mut out = String::new();
        let mut open: Vec<String> = Vec::new();
        for token in visible(input) {
            match token {
                Token::Text(t) => out.push_str(&escape(&direct_decode(&t))),
                Token::Open { name, attrs } => {
                    if ALLOWED.contains(&name.as_str()) {
                        out.push('<');
                        out.push_str(&name);
                        if name == "td" || name == "th" {
                            for (attr, value) in &attrs {
                                if (attr == "colspan" || attr == "rowspan")
                                    && (1..=3).contains(&value.len())
                                    && value.bytes().all(|b| b.is_ascii_digit())
                                {
                                    out.push_str(&format!(" {attr}=\"{value}\""));
                                }
                            }
                        }
                        out.push('>');
                        if !VOID.contains(&name.as_str()) {
                            open.push(name);
                        }
                    }
                }
                Token::Close(name) => {
                    if let Some(pos) = open.iter().rposition(|n| *n == name) {
                        while open.len() > pos {
                            out.push_str(&format!("</{}>", open.pop().unwrap()));
                        }
                    }
                }
            }
        }
        while let Some(n) = open.pop() {
            out.push_str(&format!("</{n}>"));
        }
        out
    }

    #[test]
    fn bounded_sanitizer_agrees_with_the_direct_one() {
        const PIECES: &[&str] = &[
            "<b>",
            "</b>",
            "<i>",
            "</i>",
            "<I>",
            "</B>",
            "<p>",
            "</p>",
            "<ul><li>",
            "</li>",
            "</ul>",
            "<br>",
            "</br>",
            "<hr/>",
            "<td colspan=2>",
            "<th rowspan='12' x>",
            "</td>",
            "<script>",
            "</script>",
            "<svg>",
            "</svg>",
            "<a href=x>",
            "</a>",
            "<!--",
            "-->",
            "<!x>",
            "<?",
            "<",
            ">",
            "\"",
            "'",
            "=",
            "&",
            "&amp;",
            "&#",
            "&#x",
            "&lt",
            ";",
            "#",
            "x",
            "41",
            "00",
            "1234567890",
            "&nbsp;",
            "&#128512;",
            "&#xD800;",
            "é",
            "a",
            " ",
            "\n",
        ];
        let mut seed: u64 = 0x5eed;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        for _ in 0..3_000 {
            let len = next(40);
            let input: String = (0..len).map(|_| PIECES[next(PIECES.len())]).collect();
            assert_eq!(sanitize(&input), direct_sanitize(&input), "{input:?}");
        }
    }
}
