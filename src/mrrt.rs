//! IHE MRRT report templates: reading an MRRT document into a template's parts, writing a
//! template as one, and the fields of a template body.
//!
//! An MRRT template (IHE Radiology Technical Framework Supplement, Management of Radiology
//! Report Templates) is an HTML5 document written as XHTML: a `<head>` with a `<title>`, one
//! `<meta charset>`, Dublin Core metadata (`<meta name="dcterms.title" ...>`) and one
//! `<script type="text/xml">` holding a `template_attributes` XML element (status, coding
//! schemes, template-level terms and the `coded_content` that binds codes to element ids); and
//! a `<body>` of `<section data-section-name>` elements with headers, text and fields
//! (`input`, `select`, `textarea`, with `data-field-*` attributes).
//!
//! The body is the template's `content` and goes through the same sanitiser as any content;
//! the XML block is read by a conforming XML parser and never kept as markup. A field may carry
//! `data-radref-system` and `data-radref-input`: the system and evaluator input it fills.

use crate::html::{self, attribute, decode_entities, Token};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The media type of an MRRT document.
pub const MEDIA_TYPE: &str = "text/html; charset=utf-8";
/// The `dcterms.type` of a report template.
pub const DOCUMENT_TYPE: &str = "IMAGE_REPORT_TEMPLATE";
/// The values of `template_attributes/status`.
pub const STATUSES: &[&str] = &["DRAFT", "ACTIVE", "RETIRED"];
/// Coding schemes and their HL7 OIDs, declared for a code whose scheme the template does not
/// declare itself.
pub const KNOWN_SCHEMES: &[(&str, &str)] = &[
    ("RADLEX", "2.16.840.1.113883.6.256"),
    ("SNOMEDCT", "2.16.840.1.113883.6.96"),
    ("LOINC", "2.16.840.1.113883.6.1"),
];
/// The prefix of radref's own `<meta>` names (`radref.modality`, `radref.tags`, ...), which
/// carry the template's labels through an export and back.
pub const META_PREFIX: &str = "radref.";
/// The longest metadata value, in characters.
pub const MAX_META_CHARS: usize = 2_000;
/// Most items of a metadata list (creators, contributors, terms, coding schemes).
pub const MAX_META_ITEMS: usize = 50;
/// Most coded_content entries, and most codes in one.
pub const MAX_CODED_ENTRIES: usize = 2_000;
pub const MAX_ENTRY_CODES: usize = 20;

/// A code: a value of a coding scheme, with its meaning.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Code {
    pub scheme: String,
    pub value: String,
    pub meaning: String,
}

/// A coding scheme a template's codes use, with its designator (an OID).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodingScheme {
    pub name: String,
    pub designator: String,
}

/// A template-level term: what the whole template is about (a modality, a body part).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Term {
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    pub code: Code,
}

/// A `coded_content` entry: the codes of one element of the body (its id, MRRT's `ORIGTXT`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodedEntry {
    pub id: String,
    pub codes: Vec<Code>,
}

/// A template's MRRT metadata: its Dublin Core elements and `template_attributes`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Metadata {
    pub identifier: Option<String>,
    pub description: Option<String>,
    pub publisher: Option<String>,
    pub creator: Vec<String>,
    pub contributor: Vec<String>,
    pub rights: Option<String>,
    pub license: Option<String>,
    /// `YYYY-MM-DD` (or a year, a month, or a date and time).
    pub date: Option<String>,
    /// A language tag (`en`, `de`).
    pub language: Option<String>,
    /// One of [`STATUSES`].
    pub status: Option<String>,
    pub top_level: Option<bool>,
    pub coding_schemes: Vec<CodingScheme>,
    pub terms: Vec<Term>,
}

