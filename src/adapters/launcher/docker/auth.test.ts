import { authFor, parseAuthConfig, registryOf } from './auth.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('registry auth', () => {
  test.each([
    ['alpine', 'docker.io'], ['library/alpine:3', 'docker.io'], ['user/app', 'docker.io'],
    ['ghcr.io/o/app:1', 'ghcr.io'], ['localhost/app', 'localhost'], ['127.0.0.1:5000/app', '127.0.0.1:5000'],
  ])('%s is pulled from %s', (image, host) => expect(registryOf(image)).toBe(host));

  test('the DAG\'s registryAuths win over DOCKER_AUTH_CONFIG; hosts compare without scheme or Hub aliases', () => {
    const env = JSON.stringify({ auths: { 'https://index.docker.io/v1/': { auth: b64('hub:pw') }, 'ghcr.io': { username: 'env', password: 'e' } } });
    expect(authFor('alpine', {}, env)).toEqual({ username: 'hub', password: 'pw', serveraddress: 'docker.io' });
    expect(authFor('ghcr.io/o/app', { 'ghcr.io': { username: 'dag', password: 'd' } }, env)).toEqual({ username: 'dag', password: 'd', serveraddress: 'ghcr.io' });
    expect(authFor('ghcr.io/o/app', {}, env)).toEqual({ username: 'env', password: 'e', serveraddress: 'ghcr.io' });
    expect(authFor('quay.io/o/app', {}, env)).toBeUndefined();
  });

  test('DOCKER_AUTH_CONFIG: an auths map or a bare map; bad values are errors that never echo them', () => {
    expect(parseAuthConfig(JSON.stringify({ 'r.example': { auth: b64('u:p:with:colons') } }))).toEqual({ 'r.example': { username: 'u', password: 'p:with:colons' } });
    expect(parseAuthConfig(undefined)).toEqual({});
    expect(() => parseAuthConfig('{"auths": hunter2')).toThrow(/^DOCKER_AUTH_CONFIG is not valid JSON$/);
    expect(() => parseAuthConfig('[1]')).toThrow('DOCKER_AUTH_CONFIG must be a JSON object with an "auths" map');
  });
});
