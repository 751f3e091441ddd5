//! Template HTML: an allowlist sanitizer, and the plain-text rendering stored as `content_text`.
//!
//! Report templates are shown in browsers, so what is stored must be safe to render: only
//! formatting elements survive, with no attributes but table spans; script, style and similar
//! elements are dropped with their content; everything else is escaped text. The sanitizer
//! re-emits what it keeps, so its output is well formed whatever the input was.

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
];
/// Elements dropped together with everything inside them.
const DROPPED_WITH_CONTENT: &[&str] = &[
    "script", "style", "iframe", "object", "embed", "noscript", "template", "svg", "math", "head",
    "title", "textarea", "select", "xmp", "noembed", "noframes",
];
/// Elements without content.
const VOID: &[&str] = &["br", "hr"];
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
];

/// A piece of HTML input.
#[derive(Debug, PartialEq)]
enum Token {
    Text(String),
    Open {
        name: String,
        attrs: Vec<(String, String)>,
    },
    Close(String),
}

/// Splits HTML into text and tags. Comments, doctypes and processing instructions vanish;
/// a `<` that does not start a tag is text.
fn tokenize(input: &str) -> Vec<Token> {
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
        tokens.push(if closing {
            Token::Close(name)
        } else {
            Token::Open {
                name,
                attrs: attributes(attr_text),
            }
        });
        i += name_start + name_len + end + 1;
    }
    if !text.is_empty() {
        tokens.push(Token::Text(text));
    }
    tokens
}

/// The tokens a reader would see: elements of [`DROPPED_WITH_CONTENT`] vanish with everything
/// inside them.
fn visible(input: &str) -> impl Iterator<Item = Token> {
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

/// Escapes text for HTML.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
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

/// Decodes the named and numeric character references templates use.
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        let end = rest[1..].find(';').map(|p| p + 1).filter(|p| *p <= 12);
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

/// The safe HTML to store for a template's `content`.
pub fn sanitize(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut open: Vec<String> = Vec::new();
    for token in visible(input) {
        match token {
            Token::Text(t) => out.push_str(&escape(&decode_entities(&t))),
            Token::Open { name, attrs } => {
                if ALLOWED.contains(&name.as_str()) {
                    out.push('<');
                    out.push_str(&name);
                    if name == "td" || name == "th" {
                        for (attr, value) in &attrs {
                            let span_ok = (attr == "colspan" || attr == "rowspan")
                                && !value.is_empty()
                                && value.len() <= 3
                                && value.bytes().all(|b| b.is_ascii_digit());
                            if span_ok {
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
                        let n = open.pop().unwrap_or_default();
                        out.push_str(&format!("</{n}>"));
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

/// The plain text of template HTML: tags dropped, block elements as line breaks, entities
/// decoded, runs of spaces collapsed and empty lines removed.
pub fn to_text(html: &str) -> String {
    let mut raw = String::new();
    for token in visible(html) {
        match token {
            Token::Text(t) => raw.push_str(&decode_entities(&t)),
            Token::Open { name, .. } | Token::Close(name) => {
                if BLOCK.contains(&name.as_str()) {
                    raw.push('\n');
                } else if name == "td" || name == "th" {
                    raw.push(' ');
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
}
