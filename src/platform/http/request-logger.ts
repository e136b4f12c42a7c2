// The logger of each request (`request.log`), made only when the request logs something. Pino's child logger costs a
// copy of its bindings on every request, and most requests of a service at level `warn` never write a line; the
// lines that are written carry the request id as before.
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** What Fastify hands the factory: the server's pino logger. */
type ParentLogger = FastifyBaseLogger & {
  isLevelEnabled?: (level: string) => boolean;
  bindings?: () => Bindings;
};

/** A stand-in for `parent.child(bindings, options)` that makes that child on its first line (or child, or level). */
class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: ParentLogger & { isLevelEnabled(level: string): boolean },
    private readonly own: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.own, this.options);
    return this.made;
  }

  /** A line at `level`: written by the child, which is made now; below the level, nothing is made. */
  private write(level: Level, args: unknown[]): void {
    if (this.made || this.parent.isLevelEnabled(level)) (this.logger[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): FastifyBaseLogger['level'] {
    return this.made ? this.made.level : this.parent.level;
  }
  set level(level: FastifyBaseLogger['level']) {
    this.logger.level = level;
  }
  isLevelEnabled(level: string): boolean {
    return this.made
      ? (this.made as ParentLogger).isLevelEnabled?.(level) !== false
      : this.parent.isLevelEnabled(level);
  }
  bindings(): Bindings {
    return { ...this.parent.bindings?.(), ...this.own };
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}
}

/**
 * Fastify's `childLoggerFactory`: a lazy child for the usual request (the server's level and serializers); the child
 * itself when a route sets its own level or serializers, or when the parent is no pino logger (logging off).
 */
export function lazyRequestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const logger = parent as ParentLogger;
  if (typeof logger.isLevelEnabled !== 'function' || options.level !== undefined || options.serializers)
    return parent.child(bindings, options);
  return new LazyRequestLogger(
    logger as ParentLogger & { isLevelEnabled(level: string): boolean },
    bindings,
    options,
  ) as unknown as FastifyBaseLogger;
}
