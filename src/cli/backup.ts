// `backup --to FILE`: a consistent copy of the service's database while the service runs and writes.
import { spawn } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import type { AppConfig } from '../config/config.schema.js';

/** The backup cannot be made (no database, the target exists, pg_dump missing or failed): exit code 1 and the reason. */
export class BackupError extends Error {}

const isPostgresUrl = (url?: string) => !!url && /^postgres(ql)?:\/\//i.test(url);

/**
 * SQLite: SQLite's online backup API from a read-only connection of its own. It takes no process lock (svc.sqlite.lock,
 * which admin commands that write wait for): it only reads, and SQLite's own file locks keep it consistent beside the
 * running service, whose writers WAL mode does not stop. The copy is made in one step (one read transaction: a
 * snapshot, never restarted by the service's commits), written beside the target and renamed into place once
 * `PRAGMA integrity_check` passed, so that a copy at the target's name is always whole.
 * PostgreSQL: runs `pg_dump --format=custom` when it is on PATH; otherwise says how to.
 */
export async function backupDatabase(config: AppConfig, to: string, out: (line: string) => void): Promise<void> {
  if (existsSync(to)) throw new BackupError(`${to} exists; a backup never overwrites a file`);
  if (isPostgresUrl(config.database.url)) return pgDump(config.database.url!, to, out);
  const file = join(config.database.dataDir, 'svc.sqlite');
  if (!existsSync(file)) throw new BackupError(`no database at ${file}`);
  const partial = `${to}.partial`;
  rmSync(partial, { force: true });
  const source = new SQLite(file, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    const started = Date.now();
    // The first step only counts the pages; the second copies all of them in one read transaction.
    const { totalPages } = await source.backup(partial, { progress: () => 0x7fffffff });
    const copy = new SQLite(partial);
    try {
      const result = copy.pragma('integrity_check', { simple: true });
      if (result !== 'ok') throw new BackupError(`the copy failed its integrity check: ${String(result)}`);
    } finally {
      copy.close();
    }
    renameSync(partial, to);
    out(`backup of ${file} written to ${to}: ${totalPages} pages, integrity ok, ${Date.now() - started} ms`);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    source.close();
  }
}

/** pg_dump's custom format (restore with pg_restore); its own messages go to stderr. */
async function pgDump(url: string, to: string, out: (line: string) => void): Promise<void> {
  const shown = safeUrl(url);
  const code = await new Promise<number | 'missing'>((resolve) => {
    const child = spawn('pg_dump', ['--format=custom', `--file=${to}`, `--dbname=${url}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ENOENT' ? 'missing' : 1));
    child.on('exit', (c) => resolve(c ?? 1));
  });
  if (code === 'missing')
    throw new BackupError(
      `PostgreSQL is backed up with pg_dump, which is not on PATH here; run: pg_dump --format=custom --file=${to} '${shown}'`,
    );
  if (code !== 0) {
    rmSync(to, { force: true });
    throw new BackupError(`pg_dump of ${shown} failed (exit code ${code})`);
  }
  out(`pg_dump of ${shown} written to ${to} (custom format; restore with pg_restore)`);
}

/** The URL without its password, for messages. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return 'postgres://...';
  }
}
