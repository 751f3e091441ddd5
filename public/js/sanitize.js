// A preview of what radref will store for a template's HTML: the same allowlist and the same
// plain-text rules as the service's sanitiser (src/html.rs), token for token, so the preview
// shown while typing matches what the server keeps. The server stays the authority: after a
// save the page shows what it actually stored.

const ALLOWED = new Set(['p', 'br', 'b', 'strong', 'i', 'em', 'u', 's', 'sub', 'sup', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'div', 'span',
  'blockquote', 'hr', 'pre', 'code']);
const DROPPED_WITH_CONTENT = new Set(['script', 'style', 'iframe', 'object', 'embed', 'noscript', 'template',
  'svg', 'math', 'head', 'title', 'textarea', 'select', 'xmp', 'noembed', 'noframes']);
const VOID = new Set(['br', 'hr']);
const BLOCK = new Set(['p', 'div', 'br', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'table',
  'blockquote', 'hr', 'pre']);

const isAlnum = (c) => /^[A-Za-z0-9]$/.test(c);
const isAlpha = (c) => /^[A-Za-z]$/.test(c);

function tagEnd(s) {
  let quote = null;
  for (let i = 0; i < s.length; i += 1) {
    const c = s[i];
    if (quote) { if (c === quote) quote = null; } else if (c === '"' || c === "'") quote = c; else if (c === '>') return i;
  }
  return -1;
}

function attributes(s) {
  const out = [];
  const chars = [...s];
  let i = 0;
  const ws = (c) => /\s/.test(c);
  while (i < chars.length) {
    while (i < chars.length && (ws(chars[i]) || chars[i] === '/')) i += 1;
    const start = i;
    while (i < chars.length && !ws(chars[i]) && chars[i] !== '=' && chars[i] !== '/') i += 1;
    if (start === i) { i += 1; continue; }
    const name = chars.slice(start, i).join('').toLowerCase();
    let value = '';
    if (i < chars.length && chars[i] === '=') {
      i += 1;
      if (i < chars.length && (chars[i] === '"' || chars[i] === "'")) {
        const q = chars[i];
        i += 1;
        while (i < chars.length && chars[i] !== q) { value += chars[i]; i += 1; }
        i += 1;
      } else {
        while (i < chars.length && !ws(chars[i])) { value += chars[i]; i += 1; }
      }
    }
    out.push([name, value]);
  }
  return out;
}

function tokenize(input) {
  const tokens = [];
  let text = '';
  let i = 0;
  while (i < input.length) {
    if (input[i] !== '<') {
      const p = input.indexOf('<', i);
      const next = p === -1 ? input.length : p;
      text += input.slice(i, next);
      i = next;
      continue;
    }
    const rest = input.slice(i);
    if (rest.startsWith('<!--')) {
      const p = rest.indexOf('-->');
      i += p === -1 ? rest.length : p + 3;
      continue;
    }
    if (rest.startsWith('<!') || rest.startsWith('<?')) {
      const p = rest.indexOf('>');
      i += p === -1 ? rest.length : p + 1;
      continue;
    }
    const closing = rest.startsWith('</');
    const nameStart = closing ? 2 : 1;
    let nameLen = 0;
    while (nameStart + nameLen < rest.length && isAlnum(rest[nameStart + nameLen])) nameLen += 1;
    if (nameLen === 0 || !isAlpha(rest[nameStart])) {
      text += '<';
      i += 1;
      continue;
    }
    const name = rest.slice(nameStart, nameStart + nameLen).toLowerCase();
    const end = tagEnd(rest.slice(nameStart + nameLen));
    if (end === -1) break; // an unterminated tag: the rest of the input is not shown
    const attrText = rest.slice(nameStart + nameLen, nameStart + nameLen + end);
    if (text) { tokens.push({ text }); text = ''; }
    tokens.push(closing ? { close: name } : { open: name, attrs: attributes(attrText) });
    i += nameStart + nameLen + end + 1;
  }
  if (text) tokens.push({ text });
  return tokens;
}

function visible(input) {
  let skipping = null;
  return tokenize(input).filter((t) => {
    if (skipping) {
      if (t.close === skipping) skipping = null;
      return false;
    }
    if (t.open && DROPPED_WITH_CONTENT.has(t.open)) { skipping = t.open; return false; }
    return true;
  });
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s) {
  let out = '';
  let rest = s;
  for (;;) {
    const pos = rest.indexOf('&');
    if (pos === -1) break;
    out += rest.slice(0, pos);
    rest = rest.slice(pos);
    const semi = rest.indexOf(';', 1);
    let decoded = null;
    if (semi !== -1 && semi <= 12) {
      const entity = rest.slice(1, semi);
      if (entity in ENTITIES) decoded = ENTITIES[entity];
      else if (entity.startsWith('#')) {
        const num = entity.slice(1);
        const hex = /^[xX]/.test(num);
        const digits = hex ? num.slice(1) : num;
        if (hex ? /^\+?[0-9A-Fa-f]+$/.test(digits) : /^\+?[0-9]+$/.test(digits)) {
          const code = parseInt(digits, hex ? 16 : 10);
          if (code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)) decoded = String.fromCodePoint(code);
        }
      }
    }
    if (decoded !== null) { out += decoded; rest = rest.slice(semi + 1); } else { out += '&'; rest = rest.slice(1); }
  }
  return out + rest;
}

function escape(s) {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/** The HTML the service will store for `input`. */
export function sanitize(input) {
  let out = '';
  const open = [];
  for (const t of visible(input)) {
    if (t.text !== undefined) out += escape(decodeEntities(t.text));
    else if (t.open) {
      if (!ALLOWED.has(t.open)) continue;
      out += `<${t.open}`;
      if (t.open === 'td' || t.open === 'th') {
        for (const [attr, value] of t.attrs) {
          if ((attr === 'colspan' || attr === 'rowspan') && /^[0-9]{1,3}$/.test(value)) out += ` ${attr}="${value}"`;
        }
      }
      out += '>';
      if (!VOID.has(t.open)) open.push(t.open);
    } else {
      const pos = open.lastIndexOf(t.close);
      if (pos !== -1) while (open.length > pos) out += `</${open.pop()}>`;
    }
  }
  while (open.length) out += `</${open.pop()}>`;
  return out;
}

/** The plain text (content_text) the service derives from stored HTML. */
export function toText(html) {
  let raw = '';
  for (const t of visible(html)) {
    if (t.text !== undefined) raw += decodeEntities(t.text);
    else {
      const name = t.open || t.close;
      if (BLOCK.has(name)) raw += '\n';
      else if (name === 'td' || name === 'th') raw += ' ';
    }
  }
  return raw.split(/\r?\n/).map((l) => l.split(/\s+/).filter(Boolean).join(' ')).filter(Boolean).join('\n');
}
