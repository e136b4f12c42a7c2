// One process per SQLite database: with SQLite the service keeps sessions and credentials exact in memory because it
// is the only writer (DeploymentTraits.singleInstance), so a second process on the same file would serve stale
// sessions. The lock is SQLite's own on a side database: the kernel drops it when its process ends, however it ends
// (SIGKILL, a crash, a power cut), so there is no stale lock to clear and no process id that could be reused.
import SQLite from 'better-sqlite3';

/** Another process (or another open database of this one) holds the database file. */
export class DatabaseInUseError extends Error {
  constructor(
    readonly file: string,
    readonly pid: number | undefined,
  ) {
    super(
      `another process${pid ? ` (pid ${pid})` : ''} is using ${file}; stop it first, or give this one another data directory`,
    );
  }
}

export interface ProcessLock {
  release(): void;
}

/**
 * Takes the lock of `file` (`<file>.lock` beside it) for this process until `release`, or throws DatabaseInUseError.
 * The lock file is a small SQLite database in WAL mode whose write lock the holder keeps (an open BEGIN EXCLUSIVE):
 * WAL lets a refused process still read the holder's pid, for its message.
 */
export function lockDatabaseFile(file: string): ProcessLock {
  const lockFile = `${file}.lock`;
  const lock = new SQLite(lockFile, { timeout: 0 });
  try {
    // WAL needs the write lock to switch once; a database in WAL mode already answers without it.
    lock.pragma('journal_mode = WAL');
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    const busy = (err as { code?: string }).code?.startsWith('SQLITE_BUSY');
    const pid = busy ? holderPid(lock) : undefined;
    lock.close();
    if (busy) throw new DatabaseInUseError(file, pid);
    throw err;
  }
  // The pid is committed for others to read, then the write lock is taken again and kept. A process that starts in
  // the moment between wins the lock and this one fails below, which is as right as the other way round.
  lock.prepare('DELETE FROM holder').run();
  lock.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
  lock.exec('COMMIT');
  try {
    lock.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    const pid = holderPid(lock);
    lock.close();
    throw (err as { code?: string }).code?.startsWith('SQLITE_BUSY') ? new DatabaseInUseError(file, pid) : err;
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      lock.exec('ROLLBACK');
      lock.close();
    },
  };
}

function holderPid(lock: SQLite.Database): number | undefined {
  try {
    const row = lock.prepare('SELECT pid FROM holder').get() as { pid: number } | undefined;
    return row?.pid;
  } catch {
    return undefined;
  }
}
