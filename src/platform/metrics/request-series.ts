// The request counter and duration histogram, kept in plain numbers and turned into Prometheus series only when
// scraped. prom-client's own counter and histogram hash their label set into a string on every observation, even
// through a labelled child (about 1.2 us a request, measured by bench/metrics-overhead.mjs); here an observation is
// two map lookups by strings the router already holds, a bucket search and three additions.
import type { Metric } from 'prom-client';

/** One label set's counts: `buckets[i]` requests took at most `bounds[i]` and more than `bounds[i - 1]`. */
interface Series {
  count: number;
  sum: number;
  buckets: Float64Array;
}

/** The `get()` answer prom-client's registry renders (the shape its own metrics return). */
interface MetricValues {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: { value: number; labels: Record<string, string | number>; metricName?: string }[];
}

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx', '6xx', '7xx', '8xx', '9xx'];

/**
 * Requests by method, route pattern and status class: their count (a counter) and their durations (a histogram),
 * registered in a prom-client registry as two metrics that read the same counts.
 */
export class RequestSeries {
  /** route pattern -> method -> status class digit -> series. */
  private readonly byRoute = new Map<string, Map<string, (Series | undefined)[]>>();

  constructor(
    private readonly bounds: readonly number[],
    private readonly names: { count: string; duration: string },
    private readonly help: { count: string; duration: string },
  ) {}

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.byRoute.set(route, byMethod);
    }
    let byClass = byMethod.get(method);
    if (byClass === undefined) {
      byClass = [];
      byMethod.set(method, byClass);
    }
    const digit = statusCode >= 100 && statusCode < 1000 ? Math.trunc(statusCode / 100) : 0;
    let series = byClass[digit];
    if (series === undefined) {
      series = { count: 0, sum: 0, buckets: new Float64Array(this.bounds.length + 1) };
      byClass[digit] = series;
    }
    series.count++;
    series.sum += seconds;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]) i++;
    series.buckets[i]++;
  }

  /** The two metrics, for `registry.registerMetric`. */
  metrics(): Metric[] {
    const counter = {
      name: this.names.count,
      help: this.help.count,
      type: 'counter' as const,
      aggregator: 'sum' as const,
      get: (): MetricValues => ({ ...this.header(counter), values: this.countValues() }),
      reset: () => this.byRoute.clear(),
    };
    const histogram = {
      name: this.names.duration,
      help: this.help.duration,
      type: 'histogram' as const,
      aggregator: 'sum' as const,
      get: (): MetricValues => ({ ...this.header(histogram), values: this.durationValues() }),
      reset: () => this.byRoute.clear(),
    };
    // The registry reads name, help, type, aggregator and get() of what it holds; these two have no other part.
    return [counter, histogram] as unknown as Metric[];
  }

  private header(m: { name: string; help: string; type: MetricValues['type'] }) {
    return { name: m.name, help: m.help, type: m.type, aggregator: 'sum' as const };
  }

  private *each(): Generator<[Record<string, string>, Series]> {
    for (const [route, byMethod] of this.byRoute)
      for (const [method, byClass] of byMethod)
        for (let digit = 0; digit < byClass.length; digit++) {
          const series = byClass[digit];
          if (series) yield [{ method, route, status_class: STATUS_CLASSES[digit] }, series];
        }
  }

  private countValues(): MetricValues['values'] {
    return [...this.each()].map(([labels, series]) => ({ value: series.count, labels }));
  }

  private durationValues(): MetricValues['values'] {
    const values: MetricValues['values'] = [];
    const bucket = `${this.names.duration}_bucket`;
    for (const [labels, series] of this.each()) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += series.buckets[i];
        values.push({ value: cumulative, labels: { ...labels, le: this.bounds[i] }, metricName: bucket });
      }
      values.push({ value: series.count, labels: { ...labels, le: '+Inf' }, metricName: bucket });
      values.push({ value: series.sum, labels, metricName: `${this.names.duration}_sum` });
      values.push({ value: series.count, labels, metricName: `${this.names.duration}_count` });
    }
    return values;
  }
}
