/**
 * A tar archive of one file, for PUT /containers/{id}/archive: how a step's script reaches the container
 * (its image may have no shell to write it with). The POSIX ustar layout: a 512-byte header, the data
 * padded to 512 bytes, two zero blocks.
 */
export function singleFileTar(name: string, data: Buffer, mode = 0o755): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write(octal(mode, 8), 100);
  header.write(octal(0, 8), 108); // uid
  header.write(octal(0, 8), 116); // gid
  header.write(octal(data.length, 12), 124);
  header.write(octal(0, 12), 136); // mtime
  header.write('        ', 148); // checksum field counts as spaces while summing
  header.write('0', 156); // a regular file
  header.write('ustar\u000000', 257);
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148);
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header, data, pad, Buffer.alloc(1024)]);
}

/** A numeric field: octal digits, zero-padded, NUL-terminated. */
const octal = (n: number, width: number): string => `${n.toString(8).padStart(width - 1, '0')}\u0000`;
