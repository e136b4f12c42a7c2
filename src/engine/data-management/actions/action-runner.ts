import { AppError } from '../../../platform/errors/app-error.js';
import { DM_ERRORS } from '../dm.errors.js';
import type { Attribute } from '../templates/template.schema.js';
import { fitsAttribute, isGiven } from '../attribute-values.js';
import { exportAssets, exportColumns } from './export.js';

export interface ActionWebhook {
  name: string;
  url: string;
  timeoutSeconds: number;
}

export interface ActionDefinition {
  key: string;
  scope: 'asset' | 'template';
  parameters?: Attribute[];
  handler?: Record<string, unknown>;
}

/** What an action answers (interface-spec, executeAction): each field only when the handler gave it. */
export interface ActionResult {
  message?: string;
  download?: unknown;
  custom?: unknown;
  refresh?: boolean;
}

/** Checks `Parameters` (`[{key, value}]`) against the action's parameter definitions; answers them as an object. */
export function checkParameters(
  definitions: Attribute[],
  given: Array<{ key: string; value?: unknown }>,
): Record<string, unknown> {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const values: Record<string, unknown> = {};
  for (const p of given) {
    const d = byKey.get(p.key);
    if (!d) throw DM_ERRORS.invalidCall(`Parameters: the action has no parameter ${p.key.slice(0, 100)}`);
    if (Object.hasOwn(values, p.key)) throw DM_ERRORS.invalidCall(`Parameters: ${p.key.slice(0, 100)} given twice`);
    if (p.value !== undefined && p.value !== null && !fitsAttribute(d, p.value))
      throw DM_ERRORS.invalidCall(`Parameters: ${d.key} must be of type ${d.type}`, { parameter: d.key });
    values[p.key] = p.value;
  }
  for (const d of definitions) {
    if (!Object.hasOwn(values, d.key) && d.default !== undefined) values[d.key] = d.default;
    if (d.required && !isGiven(values[d.key])) {
      throw DM_ERRORS.invalidCall(`Parameters: ${d.key} is required`, { parameter: d.key });
    }
  }
  return values;
}

/** The assets an action runs for, with the attribute definitions of their template (read only when the handler needs them). */
export type ActionSelection = () => Promise<{ assets: Array<Record<string, unknown>>; attributes: Attribute[] }>;

/**
 * Runs an action's handler. Kind `webhook` (`{"type":"webhook","webhook":"<name>"}`): a POST of JSON to the configured
 * webhook of that name; its JSON answer supplies `message`, `download`, `custom` and `refresh`. A webhook that fails,
 * times out or answers anything but a JSON object is a 502 with the error object, and the call changes nothing.
 * Kind `export` (`{"type":"export","format":"csv"|"json","fileName"}`): the selected assets as a file in `download`.
 */
export async function runAction(
  handler: Record<string, unknown> | undefined,
  webhooks: Map<string, ActionWebhook>,
  payload: Record<string, unknown>,
  selection: ActionSelection,
): Promise<ActionResult> {
  if (handler?.type === 'export') {
    const { assets, attributes } = await selection();
    const download = exportAssets(handler, assets, exportColumns(payload.columns as unknown[] | undefined, attributes));
    return { message: `${assets.length} asset${assets.length === 1 ? '' : 's'} exported`, download };
  }
  if (handler?.type !== 'webhook')
    throw DM_ERRORS.invalidCall('the action has no handler this engine can run (handler type webhook or export)');
  const hook = typeof handler.webhook === 'string' ? webhooks.get(handler.webhook) : undefined;
  if (!hook)
    throw DM_ERRORS.invalidCall(`the action names no configured webhook (${String(handler.webhook).slice(0, 100)})`);
  if (payload.context === 'Asset') payload = { ...payload, assets: (await selection()).assets };
  let res: Response;
  try {
    res = await fetch(hook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(hook.timeoutSeconds * 1000),
      redirect: 'manual',
    });
  } catch (err) {
    const timedOut = (err as Error)?.name === 'TimeoutError';
    throw actionFailed(hook.name, timedOut ? `did not answer within ${hook.timeoutSeconds} s` : 'could not be reached');
  }
  const text = await res.text().catch(() => '');
  if (res.status < 200 || res.status >= 300) throw actionFailed(hook.name, `answered ${res.status}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw actionFailed(hook.name, 'answered something that is not JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw actionFailed(hook.name, 'answered JSON that is not an object');
  const b = body as Record<string, unknown>;
  if (b.message !== undefined && typeof b.message !== 'string')
    throw actionFailed(hook.name, 'answered a message that is not a string');
  if (b.refresh !== undefined && typeof b.refresh !== 'boolean')
    throw actionFailed(hook.name, 'answered a refresh that is not a boolean');
  const out: ActionResult = {};
  if (b.message !== undefined) out.message = b.message as string;
  if (b.download !== undefined) out.download = b.download;
  if (b.custom !== undefined) out.custom = b.custom;
  if (b.refresh !== undefined) out.refresh = b.refresh as boolean;
  return out;
}

function actionFailed(name: string, why: string): AppError {
  return new AppError(502, {
    messageKey: 'DM_ERROR_ACTION_FAILED',
    name: 'BAD_GATEWAY',
    message: `The action's webhook ${name} ${why}`,
    properties: { webhook: name },
  });
}
