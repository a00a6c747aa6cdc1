import { describe as describeFailure } from './send.js';
import { smtpServer, transportOptions } from './smtp.js';

describe('the SMTP server of a smtp block', () => {
  test('port 25 by default; 465 is implicit TLS, others STARTTLS when offered; a login only with a username', () => {
    expect(smtpServer({ host: 'mail.example.com' })).toEqual({ host: 'mail.example.com', port: 25 });
    expect(transportOptions(smtpServer({ host: 'h', port: '587' }))).toMatchObject({ port: 587, secure: false });
    expect(transportOptions(smtpServer({ host: 'h', port: 587 })).auth).toBeUndefined();
    expect(transportOptions(smtpServer({ host: 'h', port: '465', username: 'u', password: 'p' }))).toMatchObject({ port: 465, secure: true, auth: { user: 'u', pass: 'p' } });
  });

  test('no host, or a port that is not one, is a clear error', () => {
    expect(() => smtpServer(undefined)).toThrow('no SMTP server: set smtp.host in the DAG');
    expect(() => smtpServer({ host: ' ' })).toThrow('no SMTP server');
    expect(() => smtpServer({ host: 'h', port: 'smtp' })).toThrow('smtp.port "smtp" is not a port number (1-65535)');
    expect(() => smtpServer({ host: 'h', port: '70000' })).toThrow('is not a port number');
  });

  test('a failure never shows the password, even when the server echoes it', () => {
    const s = smtpServer({ host: 'h', port: '2525', username: 'u', password: 'pa55' });
    expect(describeFailure({ code: 'EAUTH', response: '535 bad password pa55' }, s)).toBe('the SMTP server h:2525 refused the login of u: 535 bad password *******');
  });
});
