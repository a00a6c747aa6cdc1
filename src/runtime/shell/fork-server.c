/*
 * svc-fork-server: starts the engine's step processes (ADR 0008). One per engine process; built by
 * hack/build-native.mjs when a C compiler is there, else the engine spawns from Node.
 *
 * It keeps one spare child forked ahead, blocked on a pipe. A request is handed to the spare, which
 * records its start, opens the log files, enters the working directory, takes the request's
 * environment and execs the argv: the command runs as a fresh process, with nothing added to it. The
 * server is the parent of every command it started: it appends each exit code to the exec records when
 * it reaps the command, and when the engine goes away (end of input) it stays until its commands have
 * ended, so their codes are recorded for the engine that adopts them.
 *
 * Engine -> server, on stdin: frames of a 4-byte big-endian length and fields, each a 4-byte length and
 * bytes: id, cwd, stdout log, stderr log, records file ('' = none), record key, command index, argc,
 * argv..., then NAME=value environment entries.
 * Server -> engine, on stdout, one line each: `R` (ready), `S id pid` (started), `X id code signal`
 * (ended: code -1 when killed by signal), `F id message` (not started).
 * Exec records (runtime/shell/records.ts): the child writes `key {"pid":..,"cmd":..,"startTicks":..,
 * "startedAt":..}` before it execs; the server appends `key code` once it reaped it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) { static const char m[] = "fork server: out of memory\n"; (void)!write(2, m, sizeof m - 1); _exit(1); }
  return q;
}

/* All of data to fd, resuming after a signal; 0 on an error. */
static int writeall(int fd, const char *data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0) { if (errno == EINTR) continue; return 0; }
    data += w; n -= (size_t)w;
  }
  return 1;
}

/* Set once the engine cannot hear us any more: replies stop, recording goes on. */
static int orphaned;

static void reply(const char *fmt, ...) {
  if (orphaned) return;
  char line[512];
  va_list a;
  va_start(a, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, a);
  va_end(a);
  if (n < 0) return;
  if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
  for (int i = 0; i < n; i++) if (line[i] == '\n' || line[i] == '\r') line[i] = ' ';
  line[n++] = '\n';
  if (!writeall(1, line, (size_t)n)) orphaned = 1;
}

static uint32_t be32(const char *p) {
  const unsigned char *u = (const unsigned char *)p;
  return ((uint32_t)u[0] << 24) | ((uint32_t)u[1] << 16) | ((uint32_t)u[2] << 8) | u[3];
}

/* The length-prefixed fields of a frame, each a NUL-terminated copy, in a NULL-terminated array; -1 when malformed. */
static int fields(const char *f, size_t len, char ***out) {
  int n = 0, cap = 16;
  char **v = xrealloc(NULL, sizeof *v * (size_t)cap);
  for (size_t at = 0; at < len; n++) {
    uint32_t l = len - at >= 4 ? be32(f + at) : UINT32_MAX;
    if (l > len - at - 4 || len - at < 4) { for (int i = 0; i < n; i++) free(v[i]); free(v); return -1; }
    at += 4;
    if (n + 1 >= cap) { cap *= 2; v = xrealloc(v, sizeof *v * (size_t)cap); }
    v[n] = xrealloc(NULL, l + 1);
    memcpy(v[n], f + at, l);
    v[n][l] = 0;
    at += l;
  }
  v[n] = NULL;
  *out = v;
  return n;
}

/* A request: pointers into its fields (argv is a NULL-terminated copy of the pointers; env ends with the fields). */
typedef struct { char *id, *cwd, *out, *err, *rec, *key, *cmd; char **argv; char **env; } req_t;