impl Metadata {
    /// The metadata in the form it is stored: an identifier, a date and a language given when
    /// absent, and every coding scheme a code uses declared. Applying it twice changes nothing,
    /// so a template written back from its own export is stored the same.
    pub fn normalised(
        mut self,
        template_id: &str,
        created: &str,
        coded: &[CodedEntry],
    ) -> Result<Metadata, String> {
        self.identifier
            .get_or_insert_with(|| format!("urn:radref:template:{template_id}"));
        if self.date.is_none() && created.len() >= 10 {
            self.date = Some(created.chars().take(10).collect());
        }
        self.language.get_or_insert_with(|| "en".to_string());
        let used = self
            .terms
            .iter()
            .map(|t| &t.code)
            .chain(coded.iter().flat_map(|e| &e.codes));
        for code in used {
            if self
                .coding_schemes
                .iter()
                .any(|s| s.name.eq_ignore_ascii_case(&code.scheme))
            {
                continue;
            }
            let known = KNOWN_SCHEMES
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(&code.scheme))
                .ok_or_else(|| {
                    format!(
                        "code '{}' is of the coding scheme '{}', which has no designator: declare it in metadata.coding_schemes (radref knows {})",
                        code.value,
                        code.scheme,
                        KNOWN_SCHEMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                    )
                })?;
            self.coding_schemes.push(CodingScheme {
                name: code.scheme.clone(),
                designator: known.1.to_string(),
            });
        }
        self.check()?;
        Ok(self)
    }

    /// The single-valued Dublin Core elements, by their `dcterms.` name.
    fn single(&self) -> [(&'static str, &Option<String>); 7] {
        [
            ("identifier", &self.identifier),
            ("description", &self.description),
            ("publisher", &self.publisher),
            ("rights", &self.rights),
            ("license", &self.license),
            ("date", &self.date),
            ("language", &self.language),
        ]
    }

    /// Lengths, counts, the status and the date.
    fn check(&self) -> Result<(), String> {
        for (name, value) in self.single() {
            if let Some(v) = value {
                if v.trim().is_empty() || v.chars().count() > MAX_META_CHARS {
                    return Err(format!(
                        "metadata.{name} must be a non-empty string of at most {MAX_META_CHARS} characters"
                    ));
                }
            }
        }
        for (name, list) in [
            ("creator", &self.creator),
            ("contributor", &self.contributor),
        ] {
            if list.len() > MAX_META_ITEMS
                || list
                    .iter()
                    .any(|v| v.trim().is_empty() || v.chars().count() > MAX_META_CHARS)
            {
                return Err(format!(
                    "metadata.{name} must be at most {MAX_META_ITEMS} non-empty strings of at most {MAX_META_CHARS} characters"
                ));
            }
        }
        if self.terms.len() > MAX_META_ITEMS || self.coding_schemes.len() > MAX_META_ITEMS {
            return Err(format!(
                "metadata.terms and metadata.coding_schemes hold at most {MAX_META_ITEMS} items each"
            ));
        }
        for s in &self.coding_schemes {
            if s.name.trim().is_empty() || s.designator.trim().is_empty() {
                return Err("every coding scheme needs a name and a designator".into());
            }
        }
        for t in &self.terms {
            check_code(&t.code)?;
        }
        if let Some(status) = &self.status {
            if !STATUSES.contains(&status.as_str()) {
                return Err(format!(
                    "metadata.status must be one of {}",
                    STATUSES.join(", ")
                ));
            }
        }
        if let Some(date) = &self.date {
            if !is_date(date) {
                return Err(format!(
                    "metadata.date '{date}' is not a date (YYYY-MM-DD, or a date and time)"
                ));
            }
        }
        Ok(())
    }
}

fn check_code(code: &Code) -> Result<(), String> {
    for (name, v) in [
        ("scheme", &code.scheme),
        ("value", &code.value),
        ("meaning", &code.meaning),
    ] {
        if v.trim().is_empty() || v.chars().count() > MAX_META_CHARS {
            return Err(format!(
                "a code needs a non-empty {name} of at most {MAX_META_CHARS} characters"
            ));
        }
    }
    Ok(())
}

/// Checks coded_content entries: sizes, codes, and that each names an element id of the body.
pub fn check_coded(coded: &[CodedEntry], ids: &[String]) -> Result<(), String> {
    if coded.len() > MAX_CODED_ENTRIES {
        return Err(format!(
            "coded_content holds at most {MAX_CODED_ENTRIES} entries"
        ));
    }
    for (i, entry) in coded.iter().enumerate() {
        if coded[..i].iter().any(|e| e.id == entry.id) {
            return Err(format!(
                "coded_content has two entries for '{}'; put its codes in one",
                entry.id
            ));
        }
        if entry.codes.is_empty() || entry.codes.len() > MAX_ENTRY_CODES {
            return Err(format!(
                "the coded_content entry '{}' needs 1 to {MAX_ENTRY_CODES} codes",
                entry.id
            ));
        }
        if !ids.contains(&entry.id) {
            return Err(format!(
                "the coded_content entry '{}' names no element of the content (an id of a section, field or option)",
                entry.id
            ));
        }
        for code in &entry.codes {
            check_code(code)?;
        }
    }
    Ok(())
}

/// Whether `s` is an ISO 8601 date (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`), optionally followed by
/// `T` and a time.
fn is_date(s: &str) -> bool {
    let (date, time) = match s.split_once(['T', 't']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let parts: Vec<&str> = date.split('-').collect();
    let digits = |p: &str, n: usize| p.len() == n && p.bytes().all(|b| b.is_ascii_digit());
    let in_range =
        |p: &str, lo: u32, hi: u32| p.parse::<u32>().is_ok_and(|v| (lo..=hi).contains(&v));
    let date_ok = match parts.as_slice() {
        [y] => digits(y, 4),
        [y, m] => digits(y, 4) && digits(m, 2) && in_range(m, 1, 12),
        [y, m, d] => {
            digits(y, 4) && digits(m, 2) && digits(d, 2) && in_range(m, 1, 12) && in_range(d, 1, 31)
        }
        _ => false,
    };
    let time_ok = time.is_none_or(|t| {
        let t = t.trim_end_matches(['Z', 'z']);
        let t = t.split(['+', '-']).next().unwrap_or_default();
        let hms: Vec<&str> = t.split(':').collect();
        (2..=3).contains(&hms.len())
            && in_range(hms[0], 0, 23)
            && in_range(hms[1], 0, 59)
            && hms
                .get(2)
                .is_none_or(|s| s.split('.').next().is_some_and(|s| in_range(s, 0, 60)))
    });
    // A time needs a whole date.
    date_ok && time_ok && (time.is_none() || parts.len() == 3)
}

/// A template as an MRRT document holds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    /// `dcterms.title` (or the `<title>`).
    pub name: String,
    /// The body's HTML, as sent (sanitised when stored).
    pub content: String,
    pub metadata: Metadata,
    pub coded_content: Vec<CodedEntry>,
    /// radref's own `<meta name="radref.X">` values, `(X, value)` in document order.
    pub labels: Vec<(String, String)>,
}

