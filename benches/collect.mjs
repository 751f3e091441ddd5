// Runs a full garbage collection in every isolate of a workerd process, through its inspector:
//   node benches/collect.mjs HOST:PORT
// `make bench` calls it before each timed row, so that every row starts from a collected heap.
// workerd keeps a few hundred bytes of every request past the young generation's collections
// (the constant-answer floor as much as radref), so an isolate's heap grows with the requests it
// has answered until a full collection, whose pause grows with it: without this, a row's p99
// depended on how many requests the rows before it had left behind. The bench's workerd config
// exposes V8's `gc()` (`v8Flags`); the inspector's own HeapProfiler.collectGarbage never answers
// in workerd.
import { session, targets } from "./inspector.mjs";

const [address] = process.argv.slice(2);
for (const target of await targets(address)) {
  const { call, context, close } = await session(target);
  // Runtime.enable reports the isolate's context, in which `gc()` is evaluated.
  await call("Runtime.enable");
  const reply = await call("Runtime.evaluate", { expression: "gc()", contextId: context() });
  await call("Runtime.disable");
  close();
  if (reply.error || reply.result?.exceptionDetails) {
    console.error(`gc() in ${target.title}: ${JSON.stringify(reply.error ?? reply.result.exceptionDetails)}`);
    process.exit(1);
  }
}