static int parsereq(char **v, int n, req_t *r) {
  if (n < 8) return 0;
  char *end;
  long argc = strtol(v[7], &end, 10);
  if (*end || argc < 1 || argc > n - 8) return 0;
  char **argv = xrealloc(NULL, sizeof *argv * (size_t)(argc + 1));
  memcpy(argv, v + 8, sizeof *argv * (size_t)argc);
  argv[argc] = NULL;
  *r = (req_t){ v[0], v[1], v[2], v[3], v[4], v[5], v[6], argv, v + 8 + argc };
  return 1;
}

/* ---- exec records ---- */

/*
 * Opens a log or records file to append. They live in the run's directory, which a step can write to: never
 * through a link as the last name (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK, cleared once the
 * descriptor is known to be a regular file), and only a regular file with one name (no hard link).
 */
static int openown(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1) {
    close(fd);
    errno = ELOOP;
    return -1;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

/* Records files stay open between appends (an open costs many times an append); a few at a time. */
static struct { char *path; int fd; } recfh[8];
static int nrecfh;

static int recordfile(const char *path) {
  for (int i = 0; i < nrecfh; i++) if (!strcmp(recfh[i].path, path)) return recfh[i].fd;
  if (nrecfh == 8) { for (int i = 0; i < nrecfh; i++) { close(recfh[i].fd); free(recfh[i].path); } nrecfh = 0; }
  int fd = openown(path);
  if (fd < 0) return -1;
  recfh[nrecfh].path = strdup(path);
  recfh[nrecfh++].fd = fd;
  return fd;
}

static void appendcode(const char *path, const char *key, int code) {
  if (!*path) return;
  int fd = recordfile(path);
  char line[320];
  int n = snprintf(line, sizeof line, "%s %d\n", key, code);
  if (fd >= 0 && n > 0 && (size_t)n < sizeof line) (void)!write(fd, line, (size_t)n);
}

/* This process's start time in clock ticks since boot (field 22 of its stat): with the pid it names the process. */
static void ownticks(char *out, size_t size) {
  char s[1024];
  out[0] = 0;
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, s, sizeof s - 1);
  close(fd);
  if (n <= 0) return;
  s[n] = 0;
  char *p = strrchr(s, ')');
  if (!p || strlen(p) < 2) return;
  p += 2;
  for (int i = 0; i < 19 && p; i++) if ((p = strchr(p, ' '))) p++;
  if (!p) return;
  size_t l = strcspn(p, " \n");
  if (l < size) { memcpy(out, p, l); out[l] = 0; }
}

/* The process line, written by the child itself before it execs (so a start is never unrecorded). */
static void recordstart(const req_t *r) {
  int fd = openown(r->rec);
  if (fd < 0) return;
  char ticks[32], line[512];
  ownticks(ticks, sizeof ticks);
  time_t now = time(NULL);
  struct tm t;
  gmtime_r(&now, &t);
  int n = snprintf(line, sizeof line, "%s {\"pid\":%d,\"cmd\":%d,\"startTicks\":\"%s\",\"startedAt\":\"%04d-%02d-%02dT%02d:%02d:%02d.000Z\"}\n",
    r->key, (int)getpid(), atoi(r->cmd), ticks, t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec);
  if (n > 0 && (size_t)n < sizeof line) (void)!write(fd, line, (size_t)n);
  close(fd);
}

/* ---- the child ---- */

