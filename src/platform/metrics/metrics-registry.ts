import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { DatabaseLoad } from '../db/database.js';
import type { FeedStats } from '../events/index.js';
import type { SecurityCounters } from '../auth/throttle/index.js';
import { RequestSeries } from './request-series.js';
import type { Telemetry } from './telemetry.js';

/** What the metrics read at each scrape; each part is read, never changed. */
export interface MetricsSources {
  database: { load(): DatabaseLoad };
  /** The change feed's deliveries on this instance. */
  feed?: { readonly stats: FeedStats };
  security: SecurityCounters;
  telemetry: Telemetry;
}

/** Seconds; from a cached session check (~0.1 ms) to a slow list or a proxied call. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LISTENER_STATES = ['local', 'connected', 'disconnected', 'off'] as const;

/** One registry per app: HTTP requests observed as they end, everything else read from the sources when scraped. */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests = new RequestSeries(
    DURATION_BUCKETS,
    { count: 'svc_http_requests_total', duration: 'svc_http_request_duration_seconds' },
    {
      count: 'HTTP requests answered, by method, route pattern and status class.',
      duration: 'Time from the request to its answer, by method, route pattern and status class.',
    },
  );

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    for (const metric of this.requests.metrics()) this.registry.registerMetric(metric);
    const { database, feed, security, telemetry } = sources;

    // Database: PostgreSQL's pool, SQLite's threads; series only for what this engine has.
    const load = () => database.load();
    const has = load();
    if (has.pool) {
      gauge(
        registers,
        'svc_db_pool_connections',
        'PostgreSQL: connections open in the pool.',
        () => load().pool?.total,
      );
      gauge(
        registers,
        'svc_db_pool_in_use',
        'PostgreSQL: pool connections running a query or transaction.',
        () => load().pool?.inUse,
      );
      gauge(
        registers,
        'svc_db_pool_waiting',
        'PostgreSQL: callers waiting for a pool connection.',
        () => load().pool?.waiting,
      );
    }
    if (has.statements) {
      counter(
        registers,
        'svc_db_prepared_statement_hits_total',
        'PostgreSQL: runs of a named statement its pool connection had prepared already.',
        () => load().statements?.hits ?? 0,
      );
      counter(
        registers,
        'svc_db_prepared_statement_prepares_total',
        'PostgreSQL: named statements prepared on a pool connection (first run there, or again after an eviction).',
        () => load().statements?.misses ?? 0,
      );
      counter(
        registers,
        'svc_db_prepared_statement_evictions_total',
        'PostgreSQL: named statements closed on a pool connection to make room (database.preparedStatementsPerConnection).',
        () => load().statements?.evictions ?? 0,
      );
    }
    if (has.readerQueue !== undefined)
      gauge(
        registers,
        'svc_sqlite_reader_queue',
        'SQLite: reads sent to the reader threads and not answered yet.',
        () => load().readerQueue,
      );
    if (has.writerQueue !== undefined)
      gauge(
        registers,
        'svc_sqlite_writer_queue',
        'SQLite: write transactions handed to the writer thread, not committed yet.',
        () => load().writerQueue,
      );

    // The change feed.
    if (feed) {
      new Gauge({
        name: 'svc_change_feed_listener',
        help: 'The change feed listener state (1 for the current one): local (one process), connected, disconnected, off (cannot listen).',
        labelNames: ['state'],
        registers,
        collect() {
          const now = feed.stats.listener;
          for (const state of LISTENER_STATES) this.set({ state }, state === now ? 1 : 0);
        },
      });
      counter(
        registers,
        'svc_change_feed_events_delivered_total',
        'Change feed events delivered on this instance.',
        () => feed.stats.delivered,
      );
      counter(
        registers,
        'svc_change_feed_lag_seconds_total',
        'Sum of the lags (event written to delivered here) of delivered events.',
        () => feed.stats.lagSecondsTotal,
      );
      gauge(
        registers,
        'svc_change_feed_last_lag_seconds',
        'Lag of the last change feed event delivered here.',
        () => feed.stats.lastLagSeconds,
      );
    }

    // Live streams, flow proxy.
    new Gauge({
      name: 'svc_sse_clients',
      help: 'Open Server-Sent Events streams, by stream.',
      labelNames: ['stream'],
      registers,
      collect() {
        for (const [stream, n] of telemetry.streamCounts()) this.set({ stream }, n);
      },
    });
    new Gauge({
      name: 'svc_flow_streams_in_flight',
      help: 'Flow proxy calls in flight, by instance.',
      labelNames: ['instance'],
      registers,
      collect() {
        for (const [instance, c] of telemetry.flowCounts()) this.set({ instance }, c.inFlight);
      },
    });
    new Counter({
      name: 'svc_flow_upstream_errors_total',
      help: 'Flow proxy calls the instance failed (unreachable, timed out, answer cut off), by instance.',
      labelNames: ['instance'],
      registers,
      collect() {
        this.reset();
        for (const [instance, c] of telemetry.flowCounts()) this.inc({ instance }, c.upstreamErrors);
      },
    });

    // Logins.
    counter(
      registers,
      'svc_login_failures_total',
      'Password checks that failed (logins, user checks, engine Basic).',
      () => security.passwordFailures,
    );
    counter(
      registers,
      'svc_login_lockouts_total',
      'Attempts refused by the credential throttle (429).',
      () => security.throttled,
    );
    counter(
      registers,
      'svc_password_verifications_total',
      'Passwords verified (scrypt).',
      () => security.passwordVerifications,
    );
    counter(
      registers,
      'svc_unknown_tenant_logins_total',
      'Logins naming a tenant that does not exist.',
      () => security.unknownTenantLogins,
    );
  }

  /** Counts one answered request; `route` is the route's pattern, or undefined where none matched. */
  observeRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    this.requests.observe(method, route ?? 'unmatched', statusCode, seconds);
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** A gauge read at scrape time. */
function gauge(registers: Registry[], name: string, help: string, read: () => number | undefined): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(read() ?? 0);
    },
  });
}

/** A counter whose total is kept elsewhere (a plain field), copied in at scrape time. */
function counter(registers: Registry[], name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers,
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}
