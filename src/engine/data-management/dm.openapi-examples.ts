// The values the protocol's examples in the OpenAPI document are made of (dm.openapi.ts): a pump template and asset,
// an image and an export. The tests replay every example against the service.
export const EXAMPLE_DATE = '2026-11-27T07:04:34.357Z';
export const PUMP_ATTRIBUTES = [
  { key: 'serial', type: 'string', required: true },
  { key: 'power', type: 'number', label: 'Power (kW)' },
];
export const PUMP_ACTIONS = [
  { key: 'export', scope: 'template', label: 'Export', handler: { type: 'export', format: 'csv', fileName: 'pumps' } },
  { key: 'exportSelected', scope: 'asset', handler: { type: 'export', format: 'json' } },
];
export const PUMP = {
  id: 1,
  customId: 'pump',
  name: 'Pump',
  description: '',
  attributes: PUMP_ATTRIBUTES.map((a) => ({ versioned: true, required: false, hidden: false, ...a })),
  actions: PUMP_ACTIONS,
  childTemplates: [],
  restricted: false,
  roles: [],
};
export const P1 = {
  id: 1,
  customId: 'P-1',
  template: { id: 1, customId: 'pump' },
  displayName: 'Pump 1',
  description: '',
  parentId: null,
  attributes: { serial: 'A100', power: 7.5 },
  unversionedAttributes: {},
  version: { updatedOn: EXAMPLE_DATE, updatedBy: 'dm', comment: 'installed', active: true },
  createdOn: EXAMPLE_DATE,
  createdBy: 'dm',
};
/** A PNG of 64 x 64 pixels, one colour. */
export const IMAGE =
  'iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAYAAACqaXHeAAAAe0lEQVR4AeXBAQEAIAyAME4QcxrRVj4I25z7PmESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3ESJ3EStyn2At2Z+Xy2AAAAAElFTkSuQmCC';
export const CSV = Buffer.from('id,customId,displayName,serial,power\r\n1,P-1,Pump 1,A100,11\r\n').toString('base64');