/* Why a child cannot run its command, in its stderr log; exits 127 as a shell does. */
static void __attribute__((noreturn)) childfail(int efd, const char *errpath, const char *what, const char *arg) {
  char line[4200];
  int n = snprintf(line, sizeof line, "svc: %s%s%s: %s\n", what, *what ? " " : "", arg, strerror(errno));
  if (efd < 0) efd = openown(errpath);
  if (efd >= 0 && n > 0) (void)!write(efd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
  _exit(127);
}

/* Runs a request in this child (already in its own session, signals at their defaults). */
static void __attribute__((noreturn)) run(const req_t *r) {
  if (*r->rec) recordstart(r);
  int i = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (i < 0) childfail(-1, r->err, "open", "/dev/null");
  int o = openown(r->out);
  if (o < 0) childfail(-1, r->err, "open", r->out);
  int e = o;
  if (strcmp(r->err, r->out)) {
    e = openown(r->err);
    if (e < 0) childfail(-1, r->err, "open", r->err);
  }
  if (chdir(r->cwd) < 0) childfail(e, r->err, "chdir", r->cwd);
  dup2(i, 0); dup2(o, 1); dup2(e, 2);
  environ = r->env;
  execvp(r->argv[0], r->argv);
  childfail(2, r->err, "", r->argv[0]);
}

/* ---- the spare ---- */

static int sigr = -1, sigw = -1;
static pid_t spare = -1;
static int sparew = -1;

static void nothing(int s) { (void)s; }
static void onchld(int s) { (void)s; int e = errno; (void)!write(sigw, "x", 1); errno = e; }
static void handle(int sig, void (*h)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sa.sa_flags = SA_RESTART;
  sigaction(sig, &sa, NULL);
}

/* In a new child: the server's own descriptors and handlers gone, a session of its own (a stop signals the group). */
static void detach(void) {
  close(sigr); close(sigw);
  handle(SIGCHLD, SIG_DFL); handle(SIGPIPE, SIG_DFL); handle(SIGINT, SIG_DFL); handle(SIGHUP, SIG_DFL);
  setsid();
}

/* The spare: waits for one frame on its pipe (to the pipe's end) and runs it; a short frame is never run. */
static void __attribute__((noreturn)) sparemain(int rfd) {
  detach();
  char *f = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (cap - n < 65536) { cap = cap ? cap * 2 : 65536; f = xrealloc(f, cap); }
    ssize_t got = read(rfd, f + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    n += (size_t)got;
  }
  char **v;
  req_t r;
  if (n < 4 || be32(f) != n - 4) _exit(0);
  int nf = fields(f + 4, n - 4, &v);
  if (nf < 0 || !parsereq(v, nf, &r)) _exit(127);
  close(rfd);
  run(&r);
}

static void forkspare(void) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) return;
  pid_t pid = fork();
  if (pid < 0) { close(p[0]); close(p[1]); return; }
  if (pid == 0) { close(p[1]); sparemain(p[0]); }
  close(p[0]);
  spare = pid;
  sparew = p[1];
}

/* Hands a whole frame (length included) to the spare; a spare that could not take it all is killed, never run. */
static pid_t handover(const char *frame, size_t len) {
  char head[4] = { (char)(len >> 24), (char)(len >> 16), (char)(len >> 8), (char)len };
  int ok = writeall(sparew, head, 4) && writeall(sparew, frame, len);
  pid_t pid = spare;
  close(sparew);
  sparew = -1; spare = -1;
  if (ok) return pid;
  kill(pid, SIGKILL);
  return -1;
}

/* ---- requests in flight ---- */

typedef struct { pid_t pid; char *id, *rec, *key; } inflight_t;
static inflight_t *ids;
static size_t nids, capids;

/* One child ended: its code recorded, then reported. */
static void ended(pid_t pid, int st) {
  size_t i = 0;
  while (i < nids && ids[i].pid != pid) i++;
  if (i == nids) { if (pid == spare) { close(sparew); sparew = -1; spare = -1; } return; }
  int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0, code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
  appendcode(ids[i].rec, ids[i].key, sig ? 128 + sig : code);
  reply("X %s %d %d", ids[i].id, sig ? -1 : code, sig);
  free(ids[i].id); free(ids[i].rec); free(ids[i].key);
  ids[i] = ids[--nids];
}

static void reap(void) {
  int st;
  pid_t pid;
  while ((pid = waitpid(-1, &st, WNOHANG)) > 0) ended(pid, st);
}

static void __attribute__((noreturn)) drain(int status);

/* A frame that does not parse has no id to answer: stop taking requests (the engine's are then all
 * lost, and handled as such, rather than left waiting), but still record the commands already started. */
