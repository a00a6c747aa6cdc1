package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The state shared by the signal handler and the command loop.
type runner struct {
	opts     *Options
	files    []*os.File
	ship     *shipper // the logs' uploader, when they go to a bucket
	sealed   *sealedLog
	out, err *Tee
	mu       sync.Mutex
	pgid     int            // the running command's process group (0 between commands)
	stopped  syscall.Signal // set once the container was told to stop
	timedOut bool
}

func run(o *Options) int {
	var passOut, passErr io.Writer = os.Stdout, os.Stderr
	if o.Quiet {
		passOut, passErr = io.Discard, io.Discard
	}
	r, err := newRunner(o, passOut, passErr)
	if err != nil {
		fail(err.Error())
	}
	go r.forwardSignals()
	return r.execute().ExitCode
}

// newRunner opens the step's log files, or starts their uploader; its output also goes to passOut and passErr.
func newRunner(o *Options, passOut, passErr io.Writer) (*runner, error) {
	if o.Upload != nil {
		s := newShipper(o.Upload)
		outLog, errLog := s.writers()
		s.start()
		r := &runner{opts: o, ship: s}
		r.out, r.err = newTee(passOut, r.sealing(outLog), o.Masks, o.MaxLine), newTee(passErr, errLog, o.Masks, o.MaxLine)
		return r, nil
	}
	stdoutFile, err := openLog(o.Stdout)
	if err != nil {
		return nil, err
	}
	stderrFile := stdoutFile
	if o.Stderr != o.Stdout {
		if stderrFile, err = openLog(o.Stderr); err != nil {
			return nil, err
		}
	}
	r := &runner{opts: o, files: []*os.File{stdoutFile, stderrFile}}
	var outLog io.Writer = stdoutFile
	if stdoutFile != nil {
		outLog = r.sealing(stdoutFile)
	}
	r.out, r.err = newTee(passOut, outLog, o.Masks, o.MaxLine), newTee(passErr, stderrFile, o.Masks, o.MaxLine)
	return r, nil
}

// sealing is the stdout log as the commands' output reaches it: sealed when the entry has a key.
func (r *runner) sealing(log io.Writer) io.Writer {
	if r.opts.SealKey == nil {
		return log
	}
	r.sealed = &sealedLog{key: r.opts.SealKey, to: log}
	return r.sealed
}

// execute runs the commands (with the step's timeout) and records the result.
func (r *runner) execute() Result {
	o := r.opts
	started := now()
	if o.Timeout > 0 {
		t := time.AfterFunc(o.Timeout, r.timeout)
		defer t.Stop()
	}
	errorFile := r.errorFile()
	code, sig := r.commands()
	r.out.Flush()
	r.err.Flush()
	if r.sealed != nil {
		r.sealed.close()
	}
	res := Result{ExitCode: code, StartedAt: started, FinishedAt: now()}
	r.mu.Lock()
	if r.timedOut {
		res = Result{ExitCode: 124, TimedOut: true, Error: fmt.Sprintf("step timed out after %gs", o.Timeout.Seconds()), StartedAt: started, FinishedAt: res.FinishedAt}
	} else if sig != 0 {
		res.Signal = signalName(sig)
	} else if r.stopped != 0 && code != 0 {
		res.Signal = signalName(r.stopped)
	}
	r.mu.Unlock()
	if errorFile != "" {
		if msg := readError(errorFile, o.Masks); msg != "" && res.ExitCode != 0 && !res.TimedOut {
			res.Error = msg
		}
		_ = os.Remove(errorFile)
	}
	for _, f := range r.files {
		if f != nil {
			_ = f.Close()
		}
	}
	if err := writeResult(o.Result, res); err != nil {
		fmt.Fprintln(os.Stderr, "svc-entry: cannot record the result:", err)
	}
	if r.ship != nil {
		r.ship.finish(res)
	}
	return res
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// errorFile names, in the commands' environment, a file where a failing command may describe its
// failure (svc run-step does): the result's error is then that message rather than "exit status N".
func (r *runner) errorFile() string {
	if r.opts.ErrorEnv == "" {
		return ""
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("svc-step-error-%d", os.Getpid()))
	env := r.opts.Env
	if env == nil {
		env = os.Environ()
	}
	r.opts.Env = append(append([]string(nil), env...), r.opts.ErrorEnv+"="+path)
	return path
}

// readError is the message a command left (at most 4 KiB, masked, trimmed), or "".
func readError(path string, masks []string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 4096))
	return strings.TrimSpace(string(maskAll(b, masks)))
}

// commands runs each command in turn until one fails, is signalled, or the step is stopped.
func (r *runner) commands() (int, syscall.Signal) {
	argvs := r.opts.Commands
	if r.opts.ScriptArg >= 0 {
		path, err := writeScript(r.opts.Script)
		if err != nil {
			r.err.Note("cannot write the script: " + err.Error())
			return 127, 0
		}
		defer os.Remove(path)
		first := append([]string(nil), argvs[0]...)
		if r.opts.ScriptArg < len(first) {
			first[r.opts.ScriptArg] = path
		}
		argvs = append([][]string{first}, argvs[1:]...)
	}
	for _, argv := range argvs {
		if r.isStopped() {
			return 128 + int(r.stopped), r.stopped
		}
		code, sig := r.one(argv)
		if code != 0 || sig != 0 {
			return code, sig
		}
	}
	return 0, 0
}

func (r *runner) isStopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped != 0 || r.timedOut
}

// one runs a command in its own process group (a stop reaches everything it started), killed if
// the entry dies.
func (r *runner) one(argv []string) (int, syscall.Signal) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = nil
	cmd.Env = r.opts.Env
	cmd.Dir = r.opts.Dir
	cmd.Stdout = r.out
	cmd.Stderr = r.err
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	r.mu.Lock()
	if err := cmd.Start(); err != nil {
		r.mu.Unlock()
		r.err.Note(fmt.Sprintf("cannot start the step: %s", startError(argv[0], err)))
		return 127, 0
	}
	r.pgid = cmd.Process.Pid
	pending := r.stopped
	r.mu.Unlock()
	if pending != 0 {
		_ = syscall.Kill(-cmd.Process.Pid, pending)
	}
	err := cmd.Wait()
	r.mu.Lock()
	r.pgid = 0
	r.mu.Unlock()
	if err == nil {
		return 0, 0
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), ws.Signal()
		}
		return exit.ExitCode(), 0
	}
	r.err.Note("the step failed: " + err.Error())
	return 1, 0
}

func startError(file string, err error) string {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("exec: %q: no such file or directory", file)
	}
	return err.Error()
}

// forwardSignals: SIGTERM and SIGINT (the container is being stopped) become the step's stop signal;
// the others are passed on as they are.
func (r *runner) forwardSignals() {
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	for s := range ch {
		sig := s.(syscall.Signal)
		r.signal(sig, sig == syscall.SIGTERM || sig == syscall.SIGINT)
	}
}

// signal sends sig to the running command; `stop`: the step is being stopped (its stop signal is sent).
func (r *runner) signal(sig syscall.Signal, stop bool) {
	r.mu.Lock()
	if stop {
		if sig != syscall.SIGKILL {
			sig = r.opts.StopSignal
		}
		r.stopped = sig
	}
	pgid := r.pgid
	r.mu.Unlock()
	if pgid > 0 {
		_ = syscall.Kill(-pgid, sig)
	}
}

// timeout kills the running command, as the local launcher does.
func (r *runner) timeout() {
	r.mu.Lock()
	r.timedOut = true
	pgid := r.pgid
	r.mu.Unlock()
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
