// The runtime's own floor in the HTTP benchmark: a Worker that does nothing but answer every
// request with the same small JSON body and the four headers of radref's health answer, from
// a Headers object made once. No service can answer faster in this runtime, and its p99 shows
// the stalls the runtime itself adds (garbage collection of its per-request objects), which
// every Worker in the process shares.
const BODY = JSON.stringify({ status: "ok", service: "floor" });
const HEADERS = new Headers({
  "content-type": "application/json; charset=utf-8",
  "access-control-allow-origin": "*",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
});

export default {
  fetch() {
    return new Response(BODY, { headers: HEADERS });
  },
};
