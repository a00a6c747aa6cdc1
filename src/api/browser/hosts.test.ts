import { hostAllowed, hostName } from './hosts.js';

const DEFAULT = ['localhost', '.localhost'];

describe('hostName', () => {
  test.each([
    ['localhost:8080', 'localhost'], ['LOCALHOST', 'localhost'], ['[::1]:8080', '::1'], ['127.0.0.1:1', '127.0.0.1'],
    ['svc.example.com.', 'svc.example.com'], ['a@b', undefined], ['a:b:c', undefined], ['', undefined], [undefined, undefined],
  ])('%s -> %s', (h, want) => expect(hostName(h)).toBe(want));
});

describe('hostAllowed', () => {
  test.each([
    ['localhost:8080', DEFAULT, true], ['app.localhost', DEFAULT, true], ['127.0.0.1:8080', DEFAULT, true], ['[::1]:80', DEFAULT, true],
    ['10.1.2.3', DEFAULT, true], ['evil.example', DEFAULT, false], ['localhost.evil.example', DEFAULT, false],
    ['evillocalhost', DEFAULT, false], [undefined, DEFAULT, false], ['svc.example.com', [...DEFAULT, 'svc.example.com'], true],
    ['x.svc.example.com', [...DEFAULT, 'svc.example.com'], false], ['x.example.com', ['.example.com'], true],
    ['example.com', ['.example.com'], true], ['badexample.com', ['.example.com'], false], ['anything', ['*'], true],
  ])('%s with %j -> %s', (h, allowed, want) => expect(hostAllowed(h, allowed)).toBe(want));
});
