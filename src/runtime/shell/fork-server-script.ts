/**
 * The fork server: a small Perl program (perl-base only: POSIX, Fcntl, IO::Select, present wherever
 * Debian's essential packages are) that starts step processes for the engine (ADR 0004). fork-server.c
 * is the same program in C (ADR 0007), used when the build could compile it; this header documents both.
 *
 * Why: forking the engine itself costs time proportional to its resident memory (page tables of a
 * 60-70 MB Node process) and blocks the event loop until the child has exec'd; forking a 5 MB
 * process costs a fraction of that and blocks nobody.
 *
 * Protocol, engine -> server (stdin): frames of a 4-byte big-endian length and that many bytes, the
 * bytes being length-prefixed fields (pack 'N/a*'): id, cwd, stdout path, stderr path, exec-records
 * path ('' = none), the execution's key in it, the command's index in the step, argc, argv..., then the environment as NAME=value entries.
 * Server -> engine (stdout), one line each:
 *   R                         ready
 *   S <id> <pid>              forked (the child appends its process line to the exec records, before exec)
 *   X <id> <code> <signal>    exited (code -1 when killed by signal number <signal>); then the code
 *                             (128 + signal for a signal) is appended to the exec record too, so it is
 *                             there even when the command replaced the step's exit trap with its own
 *   F <id> <message>          could not fork
 * The child runs in a session of its own (setsid, so a stop signal reaches its whole group), stdin
 * from /dev/null, stdout/stderr appended to the log files. A child that cannot chdir, open its logs
 * or exec writes the reason to its stderr log and exits 127, as a shell does for a missing command.
 * A spare child is forked ahead of each request, already in its own session, and waits on a pipe for
 * the request: the fork is off the step's critical path. One that cannot be handed its request (it
 * died) is replaced by a plain fork.
 * On end of input the server exits (a waiting spare sees its pipe close and leaves); the children live on (their exit codes are recorded by the
 * step's own exit trap, appended to the exec record, so a restarted engine can adopt them).
 */
/**
 * The boot line of a pre-started shell, exec'd ahead with the last request's argv, environment and working
 * directory: it reads its request (shell code, see warmcode) from fd 3 to its end and runs it only when the
 * end marker is there (a request cut short is never run). LC_ALL=C: -N counts bytes; -N reads in blocks,
 * not bytes. An argument of both servers (argv[1]).
 */
export const WARM_BOOT = String.raw`LC_ALL=C read -r -N 2147483647 __svc_p <&3 || :; exec 3<&-; case $__svc_p in *$'\n#svc-end') eval "$__svc_p";; esac`;

/**
 * Variables bash treats specially (at start-up or on assignment): a request that changes one runs in a
 * fresh shell. An alternation both Perl and POSIX extended regular expressions read alike (argv[2]).
 */
export const SPECIAL_NAMES = [
  'BASH.*', 'ENV', 'SHELLOPTS', 'POSIXLY_CORRECT', 'SHLVL', 'PWD', 'OLDPWD', 'IFS', 'PS[0-9]', 'EUID', 'UID', 'PPID', 'GROUPS',
  'HOSTNAME', 'HOSTTYPE', 'MACHTYPE', 'OSTYPE', 'OPT(IND|ERR|ARG)', 'S?RANDOM', 'SECONDS', 'LINENO', 'EPOCH[A-Za-z0-9_]*',
  'FUNCNAME', 'FUNCNEST', 'DIRSTACK', 'PIPESTATUS', 'REPLY', 'MAPFILE', 'COPROC[A-Za-z0-9_]*', 'LANG', 'LANGUAGE',
  'LC_[A-Za-z0-9_]*', 'TZ', 'TERM', 'COLUMNS', 'LINES', 'GLOBIGNORE', 'GLOBSORT', 'HIST[A-Za-z0-9_]*', 'MAIL[A-Za-z0-9_]*',
  'IGNOREEOF', 'INPUTRC', 'PROMPT_[A-Za-z0-9_]*', 'TMOUT', 'COMP[A-Za-z0-9_]*', 'READLINE_[A-Za-z0-9_]*', 'CHILD_MAX',
  'EXECIGNORE', 'FIGNORE', 'HOSTFILE', 'TEXTDOMAIN[A-Za-z0-9_]*', '_', '__svc[A-Za-z0-9_]*',
].join('|');

