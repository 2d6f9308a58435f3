import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { checkAdminTokenStrength } from '../../../packages/service/src/admin-token-strength.js';
import { resolveServiceConfig } from '../../../packages/service/src/service-config.js';

describe('admin token strength (PAYONCE_ADMIN_TOKEN)', () => {
  it('refuses short, predictable or non-ASCII tokens at start with INVALID_OPTION, never quoting the token', () => {
    const weak = [
      'storm-admin-token',
      'placeholder-admin-token',
      'short-token',
      'a'.repeat(64),
      'passwordpasswordpasswordpassword',
      '0123456789abcdef0123456789abcdef',
      `${'ab'.repeat(20)}`,
      `with space ${randomBytes(24).toString('hex')}`,
      `é${randomBytes(24).toString('hex')}`,
      'changeme-changeme-changeme-changeme',
      'passwordpasswordpasswordpassword1',
      'abcdefghijklmnopqrstuvwxyz012345',
      'zyxwvutsrqponmlkjihgfedcba987654',
      'my-secret-admin-token-placeholder',
      'example-test-token-change-me-now-please',
      `${'9f3a'.repeat(6)}${randomBytes(4).toString('hex')}`,
    ];
    for (const token of weak) {
      let caught: unknown;
      try {
        resolveServiceConfig({ adminToken: token });
      } catch (error) {
        caught = error;
      }
      expect(caught, token).toBeInstanceOf(InvalidOption);
      expect((caught as InvalidOption).code).toBe('INVALID_OPTION');
      expect((caught as InvalidOption).option).toBe('adminToken');
      expect((caught as Error).message).not.toContain(token);
    }
  });

  it('accepts every one of 1000 random tokens of each form (openssl rand -hex 32, -hex 16, -base64 32, base64url)', () => {
    for (let i = 0; i < 1000; i++) {
      for (const token of [
        randomBytes(32).toString('hex'),
        randomBytes(16).toString('hex'),
        randomBytes(32).toString('base64'),
        randomBytes(32).toString('base64url'),
        randomBytes(24).toString('base64url'),
      ]) {
        expect(() => checkAdminTokenStrength(token), token).not.toThrow();
      }
    }
  });

  it('accepts random tokens of 32+ characters (hex, base64url, UUIDs) and no token at all', () => {
    for (let i = 0; i < 200; i++) {
      for (const token of [
        randomBytes(16).toString('hex'),
        randomBytes(32).toString('base64url'),
        `tok_${randomUUID()}`,
      ]) {
        expect(() => checkAdminTokenStrength(token), token).not.toThrow();
      }
    }
    expect(resolveServiceConfig({ adminToken: null }).adminToken).toBeNull();
    expect(resolveServiceConfig({}).adminToken).toBeNull();
  });
});
