import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** What a route's run reports to the middleware that watches it. */
export interface RouteRunWatcher {
  /** A route handler threw, rejected or passed an error to `next`; express's error handling runs next. */
  failed(): void;
  /** A route handler returned (or its promise settled); `RouteRun.idle` tells whether any is still running. */
  settled(): void;
}

/** The run of one request's route handlers after the Idempotency-Key middleware. */
class RouteRun {
  private running = 0;
  /** True once a route handler threw, rejected or passed an error to `next`. */
  threw = false;

  constructor(private readonly watcher: RouteRunWatcher) {}

  /** True when no route handler of the request is running. */
  get idle(): boolean {
    return this.running === 0;
  }

  /** Runs `handle` as express would, noting when it returns, settles or fails; its result goes to express unchanged. */
  call(handle: RequestHandler, req: Request, res: Response, next: NextFunction): unknown {
    this.running++;
    const passOn = ((error?: unknown) => {
      if (error && error !== 'route' && error !== 'router') this.fail();
      next(error);
    }) as NextFunction;
    let result: unknown;
    try {
      result = handle(req, res, passOn);
    } catch (error) {
      this.fail();
      this.settle();
      throw error;
    }
    if (!isThenable(result)) {
      this.settle();
      return result;
    }
    return Promise.resolve(result).then(
      (value) => {
        this.settle();
        return value;
      },
      (error: unknown) => {
        this.fail(); // before express hands the error to the error handler
        this.settle();
        throw error;
      },
    );
  }

  private fail(): void {
    this.threw = true;
    this.watcher.failed();
  }

  private settle(): void {
    this.running--;
    this.watcher.settled();
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/** The run of each request whose route handlers are watched, while it lasts. */
const runs = new WeakMap<Request, RouteRun>();
/** The wrappers this module put in place of route handlers (each route's layers are wrapped once). */
const wrappers = new WeakSet<object>();

/** A route handler that reports to the request's run, if it has one, and is otherwise `handle` itself. */
function watched(handle: RequestHandler): RequestHandler {
  const wrapper = function watchedHandler(req: Request, res: Response, next: NextFunction): unknown {
    const run = runs.get(req);
    return run === undefined ? handle(req, res, next) : run.call(handle, req, res, next);
  };
  wrappers.add(wrapper);
  return wrapper as RequestHandler;
}

/**
 * Starts watching the route handlers that follow `middleware` on `req.route` for this request, and returns the run.
 * Express 5 does not tell a middleware when the handler it called with `next()` is done (it only watches that
 * handler's promise for a rejection), so each request handler after `middleware` on the route (express's own
 * `route.stack` layers, `layer.handle`) is wrapped once, the first time a request passes: the wrapper reports to the
 * request's run and changes nothing else (same arguments, same result, same errors to express). Error handlers
 * (four parameters) are left as they are. When `middleware` is not on the route (someone wrapped it), nothing is
 * watched and the run stays idle.
 */
export function watchRoute(req: Request, middleware: RequestHandler, watcher: RouteRunWatcher): RouteRun {
  const run = new RouteRun(watcher);
  runs.set(req, run);
  const stack = (req.route as { stack?: { handle: RequestHandler }[] } | undefined)?.stack ?? [];
  const at = stack.findIndex((layer) => layer.handle === middleware);
  if (at < 0) return run;
  for (let i = at + 1; i < stack.length; i++) {
    const layer = stack[i]!;
    if (!wrappers.has(layer.handle) && layer.handle.length <= 3) layer.handle = watched(layer.handle);
  }
  return run;
}

/** Stops watching `req`'s route handlers (its answer is in). */
export function unwatchRoute(req: Request): void {
  runs.delete(req);
}

export type { RouteRun };
