// The console's route table: every page, its path, its place in the navigation and who may see it. One file per page
// under pages/, loaded when first opened (the login page is part of the entry: it is the first thing anyone sees).
// A page a caller has no right to is neither listed nor opened; the API stays the authority.
import type { ComponentType } from 'preact';
import type { SessionRecord } from './api';
import { LoginPage } from './pages/login';

export interface PageProps {
  params: Record<string, string>;
  session: SessionRecord;
}

export interface Route {
  path: string;
  /** The page's title (document title and heading). */
  title: string;
  /** Its label in the navigation; absent: not in the navigation (a detail page). */
  nav?: string;
  /** Whether the session may see the page; absent: every logged-in user. */
  allowed?: (session: SessionRecord) => boolean;
  load: () => Promise<ComponentType<PageProps>>;
}

/** The public page; every other page needs a session. */
export const LOGIN_PATH = '/login';
export { LoginPage };

/** Where a logged-in user lands. */
export const HOME_PATH = '/stores';

export const ROUTES: Route[] = [
  {
    path: '/stores',
    title: 'Stores',
    nav: 'Stores',
    load: () => import('./pages/stores').then((m) => m.StoresPage),
  },
  {
    path: '/stores/:storeId',
    title: 'Store',
    load: () => import('./pages/store').then((m) => m.StorePage),
  },
  // Notifications, forms, audit and maintenance (console-pages). Access rules: admin-api.ts `can`.
  {
    path: '/notifications',
    title: 'Notifications',
    nav: 'Notifications',
    load: () => import('./pages/notifications').then((m) => m.NotificationsPage),
  },
  {
    path: '/forms',
    title: 'Forms',
    nav: 'Forms',
    allowed: (s) => hasRole(s, 'FORMS_ADMIN') || hasRight(s, 'FORMS_READ_ALL'),
    load: () => import('./pages/forms').then((m) => m.FormsPage),
  },
  {
    path: '/forms/:formId',
    title: 'Form',
    allowed: (s) => hasRole(s, 'FORMS_ADMIN') || hasRight(s, 'FORMS_READ_HISTORY'),
    load: () => import('./pages/form').then((m) => m.FormPage),
  },
  {
    path: '/audit',
    title: 'Audit log',
    nav: 'Audit',
    allowed: (s) => hasRole(s, 'ADMIN'),
    load: () => import('./pages/audit').then((m) => m.AuditPage),
  },
  {
    path: '/maintenance',
    title: 'Maintenance',
    nav: 'Maintenance',
    allowed: (s) => hasRole(s, 'ADMIN'),
    load: () => import('./pages/maintenance').then((m) => m.MaintenancePage),
  },
  // Identity administration (console-identity): users, a user's page, API keys; role or right TENANT_ADMIN.
  {
    path: '/users',
    title: 'Users',
    nav: 'Users',
    allowed: (s) => hasRole(s, 'TENANT_ADMIN') || hasRight(s, 'TENANT_ADMIN'),
    load: () => import('./pages/users').then((m) => m.UsersPage),
  },
  {
    path: '/users/:loginName',
    title: 'User',
    allowed: (s) => hasRole(s, 'TENANT_ADMIN') || hasRight(s, 'TENANT_ADMIN'),
    load: () => import('./pages/user').then((m) => m.UserPage),
  },
  {
    path: '/api-keys',
    title: 'API keys',
    nav: 'API keys',
    allowed: (s) => hasRole(s, 'TENANT_ADMIN') || hasRight(s, 'TENANT_ADMIN'),
    load: () => import('./pages/api-keys').then((m) => m.ApiKeysPage),
  },
  // Flow instances and engine data (console-engine). Flow: whom GET /cxf/svc-flow/instances answers. Engine data:
  // every user; the page itself asks for an engine user of group DataManagement, whom the engine's API checks.
  {
    path: '/flow-instances',
    title: 'Flow instances',
    nav: 'Flow',
    allowed: (s) => hasRole(s, 'ADMIN') || hasRight(s, 'FLOW_INSTANCES_READ'),
    load: () => import('./pages/flow-instances').then((m) => m.FlowInstancesPage),
  },
  {
    path: '/engine-data',
    title: 'Engine data',
    nav: 'Engine data',
    load: () => import('./pages/engine-data').then((m) => m.EngineDataPage),
  },
];

/** Role and right checks for `allowed`. */
export const hasRole = (session: SessionRecord, ...roles: string[]) => roles.some((r) => session.roles.includes(r));
export const hasRight = (session: SessionRecord, ...rights: string[]) => rights.some((r) => session.rights.includes(r));