/// Where a document's parts are while it is read.
#[derive(Clone, Copy, PartialEq)]
enum Reading {
    Elsewhere,
    Title,
    XmlScript,
    OtherScript,
}

impl Document {
    /// Reads an MRRT document. The error names what is missing or malformed.
    pub fn parse(source: &str) -> Result<Document, String> {
        let mut counts = [0usize; 3]; // html, head, body
        let (mut in_head, mut in_body) = (false, false);
        let mut reading = Reading::Elsewhere;
        let mut titles: Vec<String> = Vec::new();
        let mut charsets = 0;
        let mut metas: Vec<(String, String)> = Vec::new();
        let mut scripts: Vec<String> = Vec::new();
        let mut body = String::new();
        for token in html::tokenize(source) {
            match &token {
                Token::Open { name, attrs } => match name.as_str() {
                    "html" => counts[0] += 1,
                    "head" => {
                        counts[1] += 1;
                        in_head = true;
                    }
                    "body" => {
                        counts[2] += 1;
                        in_head = false;
                        in_body = true;
                    }
                    _ if in_body => write_token(&token, &mut body),
                    "title" => {
                        titles.push(String::new());
                        reading = Reading::Title;
                    }
                    "meta" => {
                        if attribute(attrs, "charset").is_some() {
                            charsets += 1;
                        }
                        if let (Some(n), Some(c)) =
                            (attribute(attrs, "name"), attribute(attrs, "content"))
                        {
                            metas.push((n.to_ascii_lowercase(), decode_entities(c)));
                        }
                    }
                    "script" => {
                        let xml = attribute(attrs, "type")
                            .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/xml"));
                        reading = if xml && in_head {
                            scripts.push(String::new());
                            Reading::XmlScript
                        } else {
                            Reading::OtherScript
                        };
                    }
                    _ => {}
                },
                Token::Close(name) => match name.as_str() {
                    "head" => in_head = false,
                    "body" | "html" => in_body = false,
                    _ if in_body => write_token(&token, &mut body),
                    "title" | "script" => reading = Reading::Elsewhere,
                    _ => {}
                },
                Token::Text(text) => {
                    if in_body {
                        body.push_str(text);
                    }
                    // Reading a title or an XML script means its element opened one.
                    let into = match reading {
                        Reading::Title => titles.last_mut(),
                        Reading::XmlScript => scripts.last_mut(),
                        Reading::OtherScript | Reading::Elsewhere => None,
                    };
                    if let Some(into) = into {
                        into.push_str(text);
                    }
                }
            }
        }
        for (i, element) in ["html", "head", "body"].iter().enumerate() {
            match counts[i] {
                0 => {
                    return Err(format!(
                        "not an MRRT template: the document has no <{element}> element"
                    ))
                }
                1 => {}
                _ => {
                    return Err(format!(
                        "an MRRT template has one <{element}> element; this one has {}",
                        counts[i]
                    ))
                }
            }
        }
        if titles.len() != 1 {
            return Err(format!(
                "an MRRT template has one <title> element in its <head>; this one has {}",
                titles.len()
            ));
        }
        if charsets != 1 {
            return Err(format!(
                "an MRRT template has one <meta charset> element; this one has {charsets}"
            ));
        }
        if !metas.iter().any(|(n, _)| n.starts_with("dcterms.")) {
            return Err("an MRRT template describes itself in Dublin Core: no <meta name=\"dcterms.…\"> element was found".into());
        }
        let xml = match scripts.as_slice() {
            [one] => one,
            [] => return Err("an MRRT template has a <script type=\"text/xml\"> in its <head> holding template_attributes; none was found".into()),
            more => return Err(format!("an MRRT template has one <script type=\"text/xml\"> in its <head>; this one has {}", more.len())),
        };
        let mut doc = Document::default();
        read_attributes(xml, &mut doc)?;
        let meta = |key: &str| {
            metas
                .iter()
                .find(|(n, _)| n == key)
                .map(|(_, v)| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let all = |key: &str| -> Vec<String> {
            metas
                .iter()
                .filter(|(n, _)| n == key)
                .map(|(_, v)| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect()
        };
        let title = decode_entities(&titles[0])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        doc.name = meta("dcterms.title")
            .or(Some(title).filter(|t| !t.is_empty()))
            .ok_or("the template has no title: both <title> and dcterms.title are empty")?;
        let m = &mut doc.metadata;
        m.identifier = meta("dcterms.identifier");
        m.description = meta("dcterms.description");
        m.publisher = meta("dcterms.publisher");
        m.creator = all("dcterms.creator");
        m.contributor = all("dcterms.contributor");
        m.rights = meta("dcterms.rights");
        m.license = meta("dcterms.license");
        m.language = meta("dcterms.language");
        m.date = meta("dcterms.date");
        if let Some(date) = &m.date {
            if !is_date(date) {
                return Err(format!(
                    "dcterms.date '{date}' is not a date (YYYY-MM-DD, or a date and time)"
                ));
            }
        }
        doc.labels = metas
            .iter()
            .filter_map(|(n, v)| Some((n.strip_prefix(META_PREFIX)?.to_string(), v.clone())))
            .collect();
        doc.content = unwrapped(body);
        Ok(doc)
    }

    /// The document as an MRRT template: XHTML, so that XML tools read it as well as
    /// browsers. `content` must be sanitised already (it is written as XHTML, not checked).
    pub fn to_html(&self) -> String {
        let m = &self.metadata;
        let mut out = String::with_capacity(self.content.len() + 2_048);
        out.push_str("<!DOCTYPE html>\n<html>\n<head>\n");
        out.push_str(&format!("<title>{}</title>\n", html::escape(&self.name)));
        out.push_str("<meta charset=\"UTF-8\"/>\n");
        let mut meta = |name: &str, value: &str| {
            out.push_str(&format!(
                "<meta name=\"{}\" content=\"{}\"/>\n",
                html::escape(name),
                html::escape(value)
            ));
        };
        meta("dcterms.title", &self.name);
        meta("dcterms.type", DOCUMENT_TYPE);
        for (name, value) in m.single() {
            if let Some(v) = value {
                meta(&format!("dcterms.{name}"), v);
            }
        }
        for v in &m.creator {
            meta("dcterms.creator", v);
        }
        for v in &m.contributor {
            meta("dcterms.contributor", v);
        }
        for (key, value) in &self.labels {
            meta(&format!("{META_PREFIX}{key}"), value);
        }
        out.push_str("<script type=\"text/xml\">\n<template_attributes>\n");
        if let Some(flag) = m.top_level {
            out.push_str(&format!("<top-level-flag>{flag}</top-level-flag>\n"));
        }
        if let Some(status) = &m.status {
            out.push_str(&format!("<status>{}</status>\n", html::escape(status)));
        }
        if !m.coding_schemes.is_empty() {
            out.push_str("<coding_schemes>\n");
            for s in &m.coding_schemes {
                out.push_str(&format!(
                    "<coding_scheme name=\"{}\" designator=\"{}\"/>\n",
                    html::escape(&s.name),
                    html::escape(&s.designator)
                ));
            }
            out.push_str("</coding_schemes>\n");
        }
        for t in &m.terms {
            match &t.kind {
                Some(kind) => out.push_str(&format!("<term type=\"{}\">", html::escape(kind))),
                None => out.push_str("<term>"),
            }
            write_code(&t.code, &mut out);
            out.push_str("</term>\n");
        }
        out.push_str("<coded_content>\n");
        for entry in &self.coded_content {
            out.push_str(&format!(
                "<entry ORIGTXT=\"{}\">\n",
                html::escape(&entry.id)
            ));
            for code in &entry.codes {
                out.push_str("<term>");
                write_code(code, &mut out);
                out.push_str("</term>\n");
            }
            out.push_str("</entry>\n");
        }
        out.push_str("</coded_content>\n</template_attributes>\n</script>\n</head>\n<body>");
        let body = html::to_xhtml(&self.content);
        if has_section(&body) {
            out.push_str(&body);
        } else {
            // An MRRT body is made of sections: content without one goes out in one, which an
            // import takes off again.
            out.push_str(&format!(
                "{WRAPPER_OPEN}{}\">{body}</section>",
                html::escape(&self.name)
            ));
        }
        out.push_str("</body>\n</html>\n");
        out
    }
}

/// How an export opens the one section it puts content without sections in.
const WRAPPER_OPEN: &str = "<section id=\"radref-body\" class=\"level1\" data-section-name=\"";

/// Whether HTML holds a section element.
fn has_section(html: &str) -> bool {
    html::visible(html).any(|t| matches!(t, Token::Open { name, .. } if name == "section"))
}

/// The content an export wrapped in one section, unwrapped; any other body as it is.
fn unwrapped(body: String) -> String {
    let Some(rest) = body.strip_prefix(WRAPPER_OPEN) else {
        return body;
    };
    let inner = rest
        .find("\">")
        .map(|end| &rest[end + 2..])
        .and_then(|r| r.strip_suffix("</section>"));
    match inner {
        Some(inner) if !has_section(inner) => inner.to_string(),
        _ => body,
    }
}

fn write_code(code: &Code, out: &mut String) {
    out.push_str(&format!(
        "<code meaning=\"{}\" value=\"{}\" scheme=\"{}\"/>",
        html::escape(&code.meaning),
        html::escape(&code.value),
        html::escape(&code.scheme)
    ));
}

/// Writes a body token back as HTML for the sanitiser (attribute values as they were sent).
fn write_token(token: &Token, out: &mut String) {
    match token {
        Token::Text(t) => out.push_str(t),
        Token::Open { name, attrs } => {
            out.push('<');
            out.push_str(name);
            for (a, v) in attrs {
                out.push_str(&format!(" {a}=\"{}\"", v.replace('"', "&quot;")));
            }
            out.push('>');
        }
        Token::Close(name) => {
            out.push_str("</");
            out.push_str(name);
            out.push('>');
        }
    }
}

/// Reads the `template_attributes` XML into the document's metadata and coded content.
fn read_attributes(xml: &str, doc: &mut Document) -> Result<(), String> {
    let mut text = xml.trim();
    // Templates published with the XML inside an HTML comment (so that old browsers do not
    // show it) are read the same.
    if let Some(inner) = text
        .strip_prefix("<!--")
        .and_then(|t| t.strip_suffix("-->"))
    {
        text = inner.trim();
    }
    let parsed = roxmltree::Document::parse(text)
        .map_err(|e| format!("the template_attributes XML is not well formed: {e}"))?;
    let root = parsed.root_element();
    if root.tag_name().name() != "template_attributes" {
        return Err(format!(
            "the <script type=\"text/xml\"> holds <{}>, not <template_attributes>",
            root.tag_name().name()
        ));
    }
    let m = &mut doc.metadata;
    let mut coded_seen = 0;
    for child in root.children().filter(|n| n.is_element()) {
        let text = child.text().unwrap_or_default().trim();
        match child.tag_name().name() {
            "top-level-flag" => {
                m.top_level = Some(match text {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    other => {
                        return Err(format!(
                            "top-level-flag must be true or false, not '{other}'"
                        ))
                    }
                })
            }
            "status" => {
                if !STATUSES.contains(&text) {
                    return Err(format!(
                        "status must be one of {}, not '{text}'",
                        STATUSES.join(", ")
                    ));
                }
                m.status = Some(text.to_string());
            }
            "coding_schemes" => read_schemes(child, &mut m.coding_schemes)?,
            "term" => m.terms.push(Term {
                kind: child.attribute("type").map(String::from),
                code: read_term(child)?,
            }),
            "coded_content" => {
                coded_seen += 1;
                for part in child.children().filter(|n| n.is_element()) {
                    match part.tag_name().name() {
                        "coding_schemes" => read_schemes(part, &mut m.coding_schemes)?,
                        "entry" => {
                            let id = part.attribute("ORIGTXT").ok_or(
                                "an entry of coded_content has no ORIGTXT (the id of the element it codes)",
                            )?;
                            let codes = part
                                .children()
                                .filter(|n| n.has_tag_name("term"))
                                .map(read_term)
                                .collect::<Result<Vec<_>, _>>()?;
                            if codes.is_empty() {
                                return Err(format!("the coded_content entry '{id}' has no term"));
                            }
                            doc.coded_content.push(CodedEntry {
                                id: id.to_string(),
                                codes,
                            });
                        }
                        _ => {}
                    }
                }
            }
            // user-list and provider-group-list name a site's own users and groups.
            _ => {}
        }
    }
    match coded_seen {
        1 => Ok(()),
        0 => Err("template_attributes has no coded_content element (it may be empty)".into()),
        n => Err(format!(
            "template_attributes has one coded_content element; this one has {n}"
        )),
    }
}

fn read_schemes(node: roxmltree::Node, out: &mut Vec<CodingScheme>) -> Result<(), String> {
    let schemes: Vec<_> = node
        .children()
        .filter(|n| n.has_tag_name("coding_scheme"))
        .collect();
    if schemes.is_empty() {
        return Err("coding_schemes has no coding_scheme element".into());
    }
    for s in schemes {
        let (Some(name), Some(designator)) = (s.attribute("name"), s.attribute("designator"))
        else {
            return Err("a coding_scheme needs both name and designator".into());
        };
        if !out.iter().any(|o| o.name == name) {
            out.push(CodingScheme {
                name: name.to_string(),
                designator: designator.to_string(),
            });
        }
    }
    Ok(())
}

/// The one code of a `term`.
fn read_term(term: roxmltree::Node) -> Result<Code, String> {
    let codes: Vec<_> = term.children().filter(|n| n.has_tag_name("code")).collect();
    let [code] = codes.as_slice() else {
        return Err(format!(
            "a term has one code element; this one has {}",
            codes.len()
        ));
    };
    let get = |name: &str| {
        code.attribute(name)
            .map(String::from)
            .ok_or_else(|| format!("a code element lacks its '{name}' attribute"))
    };
    Ok(Code {
        meaning: get("meaning")?,
        value: get("value")?,
        scheme: get("scheme")?,
    })
}

/// The system and evaluator input a field fills.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Binding {
    pub system: String,
    pub input: String,
}

/// One choice of a selection field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Choice {
    pub value: String,
    pub label: String,
}

/// A field of a template body: an `input`, `select` or `textarea` with an id.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Field {
    pub id: String,
    /// The MRRT field type (`data-field-type`), or the one the element implies: TEXT, NUMBER,
    /// DATE, TIME, CHECKBOX or SELECTION.
    #[serde(rename = "type")]
    pub kind: String,
    pub name: Option<String>,
    /// The text of the first `<label for>` naming it.
    pub label: Option<String>,
    /// The `data-section-name` of the innermost section holding it.
    pub section: Option<String>,
    pub units: Option<String>,
    /// What the field holds: text, a number's text, true or false for a checkbox, the chosen
    /// value of a selection (a list when it takes several), or null.
    pub value: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<Choice>,
    pub multiple: bool,
    /// Its codes from coded_content.
    pub codes: Vec<Code>,
    pub binding: Option<Binding>,
}

