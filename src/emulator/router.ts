/** Path-template routing shared by the API and the controls. */
import { ApiError, notFound } from "./errors";

/** One route: a method, a template such as `/access-key/{accessKey}/permissions`, and its handler. */
export interface RouteDefinition<H> {
  method: string;
  template: string;
  handler: H;
}

/** A request matched to a route. `route` is the route key, such as `"POST /access-key"`. */
export interface RouteMatch<H> {
  kind: "found";
  route: string;
  template: string;
  params: Record<string, string>;
  handler: H;
}

/** The outcome of matching a request. */
export type MatchResult<H> =
  RouteMatch<H> | { kind: "method_not_allowed"; template: string; allow: string[] } | { kind: "not_found" };

function segmentsOf(path: string): string[] {
  return path.split("/").slice(1);
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A malformed escape cannot be a stored value; keep it raw so the lookup simply fails.
    return segment;
  }
}

/** Matches paths against templates; `{name}` matches one non-empty segment. */
export class Router<H> {
  private readonly routes: readonly (RouteDefinition<H> & { segments: string[] })[];

  constructor(routes: readonly RouteDefinition<H>[]) {
    this.routes = routes.map((route) => ({ ...route, segments: segmentsOf(route.template) }));
  }

  /** Every route key, such as `"POST /access-key"`. */
  keys(): string[] {
    return this.routes.map((route) => `${route.method} ${route.template}`);
  }

  /** The literal segments of all templates: the words a redacted path may keep. */
  vocabulary(): Set<string> {
    return new Set(
      this.routes.flatMap((route) => route.segments.filter((segment) => !segment.startsWith("{"))),
    );
  }

  match(method: string, path: string): MatchResult<H> {
    const segments = segmentsOf(path);
    const allow: string[] = [];
    let template: string | undefined;
    for (const route of this.routes) {
      const params = this.bind(route.segments, segments);
      if (!params) continue;
      if (route.method === method) {
        return {
          kind: "found",
          route: `${method} ${route.template}`,
          template: route.template,
          params,
          handler: route.handler,
        };
      }
      template ??= route.template;
      allow.push(route.method);
    }
    return template === undefined ? { kind: "not_found" } : { kind: "method_not_allowed", template, allow };
  }

  private bind(template: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
    if (template.length !== segments.length) return undefined;
    const params: Record<string, string> = {};
    for (const [index, part] of template.entries()) {
      const segment = segments[index] ?? "";
      if (part.startsWith("{")) {
        if (segment === "") return undefined;
        params[part.slice(1, -1)] = decode(segment);
      } else if (part !== segment) {
        return undefined;
      }
    }
    return params;
  }

  /**
   * A path safe to log: literal words of the templates stay, every other segment becomes `{redacted}`,
   * since an unknown path may carry a key value anywhere.
   */
  redact(path: string): string {
    const words = this.vocabulary();
    return segmentsOf(path)
      .map((segment) => (segment === "" || words.has(segment) ? segment : "{redacted}"))
      .reduce((joined, segment) => `${joined}/${segment}`, "");
  }

  /**
   * The matched route, or the 404 / 405 error to answer. Messages show `prefix` and the template or the
   * redacted path, never the raw path.
   */
  resolve(method: string, path: string, prefix: string): RouteMatch<H> {
    const match = this.match(method, path);
    if (match.kind === "found") return match;
    if (match.kind === "not_found")
      throw notFound(`No route matches ${method} ${prefix}${this.redact(path)}`);
    const allow = match.allow.join(", ");
    throw new ApiError(
      405,
      "method_not_allowed",
      `${method} is not allowed on ${prefix}${match.template}; allowed: ${allow}`,
      undefined,
      { allow },
    );
  }

  /** The path as logs may show it: the template when a route's path matches, else the redacted path. */
  loggable(method: string, path: string): string {
    const match = this.match(method, path);
    return match.kind === "not_found" ? this.redact(path) : match.template;
  }
}
