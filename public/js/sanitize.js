// A preview of what radref will store for a template's HTML: the same allowlist and the same
// plain-text rules as the service's sanitiser (src/html.rs), token for token, so the preview
// shown while typing matches what the server keeps. The server stays the authority: after a
// save the page shows what it actually stored.

const ALLOWED = new Set(['p', 'br', 'b', 'strong', 'i', 'em', 'u', 's', 'sub', 'sup', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'div', 'span',
  'blockquote', 'hr', 'pre', 'code', 'section', 'header', 'label', 'input', 'select', 'option', 'textarea']);
const DROPPED_WITH_CONTENT = new Set(['script', 'style', 'iframe', 'object', 'embed', 'noscript', 'template',
  'svg', 'math', 'head', 'title', 'xmp', 'noembed', 'noframes']);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);
const VOID = new Set(['br', 'hr', 'input']);
const BLOCK = new Set(['p', 'div', 'br', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'table',
  'blockquote', 'hr', 'pre', 'section', 'header']);

const MAX_ATTRIBUTE_CHARS = 500;
const FIELD_DATA = [['data-field-type', 'text'], ['data-field-units', 'text'], ['data-field-merge-flag', 'text'],
  ['data-field-verbal-trigger', 'text'], ['data-field-completion-action', 'text'], ['data-radref-system', 'text'],
  ['data-radref-input', 'text']];
const ATTRIBUTES = {
  td: [['colspan', 'span'], ['rowspan', 'span']],
  th: [['colspan', 'span'], ['rowspan', 'span']],
  section: [['id', 'id'], ['class', 'class'], ['data-section-name', 'text']],
  header: [['class', 'class']],
  label: [['for', 'id']],
  input: [['id', 'id'], ['type', 'inputType'], ['name', 'text'], ['value', 'text'], ['min', 'number'],
    ['max', 'number'], ['step', 'number'], ['placeholder', 'text'], ['checked', 'flag']],
  select: [['id', 'id'], ['name', 'text'], ['multiple', 'flag']],
  option: [['id', 'id'], ['value', 'text'], ['selected', 'flag']],
  textarea: [['id', 'id'], ['name', 'text'], ['rows', 'span'], ['cols', 'span'], ['placeholder', 'text']],
};
const INPUT_TYPES = new Set(['text', 'number', 'date', 'time', 'checkbox']);
const isField = (e) => e === 'input' || e === 'select' || e === 'textarea';

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
    i += nameStart + nameLen + end + 1;
    if (closing) { tokens.push({ close: name }); continue; }
    tokens.push({ open: name, attrs: attributes(attrText) });
    if (RAW_TEXT.has(name)) {
      // Everything up to the element's own end tag is its text.
      const [content, close] = rawText(input.slice(i), name);
      if (content) tokens.push({ text: content });
      i += content.length;
      if (close === null) break;
      tokens.push({ close: name });
      i += close;
    }
  }
  if (text) tokens.push({ text });
  return tokens;
}

// The text of a raw-text element at the start of s, and the length of its end tag (or null).
function rawText(s, name) {
  let from = 0;
  for (;;) {
    const p = s.indexOf('</', from);
    if (p === -1) return [s, null];
    const after = p + 2 + name.length;
    const next = s[after];
    if (s.length >= after && s.slice(p + 2, after).toLowerCase() === name
      && (next === undefined || '\t\n\f\r />'.includes(next))) {
      const e = tagEnd(s.slice(after));
      return [s.slice(0, p), e === -1 ? s.length - p : after - p + e + 1];
    }
    from = p + 2;
  }
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
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

function keptValue(form, name, raw) {
  const chars = [...raw];
  const all = (max, re) => chars.length <= max && chars.every((c) => re.test(c));
  switch (form) {
    case 'span': return /^[0-9]{1,3}$/.test(raw) ? raw : null;
    case 'id': return raw !== '' && all(64, /^[A-Za-z0-9_.:-]$/) ? raw : null;
    case 'class': return all(100, /^[A-Za-z0-9_ -]$/) ? raw : null;
    case 'number': return all(24, /^[0-9.eE+-]$/) ? raw : null;
    case 'flag': return name;
    case 'inputType': { const t = raw.replace(/[A-Z]/g, (c) => c.toLowerCase()); return INPUT_TYPES.has(t) ? t : null; }
    default: { const text = decodeEntities(raw); return [...text].length <= MAX_ATTRIBUTE_CHARS ? text : null; }
  }
}

function keptAttributes(element, attrs) {
  const list = [...(ATTRIBUTES[element] || []), ...(isField(element) ? FIELD_DATA : [])];
  const out = [];
  for (const [name, form] of list) {
    const found = attrs.find(([a]) => a === name);
    if (!found) continue;
    const value = keptValue(form, name, found[1]);
    if (value !== null) out.push([name, value]);
  }
  return out;
}

const attribute = (attrs, name) => { const f = attrs.find(([a]) => a === name); return f ? f[1] : undefined; };

/** The HTML the service will store for `input`. */
export function sanitize(input) {
  let out = '';
  const open = [];
  for (const t of visible(input)) {
    if (t.text !== undefined) out += escape(decodeEntities(t.text));
    else if (t.open) {
      if (!ALLOWED.has(t.open)) continue;
      out += `<${t.open}`;
      for (const [attr, value] of keptAttributes(t.open, t.attrs)) out += ` ${attr}="${escape(value)}"`;
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
  const blockBreak = (name) => {
    if (BLOCK.has(name)) raw += '\n';
    else if (name === 'td' || name === 'th') raw += ' ';
  };
  let selection = null; // { chosen: [], reading: false } inside a <select>
  for (const t of visible(html)) {
    if (t.text !== undefined) {
      if (selection) { if (selection.reading) selection.chosen[selection.chosen.length - 1] += decodeEntities(t.text); } else raw += decodeEntities(t.text);
    } else if (t.open) {
      if (t.open === 'select') selection = { chosen: [], reading: false };
      else if (t.open === 'option') {
        if (selection) {
          selection.reading = attribute(t.attrs, 'selected') !== undefined;
          if (selection.reading) selection.chosen.push('');
        }
      } else if (t.open === 'input') {
        const type = attribute(t.attrs, 'type');
        let shown;
        if (type !== undefined && type.toLowerCase() === 'checkbox') shown = attribute(t.attrs, 'checked') !== undefined ? '[x]' : '[ ]';
        else {
          const value = attribute(t.attrs, 'value');
          const decoded = value === undefined ? '' : decodeEntities(value);
          shown = decoded.trim() ? decoded : '___';
        }
        raw += ` ${shown} `;
      } else blockBreak(t.open);
    } else if (t.close === 'select') {
      if (selection) {
        const chosen = selection.chosen.map((c) => c.split(/\s+/).filter(Boolean).join(' ')).filter(Boolean);
        raw += ` ${chosen.length ? chosen.join(', ') : '___'} `;
        selection = null;
      }
    } else if (t.close === 'option') {
      if (selection) selection.reading = false;
    } else blockBreak(t.close);
  }
  return raw.split(/\r?\n/).map((l) => l.split(/\s+/).filter(Boolean).join(' ')).filter(Boolean).join('\n');
}
