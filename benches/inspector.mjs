// A workerd process's inspector, as benches/collect.mjs and benches/profile.mjs speak to it: the
// isolates it lists, and a session with one of them (Chrome DevTools Protocol over a WebSocket).

// The isolates (targets) of the workerd whose inspector listens on HOST:PORT.
export async function targets(address) {
  return (await fetch(`http://${address}/json/list`)).json();
}

// Opens a session with `target`: `call(method, params)` resolves to the reply, `context()` is
// the isolate's execution context once Runtime.enable has reported it, `close()` ends it.
export async function session(target) {
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`cannot reach the inspector of ${target.title}`));
  });
  let id = 0;
  let context = null;
  const pending = new Map();
  socket.onmessage = (message) => {
    const reply = JSON.parse(message.data);
    if (reply.method === "Runtime.executionContextCreated") {
      context = reply.params.context.id;
    }
    pending.get(reply.id)?.(reply);
    pending.delete(reply.id);
  };
  const call = (method, params = {}) =>
    new Promise((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, context: () => context, close: () => socket.close() };
}
