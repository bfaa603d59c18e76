import { ArgumentMetadata, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
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

/** Nest's validation pipe, with the two steps it takes before its first await open to the strict pipe. */
class NestValidationPipe extends ValidationPipe {
  /** Whether `transform` would validate nothing here (a custom decorator's value, a primitive, no type). */
  validatesNothing(metadata: ArgumentMetadata): boolean {
    return !this.expectedType && (!metadata.metatype || !this.toValidate(metadata));
  }

  /** What `transform` returns for such a parameter. */
  unvalidated(value: unknown, metadata: ArgumentMetadata): unknown {
    return this.isTransformEnabled ? this.transformPrimitive(value, metadata) : value;
  }
}

/**
 * Strict body validation: unknown fields are refused, types checked, and the 400
 * message names the field (contract §1).
 *
 * `transform` is not an async function: as the global pipe it sees every parameter of every
 * route (the principal, the client's address, path parameters), and Nest's pipe consumer
 * awaits what it returns anyway. A parameter Nest's pipe does not validate is answered here
 * with what that pipe would return (its first step, before any await), without its async
 * function's promise and ours (decision 0133). A refusal thrown here reaches Nest as the
 * rejection it was before: its consumer calls `transform` inside an async function.
 */
class StrictValidationPipe implements PipeTransform<unknown, unknown> {
  constructor(private readonly nest: NestValidationPipe) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const isDto = metadata.type === 'body' && typeof metadata.metatype === 'function' && metadata.metatype !== Object;
    if (isDto && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw validationFailed('The request body must be a JSON object');
    }
    if (this.nest.validatesNothing(metadata)) return this.nest.unvalidated(value, metadata);
    return this.nest.transform(value, metadata);
  }
}

export const strictValidationPipe = () =>
  new StrictValidationPipe(
    new NestValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => validationFailed(describe(errors).join('; ') || 'Invalid request body'),
    }),
  );

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
