import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestSeries } from './request-series.js';

const names = { count: 'reqs_total', duration: 'reqs_seconds' };
const help = { count: 'requests', duration: 'durations' };

async function render(series: RequestSeries): Promise<string[]> {
  const registry = new Registry();
  for (const metric of series.metrics()) registry.registerMetric(metric);
  return (await registry.metrics()).split('\n');
}

describe('RequestSeries', () => {
  it('renders a counter and a cumulative histogram per method, route and status class', async () => {
    const series = new RequestSeries([0.01, 0.1], names, help);
    series.observe('GET', '/a/:id', 200, 0.01); // on a bound: counted in that bucket (le is "less or equal")
    series.observe('GET', '/a/:id', 204, 0.05);
    series.observe('GET', '/a/:id', 404, 2);
    series.observe('POST', '/a/:id', 201, 0.001);
    const lines = await render(series);
    const get2xx = 'method="GET",route="/a/:id",status_class="2xx"';
    expect(lines).toContain('# TYPE reqs_total counter');
    expect(lines).toContain('# TYPE reqs_seconds histogram');
    expect(lines).toContain(`reqs_total{${get2xx}} 2`);
    expect(lines).toContain('reqs_total{method="GET",route="/a/:id",status_class="4xx"} 1');
    expect(lines).toContain('reqs_total{method="POST",route="/a/:id",status_class="2xx"} 1');
    expect(lines).toContain(`reqs_seconds_bucket{${get2xx},le="0.01"} 1`);
    expect(lines).toContain(`reqs_seconds_bucket{${get2xx},le="0.1"} 2`);
    expect(lines).toContain(`reqs_seconds_bucket{${get2xx},le="+Inf"} 2`);
    expect(lines).toContain(`reqs_seconds_sum{${get2xx}} 0.060000000000000005`);
    expect(lines).toContain(`reqs_seconds_count{${get2xx}} 2`);
    expect(lines).toContain('reqs_seconds_bucket{method="GET",route="/a/:id",status_class="4xx",le="0.1"} 0');
    expect(lines).toContain('reqs_seconds_bucket{method="GET",route="/a/:id",status_class="4xx",le="+Inf"} 1');
  });

  it('files an odd status code under 0xx rather than a label of its own', async () => {
    const series = new RequestSeries([1], names, help);
    series.observe('GET', '/x', 42, 0.5);
    series.observe('GET', '/x', 1234, 0.5);
    expect(await render(series)).toContain('reqs_total{method="GET",route="/x",status_class="0xx"} 2');
  });
});
