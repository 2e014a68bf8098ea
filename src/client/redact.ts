/**
 * Redaction of credentials from text that may end up in an error message, a stack trace or a log line.
 * Access key values travel in URL paths and bodies and the API key in a header, so anything derived
 * from a request (server messages, undici error messages) is scrubbed before we keep it.
 */

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/**
 * The forms in which a secret can show up in text: as is, and percent-encoded the way it was put in
 * the URL path or query (`encodeURIComponent` / `URLSearchParams`), when those differ.
 */
function secretForms(secret: string): string[] {
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
  ]);
  return [...forms];
}

/**
 * Replaces every occurrence of every secret in `text` with {@link REDACTED}.
 *
 * Empty secrets are ignored (replacing "" would shred the text). Longer secrets are replaced first,
 * so that a secret containing another one is removed whole.
 *
 * @example redactSecrets("key bka_123 not found", ["bka_123"]) // "key [REDACTED] not found"
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const forms = secrets
    .filter((s) => s.length > 0)
    .flatMap(secretForms)
    .sort((a, b) => b.length - a.length);
  let result = text;
  for (const form of forms) result = result.split(form).join(REDACTED);
  return result;
}

/** A URL for display: without user info (which may hold credentials), query or fragment. */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}
