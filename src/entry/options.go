package main

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Options of `svc-entry run`.
type Options struct {
	Stdout, Stderr string     // log files (equal when the step's logOutput is merged)
	Result         string     // where the outcome is written (JSON, atomically); optional
	Commands       [][]string // argv of each command, run in order
	Script         string     // script text: written to a file whose path replaces ScriptArg
	ScriptArg      int        // index in the first command's argv of the script path (-1: none)
	Env            []string   // the commands' environment (nil: the entry's own)
	Dir            string     // the commands' working directory ("": the entry's own)
	StopSignal     syscall.Signal
	Timeout        time.Duration // 0: none
	Masks          []string      // values shown as ******* in every copy of the output
	Quiet          bool          // no copy to the container's streams (output that only its result may carry)
	SealKey        []byte        // stdout reaches the log sealed with this key (seal.go); nil: as it is
	MaxLine        int
	Upload         *Upload // logs and result to a bucket instead of files (upload.go)
	ErrorEnv       string  // env var naming the file where the command may leave its error message (svc run-step)
}

func parseRun(args []string) (*Options, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	o := &Options{ScriptArg: -1, StopSignal: syscall.SIGTERM, MaxLine: 64 * 1024}
	var commands, commandsEnv, stop, maskEnv, scriptEnv, uploadEnv, sealEnv string
	var timeoutMs int64
	fs.StringVar(&o.Stdout, "stdout", "", "stdout log file")
	fs.StringVar(&o.Stderr, "stderr", "", "stderr log file (the stdout one when merged)")
	fs.StringVar(&o.Result, "result", "", "result file")
	fs.StringVar(&commands, "commands", "", "JSON array of argv arrays")
	fs.StringVar(&commandsEnv, "commands-env", "", "env var holding --commands instead (commands that carry a secret stay out of argv)")
	fs.StringVar(&scriptEnv, "script-env", "", "env var holding the script text")
	fs.IntVar(&o.ScriptArg, "script-arg", -1, "index of the script path in the first command")
	fs.StringVar(&stop, "stop-signal", "SIGTERM", "signal the commands receive when the container is told to stop")
	fs.Int64Var(&timeoutMs, "timeout-ms", 0, "the step's timeout")
	fs.StringVar(&maskEnv, "mask-env", "", "comma-separated env vars each holding a JSON array of values to mask")
	fs.BoolVar(&o.Quiet, "quiet", false, "do not pass the output through to the container's streams")
	fs.StringVar(&sealEnv, "seal-env", "", "env var holding a key (base64, 32 bytes): stdout reaches the log sealed with it")
	fs.StringVar(&uploadEnv, "upload-env", "", "env var holding the upload grant (JSON): logs and result go to a bucket")
	fs.StringVar(&o.ErrorEnv, "error-file-env", "", "env var, set for the commands, naming a file where a failing command may leave its error message")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if commandsEnv != "" {
		commands = os.Getenv(commandsEnv)
	}
	if err := json.Unmarshal([]byte(commands), &o.Commands); err != nil || len(o.Commands) == 0 {
		return nil, errors.New("--commands must be a non-empty JSON array of argv arrays")
	}
	for _, argv := range o.Commands {
		if len(argv) == 0 {
			return nil, errors.New("--commands: an empty argv")
		}
	}
	sig, ok := signalByName(stop)
	if !ok {
		return nil, errors.New("--stop-signal: unknown signal " + stop)
	}
	o.StopSignal = sig
	o.Timeout = time.Duration(timeoutMs) * time.Millisecond
	masks, err := masksFromEnv(maskEnv)
	if err != nil {
		return nil, err
	}
	o.Masks = masks
	if scriptEnv != "" {
		o.Script = os.Getenv(scriptEnv)
	} else {
		o.ScriptArg = -1
	}
	if o.Stderr == "" {
		o.Stderr = o.Stdout
	}
	if uploadEnv != "" {
		up, err := parseUpload(os.Getenv(uploadEnv))
		if err != nil {
			return nil, err
		}
		o.Upload = up
	}
	if sealEnv != "" {
		if o.SealKey, err = sealKey(os.Getenv(sealEnv)); err != nil {
			return nil, err
		}
	}
	if uploadEnv != "" || commandsEnv != "" || sealEnv != "" {
		o.Env = environWithout(uploadEnv, commandsEnv, sealEnv) // the grant, key and command list are the entry's, not the commands'
	}
	return o, nil
}

var signals = map[string]syscall.Signal{
	"SIGHUP": syscall.SIGHUP, "SIGINT": syscall.SIGINT, "SIGQUIT": syscall.SIGQUIT, "SIGKILL": syscall.SIGKILL,
	"SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2, "SIGTERM": syscall.SIGTERM, "SIGALRM": syscall.SIGALRM,
	"SIGCONT": syscall.SIGCONT, "SIGSTOP": syscall.SIGSTOP, "SIGTSTP": syscall.SIGTSTP, "SIGWINCH": syscall.SIGWINCH,
	"SIGPIPE": syscall.SIGPIPE, "SIGABRT": syscall.SIGABRT,
}

func signalByName(name string) (syscall.Signal, bool) {
	n := strings.ToUpper(name)
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	s, ok := signals[n]
	return s, ok
}

func signalName(s syscall.Signal) string {
	for k, v := range signals {
		if v == s {
			return k
		}
	}
	return "SIG" + strings.TrimPrefix(s.String(), "signal ")
}

// environWithout is the entry's environment less the named variables.
func environWithout(names ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}

// masksFromEnv reads the values to mask: each named variable holds a JSON array of strings (a value may
// hold a newline, so a line-per-value list would mask it in pieces, unlike the engine).
func masksFromEnv(names string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(names, ",") {
		if name == "" || os.Getenv(name) == "" {
			continue
		}
		var values []string
		if err := json.Unmarshal([]byte(os.Getenv(name)), &values); err != nil {
			return nil, errors.New("--mask-env " + name + ": not a JSON array of strings")
		}
		for _, v := range values {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out, nil
}
