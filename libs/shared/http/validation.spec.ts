import { IsInt, IsString } from 'class-validator';
import { AppError } from '../errors';
import { OptionalField, strictValidationPipe } from './validation';

class EditDto {
  @OptionalField()
  @IsString()
  name?: string;

  @OptionalField()
  @IsInt()
  size?: number;
}

/** As Nest's pipe consumer calls a pipe: inside an async function, so a throw is a rejection. */
const throughNest = async (
  value: unknown,
  metadata: Parameters<ReturnType<typeof strictValidationPipe>['transform']>[1],
) => strictValidationPipe().transform(value, metadata);

const refusal = async (value: unknown, metatype: unknown = EditDto) => {
  try {
    await throughNest(value, { type: 'body', metatype: metatype as never, data: undefined });
  } catch (e) {
    return { status: (e as AppError).status, code: (e as AppError).code, message: (e as AppError).message };
  }
  throw new Error('accepted');
};

describe('strict validation pipe', () => {
  const pipe = strictValidationPipe();

  it('answers parameters it does not validate at once, as Nest’s pipe would (no promise)', () => {
    const principal = { accountId: 7 };
    expect(pipe.transform(principal, { type: 'custom', metatype: Object, data: undefined })).toBe(principal);
    expect(pipe.transform('a.example.net', { type: 'param', metatype: String, data: 'fqdn' })).toBe('a.example.net');
    expect(pipe.transform('42', { type: 'param', metatype: Number, data: 'id' })).toBe(42);
    expect(pipe.transform('true', { type: 'query', metatype: Boolean, data: 'all' })).toBe(true);
    expect(pipe.transform(undefined, { type: 'query', metatype: Number, data: 'limit' })).toBeUndefined();
    const query = { page: '2' };
    expect(pipe.transform(query, { type: 'query', metatype: Object, data: undefined })).toBe(query);
    const body = { anything: 1 };
    expect(pipe.transform(body, { type: 'body', metatype: Object, data: undefined })).toBe(body);
  });

  it('validates a DTO body into an instance of its class', async () => {
    const dto = await throughNest({ name: 'x', size: 3 }, { type: 'body', metatype: EditDto, data: undefined });
    expect(dto).toBeInstanceOf(EditDto);
    expect(dto).toEqual({ name: 'x', size: 3 });
  });

  it('refuses a DTO body with the contract’s validation errors, naming the field', async () => {
    expect(await refusal({ name: 'x', extra: 1 })).toEqual({
      status: 400,
      code: 'validation_failed',
      message: 'extra: unknown field',
    });
    expect(await refusal({ size: 'big' })).toMatchObject({
      code: 'validation_failed',
      message: 'size must be an integer number',
    });
    expect(await refusal({ name: null })).toMatchObject({
      code: 'validation_failed',
      message: 'name must not be null (leave the field out instead); name must be a string',
    });
  });

  it('refuses a body that is not a JSON object for any typed body, as a rejection', async () => {
    for (const value of [null, 'text', 3, ['a']]) {
      expect(await refusal(value)).toEqual({
        status: 400,
        code: 'validation_failed',
        message: 'The request body must be a JSON object',
      });
      expect(await refusal(value, String)).toMatchObject({ message: 'The request body must be a JSON object' });
    }
  });
});
