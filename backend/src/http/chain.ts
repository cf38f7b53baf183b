import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs middleware one after another as a single middleware. Mounted once, the chain costs the router one layer
 * (one path match per request) instead of one per middleware. An error skips the rest and goes to `onError` when
 * given (as an Express error handler mounted after them would), else to `next`.
 */
export function chain(handlers: readonly RequestHandler[], onError?: ErrorRequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err) {
        if (onError) void onError(err, req, res, next);
        else next(err);
        return;
      }
      if (i === handlers.length) return next();
      try {
        handlers[i++](req, res, step);
      } catch (thrown) {
        step(thrown ?? new Error('middleware threw'));
      }
    };
    step();
  };
}
