// The console's one way to the server: Connect-style JSON calls on the HTTP door.
// The token lives in sessionStorage only (gone when the tab closes) and travels as
// `Authorization: Bearer`; no cookies are used, and `Content-Type: application/json` is not a
// "simple" content type, so another site cannot forge these requests without a CORS preflight.

const KEY = "pushwire.token";

/** The signed-in token, or null. */
export function token() { return sessionStorage.getItem(KEY); }
/** Keeps `value` for this tab's session. */
export function setToken(value) { sessionStorage.setItem(KEY, value); }
/** Forgets the token (and what kind it was). */
export function clearToken() { sessionStorage.removeItem(KEY); sessionStorage.removeItem(KIND); }

const KIND = "pushwire.kind";
/** "admin" or "application" once the server said which the token is; null before. */
export function tokenKind() { return sessionStorage.getItem(KIND); }
/** Remembers which kind the token is, so that a reload asks for its pages at once. */
export function setTokenKind(kind) { sessionStorage.setItem(KIND, kind); }

/** A failed call: the server's `{code, message}` and the HTTP status. */
export class CallError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

/** Calls `Service/Method` with `body`; resolves to the reply, rejects with a CallError. */
export async function call(method, body = {}) {
  const headers = { "Content-Type": "application/json" };
  const current = token();
  if (current) headers.Authorization = `Bearer ${current}`;
  const response = await fetch(`/pushwire.v1.${method}`, {
    method: "POST", headers, body: JSON.stringify(body), credentials: "omit", cache: "no-store",
  });
  const text = await response.text();
  let reply = {};
  try { reply = text ? JSON.parse(text) : {}; } catch { reply = { code: "unknown", message: text }; }
  if (!response.ok) throw new CallError(response.status, reply.code || "unknown", reply.message || text);
  return reply;
}
