import { bearerToken, hashToken, newWebhookToken, verifyWebhookToken } from './webhook-tokens.js';
import { matchesCredentials } from './static-credentials.js';

test('tokens are unique, prefixed, and verified only by their own hash', () => {
  const a = newWebhookToken();
  const b = newWebhookToken();
  expect(a.token).toMatch(/^svc_wh_[A-Za-z0-9_-]{43}$/);
  expect(a.token).not.toBe(b.token);
  expect(a.tokenHash).toBe(hashToken(a.token));
  expect(a.tokenPrefix).toBe(a.token.slice(0, 12));
  expect(verifyWebhookToken(a.token, a.tokenHash)).toBe(true);
  expect(verifyWebhookToken(b.token, a.tokenHash)).toBe(false);
  expect(verifyWebhookToken(a.token, 'not-hex')).toBe(false);
});

test.each([
  ['Bearer abc', 'abc'], ['bearer  abc ', 'abc'], ['Bearer', undefined], ['Basic abc', undefined], [undefined, undefined], ['Bearer a b', undefined],
])('bearerToken(%p) = %p', (h, t) => {
  expect(bearerToken(h)).toBe(t);
});

test('static credentials', () => {
  const c = { token: 't', basic: { username: 'u', password: 'p:q' } };
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  expect(matchesCredentials('Bearer t', c)).toBe(true);
  expect(matchesCredentials(basic('u:p:q'), c)).toBe(true);
  expect(matchesCredentials(basic('u:p'), c)).toBe(false);
  expect(matchesCredentials(basic('up:q'), c)).toBe(false);
  expect(matchesCredentials('Bearer t', {})).toBe(false);
  expect(matchesCredentials(basic('u:p:q'), { token: 't' })).toBe(false);
});
