// MCP conformance from a client's side: the official TypeScript SDK connects to the running
// worker over Streamable HTTP, lists the tools and calls each one. The SDK validates every
// structuredContent against the tool's outputSchema, so a schema drift fails here.
//
// Usage: node tests/mcp/client.mjs BASE_URL   (run by `make test`)
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const base = process.argv[2];
assert.ok(base, "usage: client.mjs BASE_URL");

const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
  // Its own client address, so the low test rate limit of other clients does not apply.
  requestInit: { headers: { "CF-Connecting-IP": "192.0.2.200" } },
});
const client = new Client({ name: "radref-mcp-test", version: "1.0.0" });
await client.connect(transport);
const server = client.getServerVersion();
assert.equal(server.name, "radref");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, [
  "radref_coverage",
  "radref_diff",
  "radref_evaluate",
  "radref_get_system",
  "radref_ground",
  "radref_list_systems",
  "radref_rescore",
  "radref_search",
]);
for (const tool of tools) {
  assert.equal(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
  assert.equal(tool.inputSchema.type, "object");
  assert.equal(tool.outputSchema?.type, "object");
}

async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.content)}`);
  // One text part: the markdown block for a tool that writes one (what a model should read),
  // otherwise the structured answer as JSON text.
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, "text");
  if (typeof result.structuredContent.markdown === "string") {
    assert.equal(result.content[0].text, result.structuredContent.markdown);
  } else {
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  }
  return result.structuredContent;
}

const search = await call("radref_search", { query: "fleischer", limit: 3 });
assert.equal(search.hits[0].slug, "fleischner-2017");
assert.ok(search.hits.length <= 3);

const system = await call("radref_get_system", { slug: "acr-ti-rads-2017" });
assert.equal(system.slug, "acr-ti-rads-2017");
assert.ok(system.outcomes.length >= 5);
const line = system.outcomes[0].definition;
for (const key of ["text", "citation", "locator", "consensus", "verification"]) {
  assert.ok(line[key], `line has ${key}`);
}

const ground = await call("radref_ground", {
  text: "Baseline lung cancer screening LDCT: 7 mm solid nodule",
  verified: false,
  limit: 2,
});
assert.equal(ground.systems[0].slug, "acr-lung-rads-v2022");
assert.ok(ground.markdown.startsWith("## radref grounded context"));

const evaluation = await call("radref_evaluate", {
  slug: "acr-ti-rads-2017",
  inputs: {
    composition: "solid",
    echogenicity: "hypoechoic",
    shape: "wider_than_tall",
    margin: "smooth",
    echogenic_foci: ["none_or_large_comet_tail"],
    max_diameter_mm: 15,
  },
});
assert.equal(evaluation.units[0].outcome.code, "TR4");
assert.equal(evaluation.units[0].rule.citation, "tessler2017");
assert.equal(evaluation.units[1].result, "FNA");
assert.ok(evaluation.markdown.includes("**FNA**"));
const stopped = await call("radref_evaluate", {
  slug: "fleischner-2017",
  inputs: { nodule_type: "part_solid", nodule_number: "single", size_mm: 8 },
  units: ["subsolid_nodules"],
});
assert.equal(stopped.units[0].status, "needs_inputs");
assert.deepEqual(stopped.missing, ["solid_component_mm"]);
const refused = await client.callTool({
  name: "radref_evaluate",
  arguments: { slug: "acr-ti-rads-2017", inputs: { composition: "solidish" } },
});
assert.equal(refused.isError, true);
assert.match(refused.content[0].text, /allowed: cystic/);

const list = await call("radref_list_systems", { organ: "lung", family: "algorithm" });
assert.ok(list.total >= 2);
assert.ok(list.systems.every((s) => s.organs.includes("lung") && s.family === "algorithm"));

const coverage = await call("radref_coverage", {});
assert.ok(coverage.totals.systems >= 41);
assert.ok(coverage.not_covered.length > 0);

const diff = await call("radref_diff", { slug: "pi-rads-v2-2015", other: "pi-rads-v2-1-2019" });
assert.equal(diff.direction, "forward");
const added = diff.changes.find((c) => c.kind === "rule_added" && c.unit === "transition_zone");
assert.ok(added, JSON.stringify(diff.counts));
assert.ok(added.to[0].citation && added.to[0].locator);
assert.ok(diff.markdown.includes("### rule added"));

const rescore = await call("radref_rescore", {
  slug: "pi-rads-v2-2015",
  other: "pi-rads-v2-1-2019",
  inputs: [{ t2w_tz_score: "2", dwi_score: "5" }, { t2w_tz_score: "2", dwi_score: "2" }],
});
assert.equal(rescore.counts.cases, 2);
assert.equal(rescore.counts.moved, 1);
assert.deepEqual(rescore.moved, [{ unit: "transition_zone", from: "PI-RADS 2", to: "PI-RADS 3", count: 1 }]);
const notAVersion = await client.callTool({
  name: "radref_diff",
  arguments: { slug: "pi-rads-v2-2015", other: "fleischner-2017" },
});
assert.equal(notAVersion.isError, true);
assert.match(notAVersion.content[0].text, /not a version/);

const bad = await client.callTool({ name: "radref_get_system", arguments: { slug: "fleischner-2005" } });
assert.equal(bad.isError, true);
assert.match(bad.content[0].text, /fleischner-2017/);

await client.ping();
await client.close();
console.log(`mcp ok: ${names.length} tools listed and called with ${server.name} ${server.version}`);
