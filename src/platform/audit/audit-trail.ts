/** One audit record: who did what, from where, with what outcome. */
export interface AuditEntry {
  tenantId: string | null;
  actor: string;
  action: string;
  outcome: 'success' | 'failure';
  remoteAddress: string;
  userAgent: string;
  detail?: Record<string, unknown>;
}

/**
 * Where modules write audit records. Implemented by the identity module (which owns the audit log and its
 * retention) and handed to other modules by the module list. A failing write is logged and never fails
 * the request it describes.
 */
export interface AuditTrail {
  record(entry: AuditEntry): Promise<void>;
}
