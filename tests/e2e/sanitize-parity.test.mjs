// The template editor previews what radref will store with a JavaScript copy of the service's
// sanitiser (public/js/sanitize.js beside src/html.rs). This test keeps the two in step: each
// input below is saved through the API, and the stored content and content_text must equal
// what the page's copy produces. A change to one sanitiser without the other fails here.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { apiCall, E2E_KEY } from './support.mjs';
import { sanitize, toText } from '../../public/js/sanitize.js';

const INPUTS = [
  '<h2>FINDINGS</h2><p>Lungs: <b>clear</b>.</p>',
  '<p onclick="alert(1)" class="x">kept text</p><script>alert(1)</script>',
  '<style>p{color:red}</style><p>after style</p>',
  '<a href="javascript:alert(1)">link text</a> and <img src=x onerror=alert(1)>',
  '<table><tr><th>Segment</th><td>7</td></tr></table>',
  '<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>',
  'Plain text with &amp; entity, &lt;tag&gt; and a bare < sign',
  '<p>unclosed <b>bold <i>italic</p>',
  '<!-- a comment --><p>after comment</p>',
  '<svg><script>alert(1)</script><text>inside svg</text></svg><p>after svg</p>',
  '<P STYLE="x">Upper case tags</P><BR><hr/>',
  '<div><span title="t">span</span> <sub>2</sub> <sup>3</sup> <code>x&lt;y</code></div>',
  '<iframe src="https://example.org"></iframe><p>after iframe</p>',
  '<p>Line one<br>Line two</p><blockquote>quoted</blockquote><pre>  pre  text </pre>',
  '<textarea><p>not markup</p></textarea><p>after textarea</p>',
  '<p>Ünïcödé — “quotes” and emoji 🫁</p>',
  // IHE MRRT body: sections, labels and fields keep their checked attributes only.
  '<section id="f" class="level1" data-section-name="Findings" onclick="x()"><header class="level1">Findings</header>'
    + '<p><label for="n1">Size</label> <INPUT TYPE=NUMBER id=n1 name="size" value="a &amp; b" min="" max="150" '
    + 'data-field-units="mm" data-radref-system="acr-ti-rads-2017" data-radref-input="max_diameter_mm" onfocus="x()" data-evil="1" checked/> mm</p>'
    + '<p><select id=c multiple data-field-type="SELECTION"><option value=a selected>first</option><option>second</option>'
    + '<option id="o3" selected="">third</option></select> <select id=d><option value=x>x</option></select></p>'
    + '<p><input type="checkbox" id="cb" checked> <input type="image" src="x" formaction="javascript:x"> <input id="bad id" value=""></p>'
    + '<textarea id=t rows=3 cols=abc><p>not markup</p><script>alert(1)</script></TEXTAREA ><p>after</p></section>',
  '<textarea></textareax></textarea><title><b>t</title><p>y</p><style></style ><img src=x onerror=alert(1)>',
  'controls\u0000 and\u0007 tabs\tkept <input value="\u0001x">',
];

const created = [];
after(async () => {
  for (const id of created) await apiCall(`/api/v1/templates/${id}`, { method: 'DELETE', key: E2E_KEY });
});

test('the preview sanitiser and the service store the same HTML and content_text', async () => {
  for (const [i, content] of INPUTS.entries()) {
    const reply = await apiCall('/api/v1/templates', {
      method: 'POST',
      key: E2E_KEY,
      body: { name: `sanitiser parity ${i} ${Date.now()}`, content },
    });
    assert.equal(reply.status, 201, `input ${i}: ${JSON.stringify(reply.body)}`);
    const stored = reply.body.data;
    created.push(stored.id);
    const preview = sanitize(content);
    assert.equal(stored.content, preview, `HTML of input ${i}: ${content}`);
    assert.equal(stored.content_text, toText(preview), `content_text of input ${i}: ${content}`);
  }
});
