// Forms: placeholder wired into the registry so the module's owner works inside this folder only.
import type { ModuleMigration } from '../../platform/db/migrations.js';
import type { ModuleDeps, PlatformModule } from '../../platform/module.js';

export const formsMigrations: ModuleMigration[] = [];

export function createFormsModule(deps: ModuleDeps): PlatformModule {
  void deps;
  return { name: 'forms', async register() {} };
}
