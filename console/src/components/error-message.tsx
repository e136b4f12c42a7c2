import { ApiError } from '../api';

/** An API error as the user reads it: the service's message (and the fields it names), announced to screen readers. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const fields =
    error instanceof ApiError && Array.isArray(error.properties.errors)
      ? (error.properties.errors as Array<{ path?: string; message?: string }>)
      : [];
  return (
    <div class="error" role="alert">
      <p>{message}</p>
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={`${f.path}:${f.message}`}>
              {f.path}: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
