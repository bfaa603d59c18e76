import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Checks one real answer (`res`) of `method path` against an OpenAPI document; with `status`, first
 * that the answer has that status (so the body is checked against the description the test meant).
 */
export type AnswerCheck = (
  path: string,
  method: string,
  res: { status: number; body: unknown },
  status?: number,
) => void;

/** A JSON pointer segment (RFC 6901): `/` and `~` escaped, as in `/paths/~1zones~1{zone}`. */
const segment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks a real answer against the body the document describes for its status (ajv; with
 * formats, so date-time fields are checked, not ignored with a warning each). The schema is
 * reached by its pointer inside the document, so `$ref`s and inline schemas alike resolve.
 */
export function answerChecker(doc: any): AnswerCheck {
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  ajv.addSchema(doc, 'openapi.json');
  const validators = new Map<string, ValidateFunction>();
  return (path, method, res, status) => {
    const what = `${method.toUpperCase()} ${path}`;
    if (status !== undefined && res.status !== status)
      throw new Error(`${what} answered ${res.status}, not ${status}: ${JSON.stringify(res.body)}`);
    const operation = doc.paths[path]?.[method];
    if (!operation) throw new Error(`${what} is not in the document`);
    if (!operation.responses[String(res.status)]?.content?.['application/json']?.schema)
      throw new Error(`${what} does not describe a ${res.status} body`);
    const pointer = ['paths', path, method, 'responses', String(res.status), 'content', 'application/json', 'schema']
      .map(segment)
      .join('/');
    let validate = validators.get(pointer);
    if (!validate) validators.set(pointer, (validate = ajv.compile({ $ref: `openapi.json#/${pointer}` })));
    if (!validate(res.body))
      throw new Error(
        `${what} ${res.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 2000)}`,
      );
  };
}
