import { TerminalTickets } from './terminal-tickets.js';

test('a ticket opens once, before it expires; no other string opens anything', () => {
  let now = 1_000_000;
  const book = new TerminalTickets(() => now, 30_000);
  const a = book.issue({ actor: 'alice' });
  const b = book.issue({ actor: 'bob' });
  expect(a.ticket).not.toBe(b.ticket);
  expect(a.ticket.length).toBeGreaterThanOrEqual(43);
  expect(a.expiresAt).toBe(new Date(now + 30_000).toISOString());
  expect(book.redeem('not-a-ticket')).toBeUndefined();
  expect(book.redeem(b.ticket)).toEqual({ actor: 'bob' });
  expect(book.redeem(b.ticket)).toBeUndefined();
  now += 30_000;
  expect(book.redeem(a.ticket)).toBeUndefined();
});

test('the book keeps no ticket in the clear', () => {
  const book = new TerminalTickets();
  const { ticket } = book.issue({ actor: 'alice' });
  expect(JSON.stringify(book)).not.toContain(ticket);
  expect(JSON.stringify(Object.values(book))).not.toContain(ticket);
});
