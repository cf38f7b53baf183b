import { DomainError } from '@joy/domain';
import { ValidationError, ValidationPipe } from '@nestjs/common';

function flatten(errors: ValidationError[], parent = ''): { field: string; message: string }[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own.slice(0, 1), ...flatten(e.children ?? [], field)];
  });
}

/**
 * Input is validated at the edge: unknown fields are refused, nothing is coerced, and a 400 names the
 * field (`message` is the first problem, `errors` lists each field's first problem).
 */
export function apiValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const list = flatten(errors).map((e) =>
        e.message.startsWith('property ') ? { field: e.field, message: `${e.field} is not an accepted field` } : e,
      );
      return new DomainError('request.invalid', list[0]?.message ?? 'Invalid request body', list);
    },
  });
}
