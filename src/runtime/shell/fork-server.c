/*
 * svc-fork-server: the fork server in C (ADR 0007). Same protocol, behaviour and messages as the Perl
 * program in fork-server-script.ts, whose header documents both; fork-server.test.ts runs one suite on
 * each. Built by hack/build-native.mjs when a C compiler is there; without it the Perl one runs.
 *
 * Why a second implementation: forking a Perl interpreter costs ~0.5 ms of page-table copies and
 * copy-on-write faults, and in a chain of short steps the fork of the next spare sits between a step's
 * exit and its report. This process is a few hundred kB.
 *
 * Arguments (both from fork-server.ts, shared with the Perl program): argv[1] the boot line of a
 * pre-started shell, argv[2] the names of the variables bash treats specially (an ERE alternation).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
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

/* ---- byte strings ---- */

typedef struct { char *p; size_t n, cap; } buf_t;

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) { static const char m[] = "fork server: out of memory\n"; (void)!write(2, m, sizeof m - 1); _exit(1); }
  return q;
}
static void bgrow(buf_t *b, size_t more) {
  if (b->n + more + 1 <= b->cap) return;
  size_t c = b->cap ? b->cap : 256;
  while (c < b->n + more + 1) c *= 2;
  b->p = xrealloc(b->p, c);
  b->cap = c;
}
static void badd(buf_t *b, const char *s, size_t n) { bgrow(b, n); memcpy(b->p + b->n, s, n); b->n += n; b->p[b->n] = 0; }
static void bstr(buf_t *b, const char *s) { badd(b, s, strlen(s)); }
static void bfmt(buf_t *b, const char *fmt, ...) {
  va_list a, c;
  va_start(a, fmt); va_copy(c, a);
  int n = vsnprintf(NULL, 0, fmt, c);
  va_end(c);
  bgrow(b, (size_t)n);
  vsnprintf(b->p + b->n, (size_t)n + 1, fmt, a);
  va_end(a);
  b->n += (size_t)n;
}
/* ANSI-C quoting: one line of shell source whatever the bytes. */
static void bcq(buf_t *b, const char *s) {
  bstr(b, "$'");
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '\\' || *c == '\'') { char t[2] = { '\\', (char)*c }; badd(b, t, 2); }
    else if (*c < 0x20 || *c == 0x7f) bfmt(b, "\\x%02x", *c);
    else badd(b, (const char *)c, 1);
  }
  bstr(b, "'");
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
static void reply(const char *fmt, ...) {
  char line[512];
  va_list a;
  va_start(a, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, a);
  va_end(a);
  if (n < 0) return;
  if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
  for (int i = 0; i < n; i++) if (line[i] == '\n' || line[i] == '\r') line[i] = ' ';
  line[n++] = '\n';
  if (!writeall(1, line, (size_t)n)) exit(0);
}

/* ---- requests ---- */

/* A request's fields after its id: cwd, stdout, stderr, records file, key, command index, argv, env. */
typedef struct { char *cwd, *out, *err, *rec, *key, *cmd; char **argv; int argc; char **env; int ne; } req_t;

static void freefields(char **v, int n) { for (int i = 0; i < n; i++) free(v[i]); free(v); }
/* The length-prefixed fields of a frame (each NUL-terminated in a copy); -1 when the frame is malformed. */
static int fields(const char *f, size_t len, char ***out) {
  int n = 0, cap = 16;
  char **v = xrealloc(NULL, sizeof *v * (size_t)cap);
  size_t at = 0;
  while (at < len) {
    if (len - at < 4) { freefields(v, n); return -1; }
    uint32_t l = ((uint32_t)(unsigned char)f[at] << 24) | ((uint32_t)(unsigned char)f[at + 1] << 16) | ((uint32_t)(unsigned char)f[at + 2] << 8) | (unsigned char)f[at + 3];
    at += 4;
    if (l > len - at) { freefields(v, n); return -1; }
    if (n + 1 >= cap) { cap *= 2; v = xrealloc(v, sizeof *v * (size_t)cap); }
    v[n] = xrealloc(NULL, l + 1);
    memcpy(v[n], f + at, l);
    v[n][l] = 0;
    n++;
    at += l;
  }
  v[n] = NULL;
  *out = v;
  return n;
}
/* Fields from the one after the id: the request (argv and env NULL-terminated, pointing into v). */
static int parsereq(char **v, int n, req_t *r) {
  if (n < 8) return 0;
  char *end;
  long argc = strtol(v[7], &end, 10);
  if (*end || argc < 1 || argc > n - 8) return 0;
  /* argv is not NULL-terminated (env follows it; argvcopy makes one that is); env is, by v's own NULL. */
  *r = (req_t){ v[1], v[2], v[3], v[4], v[5], v[6], v + 8, (int)argc, v + 8 + argc, n - 8 - (int)argc };
  return 1;
}
/* argv as its own NULL-terminated array. */
static char **argvcopy(const req_t *r) {
  char **a = xrealloc(NULL, sizeof *a * (size_t)(r->argc + 1));
  memcpy(a, r->argv, sizeof *a * (size_t)r->argc);
  a[r->argc] = NULL;
  return a;
}
static size_t namelen(const char *entry) { const char *e = strchr(entry, '='); return e ? (size_t)(e - entry) : strlen(entry); }
/* The last entry NAME=... of env (the value wins as in a hash built in order), or -1. */
static int envindex(char **env, int n, const char *name, size_t nl) {
  for (int i = n - 1; i >= 0; i--) if (namelen(env[i]) == nl && !strncmp(env[i], name, nl)) return i;
  return -1;
}
static const char *envvalue(char **env, int n, const char *name) {
  int i = envindex(env, n, name, strlen(name));
  return i < 0 ? NULL : env[i] + strlen(name) + (env[i][strlen(name)] == '=');
}

