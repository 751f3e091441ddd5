// The templates manager: the caller's report templates (or every public one), with filters,
// sorting and pagination; create and edit with a live preview of the sanitised HTML and its
// content_text; delete after confirmation; voice commands and aliases, with a conflict (409)
// shown next to the field; favourites. Needs a key with the templates scope.

import { api } from './api.js';
import { h, mount, field, setFieldError, statusLine, errorBox, loading, debounce, time, confirmDialog } from './dom.js';
import { keyPanel } from './keys.js';
import { sanitize, toText } from './sanitize.js';

const SORTS = [['usage_count', 'Most used'], ['name', 'Name'], ['created_at', 'Created'], ['updated_at', 'Last updated']];
const PAGE_SIZES = ['10', '20', '50', '100'];
const STRING_FIELDS = ['exam_type', 'modality', 'category', 'subcategory'];

/** A voice phrase as the service compares it: case folded, ASCII punctuation as spaces. */
export function normalisePhrase(s) {
  return (s || '').toLowerCase().replace(/[!-/:-@[-`{-~]/g, ' ').split(/\s+/).filter(Boolean).join(' ');
}

/** Renders sanitised HTML in a sandboxed frame: no scripts, no navigation, no same-origin access. */
function previewFrame(title) {
  return h('iframe', { class: 'preview-frame', title, sandbox: '', referrerpolicy: 'no-referrer' });
}
function showInFrame(frame, html) {
  frame.srcdoc = `<!doctype html><meta charset="utf-8"><style>body{font:15px/1.5 system-ui,sans-serif;color:#1a1a1a;margin:.5rem}table{border-collapse:collapse}td,th{border:1px solid #888;padding:.2rem .4rem}</style>${html}`;
}

function select(pairs, value) {
  const el = h('select', {}, pairs.map(([v, label]) => h('option', { value: v }, label)));
  el.value = value;
  return el;
}

export async function render(view) {
  const listRegion = h('section', { 'aria-labelledby': 'tpl-list-h', class: 'tpl-list' });
  const editorRegion = h('section', { 'aria-labelledby': 'tpl-editor-h', class: 'tpl-editor', hidden: true });
  const voiceRegion = h('section', { 'aria-labelledby': 'tpl-voice-h', class: 'tpl-voice' });
  const key = keyPanel('templates', {
    purpose: 'Templates belong to the key’s user.',
    onChange: (k) => { closeEditor(); if (k) refresh(); else showNoKey(); },
  });

  // Filters, sort and pagination.
  const filters = {
    search: field('Search name and text', h('input', { type: 'search', autocomplete: 'off' }), { name: 'search' }),
    exam_type: field('Exam type', h('input', { type: 'text', autocomplete: 'off' }), { name: 'exam_type' }),
    modality: field('Modality', h('input', { type: 'text', autocomplete: 'off' }), { name: 'modality' }),
    category: field('Category', h('input', { type: 'text', autocomplete: 'off' }), { name: 'category' }),
    tags: field('Tags (all of, comma-separated)', h('input', { type: 'text', autocomplete: 'off' }), { name: 'tags' }),
    scope: field('Whose', select([['mine', 'My templates'], ['public', 'All public templates']], 'mine'), { name: 'scope' }),
    sort: field('Sort by', select(SORTS, 'usage_count'), { name: 'sort' }),
    order: field('Order', select([['desc', 'Descending'], ['asc', 'Ascending']], 'desc'), { name: 'order' }),
    limit: field('Per page', select(PAGE_SIZES.map((n) => [n, n]), '20'), { name: 'limit' }),
    favorites_only: field('Favourites only', h('input', { type: 'checkbox' }), { name: 'favorites_only' }),
  };
  const newButton = h('button', { type: 'button' }, 'New template');
  const filterForm = h('form', { class: 'filters tpl-filters', 'aria-label': 'Filter, sort and page templates' },
    Object.values(filters).map((f) => f.wrap));
  const listStatus = statusLine();
  const listBody = h('div', {});
  const pager = h('nav', { 'aria-label': 'Template pages', class: 'pager' });
  let offset = 0;

  mount(listRegion, h('h2', { id: 'tpl-list-h' }, 'Your templates'), h('div', { class: 'actions' }, newButton), filterForm, listStatus, listBody, pager);
  mount(view, h('h1', {}, 'Report templates'),
    h('p', { class: 'lead' }, 'Per-user report templates with voice commands for dictation. HTML content is sanitised by radref on every save; the preview shows what will be stored.'),
    key.el, editorRegion, listRegion, voiceRegion);

  function showNoKey() {
    mount(listBody, h('p', { class: 'empty' }, 'Enter a key with the templates scope above to see and edit templates.'));
    mount(pager);
    listStatus.textContent = '';
  }

  function query() {
    const q = { offset, limit: filters.limit.input.value, sort: filters.sort.input.value, order: filters.order.input.value, scope: filters.scope.input.value };
    for (const n of ['search', 'exam_type', 'modality', 'category', 'tags']) q[n] = filters[n].input.value.trim();
    if (filters.favorites_only.input.checked) q.favorites_only = 'true';
    return q;
  }

  let listCtl = null;
  async function refresh() {
    if (!key.get()) { showNoKey(); return; }
    for (const f of Object.values(filters)) setFieldError(f, null);
    if (listCtl) listCtl.abort();
    const ctl = new AbortController();
    listCtl = ctl;
    try {
      const { data } = await loading({ status: listStatus, region: listBody, label: 'Loading templates…' },
        () => api('/api/v1/templates', { key: key.get(), query: query(), signal: ctl.signal }));
      showList(data);
    } catch (err) {
      if (err.name === 'AbortError') return;
      listStatus.textContent = 'Could not load the templates.';
      if (err.status === 401 || err.status === 403) setFieldError(key.field, err.message);
      if (err.field && filters[err.field]) setFieldError(filters[err.field], err.message);
      mount(listBody, errorBox(err, 'Loading templates failed'));
      mount(pager);
    }
  }

  function showList({ data, meta }) {
    const mine = filters.scope.input.value === 'mine';
    if (!data.length) {
      listStatus.textContent = meta.total ? `No templates on this page (${meta.total} in all).` : 'No templates match.';
      mount(listBody, h('p', { class: 'empty' }, meta.total ? 'This page is empty.' : (mine ? 'No templates yet: create one with “New template”.' : 'No public templates match.')));
    } else {
      listStatus.textContent = `Showing ${meta.offset + 1}–${meta.offset + data.length} of ${meta.total} template${meta.total === 1 ? '' : 's'}.`;
      mount(listBody, h('div', { class: 'table-wrap', role: 'region', 'aria-label': 'Templates', tabindex: '0' },
        h('table', { class: 'tpl-table' },
          h('thead', {}, h('tr', {}, ['Favourite', 'Name', 'Exam · modality · category', 'Voice command', 'Uses', 'Updated', 'Actions'].map((x) => h('th', { scope: 'col' }, x)))),
          h('tbody', {}, data.map(row)))));
    }
    const prev = h('button', { type: 'button', class: 'secondary', disabled: meta.offset === 0 }, '← Previous page');
    const next = h('button', { type: 'button', class: 'secondary', disabled: !meta.has_more }, 'Next page →');
    prev.addEventListener('click', () => { offset = Math.max(0, meta.offset - meta.limit); refresh(); });
    next.addEventListener('click', () => { offset = meta.offset + meta.limit; refresh(); });
    const pageNo = Math.floor(meta.offset / meta.limit) + 1;
    const pages = Math.max(1, Math.ceil(meta.total / meta.limit));
    mount(pager, prev, h('span', {}, ` Page ${pageNo} of ${pages} `), next);
  }

  function row(t) {
    // Another user's public template comes without the owner's fields (owned: false).
    const owned = t.owned !== false;
    const rowError = h('p', { class: 'field-error', role: 'alert', hidden: true });
    const star = h('button', { type: 'button', class: 'star', 'aria-pressed': String(Boolean(t.is_favorite)), disabled: !owned,
      'aria-label': `Favourite: ${t.name}`, title: t.is_favorite ? 'Remove from favourites' : 'Add to favourites' }, t.is_favorite ? '★' : '☆');
    star.addEventListener('click', async () => {
      rowError.hidden = true;
      try {
        await loading({ button: star }, () => api(`/api/v1/templates/${encodeURIComponent(t.id)}`, { method: 'PUT', key: key.get(), body: { is_favorite: !t.is_favorite } }));
        await refresh();
      } catch (err) {
        rowError.hidden = false;
        rowError.textContent = `Favourite not changed: ${err.message}`;
      }
    });
    const edit = h('button', { type: 'button', class: 'secondary' }, owned ? 'Edit' : 'View');
    edit.setAttribute('aria-label', `${owned ? 'Edit' : 'View'} ${t.name}`);
    edit.addEventListener('click', () => openEditor(t, !owned));
    const del = owned ? h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${t.name}` }, 'Delete') : null;
    if (del) {
      del.addEventListener('click', async () => {
        const yes = await confirmDialog({ title: 'Delete this template?', body: `“${t.name}” will be deleted permanently, with its voice command and aliases. This cannot be undone.`, confirm: 'Delete template' });
        if (!yes) { del.focus(); return; }
        rowError.hidden = true;
        try {
          await loading({ button: del, status: listStatus, label: 'Deleting…' }, () => api(`/api/v1/templates/${encodeURIComponent(t.id)}`, { method: 'DELETE', key: key.get() }));
          if (editing && editing.id === t.id) closeEditor();
          await refresh();
          listStatus.textContent = `Deleted “${t.name}”. ${listStatus.textContent}`;
          newButton.focus();
        } catch (err) {
          rowError.hidden = false;
          rowError.textContent = `Not deleted: ${err.message}`;
        }
      });
    }
    return h('tr', { dataset: { id: t.id } },
      h('td', {}, star),
      h('td', {}, h('strong', {}, t.name), t.is_public ? h('span', { class: 'badge' }, 'public') : null,
        t.tags.length ? h('div', { class: 'tags' }, t.tags.map((g) => h('span', { class: 'tag' }, g))) : null),
      h('td', {}, [t.exam_type, t.modality, t.category].map((x) => x || '—').join(' · ')),
      h('td', {}, t.voice_command ? `“${t.voice_command}”` : '—', t.voice_aliases && t.voice_aliases.length ? h('div', { class: 'small muted' }, `+ ${t.voice_aliases.length} alias${t.voice_aliases.length === 1 ? '' : 'es'}`) : null),
      h('td', {}, owned ? String(t.usage_count) : '—'),
      h('td', {}, time(t.updated_at)),
      h('td', { class: 'row-actions' }, edit, del, rowError));
  }
  // The editor.
  let editing = null;
  function closeEditor() {
    editing = null;
    editorRegion.hidden = true;
    mount(editorRegion);
  }

  function openEditor(t, readOnly = false) {
    editing = t;
    const titleText = readOnly ? `Template: ${t.name}` : t ? `Edit template: ${t.name}` : 'New template';
    const f = {
      name: field('Name', h('input', { type: 'text', required: true, maxlength: '100', value: t ? t.name : '' }), { name: 'name' }),
      content: field('Content (HTML)', h('textarea', { rows: '10', required: true, spellcheck: 'true', value: t ? t.content : '' }),
        { name: 'content', hint: 'Allowed: paragraphs, line breaks, headings, lists, tables, bold/italic/underline, div, span, blockquote, pre, code, hr, sub/sup, and the sections, headers, labels and fields (input, select, textarea) of an IHE MRRT template body. Everything else is removed or shown as text.' }),
      exam_type: field('Exam type', h('input', { type: 'text', maxlength: '64', value: t ? t.exam_type || '' : '' }), { name: 'exam_type' }),
      modality: field('Modality', h('input', { type: 'text', maxlength: '64', value: t ? t.modality || '' : '' }), { name: 'modality' }),
      category: field('Category', h('input', { type: 'text', maxlength: '64', value: t ? t.category || '' : '' }), { name: 'category' }),
      subcategory: field('Subcategory', h('input', { type: 'text', maxlength: '64', value: t ? t.subcategory || '' : '' }), { name: 'subcategory' }),
      tags: field('Tags', h('input', { type: 'text', value: t ? t.tags.join(', ') : '' }), { name: 'tags', hint: 'Comma-separated, up to 30.' }),
      voice_command: field('Voice command', h('input', { type: 'text', maxlength: '100', autocomplete: 'off', value: t ? t.voice_command || '' : '' }),
        { name: 'voice_command', hint: 'The phrase you say to insert this template. Unique among your commands and aliases; case and punctuation are ignored.' }),
      voice_aliases: field('Voice aliases', h('textarea', { rows: '3', value: t && t.voice_aliases ? t.voice_aliases.join('\n') : '' }), { name: 'voice_aliases', hint: 'Other phrases for the same template, one per line (up to 20).' }),
      is_favorite: field('Favourite', h('input', { type: 'checkbox', checked: t ? Boolean(t.is_favorite) : false }), { name: 'is_favorite' }),
      is_public: field('Public (other users may read it)', h('input', { type: 'checkbox', checked: t ? t.is_public : false }), { name: 'is_public' }),
    };
    const preview = previewFrame('Preview of the sanitised content');
    const previewText = h('pre', { class: 'content-text', tabindex: '0', 'aria-label': 'Preview of content_text' });
    const update = () => {
      const clean = sanitize(f.content.input.value);
      showInFrame(preview, clean);
      previewText.textContent = toText(clean) || '(empty)';
    };
    f.content.input.addEventListener('input', debounce(update, 150));
    update();
    const formError = h('div', { class: 'form-error' });
    const save = h('button', { type: 'submit' }, t ? 'Save changes' : 'Create template');
    const cancel = h('button', { type: 'button', class: 'secondary' }, readOnly ? 'Close' : 'Cancel');
    const status = statusLine();
    const stored = h('div', { class: 'stored', hidden: true });
    const form = h('form', { class: 'tpl-form', novalidate: true, 'aria-labelledby': 'tpl-editor-h' },
      f.name.wrap,
      h('div', { class: 'content-grid' },
        f.content.wrap,
        h('div', { class: 'previews' },
          h('h3', {}, 'Preview (as radref will store it)'), preview,
          h('h3', {}, 'content_text (plain text)'), previewText)),
      h('div', { class: 'filters' }, f.exam_type.wrap, f.modality.wrap, f.category.wrap, f.subcategory.wrap),
      f.tags.wrap,
      h('div', { class: 'filters' }, f.voice_command.wrap, f.voice_aliases.wrap),
      h('div', { class: 'checks' }, f.is_favorite.wrap, f.is_public.wrap),
      formError,
      readOnly ? h('div', { class: 'actions' }, cancel) : h('div', { class: 'actions' }, save, cancel),
      status);
    if (readOnly) for (const x of Object.values(f)) x.input.disabled = true;
    mount(editorRegion,
      h('h2', { id: 'tpl-editor-h' }, titleText),
      t ? h('p', { class: 'muted small' }, ...(t.owned === false
        ? [`Id ${t.id} · another user's public template · created `, time(t.created_at), ' · updated ', time(t.updated_at)]
        : [`Id ${t.id} · used ${t.usage_count} times · last used `, time(t.last_used_at), ' · created ', time(t.created_at), ' · updated ', time(t.updated_at)])) : null,
      form, stored);
    editorRegion.hidden = false;
    f.name.input.focus();
    editorRegion.scrollIntoView({ block: 'start' });

    cancel.addEventListener('click', () => { closeEditor(); newButton.focus(); });
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      for (const x of Object.values(f)) setFieldError(x, null);
      mount(formError);
      const lines = (s, sep) => s.split(sep).map((x) => x.trim()).filter(Boolean);
      const body = {
        name: f.name.input.value,
        content: f.content.input.value,
        tags: lines(f.tags.input.value, ','),
        voice_command: f.voice_command.input.value.trim() || null,
        voice_aliases: lines(f.voice_aliases.input.value, /\n/),
        is_favorite: f.is_favorite.input.checked,
        is_public: f.is_public.input.checked,
      };
      for (const n of STRING_FIELDS) body[n] = f[n].input.value.trim() || null;
      // Say what is missing before asking the server, which would say the same.
      if (!body.name.trim()) { setFieldError(f.name, 'A name is required.'); f.name.input.focus(); return; }
      if (!body.content.trim()) { setFieldError(f.content, 'Content is required.'); f.content.input.focus(); return; }
      try {
        const { data } = await loading({ status, button: save, region: form, label: t && editing ? 'Saving…' : 'Creating…' }, () => (editing
          ? api(`/api/v1/templates/${encodeURIComponent(editing.id)}`, { method: 'PUT', key: key.get(), body })
          : api('/api/v1/templates', { method: 'POST', key: key.get(), body })));
        const created = !editing;
        editing = data.data;
        status.textContent = created ? `Created “${data.data.name}”.` : `Saved “${data.data.name}”.`;
        save.textContent = 'Save changes';
        editorRegion.querySelector('h2').textContent = `Edit template: ${data.data.name}`;
        showStored(data.data);
        refresh();
      } catch (err) {
        status.textContent = 'Not saved.';
        showSaveError(err, f, formError, body);
      }
    });

    function showStored(saved) {
      const frame = previewFrame('Content as stored by radref');
      showInFrame(frame, saved.content);
      const differs = saved.content !== sanitize(f.content.input.value);
      mount(stored,
        h('h3', {}, 'As stored by radref'),
        differs ? h('p', { class: 'warn' }, 'The stored HTML differs from the preview above; the stored version is what radref serves.') : null,
        frame,
        h('h4', {}, 'content_text'),
        h('pre', { class: 'content-text', tabindex: '0' }, saved.content_text),
        h('details', {}, h('summary', {}, 'Stored HTML source'), h('pre', { class: 'content-text' }, saved.content)));
      stored.hidden = false;
    }
  }

  function showSaveError(err, f, formError, body) {
    if (err.status === 401 || err.status === 403) setFieldError(key.field, err.message);
    if (err.status === 409) {
      // The service names voice_command; when the taken phrase is one of the aliases, say so there too.
      const phrase = (/'([^']+)'/.exec(err.message) || [])[1];
      const alias = phrase && body.voice_aliases.find((a) => normalisePhrase(a) === phrase);
      const target = alias && normalisePhrase(body.voice_command) !== phrase ? f.voice_aliases : f.voice_command;
      setFieldError(target, `${err.message}.`);
      const holder = err.details.existing_template_id;
      if (holder) {
        const open = h('button', { type: 'button', class: 'link-button' }, 'Open the template that has it');
        open.addEventListener('click', async () => {
          try {
            const { data } = await api(`/api/v1/templates/${encodeURIComponent(holder)}`, { key: key.get() });
            openEditor(data.data);
          } catch (e) { target.error.append(' ', errorBox(e, 'Could not open it')); }
        });
        target.error.append(' ', open);
      }
      target.input.focus();
      return;
    }
    const target = err.field && f[err.field];
    if (target) {
      setFieldError(target, err.message);
      target.input.focus();
    } else {
      mount(formError, errorBox(err, 'Saving failed'));
    }
  }

  // Voice lookup: which template answers to a spoken command.
  const cmd = field('Spoken command', h('input', { type: 'text', autocomplete: 'off' }), { name: 'command', hint: 'Finds your template whose command or alias matches, ignoring case and punctuation.' });
  const find = h('button', { type: 'submit' }, 'Find template');
  const voiceStatus = statusLine();
  const voiceResult = h('div', {});
  const voiceForm = h('form', { class: 'inline-form', 'aria-label': 'Find a template by voice command' }, cmd.wrap, h('div', { class: 'actions' }, find));
  mount(voiceRegion, h('h2', { id: 'tpl-voice-h' }, 'Try a voice command'), voiceForm, voiceStatus, voiceResult);
  voiceForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    setFieldError(cmd, null);
    mount(voiceResult);
    if (!key.get()) { setFieldError(cmd, 'Enter a key with the templates scope first.'); return; }
    if (!cmd.input.value.trim()) { setFieldError(cmd, 'Say (type) a command first.'); return; }
    try {
      const { data } = await loading({ status: voiceStatus, button: find, label: 'Looking up…' },
        () => api('/api/v1/templates/voice', { key: key.get(), query: { command: cmd.input.value } }));
      const t = data.data;
      const open = h('button', { type: 'button', class: 'secondary' }, `Open “${t.name}”`);
      open.addEventListener('click', () => openEditor(t));
      voiceStatus.textContent = `“${cmd.input.value}” inserts “${t.name}”.`;
      mount(voiceResult, h('pre', { class: 'content-text' }, t.content_text), open);
    } catch (err) {
      voiceStatus.textContent = '';
      setFieldError(cmd, err.status === 404 ? `No template of yours answers to “${cmd.input.value}”.` : err.message);
    }
  });

  newButton.addEventListener('click', () => openEditor(null));
  const again = () => { offset = 0; refresh(); };
  const typed = debounce(again, 300);
  for (const [n, f] of Object.entries(filters)) f.input.addEventListener(f.input.tagName === 'INPUT' && f.input.type !== 'checkbox' ? 'input' : 'change', n === 'limit' || n === 'sort' || n === 'order' || n === 'scope' || n === 'favorites_only' ? again : typed);
  filterForm.addEventListener('submit', (e) => { e.preventDefault(); again(); });
  await refresh();
}
