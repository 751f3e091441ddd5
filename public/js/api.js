// The only place the page talks to radref: fetch against the same origin's public API, exactly
// as any browser client would. Errors come back as ApiError with the status, the API's code and
// message, and details.field when the API names the field at fault.

/** An error from the API (or the network), readable as it stands. */
export class ApiError extends Error {
  constructor({ status = 0, code = null, message, details = {}, retryAfter = null }) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details || {};
    this.retryAfter = retryAfter;
  }

  /** The field the API blamed, if any (details.field of the detailed error format). */
  get field() {
    return this.details.field || null;
  }
}

const STATUS_WORDS = {
  400: 'The request was not accepted',
  401: 'The API key was not accepted',
  403: 'This key may not do that',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Too large',
  414: 'The query is too long',
  422: 'A value is not valid',
  429: 'Too many requests',
  500: 'The server failed',
  503: 'The service is unavailable',
};

/**
 * Calls the API. Options: method, key (sent as a bearer token), query (object; empty values
 * are left out), body (JSON), accept ('json' or 'text'), signal.
 * Resolves to {status, data, headers}; data is null for 204.
 */
export async function api(path, { method = 'GET', key, query, body, accept = 'json', signal } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    url.searchParams.set(name, String(value));
  }
  const headers = {};
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError({ message: `Could not reach the radref API (${err.message}). Check that the service is running.` });
  }
  if (response.status === 204) return { status: 204, data: null, headers: response.headers };
  const text = await response.text();
  const isJson = (response.headers.get('content-type') || '').includes('json');
  let parsed = null;
  if (isJson && text) {
    try { parsed = JSON.parse(text); } catch { parsed = null; }
  }
  if (!response.ok) throw toError(response, parsed, text);
  if (accept === 'text') return { status: response.status, data: text, headers: response.headers };
  if (parsed === null) {
    throw new ApiError({ status: response.status, message: 'The API answered with something that is not JSON.' });
  }
  return { status: response.status, data: parsed, headers: response.headers };
}

function toError(response, parsed, text) {
  const status = response.status;
  const retryAfter = response.headers.get('Retry-After');
  let code = null;
  let message = null;
  let details = {};
  const e = parsed && parsed.error;
  if (typeof e === 'string') {
    message = e; // corpus format: {"error": "message"}
  } else if (e && typeof e === 'object') {
    code = e.code || null; // detailed format: {"error": {code, message, details}}
    message = e.message || null;
    details = e.details || {};
  }
  if (!message) {
    message = STATUS_WORDS[status] || `Unexpected answer (HTTP ${status})`;
    if (!parsed && text && text.length < 200) message += `: ${text}`;
  }
  if (status === 429 && retryAfter) message += ` Try again in ${retryAfter} s.`;
  if (status === 401) message += ' Check the key you entered above.';
  return new ApiError({ status, code, message, details, retryAfter });
}
