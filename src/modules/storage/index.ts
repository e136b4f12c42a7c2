// Storage: placeholder wired into the registry so the module's owner works inside this folder only.
import type { ModuleMigration } from '../../platform/db/migrations.js';
import type { ModuleDeps, PlatformModule } from '../../platform/module.js';

export const storageMigrations: ModuleMigration[] = [];

export function createStorageModule(deps: ModuleDeps): PlatformModule {
  void deps;
  return { name: 'storage', async register() {} };
}
