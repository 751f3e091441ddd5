// The module wrangler runs (wrangler.toml `main`): the worker's handlers as a plain object.
//
// worker-build's own entrypoint (the default export of build/index.js) is a WorkerEntrypoint
// class behind a Proxy, which costs an instance and two proxies per request. Here the runtime
// calls the wasm exports directly; they are static methods of the `Handlers` class (see
// src/platform/mod.rs), which use no `this`, so they are exported as they are. Only the class
// itself is reached through worker-build's Proxy, once, when this module loads. The
// wasm-bindgen glue in build/index.js still restarts the instance after a panic.
import { Handlers } from "../../build/index.js";

const { fetch, queue, scheduled } = Handlers;

export default { fetch, queue, scheduled };
