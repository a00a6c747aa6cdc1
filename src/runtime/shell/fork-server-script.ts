/**
 * The fork server: a small Perl program (perl-base only: POSIX, Fcntl, IO::Select, present wherever
 * Debian's essential packages are) that starts step processes for the engine (ADR 0004).
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
export const FORK_SERVER_SCRIPT = String.raw`
use strict; use warnings;
use POSIX ();
use Fcntl qw(O_WRONLY O_CREAT O_APPEND O_TRUNC O_RDONLY F_GETFL F_SETFL O_NONBLOCK);
use IO::Select;
$SIG{PIPE} = 'IGNORE';
$SIG{INT} = 'IGNORE';
binmode STDIN; binmode STDOUT;
pipe(my $sigr, my $sigw) or die "fork server: pipe: $!\n";
for my $h ($sigr, $sigw) { my $f = fcntl($h, F_GETFL, 0); fcntl($h, F_SETFL, $f | O_NONBLOCK); }
$SIG{CHLD} = sub { syswrite($sigw, 'x') };
my %ids;
my ($spare, $sparew);
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
sub reap {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $st = $?; my $req = delete $ids{$pid};
    if (!defined $req) { if (defined $spare && $pid == $spare) { undef $spare; close $sparew; } next; }
    my $sig = $st & 127;
    appendcode($req->[1], $req->[2], $sig ? 128 + $sig : $st >> 8);
    reply('X', $req->[0], $sig ? -1 : ($st >> 8), $sig);
  }
}
sub appendcode {
  my ($path, $key, $code) = @_;
  return if $path eq '';
  sysopen(my $x, $path, O_WRONLY | O_APPEND) or return;
  syswrite($x, "$key $code\n");
  close $x;
}
sub recordstart {
  my ($path, $key, $cmd) = @_;
  my $ticks = '';
  if (open(my $st, '<', '/proc/self/stat')) {
    my $l = <$st>; close $st;
    $ticks = (split / /, substr($l, rindex($l, ')') + 2))[19] // '';
  }
  sysopen(my $p, $path, O_WRONLY | O_CREAT | O_APPEND, 0666) or return;
  my @t = gmtime();
  syswrite($p, sprintf('%s {"pid":%d,"cmd":%d,"startTicks":"%s","startedAt":"%04d-%02d-%02dT%02d:%02d:%02d.000Z"}' . "\n",
    $key, $$, $cmd, $ticks, $t[5] + 1900, $t[4] + 1, @t[3, 2, 1, 0]));
  close $p;
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
  recordstart($recfile, $key, $cmd) if $recfile ne '';
  sysopen(my $i, '/dev/null', O_RDONLY) or $fail->("open /dev/null: $!");
  sysopen(my $o, $out, O_WRONLY | O_CREAT | O_APPEND, 0666) or $fail->("open $out: $!");
  $e = $o;
  if ($err ne $out) { undef $e; sysopen($e, $err, O_WRONLY | O_CREAT | O_APPEND, 0666) or $fail->("open $err: $!"); }
  chdir($cwd) or $fail->("chdir $cwd: $!");
  POSIX::dup2(fileno($i), 0); POSIX::dup2(fileno($o), 1); POSIX::dup2(fileno($e), 2);
  %ENV = map { my $k = index($_, '='); (substr($_, 0, $k) => substr($_, $k + 1)) } @$env;
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
sub forkspare {
  pipe(my $r, my $w) or return;
  my $pid = fork();
  if (!defined $pid) { close $r; close $w; return; }
  if ($pid == 0) {
    close $w; close $sparew if defined $sparew;
    detach();
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
  close $r;
  ($spare, $sparew) = ($pid, $w);
}
# The frame to the spare, its length first; a spare that could not take all of it is killed, never left to run.
sub handover {
  my ($frame) = @_;
  my $ok = writeall($sparew, pack('N', length $frame) . $frame);
  close $sparew;
  my $pid = $spare; undef $spare;
  return $pid if $ok;
  kill 'KILL', $pid;
  return undef;
}
sub start {
  my ($frame) = @_;
  my ($id, undef, undef, undef, $recfile, $key) = unpack('(N/a*)6', $frame);
  my $pid = defined $spare ? handover($frame) : undef;
  if (!defined $pid) {
    $pid = fork();
    return reply('F', $id, oneline("fork: $!")) unless defined $pid;
    if ($pid == 0) { detach(); my (undef, @req) = unpack('(N/a*)*', $frame); run(@req); }
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
