// Runs a full garbage collection in every isolate of a workerd process, through its inspector:
//   node benches/collect.mjs HOST:PORT
// `make bench` calls it before each timed row, so that every row starts from a collected heap.
// workerd keeps a few hundred bytes of every request past the young generation's collections
// (the constant-answer floor as much as radref), so an isolate's heap grows with the requests it
// has answered until a full collection, whose pause grows with it: without this, a row's p99
// depended on how many requests the rows before it had left behind.
const [address] = process.argv.slice(2);
const targets = await (await fetch(`http://${address}/json/list`)).json();
for (const target of targets) {
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`cannot reach the inspector of ${target.title}`));
  });
  let id = 0;
  const pending = new Map();
  socket.onmessage = (message) => {
    const reply = JSON.parse(message.data);
    pending.get(reply.id)?.(reply);
    pending.delete(reply.id);
  };
  const call = (method) =>
    new Promise((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, params: {} }));
    });
  await call("HeapProfiler.enable");
  await call("HeapProfiler.collectGarbage");
  await call("HeapProfiler.disable");
  socket.close();
}
