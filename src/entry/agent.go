package main

// `svc-entry agent --dir D`: the process of a run-scoped container (a DAG-level `container`). It runs the
// steps the operator asks for, each as `run` would, inside this container: a request is a JSON file
// D/requests/<id>.json (removed once read; its secret values are references, refs.go), a signal for a running step is a
// file D/signals/<id> holding the signal's name (`stop`: the step's stop signal). Every step's output is
// passed through to the container's streams too. SIGTERM stops every running step, and the agent exits
// once they have ended; so does the file D/stop.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Request is one step execution asked of the agent.
type Request struct {
	ID         string          `json:"id"`
	Stdout     string          `json:"stdout"`
	Stderr     string          `json:"stderr"`
	Result     string          `json:"result"`
	Commands   [][]Text        `json:"commands"`
	Script     *Text           `json:"script,omitempty"`
	ScriptArg  int             `json:"scriptArg"`
	StopSignal string          `json:"stopSignal"`
	TimeoutMs  int64           `json:"timeoutMs"`
	Masks      []Text          `json:"masks"`
	Env        map[string]Text `json:"env"`
	WorkingDir string          `json:"workingDir"`
}

type agent struct {
	dir     string
	mu      sync.Mutex
	running map[string]*runner
	wg      sync.WaitGroup
}

const pollEvery = 40 * time.Millisecond

func runAgent(args []string) int {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	dir := fs.String("dir", "", "the agent's directory (requests/, signals/)")
	if err := fs.Parse(args); err != nil || *dir == "" {
		fail("usage: svc-entry agent --dir DIR")
	}
	a := &agent{dir: *dir, running: map[string]*runner{}}
	for _, sub := range []string{"requests", "signals"} {
		if err := os.MkdirAll(filepath.Join(a.dir, sub), 0o755); err != nil {
			fail(err.Error())
		}
	}
	term := make(chan os.Signal, 2)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	fmt.Fprintln(os.Stderr, "svc-entry agent: ready in", a.dir)
	for {
		select {
		case <-term:
			return a.shutdown()
		case <-time.After(pollEvery):
		}
		if _, err := os.Stat(filepath.Join(a.dir, "stop")); err == nil {
			return a.shutdown()
		}
		a.takeRequests()
		a.takeSignals()
	}
}

func (a *agent) shutdown() int {
	a.mu.Lock()
	for _, r := range a.running {
		r.signal(syscall.SIGTERM, true)
	}
	a.mu.Unlock()
	a.wg.Wait()
	return 0
}

func (a *agent) takeRequests() {
	dir := filepath.Join(a.dir, "requests")
	names, _ := os.ReadDir(dir)
	sorted := make([]string, 0, len(names))
	for _, n := range names {
		if strings.HasSuffix(n.Name(), ".json") {
			sorted = append(sorted, n.Name())
		}
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		path := filepath.Join(dir, n)
		body, err := os.ReadFile(path)
		_ = os.Remove(path)
		if err != nil {
			continue
		}
		var req Request
		if err := json.Unmarshal(body, &req); err != nil || req.ID == "" {
			fmt.Fprintln(os.Stderr, "svc-entry agent: a bad request:", n, err)
			continue
		}
		a.start(req)
	}
}

func (a *agent) start(req Request) {
	o, err := req.options()
	var r *runner
	if err == nil {
		r, err = newRunner(o, os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "svc-entry agent: cannot run", req.ID+":", err)
		_ = writeResult(req.Result, Result{ExitCode: 64, Error: "the container's agent cannot run the step: " + err.Error(), StartedAt: now(), FinishedAt: now()})
		return
	}
	a.mu.Lock()
	a.running[req.ID] = r
	a.mu.Unlock()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		r.execute()
		a.mu.Lock()
		delete(a.running, req.ID)
		a.mu.Unlock()
	}()
}

func (a *agent) takeSignals() {
	dir := filepath.Join(a.dir, "signals")
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		if strings.HasPrefix(n.Name(), ".") {
			continue // a signal being written (renamed into place when whole)
		}
		a.mu.Lock()
		r := a.running[n.Name()]
		a.mu.Unlock()
		if r == nil && a.pending(n.Name()) {
			continue // its request came after this tick's look: the signal waits for the step to start
		}
		path := filepath.Join(dir, n.Name())
		body, err := os.ReadFile(path)
		_ = os.Remove(path)
		if err != nil || r == nil {
			continue
		}
		name := strings.TrimSpace(string(body))
		if name == "stop" {
			r.signal(syscall.SIGTERM, true)
		} else if sig, ok := signalByName(name); ok {
			r.signal(sig, sig == syscall.SIGKILL)
		}
	}
}

// pending: a request for this execution waits to be taken.
func (a *agent) pending(id string) bool {
	_, err := os.Stat(filepath.Join(a.dir, "requests", id+".json"))
	return err == nil
}

func (req Request) options() (*Options, error) {
	return req.resolve(os.LookupEnv, os.Environ())
}

// resolve: the step's options, its texts put together from the agent's reference variables (lookup).
func (req Request) resolve(lookup func(string) (string, bool), environ []string) (*Options, error) {
	if len(req.Commands) == 0 {
		return nil, errors.New("no commands")
	}
	o := &Options{Stdout: req.Stdout, Stderr: req.Stderr, Result: req.Result, ScriptArg: -1,
		StopSignal: syscall.SIGTERM, Timeout: time.Duration(req.TimeoutMs) * time.Millisecond, MaxLine: 64 * 1024, Dir: req.WorkingDir}
	for _, c := range req.Commands {
		argv, err := resolveAll(c, lookup)
		if err != nil {
			return nil, err
		}
		o.Commands = append(o.Commands, argv)
	}
	if req.Script != nil {
		script, err := req.Script.resolve(lookup)
		if err != nil {
			return nil, err
		}
		o.Script, o.ScriptArg = script, req.ScriptArg
	}
	if req.StopSignal != "" {
		sig, ok := signalByName(req.StopSignal)
		if !ok {
			return nil, errors.New("unknown stop signal " + req.StopSignal)
		}
		o.StopSignal = sig
	}
	masks, err := resolveAll(req.Masks, lookup)
	if err != nil {
		return nil, err
	}
	for _, m := range masks {
		if m != "" {
			o.Masks = append(o.Masks, m)
		}
	}
	if o.Stderr == "" {
		o.Stderr = o.Stdout
	}
	// The container's own environment (less the agent's reference variables), with the step's over it.
	env := inherited(environ)
	for k, t := range req.Env {
		v, err := t.resolve(lookup)
		if err != nil {
			return nil, err
		}
		env[k] = v
	}
	for k, v := range env {
		o.Env = append(o.Env, k+"="+v)
	}
	return o, nil
}
