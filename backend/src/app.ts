import { INestApplication, Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import 'reflect-metadata';
import { AppModule } from './app.module';
import { type AppConfig, optIns } from './config';
import { chain } from './http/chain';
import { ACCOUNT_EXPORT_PATH, ACCOUNT_IMPORT_PATH, bodyErrors, IMPORT_LIMIT, JOIN_GROUP_PATH, jsonBody, LARGE_BODY_PATHS, largeJsonBody, plainQueryOnly, rawBody, sameOriginJsonOnly } from './http/edge';
import { allowedMethods } from './http/allowed-methods';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { compressAnswers, serveFrontend } from './http/frontend';
import { loadShedder } from './http/server-edge';
import { StartGate, startProgressLog } from './http/start-gate';
import { accountFilesLimiter, inviteMissLimiter, signInLimiter, signInPagesLimiter, writeLimiter } from './http/rate-limits';
import { apiValidationPipe } from './http/validation';
import { messagePage } from './identity/accounts/sign-in-pages';
import { linkedAccount } from './identity/accounts';
import { endsSessionsOfUser } from './identity/session-store.port';
import { BUILT_IN_PATH, mountBuiltInProvider } from './identity/built-in-provider';
import { apiSession, SESSION_COOKIE } from './identity/session';
import { SignInService } from './identity/sign-in.service';
import { createInfrastructure, Infrastructure } from './infrastructure';

/** API answers are personal or live: never kept by a browser or a shared cache (the back button after sign-out shows nothing). */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * Whether a request comes from someone signed in, by the API's session layer (which also renews the session, as
 * any API request does). Without a session cookie nobody is signed in: no session store is asked.
 */
function signedInBy(session: RequestHandler) {
  return (req: Request, res: Response) =>
    new Promise<boolean>((resolve, reject) => {
      if (!req.headers.cookie?.includes(`${SESSION_COOKIE}=`)) return resolve(false);
      session(req, res, (err?: unknown) => (err ? reject(err) : resolve(!!req.user)));
    });
}

/** A demo install: every start says which development convenience is on, so that nobody runs one by mistake. */
export function warnAboutOptIns(config: AppConfig): void {
  if (!config.production) return;
  const logger = new Logger('Joy');
  for (const name of optIns(config)) logger.warn(OPT_IN_WARNINGS[name] ?? `${name} is on in production`);
}

const OPT_IN_WARNINGS: Record<string, string> = {
  AUTH_DEV_LOGIN: 'AUTH_DEV_LOGIN=1 in production: anyone can sign in as anyone without a password (a demo install). Unset AUTH_DEV_LOGIN for real accounts.',
  BILLING_SANDBOX:
    'BILLING_SANDBOX=1 in production: Joy Premium is handed out for a test card, no money moves (a demo install). Unset BILLING_SANDBOX, or set STRIPE_SECRET_KEY.',
  PUSH_ALLOW_INSECURE_ENDPOINTS:
    'PUSH_ALLOW_INSECURE_ENDPOINTS=1 in production: reminders may be sent over plain http and to this machine (loopback), which is for tests only. Unset PUSH_ALLOW_INSECURE_ENDPOINTS.',
};

/** Signed by Stripe, not sent by a browser: exempt from the JSON/Origin check, parsed raw. */
export const STRIPE_WEBHOOK_PATH = '/api/billing/webhook';

export interface RunningApp {
  app: INestApplication;
  infra: Infrastructure;
  /** Resolves once the read models have caught up and the API answers (rejects when the start failed). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface CreateAppOptions {
  logger?: LogLevel[] | false;
  /**
   * Return before the read models have caught up (main: the port listens meanwhile and answers 503 "starting");
   * `ready` says when they have. Without it, createApp returns once the app answers.
   */
  serveWhileStarting?: boolean;
}

