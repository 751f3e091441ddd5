// The competitor of the HTTP benchmark: the JavaScript Worker a user would write instead of
// radref's search. It holds the same corpus (benches/minisearch/docs.json, exported from the
// compiled corpus by `bench-export`), indexes it with MiniSearch when the isolate starts, and
// answers GET /api/v1/search?q=&limit= and a trivial health route. MiniSearch runs in its
// strongest reasonable configuration: prefix search, fuzzy 0.2, and field boosts that favour
// names and codes over running text.
import MiniSearch from "minisearch";
import docs from "./docs.json";

const FIELDS = [
  "name", "short_name", "abbreviations", "synonyms", "summary",
  "code", "label", "definition", "system_names",
];
const index = new MiniSearch({
  fields: FIELDS,
  storeFields: ["type", "slug", "system", "code", "label", "name"],
  searchOptions: {
    prefix: true,
    fuzzy: 0.2,
    boost: {
      name: 3, short_name: 4, abbreviations: 4, synonyms: 2, summary: 0.5,
      code: 3, label: 2, definition: 0.5, system_names: 1.5,
    },
  },
});
index.addAll(docs);

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

function answer(status, value) {
  return new Response(JSON.stringify(value), { status, headers: JSON_HEADERS });
}

export default {
  fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/api/v1/health") {
      return answer(200, { status: "ok", service: "minisearch", documents: docs.length });
    }
    if (url.pathname !== "/api/v1/search") {
      return answer(404, { error: "not found" });
    }
    const q = url.searchParams.get("q") ?? "";
    if (!q.trim()) {
      return answer(400, { error: "query parameter 'q' is required" });
    }
    const limit = Math.min(Math.max(parseInt(url.searchParams.get("limit") ?? "10", 10) || 10, 1), 50);
    const hits = index.search(q).slice(0, limit);
    const data = hits.map((h) => ({
      type: h.type,
      slug: h.slug,
      system: h.system,
      code: h.type === "outcome" ? h.code : undefined,
      label: h.type === "outcome" ? h.label : h.name,
      score: Math.round(h.score * 1000) / 1000,
      terms: h.terms,
      links: { system: `/api/v1/systems/${h.slug}` },
    }));
    return answer(200, { query: q, data, meta: { total: data.length, limit } });
  },
};
