import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/**
 * A checker of real answers against a published OpenAPI document: `check(path, method, res)`
 * throws unless the operation describes a body for `res.status` and `res.body` validates against
 * it. Shared by the management document's spec and the suites whose answers need real peers
 * (a certificate's download needs an ACME CA).
 */
export function openApiChecker(doc: any) {
  // With formats: date-time fields are checked, not ignored with a warning each.
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  ajv.addSchema(doc, 'openapi.json');
  return (path: string, method: string, res: { status: number; body: unknown }) => {
    const op = doc.paths[path]?.[method];
    if (!op) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
    const schema = op.responses[String(res.status)]?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${method.toUpperCase()} ${path} does not describe a ${res.status} body`);
    const validate = ajv.compile({ $ref: `openapi.json${schema.$ref}` });
    if (!validate(res.body))
      throw new Error(`${path} ${res.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`);
  };
}