/// What a field element looks like while its content is read.
struct Open {
    field: Field,
    /// Chosen option values of a selection.
    chosen: Vec<String>,
    /// The option being read: its value attribute (if any), its text, whether chosen.
    option: Option<(Option<String>, String, bool)>,
    text: String,
}

/// The element ids of sanitised content (sections, fields and options), in order, with
/// repeats.
pub fn element_ids(content: &str) -> Vec<String> {
    html::visible(content)
        .filter_map(|t| match t {
            Token::Open { attrs, .. } => attribute(&attrs, "id").map(String::from),
            _ => None,
        })
        .collect()
}

/// The fields of sanitised content, with their codes from `coded`. A field without an id is
/// not one (nothing could name it).
pub fn fields(content: &str, coded: &[CodedEntry]) -> Vec<Field> {
    let mut out: Vec<Field> = Vec::new();
    let mut labels: Vec<(String, String)> = Vec::new();
    let mut label: Option<(String, String)> = None;
    let mut sections: Vec<Option<String>> = Vec::new();
    let mut open: Option<Open> = None;
    for token in html::visible(content) {
        match token {
            Token::Open { name, attrs } => {
                let get = |a: &str| attribute(&attrs, a).map(decode_entities);
                match name.as_str() {
                    "section" => sections.push(get("data-section-name")),
                    "label" => label = get("for").map(|f| (f, String::new())),
                    "option" => {
                        if let Some(o) = &mut open {
                            o.option =
                                Some((get("value"), String::new(), get("selected").is_some()));
                        }
                    }
                    "input" | "select" | "textarea" => {
                        let Some(id) = get("id") else { continue };
                        let input_type = get("type").unwrap_or_else(|| "text".into());
                        let implied = match (name.as_str(), input_type.as_str()) {
                            ("select", _) => "SELECTION",
                            ("input", "number") => "NUMBER",
                            ("input", "date") => "DATE",
                            ("input", "time") => "TIME",
                            ("input", "checkbox") => "CHECKBOX",
                            _ => "TEXT",
                        };
                        let binding = match (get("data-radref-system"), get("data-radref-input")) {
                            (Some(system), Some(input)) => Some(Binding { system, input }),
                            _ => None,
                        };
                        let field = Field {
                            kind: get("data-field-type")
                                .map(|t| t.trim().to_ascii_uppercase())
                                .filter(|t| !t.is_empty())
                                .unwrap_or_else(|| implied.to_string()),
                            name: get("name").filter(|n| !n.trim().is_empty()),
                            label: None,
                            section: sections.iter().rev().flatten().next().cloned(),
                            units: get("data-field-units")
                                .map(|u| u.trim().to_string())
                                .filter(|u| !u.is_empty()),
                            value: if implied == "CHECKBOX" {
                                Value::Bool(get("checked").is_some())
                            } else if name == "input" {
                                get("value").map_or(Value::Null, Value::String)
                            } else {
                                Value::Null
                            },
                            options: Vec::new(),
                            multiple: get("multiple").is_some(),
                            codes: coded
                                .iter()
                                .find(|e| e.id == id)
                                .map(|e| e.codes.clone())
                                .unwrap_or_default(),
                            binding,
                            id,
                        };
                        if name == "input" {
                            out.push(field);
                        } else {
                            open = Some(Open {
                                field,
                                chosen: Vec::new(),
                                option: None,
                                text: String::new(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            Token::Text(t) => {
                let t = decode_entities(&t);
                if let Some((_, text)) = &mut label {
                    text.push_str(&t);
                }
                if let Some(o) = &mut open {
                    match &mut o.option {
                        Some((_, text, _)) => text.push_str(&t),
                        None => o.text.push_str(&t),
                    }
                }
            }
            Token::Close(name) => match name.as_str() {
                "section" => {
                    sections.pop();
                }
                "label" => {
                    if let Some((id, text)) = label.take() {
                        labels.push((id, squeeze(&text)));
                    }
                }
                "option" => {
                    if let Some(o) = &mut open {
                        if let Some((value, text, chosen)) = o.option.take() {
                            let label = squeeze(&text);
                            let value = value.unwrap_or_else(|| label.clone());
                            if chosen {
                                o.chosen.push(value.clone());
                            }
                            o.field.options.push(Choice { value, label });
                        }
                    }
                }
                "select" | "textarea" => {
                    if let Some(mut o) = open.take() {
                        o.field.value = if name == "textarea" {
                            Value::String(o.text)
                        } else if o.field.multiple {
                            Value::from(o.chosen)
                        } else {
                            o.chosen.first().cloned().map_or(Value::Null, Value::String)
                        };
                        out.push(o.field);
                    }
                }
                _ => {}
            },
        }
    }
    for f in &mut out {
        f.label = labels
            .iter()
            .find(|(id, text)| *id == f.id && !text.is_empty())
            .map(|(_, text)| text.clone());
    }
    out
}

/// Text with its runs of whitespace made single spaces, trimmed.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The values a filled template holds, by field id: what [`fields`] reads as each field's
/// value, from a whole MRRT document or a body alone (sanitised first).
pub fn filled_values(document: &str) -> Map<String, Value> {
    let body = html::sanitize(document);
    fields(&body, &[])
        .into_iter()
        .map(|f| (f.id, f.value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const THYROID: &str = include_str!("../tests/fixtures/mrrt/thyroid-us.html");

    /// A minimal valid document around `head` and `body` parts.
    fn doc(head: &str, xml: &str, body: &str) -> String {
        format!("<!DOCTYPE html><html><head><title>T</title>{head}<script type=\"text/xml\">{xml}</script></head><body>{body}</body></html>")
    }
    const HEAD: &str = "<meta charset=\"UTF-8\"><meta name=\"dcterms.title\" content=\"T\">";
    const XML: &str = "<template_attributes><coded_content/></template_attributes>";

    #[test]
    fn a_template_is_read_with_its_metadata_codes_and_fields() {
        let d = Document::parse(THYROID).unwrap();
        assert_eq!(d.name, "US Thyroid: nodule characterisation (ACR TI-RADS)");
        let m = &d.metadata;
        assert_eq!(
            m.identifier.as_deref(),
            Some("urn:example:templates:us-thyroid-tirads:3")
        );
        assert_eq!(
            m.description.as_deref(),
            Some("Thyroid ultrasound with one nodule described in the ACR TI-RADS lexicon & its size")
        );
        assert_eq!(m.contributor.len(), 2);
        assert_eq!(m.status.as_deref(), Some("ACTIVE"));
        assert_eq!(m.top_level, Some(true));
        assert_eq!(m.coding_schemes.len(), 2);
        assert_eq!(m.terms[0].code.value, "RDES152");
        assert_eq!(m.terms[0].kind.as_deref(), Some("classification"));
        assert_eq!(d.coded_content.len(), 5);
        assert_eq!(d.coded_content[2].id, "n1_composition");
        assert_eq!(d.coded_content[2].codes[0].value, "RDE1040");
        // The body is the content; nothing of the head is in it.
        assert!(d.content.contains("data-section-name=\"Findings\""));
        assert!(!d.content.contains("template_attributes") && !d.content.contains("dcterms"));

        let clean = html::sanitize(&d.content);
        let fields = fields(&clean, &d.coded_content);
        let ids: Vec<&str> = fields.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "history",
                "comparison_text",
                "right_lobe_mm",
                "left_lobe_mm",
                "n1_location",
                "n1_size",
                "n1_composition",
                "n1_echogenicity",
                "n1_shape",
                "n1_margin",
                "n1_foci",
                "n1_vascular",
                "nodes",
                "impression_text"
            ]
        );
        let by = |id: &str| fields.iter().find(|f| f.id == id).unwrap();
        let size = by("n1_size");
        assert_eq!(size.kind, "NUMBER");
        assert_eq!(size.units.as_deref(), Some("mm"));
        assert_eq!(size.label.as_deref(), Some("Maximum diameter:"));
        assert_eq!(size.section.as_deref(), Some("Nodule 1"));
        assert_eq!(size.codes[0].value, "RDE1036");
        assert_eq!(
            size.binding,
            Some(Binding {
                system: "acr-ti-rads-2017".into(),
                input: "max_diameter_mm".into()
            })
        );
        assert_eq!(size.value, Value::Null);
        let composition = by("n1_composition");
        assert_eq!(
            (composition.kind.as_str(), composition.options.len()),
            ("SELECTION", 4)
        );
        assert_eq!(composition.value, Value::from("solid"));
        assert_eq!(
            composition.options[0].label,
            "cystic or almost completely cystic"
        );
        assert_eq!(by("n1_echogenicity").value, Value::Null);
        assert_eq!(
            by("n1_foci").value,
            serde_json::json!(["none_or_large_comet_tail"])
        );
        assert_eq!(by("n1_vascular").value, Value::Bool(false));
        assert_eq!(
            by("history").value,
            Value::from("Palpable left thyroid lump.")
        );
        assert_eq!(by("comparison_text").section.as_deref(), Some("Comparison"));
        assert_eq!(by("nodes").section.as_deref(), Some("Findings"));
    }

    #[test]
    fn an_export_reads_back_as_the_same_document_and_is_well_formed_xml() {
        let mut d = Document::parse(THYROID).unwrap();
        d.content = html::sanitize(&d.content);
        d.labels = vec![
            ("modality".into(), "US".into()),
            ("tags".into(), "thyroid".into()),
        ];
        let exported = d.to_html();
        // XML tools read it: the head's parts in the order MRRT's schema lists them.
        let xml = roxmltree::Document::parse_with_options(
            &exported,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .unwrap();
        let head = xml.root_element().first_element_child().unwrap();
        let order: Vec<&str> = head
            .children()
            .filter(|n| n.is_element())
            .map(|n| n.tag_name().name())
            .collect();
        assert_eq!(order.first(), Some(&"title"));
        assert_eq!(order.last(), Some(&"script"));
        assert!(order[1..order.len() - 1].iter().all(|n| *n == "meta"));
        let mut back = Document::parse(&exported).unwrap();
        back.content = html::sanitize(&back.content);
        assert_eq!(back, d);
    }

    #[test]
    fn content_without_sections_goes_out_in_one_and_comes_back_without_it() {
        let d = Document {
            name: "CT \"chest\" <routine>".into(),
            content: "<h2>FINDINGS</h2><p>Lungs: clear.<br>No effusion.</p>".into(),
            ..Document::default()
        };
        let exported = d.to_html();
        assert!(exported.contains(
            "<body><section id=\"radref-body\" class=\"level1\" data-section-name=\"CT &quot;chest&quot; &lt;routine&gt;\"><h2>"
        ));
        let back = Document::parse(&exported).unwrap();
        assert_eq!(html::sanitize(&back.content), d.content);
        // A body with sections of its own goes out as it is.
        let sectioned = Document {
            content: "<section data-section-name=\"Findings\"><p>x</p></section>".into(),
            ..d
        };
        let back = Document::parse(&sectioned.to_html()).unwrap();
        assert_eq!(html::sanitize(&back.content), sectioned.content);
    }

    #[test]
    fn the_xml_may_sit_in_a_comment_and_scripts_in_the_body_are_content_to_sanitise() {
        let d = Document::parse(&doc(
            HEAD,
            "<!--<template_attributes><status>DRAFT</status><coded_content></coded_content></template_attributes>-->",
            "<p>x</p><script>alert(1)</script>",
        ))
        .unwrap();
        assert_eq!(d.metadata.status.as_deref(), Some("DRAFT"));
        assert_eq!(html::sanitize(&d.content), "<p>x</p>");
    }

    #[test]
    fn what_makes_a_document_not_a_template_is_named() {
        let cases = [
            ("<p>just a fragment</p>".to_string(), "no <html>"),
            (doc(HEAD, XML, "</body><body>"), "one <body>"),
            ("<html><head><title>T</title><meta charset=\"UTF-8\"><meta name=\"dcterms.title\" content=\"T\"><script type=\"text/xml\"><template_attributes><coded_content/></template_attributes></script></head></html>".to_string(), "no <body>"),
            (doc(HEAD, XML, "").replace("<title>T</title>", ""), "one <title>"),
            (doc("<meta name=\"dcterms.title\" content=\"T\">", XML, ""), "one <meta charset>"),
            (doc(&format!("{HEAD}<meta charset=\"UTF-8\">"), XML, ""), "this one has 2"),
            (doc("<meta charset=\"UTF-8\">", XML, ""), "Dublin Core"),
            (doc(HEAD, XML, "").replace("type=\"text/xml\"", "type=\"text/javascript\""), "none was found"),
            (doc(&format!("{HEAD}<script type=\"text/xml\">{XML}</script>"), XML, ""), "this one has 2"),
            (doc(HEAD, "<template_attributes><coded_content>", ""), "not well formed"),
            (doc(HEAD, "<attributes/>", ""), "not <template_attributes>"),
            (doc(HEAD, "<template_attributes/>", ""), "no coded_content"),
            (doc(HEAD, "<template_attributes><coded_content/><coded_content/></template_attributes>", ""), "has 2"),
            (doc(HEAD, "<template_attributes><coding_schemes/><coded_content/></template_attributes>", ""), "no coding_scheme"),
            (doc(HEAD, "<template_attributes><term><code meaning=\"a\" value=\"1\" scheme=\"S\"/><code meaning=\"b\" value=\"2\" scheme=\"S\"/></term><coded_content/></template_attributes>", ""), "has 2"),
            (doc(HEAD, "<template_attributes><coded_content><entry ORIGTXT=\"x\"><term><code meaning=\"a\" scheme=\"S\"/></term></entry></coded_content></template_attributes>", ""), "'value'"),
            (doc(HEAD, "<template_attributes><status>LIVE</status><coded_content/></template_attributes>", ""), "status must be"),
            (doc(&format!("{HEAD}<meta name=\"dcterms.date\" content=\"March 2026\">"), XML, ""), "not a date"),
        ];
        for (input, expected) in cases {
            let err = Document::parse(&input).unwrap_err();
            assert!(err.contains(expected), "{input}\n-> {err}");
        }
    }

    #[test]
    fn metadata_is_normalised_once_and_codes_need_a_known_scheme() {
        let coded = vec![CodedEntry {
            id: "a".into(),
            codes: vec![Code {
                scheme: "RadLex".into(),
                value: "RID28486".into(),
                meaning: "observations section".into(),
            }],
        }];
        let m = Metadata::default()
            .normalised("tpl_1", "2026-11-27T10:00:00.000Z", &coded)
            .unwrap();
        assert_eq!(m.identifier.as_deref(), Some("urn:radref:template:tpl_1"));
        assert_eq!(m.date.as_deref(), Some("2026-11-27"));
        assert_eq!(
            m.coding_schemes,
            vec![CodingScheme {
                name: "RadLex".into(),
                designator: "2.16.840.1.113883.6.256".into()
            }]
        );
        assert_eq!(
            m.clone()
                .normalised("tpl_2", "2027-01-01T00:00:00Z", &coded)
                .unwrap(),
            m
        );
        let unknown = vec![CodedEntry {
            id: "a".into(),
            codes: vec![Code {
                scheme: "LOCAL".into(),
                value: "1".into(),
                meaning: "x".into(),
            }],
        }];
        assert!(Metadata::default()
            .normalised("t", "", &unknown)
            .unwrap_err()
            .contains("LOCAL"));
        assert!(check_coded(&coded, &["b".into()])
            .unwrap_err()
            .contains("names no element"));
        assert!(is_date("2026-03-02") && is_date("2026") && is_date("2026-03-02T10:00:00Z"));
        assert!(!is_date("2026-13-01") && !is_date("02/03/2026") && !is_date("2026-03T10:00"));
    }

    #[test]
    fn filled_values_are_read_from_a_filled_document() {
        let filled = THYROID
            .replace(
                "<option value=\"hypoechoic\">",
                "<option value=\"hypoechoic\" selected>",
            )
            .replace("id=\"n1_size\"", "id=\"n1_size\" value=\"17\"")
            .replace("id=\"n1_vascular\"", "id=\"n1_vascular\" checked");
        let values = filled_values(&filled);
        assert_eq!(values["n1_echogenicity"], Value::from("hypoechoic"));
        assert_eq!(values["n1_size"], Value::from("17"));
        assert_eq!(values["n1_vascular"], Value::Bool(true));
        assert_eq!(values["n1_location"], Value::from("left lobe"));
    }
}
