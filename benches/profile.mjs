// Samples the CPU of radref's isolate in a running workerd through its inspector, for as long as
// a load runs against it, and prints where the time went by function (the wasm's own function
// names, kept by the profiling build of scripts/profile.sh):
//   node benches/profile.mjs HOST:PORT SECONDS OUT.cpuprofile [ROWS]
// The profile is V8's sampling profiler (every 100 µs), the one browsers' devtools read: OUT can
// be opened there too. Shares are of the samples in which the isolate was busy (not idle).
import { writeFileSync } from "node:fs";
import { session, targets } from "./inspector.mjs";

const [address, seconds, out, rows = "25"] = process.argv.slice(2);
if (!address || !seconds || !out) {
  console.error("usage: node benches/profile.mjs HOST:PORT SECONDS OUT.cpuprofile [ROWS]");
  process.exit(2);
}
const all = await targets(address);
const target = all.find((t) => /radref/.test(t.title));
if (!target) {
  console.error(`no radref isolate among ${all.map((t) => t.title).join(", ")}`);
  process.exit(1);
}
const { call, close } = await session(target);
await call("Profiler.enable");
await call("Profiler.setSamplingInterval", { interval: 100 });
await call("Profiler.start");
await new Promise((resolve) => setTimeout(resolve, Number(seconds) * 1000));
const reply = await call("Profiler.stop");
close();
if (reply.error) {
  console.error(`Profiler.stop: ${JSON.stringify(reply.error)}`);
  process.exit(1);
}
const profile = reply.result.profile;
writeFileSync(out, JSON.stringify(profile));

// Self samples by function, and inclusive samples (a function counted once per sample however
// deep it recurs).
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => n.callFrame.functionName || "(native)";
const self = new Map();
const inclusive = new Map();
let busy = 0;
for (const n of profile.nodes) {
  const hits = n.hitCount ?? 0;
  if (name(n) === "(idle)" || hits === 0) continue;
  busy += hits;
  self.set(name(n), (self.get(name(n)) ?? 0) + hits);
  const seen = new Set();
  for (let at = n.id; at !== undefined; at = parent.get(at)) {
    const k = name(nodes.get(at));
    if (!seen.has(k)) {
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + hits);
    }
  }
}
// A wasm function's name without its Rust hash suffix.
const short = (k) => k.replace(/::h[0-9a-f]{16}/g, "").slice(0, 110);
const table = (title, counts) => {
  console.log(`| ${title} | share of busy samples |\n|---|---:|`);
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(rows))
    .forEach(([k, v]) => console.log(`| \`${short(k)}\` | ${((100 * v) / busy).toFixed(1)}% |`));
  console.log();
};
console.log(`${busy} busy samples of 100 µs\n`);
table("self time", self);
table("inclusive time", inclusive);
