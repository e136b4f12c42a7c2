// The process engine's face: its REST interface and data management.
import { Type } from '@sinclair/typebox';

/** The HTTP Basic credentials of a configured user: its name and its password, in plain text or hashed. */
const basicCredentials = (hashDescription: string) => ({
  name: Type.String({ minLength: 1, maxLength: 256, description: 'User name of HTTP Basic.' }),
  password: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1024, description: 'Its password in plain text (hashed on load).' }),
  ),
  passwordHash: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: hashDescription })),
});

export const EngineConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description: "Serve the process engine's face (`/engine/...`) in this process.",
    }),
    inactiveVersions: Type.Boolean({
      default: false,
      description: "The 'inactive versions' feature of the data management API.",
    }),
    listCacheSeconds: Type.Number({
      minimum: 0,
      maximum: 3600,
      default: 60,
      description:
        'How long a task or report list answer may be kept while no shared data changes (any instance); 0: never.',
    }),
    actionWebhooks: Type.Array(
      Type.Object(
        {
          name: Type.String({
            minLength: 1,
            maxLength: 128,
            description: "The name an action's handler calls it by.",
          }),
          url: Type.String({ pattern: '^https?://', description: 'The http(s) URL called.' }),
          timeoutSeconds: Type.Number({
            exclusiveMinimum: 0,
            maximum: 600,
            default: 30,
            description: 'Time limit of one call.',
          }),
        },
        { additionalProperties: false, description: 'A webhook.' },
      ),
      {
        default: [],
        description:
          'The webhooks that data management actions may call, by name: templates never carry URLs, so a data management user cannot make the engine call an address the operator did not list.',
      },
    ),
    users: Type.Array(
      Type.Object(
        {
          ...basicCredentials('Instead of `password`: its scrypt hash (`npm run cli -- hash-password`).'),
          groups: Type.Array(Type.String({ maxLength: 256 }), {
            default: [],
            description: 'Groups; `DataManagement` admits the user to the data management API.',
          }),
          roles: Type.Array(Type.String({ maxLength: 256 }), {
            default: [],
            description: 'Roles, matched against those of shared data.',
          }),
        },
        { additionalProperties: false, description: 'A process-engine user.' },
      ),
      {
        default: [],
        description: "Process-engine users, who call the engine's face with HTTP Basic (`userType=processEngineUser`).",
      },
    ),
    // No schema defaults inside this union: they would leak into its other members (Value.Default fills each).
    processUserServer: Type.Union(
      [
        Type.Object(
          {
            type: Type.Literal('platform'),
            tenant: Type.Optional(Type.String({ description: 'The tenant whose users they are. Default `default`.' })),
            url: Type.Optional(
              Type.String({
                pattern: '^https?://',
                description:
                  "The platform's base URL when the engine runs apart from it; absent: the platform in this process.",
              }),
            ),
            apiKey: Type.Optional(
              Type.String({
                minLength: 8,
                description: 'With `url`: an API key of the tenant with role ADMIN or right PROCESS_USER_CHECK.',
              }),
            ),
          },
          { additionalProperties: false, description: "The platform's users and their passwords." },
        ),
        Type.Object(
          {
            type: Type.Literal('oidc'),
            issuer: Type.String({ minLength: 1, description: "The provider's issuer URL." }),
            jwksUrl: Type.Optional(
              Type.String({ minLength: 1, description: 'Its signing keys; absent: from its discovery document.' }),
            ),
            audience: Type.Optional(
              Type.String({ description: 'The `aud` its tokens must carry; absent: not checked.' }),
            ),
            rolesClaim: Type.Optional(
              Type.String({ description: 'Claim (dotted path) holding the roles. Default `roles`.' }),
            ),
            loginNameClaim: Type.Optional(
              Type.String({
                description: 'Claim (dotted path) holding the login name. Default `preferred_username`.',
              }),
            ),
          },
          { additionalProperties: false, description: 'The tokens of an OpenID Connect provider.' },
        ),
        Type.Object(
          {
            type: Type.Literal('static'),
            users: Type.Array(
              Type.Object(
                {
                  ...basicCredentials('Instead of `password`: its scrypt hash.'),
                  roles: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { description: 'Its roles.' })),
                },
                { additionalProperties: false, description: 'A process user.' },
              ),
              { description: 'The process users.' },
            ),
          },
          { additionalProperties: false, description: 'A fixed list in this file.' },
        ),
      ],
      {
        default: { type: 'platform' },
        description: 'Where process users (external frontend users, `userType=processUser`) and their roles come from.',
      },
    ),
  },
  {
    default: {},
    additionalProperties: false,
    description: "The process engine's face: REST (docs/api/engine.md) and data management.",
  },
);
