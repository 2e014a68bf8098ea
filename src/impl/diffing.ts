import { isUnknown } from "./unknown";

/**
 * Whether input `key` differs between the recorded outputs and the new inputs. An absent value
 * counts as `fallback` (its default), so omitting an input and setting its default compare equal;
 * a value not known yet (preview) counts as changed.
 */
export function inputChanged(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  key: string,
  fallback?: unknown,
): boolean {
  if (isUnknown(news[key])) return true;
  return JSON.stringify(olds[key] ?? fallback) !== JSON.stringify(news[key] ?? fallback);
}
