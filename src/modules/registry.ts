// The list of API modules the composition root wires in, and every module's schema steps.
import type { ModuleMigration } from '../platform/db/migrations.js';
import type { ModuleDeps, PlatformModule } from '../platform/module.js';
import { identityMigrations } from './identity/index.js';
import { createStorageModule, storageMigrations } from './storage/index.js';
import { createFormsModule, formsMigrations } from './forms/index.js';

/** Every schema step of every module (the CLI migrates without building the HTTP app). */
export const allMigrations: ModuleMigration[] = [...identityMigrations, ...storageMigrations, ...formsMigrations];

/** API modules besides identity, which the composition root builds first because it resolves credentials. */
export function createModules(deps: ModuleDeps): PlatformModule[] {
  return [createStorageModule(deps), createFormsModule(deps)];
}
