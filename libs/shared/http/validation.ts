import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { IsDefined, IsOptional, ValidateIf } from 'class-validator';
import { validationFailed } from '../errors';

const describe = (errors: ValidationError[], parent = ''): string[] =>
  errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    const own = e.constraints
      ? Object.values(e.constraints).map((m) =>
          m.startsWith('property ') && m.endsWith('should not exist')
            ? `${path}: unknown field`
            : m.replace(e.property, path),
        )
      : [];
    return [...own, ...describe(e.children ?? [], path)];
  });

/**
 * Strict body validation: unknown fields are refused, types checked, and the 400
 * message names the field (contract §1).
 */
class StrictValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const isDto = metadata.type === 'body' && typeof metadata.metatype === 'function' && metadata.metatype !== Object;
    if (isDto && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw validationFailed('The request body must be a JSON object');
    }
    return super.transform(value, metadata);
  }
}

export const strictValidationPipe = () =>
  new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailed(describe(errors).join('; ') || 'Invalid request body'),
  });

/**
 * A field that may be left out; sent as `null` it is refused, naming the field (contract
 * §16). class-validator's own `@IsOptional()` skips every check for null as for absent,
 * which let `access: null` create an account key and `plan: null` pass as a no-op, so DTOs
 * use this instead (the lint config forbids importing `IsOptional` elsewhere).
 */
export function OptionalField(): PropertyDecorator {
  return (target, property) => {
    ValidateIf((_object, value) => value !== undefined)(target, property);
    IsDefined({ message: `${String(property)} must not be null (leave the field out instead)` })(target, property);
  };
}

/** A field where `null` means something (it clears a setting): absent and null skip its checks. */
export const NullableField = (): PropertyDecorator => IsOptional();
