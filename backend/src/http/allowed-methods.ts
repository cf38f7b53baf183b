import type { Express } from 'express';

/** A layer of Express's router: a route's has the methods it takes. */
interface RouterLayer {
  route?: { methods: Record<string, boolean | undefined> };
  match(path: string): unknown;
}

/**
 * The methods the app's routes take on a path, from Express's router (GET brings HEAD, as Express answers it): what a
 * 405's `Allow` lists. Empty when no route has that path: then it is a 404.
 */
export function allowedMethods(server: Express): (path: string) => string[] {
  return (path) => {
    const stack = (server as unknown as { router?: { stack?: RouterLayer[] } }).router?.stack ?? [];
    const methods = new Set<string>();
    for (const layer of stack) {
      if (!layer.route) continue;
      let matched: unknown;
      try {
        matched = layer.match(path);
      } catch {
        continue; // a parameter Express cannot decode (a lone %): no route takes it
      }
      if (!matched) continue;
      for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') methods.add(method.toUpperCase());
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}