/* ---- exec records ---- */

/* Records files stay open between writes (an open costs many times an append); a few at a time. */
static struct { char *path; int fd; } recfh[8];
static int nrecfh;
static int recordfile(const char *path) {
  for (int i = 0; i < nrecfh; i++) if (!strcmp(recfh[i].path, path)) return recfh[i].fd;
  if (nrecfh >= 8) { for (int i = 0; i < nrecfh; i++) { close(recfh[i].fd); free(recfh[i].path); } nrecfh = 0; }
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0) return -1;
  recfh[nrecfh].path = strdup(path);
  recfh[nrecfh++].fd = fd;
  return fd;
}
static void appendcode(const char *path, const char *key, int code) {
  if (!*path) return;
  int fd = recordfile(path);
  if (fd < 0) return;
  buf_t b = { 0 };
  bfmt(&b, "%s %d\n", key, code);
  (void)!write(fd, b.p, b.n);
  free(b.p);
}
/* A process's start time in clock ticks since boot (with its pid, it names the process: pids are reused). */
static void startticks(pid_t pid, char *out, size_t size) {
  out[0] = 0;
  char path[64], s[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
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
  if (l >= size) return;
  memcpy(out, p, l);
  out[l] = 0;
}
/* The process line: ticks NULL = read them now. */
static void recordstart(const char *path, const char *key, const char *cmd, pid_t pid, const char *ticks) {
  int fd = recordfile(path);
  if (fd < 0) return;
  char tk[32];
  if (!ticks) { startticks(pid, tk, sizeof tk); ticks = tk; }
  time_t now = time(NULL);
  struct tm t;
  gmtime_r(&now, &t);
  buf_t b = { 0 };
  bfmt(&b, "%s {\"pid\":%d,\"cmd\":%d,\"startTicks\":\"%s\",\"startedAt\":\"%04d-%02d-%02dT%02d:%02d:%02d.000Z\"}\n",
    key, (int)pid, atoi(cmd), ticks, t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec);
  (void)!write(fd, b.p, b.n);
  free(b.p);
}

/* ---- children ---- */

static int sigr = -1, sigw = -1, nullfd = -1;
static const char *boot;
static regex_t special;

static void nothing(int s) { (void)s; }
static void onchld(int s) { (void)s; int e = errno; (void)!write(sigw, "x", 1); errno = e; }
static void handle(int sig, void (*h)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sa.sa_flags = SA_RESTART;
  sigaction(sig, &sa, NULL);
}

/* In a new child, what does not depend on its request. */
static void detach(void) {
  close(sigr); close(sigw);
  handle(SIGCHLD, SIG_DFL); handle(SIGPIPE, SIG_DFL); handle(SIGINT, SIG_DFL);
  setsid();
}
/* The reason a child cannot run its command, in its stderr log; exits 127 as a shell does. */
static void __attribute__((noreturn)) childfail(int efd, const char *errpath, const char *fmt, ...) {
  buf_t b = { 0 };
  bstr(&b, "svc: ");
  va_list a;
  va_start(a, fmt);
  int n = vsnprintf(NULL, 0, fmt, a);
  va_end(a);
  bgrow(&b, (size_t)n);
  va_start(a, fmt);
  vsnprintf(b.p + b.n, (size_t)n + 1, fmt, a);
  va_end(a);
  b.n += (size_t)n;
  bstr(&b, "\n");
  if (efd < 0) efd = open(errpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (efd >= 0) (void)!write(efd, b.p, b.n);
  _exit(127);
}
/* Runs a request in this (detached) child. */
static void __attribute__((noreturn)) child(const req_t *r) {
  /* First, so that whatever fails below is recorded under this command's start. */
  if (*r->rec) recordstart(r->rec, r->key, r->cmd, getpid(), NULL);
  int i = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (i < 0) childfail(-1, r->err, "open /dev/null: %s", strerror(errno));
  int o = open(r->out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (o < 0) childfail(-1, r->err, "open %s: %s", r->out, strerror(errno));
  int e = o;
  if (strcmp(r->err, r->out)) {
    e = open(r->err, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (e < 0) childfail(-1, r->err, "open %s: %s", r->err, strerror(errno));
  }
  if (chdir(r->cwd) < 0) childfail(e, r->err, "chdir %s: %s", r->cwd, strerror(errno));
  dup2(i, 0); dup2(o, 1); dup2(e, 2);
  char **argv = argvcopy(r);
  environ = r->env;
  execvp(argv[0], argv);
  childfail(2, r->err, "%s: %s", argv[0], strerror(errno));
}
/* A request whose fields (after the id) are in frame v. */
static void __attribute__((noreturn)) runfields(char **v, int n) {
  req_t r;
  if (!parsereq(v, n, &r)) _exit(127);
  child(&r);
}

/* ---- pre-started shells ---- */

/* The template a pre-started shell is started from: argv without the command, directory, environment. */
typedef struct { int refs; char **prefix; int np; char *cwd; char **env; int ne; } tmpl_t;

static tmpl_t *tref(tmpl_t *t) { if (t) t->refs++; return t; }
static void tunref(tmpl_t *t) {
  if (!t || --t->refs > 0) return;
  for (int i = 0; i < t->np; i++) free(t->prefix[i]);
  for (int i = 0; i < t->ne; i++) free(t->env[i]);
  free(t->prefix); free(t->env); free(t->cwd); free(t);
}
/* Whether a shell can be started ahead for this argv: bash by its absolute path with only
 * -e/-u/-o errexit|nounset|pipefail before -c. */
static int warmshell(char **argv, int argc) {
  if (argc < 3 || strcmp(argv[argc - 2], "-c") || argv[0][0] != '/') return 0;
  size_t l = strlen(argv[0]);
  if (l < 5 || strcmp(argv[0] + l - 5, "/bash")) return 0;
  for (int i = 1; i < argc - 2; i++) {
    const char *f = argv[i];
    if (f[0] == '-' && f[1] && strspn(f + 1, "eu") == strlen(f + 1)) continue;
    if (strcmp(f, "-o") || i + 1 >= argc - 2) return 0;
    f = argv[++i];
    if (strcmp(f, "errexit") && strcmp(f, "nounset") && strcmp(f, "pipefail")) return 0;
  }
  return 1;
}
/* The template of a shell started ahead from a warmshell request, unless a variable acts at start-up. */
static tmpl_t *warmable(const req_t *r) {
  for (int i = 0; i < r->ne; i++) {
    const char *e = r->env[i];
    size_t nl = namelen(e);
    if (!strncmp(e, "BASH", 4) || !strncmp(e, "__svc", 5)) return NULL;
    if ((nl == 3 && !strncmp(e, "ENV", 3)) || (nl == 9 && !strncmp(e, "SHELLOPTS", 9)) || (nl == 15 && !strncmp(e, "POSIXLY_CORRECT", 15))) return NULL;
  }
  tmpl_t *t = xrealloc(NULL, sizeof *t);
  t->refs = 1;
  t->np = r->argc - 1;
  t->prefix = xrealloc(NULL, sizeof *t->prefix * (size_t)(t->np + 2));
  for (int i = 0; i < t->np; i++) t->prefix[i] = strdup(r->argv[i]);
  t->prefix[t->np] = (char *)boot;
  t->prefix[t->np + 1] = NULL;
  t->ne = r->ne;
  t->env = xrealloc(NULL, sizeof *t->env * (size_t)(t->ne + 1));
  for (int i = 0; i < t->ne; i++) t->env[i] = strdup(r->env[i]);
  t->env[t->ne] = NULL;
  t->cwd = strdup(r->cwd);
  return t;
}
/* A name a pre-started shell may set or unset: an identifier bash does not treat specially. */
static int plainname(const char *entry) {
  size_t nl = namelen(entry);
  char name[256];
  if (nl == 0 || nl >= sizeof name) return 0;
  if (!(entry[0] == '_' || (entry[0] >= 'A' && entry[0] <= 'Z') || (entry[0] >= 'a' && entry[0] <= 'z'))) return 0;
  for (size_t i = 1; i < nl; i++) {
    char c = entry[i];
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return 0;
  }
  memcpy(name, entry, nl);
  name[nl] = 0;
  return regexec(&special, name, 0, NULL, 0) != 0;
}
/* A `}` that could close the function body the syntax check wraps the command in. */
static int closesbrace(const char *cmd) {
  for (const char *c = strchr(cmd, '}'); c; c = strchr(c + 1, '}'))
    if (c == cmd || strchr(" \t\n\r\f\v;&|(", c[-1])) return 1;
  return 0;
}
/* The shell code that makes a shell started from t run this request exactly as a fresh argv would, or
 * NULL when it cannot (see warmcode in fork-server-script.ts). */
static char *warmcode(const tmpl_t *t, const req_t *r) {
  if (r->argc != t->np + 1 || strcmp(r->cwd, t->cwd)) return NULL;
  for (int i = 0; i < t->np; i++) if (strcmp(r->argv[i], t->prefix[i])) return NULL;
  const char *cmd = r->argv[r->argc - 1];
  if (closesbrace(cmd)) return NULL;
  buf_t unset = { 0 }, set = { 0 }, c = { 0 };
  for (int i = 0; i < t->ne; i++) {
    size_t nl = namelen(t->env[i]);
    if (envindex(t->env, t->ne, t->env[i], nl) != i || envindex(r->env, r->ne, t->env[i], nl) >= 0) continue;
    if (!plainname(t->env[i])) goto cold;
    bstr(&unset, " "); badd(&unset, t->env[i], nl);
  }
  for (int i = 0; i < r->ne; i++) {
    size_t nl = namelen(r->env[i]);
    if (envindex(r->env, r->ne, r->env[i], nl) != i) continue;
    int o = envindex(t->env, t->ne, r->env[i], nl);
    if (o >= 0 && !strcmp(t->env[o], r->env[i])) continue;
    if (!plainname(r->env[i])) goto cold;
    bstr(&set, " "); badd(&set, r->env[i], nl); bstr(&set, "=");
    bcq(&set, r->env[i][nl] ? r->env[i] + nl + 1 : "");
  }
  bstr(&c, "unset -v __svc_p; exec >>"); bcq(&c, r->out);
  if (!strcmp(r->err, r->out)) bstr(&c, " 2>&1");
  else { bstr(&c, " 2>>"); bcq(&c, r->err); }
  if (unset.n) { bstr(&c, "; unset -v"); bstr(&c, unset.p); }
  if (set.n) { bstr(&c, "; export"); bstr(&c, set.p); }
  bstr(&c, "; { [ . -ef "); bcq(&c, r->cwd); bstr(&c, " ] && eval ");
  buf_t fn = { 0 };
  bstr(&fn, "__svc_f() { "); bstr(&fn, cmd); bstr(&fn, "\n}");
  bcq(&c, fn.p);
  free(fn.p);
  bstr(&c, "; } 2>/dev/null || { cd -P -- "); bcq(&c, r->cwd); bstr(&c, " && { ");
  /* The request's own argv (the environment is already the request's but for what cd and start-up change). */
  const char *dirs[] = { "PWD", "OLDPWD" };
  for (int i = 0; i < 2; i++) {
    const char *v = envvalue(r->env, r->ne, dirs[i]);
    if (v) { bfmt(&c, "export %s=", dirs[i]); bcq(&c, v); }
    else bfmt(&c, "unset -v %s", dirs[i]);
    bstr(&c, "; ");
  }
  bstr(&c, "exec");
  for (int i = 0; i < r->argc; i++) { bstr(&c, " "); bcq(&c, r->argv[i]); }
  bstr(&c, "; }; exit 127; }; unset -f __svc_f; SECONDS=0; BASH_EXECUTION_STRING="); bcq(&c, cmd);
  const char *under = envvalue(r->env, r->ne, "_");
  bstr(&c, "; : "); bcq(&c, under ? under : r->argv[0]);
  bstr(&c, "; eval "); bcq(&c, cmd);
  bstr(&c, "\n#svc-end");
  free(unset.p); free(set.p);
  return c.p;
cold:
  free(unset.p); free(set.p); free(c.p);
  return NULL;
}
/* The log files, created as a fresh process would open them; a failure is left to a fresh process. */
static int logsready(const req_t *r) {
  struct stat st;
  if (stat(r->cwd, &st) < 0 || !S_ISDIR(st.st_mode)) return 0;
  const char *files[] = { r->out, r->err };
  for (int i = 0; i < 2; i++) {
    int fd = open(files[i], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) return 0;
    close(fd);
  }
  return 1;
}

/* ---- the spare ---- */

static pid_t spare = -1;
static int sparew = -1;
static tmpl_t *sparet;  /* the template the spare was started from: NULL for a plain spare */
static char sparetk[32];
static tmpl_t *tmpl;    /* the template of the next spare (NULL: a plain one) */

/* A plain spare: reads one frame from its pipe (to its end) and runs it; a frame shorter than its length
 * says is never run. */
static void __attribute__((noreturn)) plainspare(int r) {
  buf_t f = { 0 };
  for (;;) {
    bgrow(&f, 65536);
    ssize_t n = read(r, f.p + f.n, 65536);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    f.n += (size_t)n;
  }
  if (f.n < 4) _exit(0);
  uint32_t len = ((uint32_t)(unsigned char)f.p[0] << 24) | ((uint32_t)(unsigned char)f.p[1] << 16) | ((uint32_t)(unsigned char)f.p[2] << 8) | (unsigned char)f.p[3];
  if (len != f.n - 4) _exit(0);
  char **v;
  int n = fields(f.p + 4, len, &v);
  if (n < 0) _exit(0);
  runfields(v, n);
}
/* A pre-started shell, forked with its directory and request pipe (fd 3) already in place. */
static pid_t warmspare(const tmpl_t *t, int r) {
  if (chdir(t->cwd) < 0 || dup2(r, 3) < 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(nullfd, 0); dup2(nullfd, 1); dup2(nullfd, 2);
    setsid();
    execve(t->prefix[0], t->prefix, t->env);
    _exit(127);
  }
  dup2(nullfd, 3);
  fcntl(3, F_SETFD, FD_CLOEXEC);
  return pid;
}
static void forkspare(void) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) return;
  pid_t pid = tmpl ? warmspare(tmpl, p[0]) : -1;
  if (pid < 0) {
    /* No pre-started shell (its directory cannot be entered, ...): a plain spare until the next bash request. */
    tunref(tmpl); tmpl = NULL;
    pid = fork();
    if (pid < 0) { close(p[0]); close(p[1]); return; }
    if (pid == 0) { close(p[1]); detach(); plainspare(p[0]); }
  }
  close(p[0]);
  spare = pid; sparew = p[1]; sparet = tref(tmpl);
  if (sparet) startticks(pid, sparetk, sizeof sparetk);
}
static void releasespare(void) {
  close(sparew);
  sparew = -1; spare = -1;
  tunref(sparet); sparet = NULL;
}
static void dropspare(void) { kill(spare, SIGKILL); releasespare(); }
/* Hands data to the spare; a spare that could not take all of it is killed, never left to run. */
static pid_t handover(const char *data, size_t n) {
  int ok = writeall(sparew, data, n);
  pid_t pid = spare;
  releasespare();
  if (ok) return pid;
  kill(pid, SIGKILL);
  return -1;
}
/* A request to the pre-started shell: its process line first (it runs from the moment it reads its code). */
static pid_t warmstart(const req_t *r) {
  char *code = warmcode(sparet, r);
  if (!code || !logsready(r)) { free(code); dropspare(); return -1; }
  if (*r->rec) recordstart(r->rec, r->key, r->cmd, spare, sparetk);
  pid_t pid = handover(code, strlen(code));
  free(code);
  return pid;
}

/* ---- requests in flight ---- */

typedef struct { pid_t pid; char *id, *rec, *key; } inflight_t;
static inflight_t *ids;
static size_t nids, capids;

static void reap(void) {
  int st;
  pid_t pid;
  while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
    size_t i = 0;
    while (i < nids && ids[i].pid != pid) i++;
    if (i == nids) {
      /* A spare that died unused; a pre-started shell that did is not retried until the next request. */
      if (spare >= 0 && pid == spare) { if (sparet) { tunref(tmpl); tmpl = NULL; } releasespare(); }
      continue;
    }
    int sig = st & 127, code = (st >> 8) & 255;
    appendcode(ids[i].rec, ids[i].key, sig ? 128 + sig : code);
    reply("X %s %d %d", ids[i].id, sig ? -1 : code, sig);
    free(ids[i].id); free(ids[i].rec); free(ids[i].key);
    ids[i] = ids[--nids];
  }
}
static void start(const char *frame, size_t len) {
  char **v;
  int n = fields(frame, len, &v);
  /* A frame that does not parse has no id to answer: end, so that the engine's requests are all lost
   * (and handled as such) rather than left waiting. */
  if (n < 1) { static const char m[] = "fork server: malformed frame\n"; (void)!write(2, m, sizeof m - 1); exit(1); }
  req_t r;
  if (!parsereq(v, n, &r)) { reply("F %s malformed request", v[0]); freefields(v, n); return; }
  int bash = warmshell(r.argv, r.argc), warm = 0;
  pid_t pid = -1;
  if (spare >= 0 && sparet) { pid = warmstart(&r); warm = pid > 0; }
  else if (spare >= 0) {
    char *f = xrealloc(NULL, len + 4);
    f[0] = (char)(len >> 24); f[1] = (char)(len >> 16); f[2] = (char)(len >> 8); f[3] = (char)len;
    memcpy(f + 4, frame, len);
    pid = handover(f, len + 4);
    free(f);
  }
  if (pid < 0) {
    pid = fork();
    if (pid < 0) { reply("F %s fork: %s", v[0], strerror(errno)); freefields(v, n); return; }
    if (pid == 0) { detach(); child(&r); }
  }
  if (!warm) { tunref(tmpl); tmpl = bash ? warmable(&r) : NULL; }
  if (nids == capids) { capids = capids ? capids * 2 : 16; ids = xrealloc(ids, sizeof *ids * capids); }
  ids[nids++] = (inflight_t){ pid, strdup(v[0]), strdup(r.rec), strdup(r.key) };
  reply("S %s %d", v[0], (int)pid);
  freefields(v, n);
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: svc-fork-server BOOT SPECIAL\n"); return 2; }
  boot = argv[1];
  buf_t re = { 0 };
  bstr(&re, "^("); bstr(&re, argv[2]); bstr(&re, ")$");
  if (regcomp(&special, re.p, REG_EXTENDED | REG_NOSUB)) { fprintf(stderr, "fork server: bad SPECIAL pattern\n"); return 2; }
  free(re.p);
  /* Caught, not ignored: exec resets a caught signal to its default, an ignored one stays ignored. */
  handle(SIGPIPE, nothing);
  handle(SIGINT, nothing);
  /* Descriptor 3 is where a pre-started shell finds its request pipe; between forks it holds /dev/null. */
  int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (fd < 0) { perror("fork server: /dev/null"); return 1; }
  if (fd != 3) { if (dup2(fd, 3) < 0) { perror("fork server: fd 3"); return 1; } close(fd); }
  fcntl(3, F_SETFD, FD_CLOEXEC);
  nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
  int sp[2];
  if (nullfd < 0 || pipe2(sp, O_CLOEXEC | O_NONBLOCK) < 0) { perror("fork server"); return 1; }
  sigr = sp[0]; sigw = sp[1];
  handle(SIGCHLD, onchld);
  buf_t in = { 0 };
  reply("R");
  for (;;) {
    reap();
    if (spare < 0) forkspare();
    struct pollfd pf[2] = { { 0, POLLIN, 0 }, { sigr, POLLIN, 0 } };
    if (poll(pf, 2, 250) < 0) continue;
    if (pf[1].revents) { char d[512]; while (read(sigr, d, sizeof d) > 0) {} }
    if (!pf[0].revents) continue;
    bgrow(&in, 65536);
    ssize_t got = read(0, in.p + in.n, 65536);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return 0;
    in.n += (size_t)got;
    size_t at = 0;
    while (in.n - at >= 4) {
      const unsigned char *h = (const unsigned char *)in.p + at;
      size_t len = ((size_t)h[0] << 24) | ((size_t)h[1] << 16) | ((size_t)h[2] << 8) | h[3];
      if (in.n - at - 4 < len) break;
      start(in.p + at + 4, len);
      at += 4 + len;
    }
    memmove(in.p, in.p + at, in.n - at);
    in.n -= at;
  }
}