export const FORK_SERVER_SCRIPT = String.raw`
use strict; use warnings;
use POSIX ();
use Fcntl qw(O_WRONLY O_CREAT O_APPEND O_RDONLY O_RDWR F_GETFL F_SETFL F_SETFD FD_CLOEXEC O_NONBLOCK);
use IO::Select;
# Caught, not ignored: exec resets a caught signal to its default, an ignored one stays ignored.
$SIG{PIPE} = sub {};
$SIG{INT} = sub {};
binmode STDIN; binmode STDOUT;
# Descriptor 3 is where a pre-started shell finds its request pipe, put there just before it is forked (its
# child then only has to setsid and exec); between forks it holds /dev/null, close-on-exec.
sysopen(my $FD3, '/dev/null', O_RDWR) or die "fork server: /dev/null: $!\n";
if (fileno($FD3) != 3) { POSIX::dup2(fileno($FD3), 3) // die "fork server: fd 3: $!\n"; close $FD3; open($FD3, '+<&=', 3) or die "fork server: fd 3: $!\n"; }
fcntl($FD3, F_SETFD, FD_CLOEXEC);
sysopen(my $NULLH, '/dev/null', O_RDWR) or die "fork server: /dev/null: $!\n";
my $NULL = fileno($NULLH);
pipe(my $sigr, my $sigw) or die "fork server: pipe: $!\n";
for my $h ($sigr, $sigw) { my $f = fcntl($h, F_GETFL, 0); fcntl($h, F_SETFL, $f | O_NONBLOCK); }
$SIG{CHLD} = sub { syswrite($sigw, 'x') };
my %ids;
# The spare: its pid, the pipe it waits on, and for a pre-started shell the template it was started from.
my ($spare, $sparew, $sparet, $sparetk);
# The template of the next spare (undef: a perl spare): the last bash request, or the template that served it
# (a pre-started shell takes each request's environment as a delta, so a template that works is kept).
# The server's own %ENV is the template's: a pre-started shell inherits it through fork and exec (set once
# per template, not in each new child, where rebuilding %ENV cost ~0.35 ms of copy-on-write page copies).
my $tmpl;
# All of $data to $fh, resuming after a signal (SIGCHLD interrupts a blocked write); false on an error.
sub writeall {
  my ($fh, $data) = @_;
  my $o = 0;
  while ($o < length $data) {
    my $n = syswrite($fh, $data, length($data) - $o, $o);
    if (!defined $n) { next if $! == POSIX::EINTR(); return 0; }
    $o += $n;
  }
  return 1;
}
sub reply { writeall(\*STDOUT, join(' ', @_) . "\n") or exit 0 }
sub oneline { my $s = shift; $s =~ s/[\r\n]+/ /g; return $s }
# A request's NAME=value entries as a hash.
sub envhash { return { map { my $k = index($_, '='); (substr($_, 0, $k) => substr($_, $k + 1)) } @{$_[0]} } }
sub reap {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $st = $?; my $req = delete $ids{$pid};
    if (!defined $req) {
      # A spare that died unused; a pre-started shell that did (its directory went away, ...) is not retried until the next request.
      if (defined $spare && $pid == $spare) { $tmpl = undef if defined $sparet; undef $spare; close $sparew; }
      next;
    }
    my $sig = $st & 127;
    appendcode($req->[1], $req->[2], $sig ? 128 + $sig : $st >> 8);
    reply('X', $req->[0], $sig ? -1 : ($st >> 8), $sig);
  }
}
# Records files stay open between writes (an open costs many times an append); a few at a time.
my %recfh;
sub recordfile {
  my ($path) = @_;
  return $recfh{$path} if $recfh{$path};
  %recfh = () if keys(%recfh) >= 8;
  sysopen(my $h, $path, O_WRONLY | O_CREAT | O_APPEND, 0666) or return undef;
  return $recfh{$path} = $h;
}
sub appendcode {
  my ($path, $key, $code) = @_;
  return if $path eq '';
  my $x = recordfile($path) or return;
  syswrite($x, "$key $code\n");
}
# A process's start time in clock ticks since boot (with its pid, it names the process: pids are reused).
sub startticks {
  my ($pid) = @_;
  open(my $st, '<', "/proc/$pid/stat") or return '';
  my $l = <$st>; close $st;
  return (split / /, substr($l, rindex($l, ')') + 2))[19] // '';
}
sub recordstart {
  my ($path, $key, $cmd, $pid, $ticks) = @_;
  my $p = recordfile($path) or return;
  my @t = gmtime();
  syswrite($p, sprintf('%s {"pid":%d,"cmd":%d,"startTicks":"%s","startedAt":"%04d-%02d-%02dT%02d:%02d:%02d.000Z"}' . "\n",
    $key, $pid, $cmd, $ticks // startticks($pid), $t[5] + 1900, $t[4] + 1, @t[3, 2, 1, 0]));
}
# In a new child, what does not depend on its request.
sub detach {
  close $sigr; close $sigw;
  $SIG{CHLD} = 'DEFAULT'; $SIG{PIPE} = 'DEFAULT'; $SIG{INT} = 'DEFAULT';
  POSIX::setsid();
}
sub child {
  my ($cwd, $out, $err, $recfile, $key, $cmd, $argv, $env) = @_;
  my $e;
  my $fail = sub {
    my $msg = "svc: $_[0]\n";
    if ($e) { syswrite($e, $msg) } elsif (sysopen(my $l, $err, O_WRONLY | O_CREAT | O_APPEND, 0666)) { syswrite($l, $msg) }
    POSIX::_exit(127);
  };
  # First, so that whatever fails below is recorded under this command's start.
  recordstart($recfile, $key, $cmd, $$) if $recfile ne '';
  sysopen(my $i, '/dev/null', O_RDONLY) or $fail->("open /dev/null: $!");
  sysopen(my $o, $out, O_WRONLY | O_CREAT | O_APPEND, 0666) or $fail->("open $out: $!");
  $e = $o;
  if ($err ne $out) { undef $e; sysopen($e, $err, O_WRONLY | O_CREAT | O_APPEND, 0666) or $fail->("open $err: $!"); }
  chdir($cwd) or $fail->("chdir $cwd: $!");
  POSIX::dup2(fileno($i), 0); POSIX::dup2(fileno($o), 1); POSIX::dup2(fileno($e), 2);
  %ENV = %{envhash($env)};
  { no warnings 'exec'; exec { $argv->[0] } @$argv; }
  $fail->("$argv->[0]: $!");
}
# A request's fields after its id: run it in this (detached) child.
sub run {
  my ($cwd, $out, $err, $recfile, $key, $cmd, $argc, @rest) = @_;
  my @argv = splice(@rest, 0, $argc);
  child($cwd, $out, $err, $recfile, $key, $cmd, \@argv, \@rest);
}
# The spare: forked and detached ahead, it reads one frame from its pipe (to its end) and runs it; a frame
# shorter than its length says (the server died or gave up part-way) is never run.
sub perlspare {
  my ($r) = @_;
  my $f = '';
  for (;;) {
    my $n = sysread($r, $f, 65536, length $f);
    next if !defined $n && $! == POSIX::EINTR();
    last unless $n;
  }
  POSIX::_exit(0) unless length($f) >= 4 && unpack('N', $f) == length($f) - 4;
  my (undef, @req) = unpack('(N/a*)*', substr($f, 4));
  run(@req);
}
# The boot line of a pre-started shell (WARM_BOOT).
my $BOOT = $ARGV[0];
# A pre-started shell, forked with its directory and request pipe (fd 3) already in place: the child
# touches as little as it can (each page it writes is a copy-on-write fault).
sub warmspare {
  my ($t, $r) = @_;
  return undef unless chdir($t->{cwd}) && defined POSIX::dup2(fileno($r), 3);
  my $pid = fork();
  if (defined $pid && $pid == 0) {
    POSIX::dup2($NULL, $_) for 0 .. 2;
    POSIX::setsid();
    { no warnings 'exec'; exec { $t->{prefix}[0] } @{$t->{prefix}}, $BOOT; }
    POSIX::_exit(127);
  }
  POSIX::dup2($NULL, 3); fcntl($FD3, F_SETFD, FD_CLOEXEC);
  return $pid;
}
sub forkspare {
  pipe(my $r, my $w) or return;
  my $pid = defined $tmpl ? warmspare($tmpl, $r) : undef;
  # No pre-started shell (its directory cannot be entered, ...): a Perl spare until the next bash request.
  $tmpl = undef if !defined $pid;
  $pid //= fork();
  if (!defined $pid) { close $r; close $w; return; }
  if ($pid == 0) {
    close $w;
    detach();
    perlspare($r);
  }
  close $r;
  ($spare, $sparew, $sparet) = ($pid, $w, $tmpl);
  $sparetk = defined $tmpl ? startticks($pid) : undef;
}
sub dropspare {
  kill 'KILL', $spare;
  close $sparew;
  undef $spare;
}
# Hands $data to the spare; a spare that could not take all of it is killed, never left to run.
sub handover {
  my ($data) = @_;
  my $ok = writeall($sparew, $data);
  close $sparew;
  my $pid = $spare; undef $spare;
  return $pid if $ok;
  kill 'KILL', $pid;
  return undef;
}
# ANSI-C quoting: one line of shell source whatever the bytes (no line moves LINENO of the command).
sub cq {
  my $s = shift;
  $s =~ s/([\\'])/\\$1/g;
  $s =~ s/([\x00-\x1f\x7f])/sprintf('\\x%02x', ord $1)/ge;
  return "\$'$s'";
}
# Variables bash treats specially (SPECIAL_NAMES).
my $SPECIAL = qr/^(?:$ARGV[1])$/;
# Whether a shell can be started ahead for this argv: bash by its absolute path (so $_ starts the same
# in a shell exec'd from it) with only -e/-u/-o errexit|nounset|pipefail before -c.
sub warmshell {
  my ($argv) = @_;
  return 0 unless @$argv >= 3 && $argv->[-2] eq '-c' && $argv->[0] =~ m{^/(?:.*/)?bash$};
  my @flags = @$argv[1 .. $#$argv - 2];
  while (@flags) {
    my $f = shift @flags;
    next if $f =~ /^-[eu]+$/;
    return 0 unless $f eq '-o' && @flags && shift(@flags) =~ /^(?:errexit|nounset|pipefail)$/;
  }
  return 1;
}
# The template of a shell started ahead from a warmshell request, unless a variable acts at start-up
# (BASH_ENV, ENV, SHELLOPTS, exported functions, ...).
sub warmable {
  my ($argv, $env, $cwd) = @_;
  for (keys %$env) { return undef if /^(?:BASH|ENV$|SHELLOPTS$|POSIXLY_CORRECT$|__svc)/ }
  return { prefix => [@$argv[0 .. $#$argv - 1]], cwd => $cwd, env => $env };
}
# The shell code that makes a shell started from template $t run this request exactly as a fresh
# "argv" would, or undef when it cannot: another shell or working directory, a special variable
# changed, or a standalone } in the command (its syntax check below wraps it in a function body).
# Checked in the shell: the working directory is still the same directory (else it was replaced since)
# and the command parses; if not, the shell execs the request's own argv, so errors read exactly as
# they do without a pre-started shell (and no variable ever shows in a command line).
sub warmcode {
  my ($t, $cwd, $out, $err, $argv, $env) = @_;
  my $p = $t->{prefix};
  return undef unless @$argv == @$p + 1 && $cwd eq $t->{cwd};
  for my $i (0 .. $#$p) { return undef unless $argv->[$i] eq $p->[$i] }
  my $cmd = $argv->[-1];
  return undef if $cmd =~ /(?:^|[\s;&|(])\}/;
  my ($old, %new, @set, @unset) = ($t->{env}, %$env);
  for (keys %$old) { push @unset, $_ unless exists $new{$_} }
  for (keys %new) { push @set, $_ unless exists $old->{$_} && $old->{$_} eq $new{$_} }
  for (@unset, @set) { return undef unless /^[A-Za-z_][A-Za-z0-9_]*$/ && $_ !~ $SPECIAL }
  my $c = cq($cwd);
  my @code = ('unset -v __svc_p', 'exec >>' . cq($out) . ($err eq $out ? ' 2>&1' : ' 2>>' . cq($err)));
  push @code, 'unset -v ' . join(' ', @unset) if @unset;
  push @code, 'export ' . join(' ', map { "$_=" . cq($new{$_}) } @set) if @set;
  # The request's own argv: the environment is already the request's but for what cd and start-up changed
  # (SHLVL is right as it is: exec passes it on one lower).
  my $cold = join('; ', (map { exists $new{$_} ? "export $_=" . cq($new{$_}) : "unset -v $_" } qw(PWD OLDPWD)), 'exec ' . join(' ', map { cq($_) } @$argv));
  push @code, "{ [ . -ef $c ] && eval " . cq("__svc_f() { $cmd\n}") . "; } 2>/dev/null || { cd -P -- $c && { $cold; }; exit 127; }";
  # $_ last: what a fresh shell starts with (the environment's _, else its argv[0]).
  push @code, 'unset -f __svc_f', 'SECONDS=0', 'BASH_EXECUTION_STRING=' . cq($cmd), ': ' . cq($new{_} // $argv->[0]), 'eval ' . cq($cmd);
  return join('; ', @code) . "\n#svc-end";
}
# The log files, created as a fresh process would open them: a pre-started shell only reopens them, and
# a failure is left to the fresh process, which reports it in the stderr log.
sub logsready {
  my ($cwd, @files) = @_;
  return 0 unless -d $cwd;
  for (@files) { sysopen(my $f, $_, O_WRONLY | O_CREAT | O_APPEND, 0666) or return 0; close $f; }
  return 1;
}
# A request to the pre-started shell: its process line first (it runs from the moment it reads its code).
sub warmstart {
  my ($cwd, $out, $err, $recfile, $key, $cmd, $argv, $env) = @_;
  my $code = warmcode($sparet, $cwd, $out, $err, $argv, $env);
  if (!defined $code || !logsready($cwd, $out, $err)) { dropspare(); return undef; }
  recordstart($recfile, $key, $cmd, $spare, $sparetk) if $recfile ne '';
  return handover($code);
}
sub start {
  my ($frame) = @_;
  my ($id, $cwd, $out, $err, $recfile, $key, $cmd, $argc, @env) = unpack('(N/a*)*', $frame);
  my @argv = splice(@env, 0, $argc);
  # The environment as a hash, only where a pre-started shell needs it (now, or for the next request).
  my $bash = warmshell(\@argv);
  my $env = $bash || defined $sparet ? envhash(\@env) : undef;
  my ($pid, $warm);
  if (defined $spare && defined $sparet) { $pid = warmstart($cwd, $out, $err, $recfile, $key, $cmd, \@argv, $env); $warm = defined $pid; }
  elsif (defined $spare) { $pid = handover(pack('N', length $frame) . $frame) }
  if (!defined $pid) {
    $pid = fork();
    return reply('F', $id, oneline("fork: $!")) unless defined $pid;
    if ($pid == 0) { detach(); run($cwd, $out, $err, $recfile, $key, $cmd, $argc, @argv, @env); }
  }
  unless ($warm) {
    $tmpl = $bash ? warmable(\@argv, $env, $cwd) : undef;
    %ENV = %{$tmpl->{env}} if defined $tmpl;
  }
  $ids{$pid} = [$id, $recfile, $key];
  reply('S', $id, $pid);
}
my $buf = '';
my $sel = IO::Select->new(\*STDIN, $sigr);
reply('R');
for (;;) {
  reap();
  forkspare() unless defined $spare;
  for my $fh ($sel->can_read(0.25)) {
    if ($fh == $sigr) { sysread($sigr, my $d, 512); next; }
    my $n = sysread(STDIN, $buf, 65536, length $buf);
    exit 0 unless $n;
    while (length($buf) >= 4) {
      my $len = unpack('N', $buf);
      last if length($buf) < 4 + $len;
      my $frame = substr($buf, 4, $len);
      substr($buf, 0, 4 + $len) = '';
      start($frame);
    }
  }
}
`;
