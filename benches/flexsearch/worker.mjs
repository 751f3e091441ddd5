// The second competitor of the HTTP benchmark: the JavaScript Worker a user after raw speed
// would write instead of radref's search. It holds the same corpus as the MiniSearch worker
// (docs.json, exported from the compiled corpus by `bench-export`), indexes it with FlexSearch
// when the isolate starts, and answers GET /api/v1/search?q=&limit= and a trivial health
// route. FlexSearch runs in a strong reasonable configuration: a document index with forward
// (prefix) tokenizing, the LatinBalance encoder (phonetic folding, its typo tolerance), and the
// fields in the order of the same boosts as MiniSearch's (names and codes before running text;
// results are merged across fields). Of the configurations tried on the bench's query mix
// (tokenizers strict and forward; encoders Default, LatinBalance, LatinAdvanced, LatinExtra;
// with and without suggestions), this one put the query's own system first most often and
// was also the fastest.
import { Document, Charset } from "flexsearch";
import docs from "./docs.json";

// Field order is rank order when results are merged: higher-boosted fields first.
const FIELDS = [
  "short_name", "abbreviations", "name", "code", "label", "synonyms", "system_names",
  "summary", "definition",
];
// Built on the first request: FlexSearch's encoder sets a timer, which a Worker may not do in
// global scope. The bench warms every service up before it times anything.
let index = null;
function build() {
  const built = new Document({
    document: {
      id: "id",
      index: FIELDS.map((field) => ({ field, tokenize: "forward", encoder: Charset.LatinBalance })),
      store: ["type", "slug", "system", "code", "label", "name"],
    },
  });
  for (const doc of docs) {
    built.add(doc);
  }
  return built;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

function answer(status, value) {
  return new Response(JSON.stringify(value), { status, headers: JSON_HEADERS });
}

export default {
  fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/api/v1/health") {
      return answer(200, { status: "ok", service: "flexsearch", documents: docs.length });
    }
    if (url.pathname !== "/api/v1/search") {
      return answer(404, { error: "not found" });
    }
    const q = url.searchParams.get("q") ?? "";
    if (!q.trim()) {
      return answer(400, { error: "query parameter 'q' is required" });
    }
    const limit = Math.min(Math.max(parseInt(url.searchParams.get("limit") ?? "10", 10) || 10, 1), 50);
    index ??= build();
    const hits = index.search(q, { limit, merge: true, enrich: true });
    const data = hits.slice(0, limit).map((h) => ({
      type: h.doc.type,
      slug: h.doc.slug,
      system: h.doc.system,
      code: h.doc.type === "outcome" ? h.doc.code : undefined,
      label: h.doc.type === "outcome" ? h.doc.label : h.doc.name,
      fields: h.field,
      links: { system: `/api/v1/systems/${h.doc.slug}` },
    }));
    return answer(200, { query: q, data, meta: { total: data.length, limit } });
  },
};
