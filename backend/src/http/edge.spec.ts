import type { Request, Response } from 'express';
import { jsonBody, jsonDepthExceeds } from './edge';

describe('the JSON edge', () => {
  const [, refusePrototypeKeys] = jsonBody();

  it('never walks a raw body (the webhook bytes) looking for prototype keys', () => {
    const keys = jest.spyOn(Object, 'keys');
    const next = jest.fn();
    refusePrototypeKeys({ body: Buffer.alloc(1024 * 1024, 0x7b) } as Request, {} as Response, next);
    const walkedBuffer = keys.mock.calls.some(([value]) => Buffer.isBuffer(value));
    keys.mockRestore();
    expect(walkedBuffer).toBe(false);
    expect(next).toHaveBeenCalledWith();
  });

  it('refuses a prototype key in parsed JSON', () => {
    const json = jest.fn();
    const res = { status: jest.fn(() => ({ json })) } as unknown as Response;
    refusePrototypeKeys({ body: JSON.parse('{"a":{"__proto__":{"x":1}}}') } as Request, res, jest.fn());
    expect(res.status).toHaveBeenCalledWith(400);
    expect(json).toHaveBeenCalledWith(expect.objectContaining({ message: '__proto__ is not an accepted field' }));
  });

  it('measures nesting without counting brackets inside strings or after escapes', () => {
    expect(jsonDepthExceeds(Buffer.from('[[[1]]]'), 3)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from('[[[[1]]]]'), 3)).toBe(true);
    expect(jsonDepthExceeds(Buffer.from('{"a":"[[[[[[","b":{"c":[]}}'), 3)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from('{"a":"\\"[[[[","b":[[[[]]]]}'), 3)).toBe(true);
    expect(jsonDepthExceeds(Buffer.from('[{},{},{},{},{}]'), 2)).toBe(false);
  });
});
