import { ERRORS } from '../errors/error-catalogue.js';

/** Errors of the list parameters. Unparsable JSON answers 500 (spec); anything that parses but is invalid, 400. */
export const QUERY_ERRORS = {
  filterJson: (detail: string) => ERRORS.invalidJson(500, `filter: ${detail}`),
  invalidFilter: (path: string, message: string) => ERRORS.validation([{ path, message }]),
  invalidSort: (path: string, message: string) => ERRORS.validation([{ path, message }]),
  invalidQuery: (message: string) => ERRORS.validation([{ path: 'query', message }]),
  invalidTimezone: (path: 'timezoneName' | 'timezoneOffset', message: string) => ERRORS.validation([{ path, message }]),
  invalidProperty: (path: string, message: string) => ERRORS.validation([{ path, message }]),
};