/** Builds the whole app (API, sign-in, frontend, and in embedded mode the projection worker) for a config. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<RunningApp> {
  const infra = await createInfrastructure(config);
  // A demo install: development conveniences turned on in production, which every page says.
  const demo = config.production && optIns(config).length > 0;
  // A sign-in page the browser opens while the read models are built: the built-in sign-in's look, and a way back.
  const gate = new StartGate((retryUrl) =>
    messagePage({ title: 'Joy is starting', demo }, 'Joy is starting', 'Joy is getting your data ready after an update or a restart. Please try again in a moment.', {
      href: retryUrl,
      label: 'Try again',
    }),
  );
  const startPipeline = async () => {
    if (config.role === 'api') return;
    try {
      if (!config.redisUrl) {
        // The one pipeline of the install (in-process queue): bring the read models to the head straight from
        // the event store first, in pages (a restart resumes from the checkpoints; a first start rebuilds).
        const log = startProgressLog(new Logger('ReadModels'));
        const last = await infra.pipeline.catchUpAtStart((p) => {
          gate.report({ position: p.position, head: p.head });
          log(p);
        });
        log(last, true);
      }
      await infra.pipeline.start();
      // Serve requests only once the read models have caught up.
      await infra.pipeline.waitUntilCaughtUp();
      infra.reminders.start();
    } catch (err) {
      await infra.close();
      throw err;
    }
  };
  // Serving while starting, the build begins once the app is assembled (below), so that the port can listen
  // at once; otherwise the app is assembled once the read models have caught up.
  let ready: Promise<void> = Promise.resolve();
  if (!options.serveWhileStarting) {
    await startPipeline();
    gate.open();
  }

  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, infra), {
    bodyParser: false,
    logger: options.logger ?? ['log', 'warn', 'error'],
  });
  const server = app.getHttpAdapter().getInstance();
  const https = config.publicUrl.startsWith('https://');
  // Only the configured proxy hops are believed: a client's own X-Forwarded-For never picks its address.
  app.set('trust proxy', config.trustProxy);
  warnAboutOptIns(config);
  if (https && config.trustProxy === false) {
    // Joy itself speaks HTTP: an https address means a TLS proxy in front, whose word on https it must take.
    new Logger('Joy').warn(
      `PUBLIC_URL is https but TRUST_PROXY is unset: behind the TLS-terminating proxy, set TRUST_PROXY=1 (or its address), ` +
        'or the Secure session cookie is never set and nobody can sign in',
    );
  }
  // No ETag on API answers: they are small, private and computed in full either way, so hashing each one to
  // allow a 304 saves nothing. (Static files keep theirs: serve-static sets its own.)
  server.set('etag', false);
  // First of all: an overloaded process answers 503 + Retry-After at once rather than queueing more work.
  const shedder = config.loadShedding ? loadShedder(config.loadShedding) : null;
  // Before anything else: while the read models are being built, API and sign-in answer 503 "starting".
  app.use(['/api', '/oidc'], gate.handler);
  if (shedder) app.use(['/api', '/oidc'], shedder);
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          'default-src': ["'self'"],
          'script-src': ["'self'", 'https://js.stripe.com'],
          // Ant Design writes its styles at run time.
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:', 'https:'],
          'connect-src': ["'self'", 'https://api.stripe.com'],
          'frame-src': ["'self'", 'https://js.stripe.com', 'https://hooks.stripe.com'],
          'form-action': ["'self'", ...(config.oidc ? [new URL(config.oidc.issuer).origin] : [])],
          'upgrade-insecure-requests': https ? [] : null,
        },
      },
      hsts: https,
    }),
  );

  // With Redis the counts are shared by every api replica (and outlive a restart); else kept in this process.
  const limitCounts = infra.redis ? { redis: infra.redis, prefix: config.redisPrefix } : null;
  // Counted once per attempt: the start of the flow and the development provider's form submission.
  // The sign-in steps are pages the browser opens: limited, they get a page to read (and a way back), not JSON.
  const limitedPage = (message: string) => messagePage({ title: 'Sign in', demo: false }, 'Please wait a few minutes', message, { href: '/', label: 'Back to Joy' });
  const signInLimit = signInLimiter(config.rateLimits, limitCounts, limitedPage);
  app.use('/api/login', signInLimit);
  if (infra.accounts) {
    // A reset password ends every session of the account (someone else may hold one: e-mails are not verified).
    const endSessions = async (accountId: string) => {
      const userId = await linkedAccount(infra.store, infra.lookup, infra.accounts!.store.linkIssuer(`${config.publicUrl}${BUILT_IN_PATH}`), accountId);
      if (userId && endsSessionsOfUser(infra.sessions)) await infra.sessions.destroyAllOf(userId);
    };
    const signInPagesLimit = signInPagesLimiter(config.rateLimits, limitCounts, limitedPage);
    app.get(SignInService).useEndpoints(await mountBuiltInProvider(server, config, signInLimit, signInPagesLimit, infra.accounts, infra.keys, endSessions));
  }
  // Stripe's webhook is verified against its exact bytes: the raw body, before (and so instead of) the JSON parser.
  app.use(STRIPE_WEBHOOK_PATH, chain([rawBody()], bodyErrors));
  const session = apiSession(config, infra.sessions);
  // One chain, so that the router checks the /api prefix once per request rather than once per middleware.
  app.use(
    '/api',
    chain([
      compressAnswers(),
      plainQueryOnly,
      chain([sameOriginJsonOnly(config.publicUrl, [STRIPE_WEBHOOK_PATH]), ...jsonBody(undefined, LARGE_BODY_PATHS)], bodyErrors),
      noStore,
      session,
      writeLimiter(config.rateLimits, limitCounts),
    ]),
  );
  // An account import's body (a whole export) is larger, and read only for a signed-in session under its limit.
  const accountFilesLimit = accountFilesLimiter(config.rateLimits, limitCounts);
  app.use(ACCOUNT_EXPORT_PATH, accountFilesLimit);
  app.use(ACCOUNT_IMPORT_PATH, chain([accountFilesLimit, ...largeJsonBody(IMPORT_LIMIT)], bodyErrors));
  app.use(JOIN_GROUP_PATH, inviteMissLimiter(config.rateLimits, limitCounts));
  // `/` is the prerendered landing page for visitors who are not signed in, except on a demo install, whose "Demo"
  // banner only the app shows.
  serveFrontend(server, config.frontendDist, demo ? undefined : { signedIn: signedInBy(session) });
  app.setGlobalPrefix('api');
  app.useGlobalPipes(apiValidationPipe());
  app.useGlobalFilters(new ApiExceptionFilter(allowedMethods(server)));
  await app.init();
  if (options.serveWhileStarting) {
    ready = startPipeline().then(() => gate.open());
    ready.catch(() => undefined);
  }

  return {
    app,
    infra,
    ready,
    async close() {
      // A start that failed closed the infrastructure already.
      const failed = await ready.then(
        () => false,
        () => true,
      );
      shedder?.stop();
      await app.close();
      if (!failed) await infra.close();
    },
  };
}
