import { Type } from '@sinclair/typebox';

// No default: a list the file leaves out is not stated, and provisioning then leaves the stored one as it is.
export const StringList = (description: string) => Type.Array(Type.String({ maxLength: 256 }), { description });
