// Accessibility check of a console page with axe-core, injected into the page: every serious or critical violation
// fails, listed with its rule, help text and the elements it found.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * The serious and critical violations of the page as it is now (WCAG 2.1 A and AA rules and axe's best practices).
 * axe is evaluated through the DevTools protocol, so the page's Content-Security-Policy (no inline scripts) stays on.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    type AxeResult = {
      violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
    };
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<AxeResult> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Throws, listing them, when the page has serious or critical violations. `what` names the page in the message. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const found = await seriousViolations(page);
  if (found.length === 0) return;
  const lines = found.map((v) => `  ${v.impact} ${v.id}: ${v.help}\n    ${v.targets.slice(0, 5).join('\n    ')}`);
  throw new Error(`${what}: ${found.length} serious or critical accessibility violation(s)\n${lines.join('\n')}`);
}
