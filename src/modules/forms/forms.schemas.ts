import type { FastifySchemaCompiler } from 'fastify';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { MAX_LABEL_LENGTH, MAX_TYPE_LENGTH } from './form-definition.js';

const OPEN = { additionalProperties: true } as const;

// At most 100 characters: the router refuses longer path parameters (Fastify's maxParamLength) with 414.
export const FORM_ID_PATTERN = '^(?!\\.{1,2}$)[A-Za-z0-9._-]{1,100}$';

const FormId = Type.String({
  pattern: FORM_ID_PATTERN,
  description: "1 to 100 of A-Z a-z 0-9 . _ - (not '.' or '..')",
});

export const FormIdParams = Type.Object({ formId: { ...FormId, examples: ['contact'] } });

/** `{version}` of a read or an update: any text; a read falls back to the latest version when it names none. */
export const AnyVersionParams = Type.Object({
  formId: { ...FormId, examples: ['contact'] },
  version: Type.String({
    maxLength: 64,
    description: 'a version number; a read answers the latest version when it does not exist',
    examples: ['1'],
  }),
});

/** `{version}` of a delete: a positive integer, else 400. */
export const DeleteVersionParams = Type.Object({
  formId: { ...FormId, examples: ['contact'] },
  version: Type.String({
    pattern: '^0*[1-9][0-9]*$',
    maxLength: 32,
    description: 'a positive integer',
    examples: ['1'],
  }),
});

/** The first level of components; nested ones are checked by findComponentError (form-definition.ts). */
const ComponentInput = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: MAX_TYPE_LENGTH }),
    label: Type.Optional(Type.String({ maxLength: MAX_LABEL_LENGTH })),
  },
  { ...OPEN, description: 'a component; unknown properties are kept; may hold components, columns and rows' },
);

export const FormBody = Type.Object(
  {
    name: Type.String({ maxLength: 1024 }),
    config: Type.Object(
      {
        metaData: Type.Optional(Type.Object({}, { ...OPEN, description: 'id and version are set by the server' })),
        configuration: Type.Optional(Type.Object({}, { ...OPEN, description: 'form-level settings; {} when absent' })),
        components: Type.Array(ComponentInput),
      },
      OPEN,
    ),
  },
  {
    ...OPEN,
    description: 'a form definition; root properties other than name and config are not stored',
    examples: [{ name: 'Contact', config: { components: [{ type: 'textfield', key: 'name', label: 'Name' }] } }],
  },
);

const CONFIG_EXAMPLE = {
  metaData: { id: 'contact', version: 1 },
  configuration: {},
  components: [{ type: 'textfield', key: 'name', label: 'Name' }],
};
/** A form as answered, for the document's examples. */
export const FORM_EXAMPLE = {
  id: 'contact',
  version: 1,
  name: 'Contact',
  config: CONFIG_EXAMPLE,
  createdOn: '2026-11-27T07:04:34.357Z',
  createdBy: 'admin',
};
export const FORM_CONFIG_EXAMPLE = CONFIG_EXAMPLE;

export const FormConfig = Type.Object(
  {
    metaData: Type.Object({ id: Type.String(), version: Type.Integer() }, OPEN),
    configuration: Type.Object({}, OPEN),
    components: Type.Array(Type.Object({ type: Type.String(), label: Type.Optional(Type.String()) }, OPEN)),
  },
  OPEN,
);

export const FormResponse = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  name: Type.String(),
  config: FormConfig,
  createdOn: Type.String({ format: 'date-time' }),
  createdBy: Type.String(),
});

export const DeletedResponse = Type.Object({ id: Type.String(), deletedVersions: Type.Array(Type.Integer()) });

/**
 * The forms routes validate with TypeBox's own checker instead of the app's Ajv, which coerces types
 * (`"type": 5` would pass as "5", an object would be wrapped into an array): a definition is stored as
 * written, so it is checked as written.
 */
export const strictValidatorCompiler = TypeBoxValidatorCompiler as FastifySchemaCompiler<any>;
