import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/** Checks one real answer (`res`) of `method path` against an OpenAPI document. */
export type AnswerCheck = (path: string, method: string, res: { status: number; body: unknown }) => void;

/**
 * Checks a real answer against the body the document describes for its status (ajv; with
 * formats, so date-time fields are checked, not ignored with a warning each).
 */
export function answerChecker(doc: any): AnswerCheck {
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  ajv.addSchema(doc, 'openapi.json');
  return (path, method, res) => {
    const operation = doc.paths[path]?.[method];
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
    const schema = operation.responses[String(res.status)]?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${method.toUpperCase()} ${path} does not describe a ${res.status} body`);
    const validate = ajv.compile({ $ref: `openapi.json${schema.$ref}` });
    if (!validate(res.body))
      throw new Error(`${path} ${res.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`);
  };
}
