import { loadDagText } from './load.js';

const load = (block: string) => loadDagText(`container:\n  image: img\n${block}\nsteps:\n  - name: a\n    command: echo\n`, { fileName: 'c' }).errors;

describe('container block values (SPEC 2.5)', () => {
  test('good volumes, ports and logPattern load', () => {
    expect(load('  volumes: ["./d:/d:ro", "/a:/b", "named:/v:rw", "${HOST}:/x:${MODE}"]\n  ports: [80, "8080:80", "127.0.0.1:9000:90/udp", "${P}"]\n  logPattern: "ready\\\\s+now$"')).toEqual([]);
  });

  test.each([
    ['  volumes: ["nocolon"]', 'container.volumes[0]: "nocolon" is not host:container[:ro|rw]'],
    ['  volumes: ["/a:/b:c:d"]', 'container.volumes[0]: "/a:/b:c:d" is not host:container[:ro|rw]'],
    ['  volumes: ["/a:/b:rx"]', 'container.volumes[0]: "/a:/b:rx": the mode must be ro or rw, not rx'],
    ['  ports: ["80", "eighty"]', 'container.ports[1]: "eighty" is not [[hostIp:]hostPort:]containerPort[/protocol]'],
    ['  logPattern: "("', expect.stringMatching(/^container\.logPattern: is not a valid regular expression/)],
  ])('%s', (block, error) => expect(load(block)).toEqual([error]));

  test('a step-level block is checked too', () => {
    const errors = loadDagText('steps:\n  - name: a\n    container:\n      image: i\n      ports: ["x"]\n    command: echo\n', { fileName: 'c' }).errors;
    expect(errors).toEqual([expect.stringContaining('ports[0]: "x" is not')]);
  });
});