static void __attribute__((noreturn)) malformed(void) {
  static const char m[] = "fork server: malformed frame\n";
  (void)!write(2, m, sizeof m - 1);
  drain(1);
}

static void start(const char *frame, size_t len) {
  char **v;
  int n = fields(frame, len, &v);
  if (n < 1) malformed();
  req_t r;
  if (!parsereq(v, n, &r)) { reply("F %s malformed request", v[0]); goto done; }
  pid_t pid = spare >= 0 ? handover(frame, len) : -1;
  if (pid < 0) {
    pid = fork();
    if (pid < 0) { reply("F %s fork: %s", v[0], strerror(errno)); free(r.argv); goto done; }
    if (pid == 0) { detach(); run(&r); }
  }
  free(r.argv);
  if (nids == capids) { capids = capids ? capids * 2 : 16; ids = xrealloc(ids, sizeof *ids * capids); }
  ids[nids++] = (inflight_t){ pid, strdup(v[0]), strdup(v[4]), strdup(v[5]) };
  reply("S %s %d", v[0], (int)pid);
done:
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* The engine is gone (or spoke nonsense): no more requests. Wait for the commands still running and
 * record how they end, detached from the engine's output (a pipe reader waiting for its end is not held
 * up by us), then exit with `status`. */
static void __attribute__((noreturn)) drain(int status) {
  orphaned = 1;
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) { dup2(null, 1); dup2(null, 2); close(null); }
  close(0);
  if (spare >= 0) { close(sparew); sparew = -1; }
  int st;
  for (;;) {
    pid_t pid = waitpid(-1, &st, 0);
    if (pid > 0) { if (pid == spare) spare = -1; else ended(pid, st); continue; }
    if (errno == EINTR) continue;
    exit(status);
  }
}

/* The largest request taken (environment and arguments of one command; Linux's own limit is far lower). */
#define MAX_FRAME ((size_t)64 << 20)

/* Reads what stdin has; every whole frame is started. Returns 0 at the end of input. */
static int readrequests(void) {
  static char *in;
  static size_t n, cap;
  if (cap - n < 65536) { cap = cap ? cap * 2 : 131072; in = xrealloc(in, cap); }
  ssize_t got = read(0, in + n, cap - n);
  if (got < 0) return errno == EINTR || errno == EAGAIN;
  if (got == 0) return 0;
  n += (size_t)got;
  size_t at = 0;
  while (n - at >= 4) {
    size_t len = be32(in + at);
    if (len > MAX_FRAME) malformed(); /* at once: never buffer toward a length that is nonsense */
    if (n - at - 4 < len) break;
    start(in + at + 4, len);
    at += 4 + len;
  }
  memmove(in, in + at, n - at);
  n -= at;
  return 1;
}

int main(int argc, char **argv) {
  (void)argv;
  if (argc != 1) { fprintf(stderr, "usage: svc-fork-server (frames on stdin, see the source)\n"); return 2; }
  /* Caught, not ignored: exec resets a caught signal to its default, an ignored one stays ignored.
   * A Ctrl-C or hang-up of the engine's terminal must not end the recorder of its commands. */
  handle(SIGPIPE, nothing);
  handle(SIGINT, nothing);
  handle(SIGHUP, nothing);
  int sp[2];
  if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) < 0) { perror("fork server"); return 1; }
  sigr = sp[0]; sigw = sp[1];
  handle(SIGCHLD, onchld);
  reply("R");
  for (;;) {
    reap();
    if (spare < 0) forkspare();
    struct pollfd pf[2] = { { 0, POLLIN, 0 }, { sigr, POLLIN, 0 } };
    if (poll(pf, 2, -1) < 0) continue;
    if (pf[1].revents) { char d[512]; while (read(sigr, d, sizeof d) > 0) {} }
    if (pf[0].revents && !readrequests()) { reap(); drain(0); }
  }
}
